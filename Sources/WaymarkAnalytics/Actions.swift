import WaymarkCatalog
import WaymarkStore

/// One button's presses in a period: how many users pressed it, how often, and where it led.
public struct ActionReport: Hashable, Sendable {
    /// The tip whose button it is, or the tour.
    public var owner: String
    /// The tour's page, for a tour's button; nil for a tip's.
    public var page: String?
    /// The button's id.
    public var action: String
    /// What it did: next, dismiss, tour, url or route (as the press reported it).
    public var kind: String?
    /// Where it led: the tour's id, the URL or the route; nil for next and dismiss.
    public var to: String?
    /// Distinct users who pressed it.
    public var users: Int
    /// Presses, counting each.
    public var presses: Int

    public init(owner: String, page: String?, action: String, kind: String?, to: String?, users: Int = 0, presses: Int = 0) {
        self.owner = owner
        self.page = page
        self.action = action
        self.kind = kind
        self.to = to
        self.users = users
        self.presses = presses
    }

    /// Whether it is a tour page's button.
    public var onTour: Bool { page != nil }
}

extension Analytics {
    static let actionEvents = ["tip_action", "tour_action"]

    /// Every button of the catalog (those nobody pressed with zero), in catalog order, then
    /// buttons of earlier versions that were pressed in the period. A button that led to several
    /// places over the period (its destination was edited) has a row per destination.
    public func actions(app: String, catalog: Catalog, period: Period) async throws -> [ActionReport] {
        let rows = try await store.tally(
            app: app,
            TallyQuery(
                period: period, names: Self.actionEvents,
                by: [.target, .property("page"), .property("action"), .property("kind"), .property("to")]))
        struct Key: Hashable {
            var owner: String
            var page: String?
            var action: String
        }
        var pressed: [Key: [ActionReport]] = [:]
        for row in rows {
            guard let owner = row.keys[0], let action = row.keys[2] else { continue }
            let page = row.name == "tour_action" ? row.keys[1] ?? "" : nil
            let key = Key(owner: owner, page: page, action: action)
            pressed[key, default: []].append(
                ActionReport(
                    owner: owner, page: page, action: action, kind: row.keys[3], to: row.keys[4], users: row.users, presses: row.events))
        }
        var reports: [ActionReport] = []
        func add(_ key: Key, _ action: Action) {
            let found = pressed.removeValue(forKey: key) ?? []
            let current = found.first { $0.to == action.effect.destination }
            reports.append(
                current
                    ?? ActionReport(
                        owner: key.owner, page: key.page, action: action.id, kind: action.effect.kind, to: action.effect.destination))
            reports += found.filter { $0 != current }.sorted { ($0.to ?? "") < ($1.to ?? "") }
        }
        for tip in catalog.tips {
            for action in tip.actions { add(Key(owner: tip.id, page: nil, action: action.id), action) }
        }
        for tour in catalog.tours {
            for page in tour.pages {
                for action in page.actions { add(Key(owner: tour.id, page: page.id, action: action.id), action) }
            }
        }
        let gone = pressed.values.flatMap { $0 }.sorted {
            ($0.onTour ? 1 : 0, $0.owner, $0.page ?? "", $0.action, $0.to ?? "") < (
                $1.onTour ? 1 : 0, $1.owner, $1.page ?? "", $1.action, $1.to ?? ""
            )
        }
        return reports + gone
    }
}
