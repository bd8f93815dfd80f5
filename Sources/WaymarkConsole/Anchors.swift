import Foundation
import Hummingbird
import WaymarkCatalog
import WaymarkEngine
import WaymarkServer
import WaymarkStore

/// What the app has: the anchors and screen areas its SDKs saw on each screen, for authors to
/// pick from instead of guessing the names developers gave them, and to check a tip against.
extension WaymarkConsole {
    /// `GET /console/apps/:app/anchors`: every name seen, by screen, with its platforms and when
    /// it was first and last seen.
    func anchorsPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let sightings = try await store.sightings(app: app.id)
        var values = frame("What the app has", signedIn, app: app)
        let screens = Dictionary(grouping: sightings, by: \.screen)
        values["screens"] = screens.keys.sorted().map { screen in
            let rows = SightingSummary.summaries(screens[screen] ?? [])
            // "New tip here": the form with the area (the screen's own, when it has one) and the name.
            let area = rows.first { $0.kind == .area && $0.name == screen }?.name ?? rows.first { $0.kind == .area }?.name
            func values(_ kind: Sighting.Kind) -> [[String: Any]] {
                rows.filter { $0.kind == kind }.map { row in
                    var values = row.values
                    var query = [kind == .area ? "container" : kind.rawValue: row.name]
                    if kind != .area, let area { query["container"] = area }
                    values["newTip"] =
                        "/console/apps/\(app.id)/new-tip?"
                        + query.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.queryValue($0.value))" }
                        .joined(separator: "&")
                    return values
                }
            }
            return ["screen": screen, "anchors": values(.anchor), "areas": values(.area), "selectors": values(.selector)] as [String: Any]
        }
        values["empty"] = sightings.isEmpty
        let draft = try await server.draftCatalog(app: app.id)?.catalog ?? Catalog(tips: [])
        values.merge(SightingCheck.values(SightingCheck(sightings).warnings(draft))) { $1 }
        return Templates.page("anchors", values)
    }

    /// Text as a URL query's value.
    static func queryValue(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_.~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// The tip form's offers: each area and anchor seen, with the screens it was seen on.
    func sightingOffers(app: String) async throws -> [String: Any] {
        let summaries = SightingSummary.summaries(try await store.sightings(app: app), byScreen: false)
        func offers(_ kind: Sighting.Kind) -> [[String: Any]] {
            summaries.filter { $0.kind == kind }.map { ["name": $0.name, "label": "seen on \($0.screens.joined(separator: ", "))"] }
        }
        return ["seenAreas": offers(.area), "seenAnchors": offers(.anchor)]
    }
}

/// One name as the console shows it: where and when it was seen, over every platform.
struct SightingSummary {
    var kind: Sighting.Kind
    var name: String
    var screens: [String]
    var platforms: [String]
    var firstSeen: Date
    var lastSeen: Date
    /// For a selector: the most elements it matched.
    var matches: Int?

    /// The names, one per screen (or one in all when `byScreen` is false), in name order.
    static func summaries(_ sightings: [Sighting], byScreen: Bool = true) -> [SightingSummary] {
        struct Key: Hashable {
            var kind: Sighting.Kind
            var name: String
            var screen: String?
        }
        let grouped = Dictionary(grouping: sightings) { Key(kind: $0.kind, name: $0.name, screen: byScreen ? $0.screen : nil) }
        return grouped.map { key, sightings in
            SightingSummary(
                kind: key.kind, name: key.name, screens: Set(sightings.map(\.screen)).sorted(),
                platforms: Set(sightings.map(\.platform)).sorted(),
                firstSeen: sightings.map(\.firstSeen).min() ?? .distantPast, lastSeen: sightings.map(\.lastSeen).max() ?? .distantPast,
                matches: sightings.compactMap(\.matches).max())
        }
        .sorted { ($0.kind.rawValue, $0.name) < ($1.kind.rawValue, $1.name) }
    }

    var values: [String: Any] {
        [
            "name": name, "platforms": platforms.joined(separator: ", "),
            "firstSeen": WaymarkConsole.format(firstSeen), "lastSeen": WaymarkConsole.format(lastSeen),
            "matches": matches.map(String.init) ?? "",
        ]
    }
}

extension SightingCheck {
    /// The template's values for `sighting-warnings`.
    static func values(_ warnings: [String]) -> [String: Any] {
        ["sightingWarnings": warnings, "hasSightingWarnings": !warnings.isEmpty]
    }
}
