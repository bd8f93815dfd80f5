import WaymarkEngine

/// What an SDK saw on one screen of the app, for authors to pick from (`POST /v1/anchors`): the
/// names of the anchors and screen areas the app's developers marked (on the web
/// `data-waymark-anchor` and `data-waymark-container`), never anything the user typed or sees, and
/// no user. SDKs send one per screen a day at most.
public struct AnchorReport: Codable, Hashable, Sendable {
    /// The SDK's platform: `web`, `ios`, `android`.
    public var platform: String
    /// The screen's name, as `screen:NAME` events have it.
    public var screen: String
    /// The anchors on the screen: names a tip's `anchor` can point at.
    public var anchors: [String]
    /// The screen areas on it: names a tip's `container` can be.
    public var areas: [String]
    /// How many elements the catalog's CSS selector anchors (a web tip's `selector`) match on the
    /// screen: the console warns of one that matches none anywhere, or several. Web only.
    public var selectors: [SelectorMatch]?

    /// A CSS selector and how many elements it matched.
    public struct SelectorMatch: Codable, Hashable, Sendable {
        /// The selector, as the catalog has it.
        public var selector: String
        /// How many elements it matched on the screen: 0 when none, or when the browser cannot read it.
        public var matches: Int

        /// A selector that matched `matches` elements.
        public init(selector: String, matches: Int) {
            self.selector = selector
            self.matches = matches
        }
    }

    /// At most this many selectors in one report.
    public static let maxSelectors = 50

    /// At most this many anchors, and as many areas, in one report.
    public static let maxNames = 200
    /// A name is at most this many bytes.
    public static let maxNameBytes = 128

    /// A report of what `screen` shows; ``problem`` says whether the server takes it.
    public init(platform: String, screen: String, anchors: [String], areas: [String], selectors: [SelectorMatch]? = nil) {
        self.platform = platform
        self.screen = screen
        self.anchors = anchors
        self.areas = areas
        self.selectors = selectors
    }

    /// What is wrong with the report, in words, or nil: a platform and a screen are names (letters,
    /// digits, `_` and `-`, up to 32 and 64), and anchors and areas are printable ASCII without
    /// spaces, `[`, `]` or `:`, up to ``maxNameBytes``, at most ``maxNames`` of each. An SDK leaves
    /// out a name it cannot report rather than lose the report. At most ``maxSelectors``
    /// selectors, each with 0 to 10,000 matches (``selectorProblem`` says whether each reads).
    public var problem: String? {
        guard Self.isWord(platform, 32) else { return "platform is a name of letters, digits, _ and -, up to 32" }
        guard Self.isWord(screen, 64) else {
            return "screen is a name of letters, digits, _ and -, up to 64, as screen:NAME events have it"
        }
        for (field, names) in [("anchors", anchors), ("areas", areas)] {
            guard names.count <= Self.maxNames else { return "at most \(Self.maxNames) \(field) in a report, not \(names.count)" }
            if let bad = names.first(where: { !Self.isName($0) }) {
                return
                    "\(field): \"\(bad.prefix(80))\" is not a name (1 to \(Self.maxNameBytes) printable ASCII characters, no spaces, [, ] or :)"
            }
        }
        let selectors = selectors ?? []
        guard selectors.count <= Self.maxSelectors else {
            return "at most \(Self.maxSelectors) selectors in a report, not \(selectors.count)"
        }
        if let bad = selectors.first(where: { !(0...10_000).contains($0.matches) }) {
            return "selectors: \"\(bad.selector.prefix(80))\" matched \(bad.matches) elements: 0 to 10000"
        }
        return nil
    }

    /// A selector of the report that is no CSS selector (`CSSSelector` in WaymarkEngine), in words, or nil. The
    /// SDKs send the catalog's own selectors, checked when it was published.
    public var selectorProblem: String? {
        for match in selectors ?? [] {
            if let problem = CSSSelector.problem(match.selector) { return "selectors: \"\(match.selector.prefix(80))\": \(problem)" }
        }
        return nil
    }

    static func isWord(_ text: String, _ limit: Int) -> Bool {
        (1...limit).contains(text.utf8.count)
            && text.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
            }
    }

    /// The names of `names` a report can carry, each once, in their order, at most ``maxNames``:
    /// what an SDK sends, leaving out a name the server would refuse rather than lose the report.
    public static func reportable(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return Array(names.filter { isName($0) && seen.insert($0).inserted }.prefix(maxNames))
    }

    /// Whether a name can be reported: 1 to ``maxNameBytes`` of `!` to `~` but `[`, `]` and `:`.
    public static func isName(_ text: String) -> Bool {
        (1...maxNameBytes).contains(text.utf8.count)
            && text.utf8.allSatisfy {
                (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "[") && $0 != UInt8(ascii: "]") && $0 != UInt8(ascii: ":")
            }
    }
}
