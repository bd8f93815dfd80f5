import WaymarkCatalog
import WaymarkEngine
import WaymarkStore

/// The catalog check against what the app has: a tip whose anchor or screen area no SDK ever
/// reported is saved, but said so, with the name it most likely meant. Says nothing of a kind
/// until some SDK reported names of that kind: an app whose SDKs report nothing yet is not warned
/// about every tip.
public struct SightingCheck: Sendable {
    let anchors: Set<String>
    let areas: Set<String>
    /// Each selector the web SDK tried, with how many elements it matched on each screen.
    let selectors: [String: [(screen: String, matches: Int)]]

    /// The check against these sightings.
    public init(_ sightings: [Sighting]) {
        anchors = Set(sightings.filter { $0.kind == .anchor }.map(\.name))
        areas = Set(sightings.filter { $0.kind == .area }.map(\.name))
        selectors = Dictionary(
            grouping: sightings.filter { $0.kind == .selector }.map { (screen: $0.screen, matches: $0.matches ?? 0, name: $0.name) },
            by: \.name
        ).mapValues { $0.map { (screen: $0.screen, matches: $0.matches) } }
    }

    /// The warnings for every tip of the catalog, in its order.
    public func warnings(_ catalog: Catalog) -> [String] {
        catalog.tips.flatMap { warnings($0) }
    }

    /// A tip's warnings: its area, then its anchor.
    public func warnings(_ tip: CatalogTip) -> [String] {
        warnings(tip: tip.id, container: tip.tip.container, anchor: tip.tip.anchor, selector: tip.selector, renderer: tip.renderer)
    }

    /// The warnings of a tip as a form has it: a banner and a modal point at nothing. A selector is
    /// checked where the web SDK tried it: one that matched nothing on any screen, or several
    /// elements on one (the tip points at the first).
    public func warnings(tip id: String, container: String?, anchor: String?, selector: String? = nil, renderer: Renderer?) -> [String] {
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
