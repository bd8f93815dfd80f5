import WaymarkAPI
import WaymarkStore

/// A tip whose anchor a renderer did not find on a screen: how often, and for how many users.
public struct MissingAnchor: Hashable, Sendable {
    public var tip: String
    /// The anchor as the tip named it when the renderer looked.
    public var anchor: String?
    /// The screen the app had last recorded; nil when it had recorded none.
    public var screen: String?
    /// `anchor_missing` events: at most one per tip and screen view.
    public var times: Int
    public var users: Int

    public init(tip: String, anchor: String?, screen: String?, times: Int, users: Int) {
        self.tip = tip
        self.anchor = anchor
        self.screen = screen
        self.times = times
        self.users = users
    }
}

extension Analytics {
    /// Where tips' anchors were missing in the period (``DeliveredTip/anchorMissingEvent``), per
    /// tip, anchor and screen, most frequent first; only `tip`'s when it is given.
    public func missingAnchors(app: String, period: Period, tip: String? = nil) async throws -> [MissingAnchor] {
        let rows = try await store.tally(
            app: app,
            TallyQuery(
                period: period, names: [DeliveredTip.anchorMissingEvent], by: [.target, .property("anchor"), .property("screen")]))
        return rows.compactMap { row -> MissingAnchor? in
            guard let owner = row.keys[0], tip == nil || owner == tip else { return nil }
            return MissingAnchor(tip: owner, anchor: row.keys[1], screen: row.keys[2], times: row.events, users: row.users)
        }
        .sorted { ($1.times, $0.tip, $0.screen ?? "") < ($0.times, $1.tip, $1.screen ?? "") }
    }
}
