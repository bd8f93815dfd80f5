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
            return [
                "screen": screen,
                "anchors": rows.filter { $0.kind == .anchor }.map(\.values),
                "areas": rows.filter { $0.kind == .area }.map(\.values),
                "selectors": rows.filter { $0.kind == .selector }.map(\.values),
            ] as [String: Any]
        }
        values["empty"] = sightings.isEmpty
        let draft = try await server.draftCatalog(app: app.id)?.catalog ?? Catalog(tips: [])
        values.merge(SightingCheck.values(SightingCheck(sightings).warnings(draft))) { $1 }
        return Templates.page("anchors", values)
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

/// The catalog check against what the app has: a tip whose anchor or screen area no SDK ever
/// reported is saved, but said so, with the name it most likely meant. Says nothing of a kind
/// until some SDK reported names of that kind: an app whose SDKs report nothing yet is not warned
/// about every tip.
struct SightingCheck {
    let anchors: Set<String>
    let areas: Set<String>
    /// Each selector the web SDK tried, with how many elements it matched on each screen.
    let selectors: [String: [(screen: String, matches: Int)]]

    init(_ sightings: [Sighting]) {
        anchors = Set(sightings.filter { $0.kind == .anchor }.map(\.name))
        areas = Set(sightings.filter { $0.kind == .area }.map(\.name))
        selectors = Dictionary(
            grouping: sightings.filter { $0.kind == .selector }.map { (screen: $0.screen, matches: $0.matches ?? 0, name: $0.name) },
            by: \.name
        ).mapValues { $0.map { (screen: $0.screen, matches: $0.matches) } }
    }

    /// The template's values for `sighting-warnings`.
    static func values(_ warnings: [String]) -> [String: Any] {
        ["sightingWarnings": warnings, "hasSightingWarnings": !warnings.isEmpty]
    }

    /// The warnings for every tip of the catalog, in its order.
    func warnings(_ catalog: Catalog) -> [String] {
        catalog.tips.flatMap { warnings($0) }
    }

    /// A tip's warnings: its area, then its anchor.
    func warnings(_ tip: CatalogTip) -> [String] {
        warnings(tip: tip.id, container: tip.tip.container, anchor: tip.tip.anchor, selector: tip.selector, renderer: tip.renderer)
    }

    /// The warnings of a tip as a form has it: a banner and a modal point at nothing. A selector is
    /// checked where the web SDK tried it: one that matched nothing on any screen, or several
    /// elements on one (the tip points at the first).
    func warnings(tip id: String, container: String?, anchor: String?, selector: String? = nil, renderer: Renderer?) -> [String] {
        var warnings: [String] = []
        // An area no screen marks is everywhere (the SDKs count it as shown): likely a typo when a
        // marked one is close, and worth knowing when none is.
        if !areas.isEmpty, let container, !areas.contains(container) {
            let close = Self.closest(container, areas).map { ": did you mean \"\($0)\"?" } ?? ""
            warnings.append("tip \(id): no screen marks the area \"\(container)\", so it can show on any screen" + close)
        }
        let pointed = renderer != .banner && renderer != .modal
        if pointed, !anchors.isEmpty, let text = anchor, let name = Anchor(text)?.name, !anchors.contains(name) {
            warnings.append("tip \(id): no screen has the anchor \"\(name)\" yet" + Self.suggestion(name, anchors))
        }
        if pointed, let selector, let tried = selectors[selector] {
            let screens = tried.map(\.screen).sorted()
            if let many = tried.filter({ $0.matches > 1 }).sorted(by: { $0.screen < $1.screen }).first {
                warnings.append(
                    "tip \(id): the selector \"\(selector)\" matches \(many.matches) elements on \(many.screen): the tip points at the first"
                )
            } else if tried.allSatisfy({ $0.matches == 0 }) {
                warnings.append("tip \(id): the selector \"\(selector)\" matched nothing on \(screens.joined(separator: ", "))")
            }
        }
        return warnings
    }

    /// ": did you mean …?" with the closest name seen, when one is within two edits.
    static func suggestion(_ name: String, _ seen: Set<String>) -> String {
        closest(name, seen).map { ": did you mean \"\($0)\"?" } ?? ": the app's screens have not shown it to Waymark's SDKs"
    }

    /// The name seen closest to `name`, when one is within two edits.
    static func closest(_ name: String, _ seen: Set<String>) -> String? {
        seen.map { ($0, editDistance(name, $0)) }.filter { $0.1 <= 2 }.min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
    }

    /// Levenshtein distance over characters.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let (a, b) = (Array(a), Array(b))
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
