import Foundation
import WaymarkEngine
import WaymarkRules
import WaymarkSupport
import Yams

/// Reads catalog files, YAML or JSON (JSON is read as YAML's flow style), and reports every
/// problem with its file, line and column, including errors inside rules:
///
/// ```yaml
/// frequency: immediate          # immediate, hourly, daily, weekly or monthly
/// locales: [hi]                 # every content and button has these too; lint warns of what lacks one
/// listen: [hi]                  # users in these locales hear every tip until they turn it off
/// segments:                     # named groups of users; targeting reads segment:<name>
///   - name: cod-buyers
///     summary: Paid cash on delivery for something over ₹10,000 lately
///     rule: user.codUser == true AND count(purchase where amount >= 10000) >= 1 within 30d
/// tips:
///   - id: search-tip
///     container: home
///     anchor: search-button     # or one of many: product[sku-42], product:visible, product:3
///                               # or, web only, instead: selector: "#checkout button.pay"
///     trigger: (tap:search AND activation) OR scroll
///     dismissal: tap:search
///     priority: 10
///     group: onboarding         # tips of a group show in `order`
///     order: 1
///     policy:
///       maxDisplayCount: 3
///       maxDisplayDuration: 30s # or a number of seconds
///       expiresAt: 2027-01-01T00:00:00Z
///     renderer: pointer         # tooltip, spotlight, pointer, banner, modal or hotspot (a marker; needs an anchor)
///     gesture: tap              # a pointer's: tap, double-tap, swipe-left/right/up/down, long-press
///     targeting: device.platform in ["ios", "android"] AND app.version >= v1.3 AND NOT segment:cod-buyers
///     rollout: 50               # percent of users, by a sticky hash of the user id
///     content:
///       title: Search
///       body: Tap the **magnifier** to find any product.   # Markdown; or html: <p>...</p>
///       audio: https://cdn.example.com/search-en.opus   # or recording:KEY, uploaded in the console
///       locales:
///         hi: { title: खोजें, body: किसी भी उत्पाद को खोजने के लिए आवर्धक पर टैप करें। }
///     variants:                 # A/B: each variant its own content
///       - { id: short, weight: 1, content: { title: Search, body: Tap here. } }
///     actions:                  # up to 3 buttons; each press is the event tip_action:search-tip
///       - { id: search, label: Search now, route: /search, locales: { hi: अभी खोजें } }  # to the app
///       - { id: later, label: Later, do: dismiss }   # or do: next (in a group), tour: ID, url: https://...
///   - id: checkout-survey       # a survey: the title is the question
///     container: home
///     trigger: tap:pay
///     survey: { scale: csat, comment: true }   # csat (1-5) or nps (0-10); comment: offer one
///     content: { title: How easy was paying? }
///     # dismissal defaults to survey_answered:checkout-survey: once answered, it is done
/// tours:
///   - id: welcome
///     trigger: screen:home
///     targeting: app.version >= v1.2
///     screens: [home]           # where the help lists it; none: every screen
///     pages:
///       - id: basics
///         content: { title: Basics, body: ... }
///         media: intro-video
///         reward: 1
///         minReadingSeconds: 20 # the credit needs 20 s from opening the page to its bottom
///         actions: [{ id: skip, label: Skip the tour, do: dismiss }]   # tour_action:welcome
/// checklists:                 # first steps, each done when its rule holds; shown with progress
///   - id: first-steps
///     content: { title: Get started, body: Four steps to your first order }
///     trigger: activation       # when it is offered; default: from the first visit
///     screens: [home, product]  # where the help lists it; none: every screen
///     reward: 10                # credits on completing it, once
///     items:                    # up to 12
///       - { id: browse, content: { title: Look at a product }, done: screen:product, tour: welcome }
///       - { id: address, content: { title: Save an address }, done: screen:address-saved, tip: address-tip }
/// articles:                   # help the launcher lists and finds, in the user's language
///   - id: delivery-times
///     content: { title: When will my order arrive?, body: Most orders arrive in 3 days. }
///     screens: [cart, checkout]   # where it is listed first; none: every screen
///     keywords: [delivery, shipping, डिलीवरी]
/// media:
///   - id: intro-video
///     variants:
///       - { url: https://cdn.example.com/intro-iphone.mp4, family: iPhone, minAppVersion: 1.2 }
///       - { url: https://cdn.example.com/intro.mp4 }
/// rewards:
///   maxCreditsPerUser: 100
///   requireReading: true      # default: a credit needs the page's page_read_to_bottom stored first
/// narration:                  # speak content that has no audio, with espeak-ng
///   language: en              # the default content's language; locales speak their own
///   speed: 150                # words per minute, 80 to 400
/// theme:                      # the app's look (``Theme``); what is left out stays Waymark's
///   surface: "#ffffff"        # text and accent at 4.5:1 on the surface, focus at 3:1
///   text: "#1f2933"
///   accent: "#0b5cad"         # links and buttons
///   focus: "#b35c00"
///   font: Noto Sans
///   radius: 8                 # points, 0 to 24
///   spacing: 14               # points, 4 to 24
///   dark: { surface: "#1d2a44", text: "#ffffff", accent: "#9cd3ff", focus: "#ffbf47" }
/// # a tip may have its own theme: (colours, font, radius, spacing) over the catalog's
/// ```
public enum CatalogDocument {
    /// Parses a catalog; throws ``DiagnosticsError`` with every problem found.
    public static func parse(_ text: String, file: String) throws(DiagnosticsError) -> Catalog {
        try check(text, file: file).catalog
    }

    /// Parses a catalog and answers it with the warnings about it (content that lacks a locale
    /// the catalog declares); throws ``DiagnosticsError`` with every error found.
    public static func check(_ text: String, file: String) throws(DiagnosticsError) -> (catalog: Catalog, warnings: [Diagnostic]) {
        var reader = CatalogReader(text: text, file: file)
        let catalog = reader.read()
        if let catalog, reader.diagnostics.isEmpty { return (catalog, reader.warnings) }
        throw DiagnosticsError(reader.diagnostics)
    }

    /// Whether `text` can be an id (of a tip, tour, page, variant or button): letters, digits, `-`,
    /// `_` and `.`.
    public static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy(isIdentifierScalar)
    }

    /// Whether a catalog may link to this: an http or https URL with a host.
    public static func isWebURL(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else { return false }
        return (scheme == "https" || scheme == "http") && components.host?.isEmpty == false
    }

    /// One tip, as the admin API's per-object endpoints take it: the YAML or JSON of one entry of
    /// `tips`.
    public static func parseTip(_ text: String, file: String) throws(DiagnosticsError) -> CatalogTip {
        try parseOne(text, file: file) { $0.readTip($1) }
    }

    /// One tour; its pages may name only the media in `mediaIDs`.
    public static func parseTour(_ text: String, file: String, mediaIDs: Set<String>) throws(DiagnosticsError) -> Tour {
        try parseOne(text, file: file) { $0.readTour($1, mediaIDs: mediaIDs) }
    }

    public static func parseMedia(_ text: String, file: String) throws(DiagnosticsError) -> Media {
        try parseOne(text, file: file) { $0.readMedia($1) }
    }

    /// One entry of `checklists`; the tours and tips its items start are checked when it joins a
    /// catalog.
    public static func parseChecklist(_ text: String, file: String) throws(DiagnosticsError) -> Checklist {
        try parseOne(text, file: file) { $0.readChecklist($1) }
    }

    /// One entry of `articles`.
    public static func parseArticle(_ text: String, file: String) throws(DiagnosticsError) -> Article {
        try parseOne(text, file: file) { $0.readArticle($1) }
    }

    /// One entry of `segments`.
    public static func parseSegment(_ text: String, file: String) throws(DiagnosticsError) -> Segment {
        try parseOne(text, file: file) { $0.readSegment($1) }
    }

    private static func parseOne<T>(
        _ text: String, file: String, _ read: (inout CatalogReader, Node) -> T?
    ) throws(DiagnosticsError) -> T {
        var reader = CatalogReader(text: text, file: file)
        let value = reader.root().flatMap { read(&reader, $0) }
        if let value, reader.diagnostics.isEmpty { return value }
        throw DiagnosticsError(reader.diagnostics)
    }

    /// Reads and parses a catalog file.
    public static func load(path: String) throws(DiagnosticsError) -> Catalog {
        try loadChecking(path: path).catalog
    }

    /// Reads and parses a catalog file, answering it with its warnings (see ``check(_:file:)``).
    public static func loadChecking(path: String) throws(DiagnosticsError) -> (catalog: Catalog, warnings: [Diagnostic]) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DiagnosticsError([Diagnostic(file: path, line: 1, column: 1, message: "cannot read the file")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw DiagnosticsError([Diagnostic(file: path, line: 1, column: 1, message: "the file is not UTF-8 text")])
        }
        return try check(text, file: path)
    }
}

private let tipKeys = [
    "id", "container", "anchor", "selector", "trigger", "dismissal", "priority", "group", "order", "policy", "renderer", "gesture", "theme",
    "content", "targeting", "rollout", "variants", "survey", "actions",
]
private let actionKeys = ["id", "label", "locales", "style", "do", "tour", "url", "route"]
private let textKeys = ["title", "body", "html", "audio"]
private let contentKeys = textKeys + ["locales"]
private let tourKeys = ["id", "trigger", "targeting", "rollout", "screens", "pages"]
private let segmentKeys = ["name", "summary", "rule"]
private let pageKeys = ["id", "content", "media", "reward", "minReadingSeconds", "actions"]
private let checklistKeys = ["id", "content", "trigger", "targeting", "rollout", "screens", "reward", "items"]
private let checklistItemKeys = ["id", "content", "done", "tour", "tip"]
private let articleKeys = ["id", "content", "screens", "keywords", "targeting", "rollout"]
private let mediaVariantKeys = ["url", "thumbnail", "type", "model", "family", "minAppVersion", "locale"]
/// The client context targeting rules read; besides these, any user attribute, `user.<name>`.
public let targetingPaths: Set<String> = ["device.platform", "device.model", "app.version", "user.locale", "user.id"]
private let policyKeys = ["maxDisplayCount", "maxDisplayDuration", "expiresAt"]

private struct CatalogReader {
    let text: String
    let file: String
    let lines: [Substring]
    var diagnostics: [Diagnostic] = []
    var warnings: [Diagnostic] = []
    /// The locales the catalog declares (`locales: [hi]`): every content and button should have
    /// them, and a warning names each that does not.
    var declaredLocales: [String] = []
    /// The catalog's segments, once read; nil while reading one object alone, whose targeting
    /// is checked against them when it joins a catalog.
    var knownSegments: Set<String>?
    /// The catalog's theme, once read: a tip's own theme must be legible over it.
    var catalogTheme: Theme?
    /// The actions and checklist items that open a tour, checked against the catalog's tours once
    /// they are read; the items that show a tip, against its tips.
    var tourActions: [(node: Node, tour: String)] = []
    var checklistTips: [(node: Node, tip: String)] = []

    init(text: String, file: String) {
        self.text = text
        self.file = file
        self.lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    /// The document's root node, or nil (reported) when the text is not YAML or JSON.
    mutating func root() -> Node? {
        do {
            guard let root = try Yams.compose(yaml: text) else {
                fail(line: 1, column: 1, "the document is empty")
                return nil
            }
            return root
        } catch let error as YamlError {
            report(error)
        } catch {
            fail(line: 1, column: 1, "cannot read the file as YAML or JSON")
        }
        return nil
    }

    mutating func read() -> Catalog? {
        guard let root = root() else { return nil }
        guard let mapping = root.mapping else {
            fail(at: root, "a catalog is a mapping with the keys frequency and tips")
            return nil
        }
        checkKeys(
            mapping,
            allowed: [
                "frequency", "locales", "listen", "segments", "tips", "tours", "checklists", "articles", "media", "rewards", "narration",
                "theme", "struggles",
            ])
        declaredLocales = mapping["locales"].map { readLocales($0, "locales") } ?? []
        let listen = mapping["listen"].map { readLocales($0, "listen") } ?? []
        // Segments first: targeting anywhere in the catalog may name them.
        let segments = mapping["segments"].map { list($0, "segments") { $0.readSegment($1) } } ?? []
        knownSegments = Set(segments.map(\.name))
        if let node = mapping["segments"] {
            var seen: Set<String> = []
            for element in node.sequence ?? [] {
                guard let nameNode = element.mapping?["name"], let name = nameNode.string else { continue }
                if !seen.insert(name).inserted { fail(at: nameNode, "a second segment named \"\(name)\"") }
            }
        }
        var frequency = DisplayFrequency.immediate
        if let node = mapping["frequency"] {
            if let value = node.string.flatMap(DisplayFrequency.init(rawValue:)) {
                frequency = value
            } else {
                fail(at: node, "unknown frequency", expected: "immediate, hourly, daily, weekly or monthly")
            }
        }
        if let node = mapping["theme"], let theme = readTheme(node, dark: true) {
            for problem in theme.contrastProblems { fail(at: node, "theme: \(problem)") }
            catalogTheme = theme
        }
        guard let tipsNode = mapping["tips"] else {
            fail(at: root, "the catalog has no tips", expected: "a key tips with a list of tips")
            return nil
        }
        guard let sequence = tipsNode.sequence else {
            fail(at: tipsNode, "tips must be a list")
            return nil
        }
        var tips: [CatalogTip] = []
        var seen: [String: Node] = [:]
        var groupOrders: [String: [Int: String]] = [:]
        for node in sequence {
            if let idNode = node.mapping?["id"], let id = idNode.string {
                if seen[id] != nil { fail(at: idNode, "a second tip with the id \"\(id)\"") }
                seen[id] = idNode
            }
            guard let entry = readTip(node) else { continue }
            let tip = entry.tip
            if let group = tip.group {
                if let other = groupOrders[group]?[tip.order] {
                    fail(
                        at: node.mapping?["order"] ?? node,
                        "tips \"\(other)\" and \"\(tip.id)\" of group \"\(group)\" have the same order \(tip.order)"
                    )
                }
                groupOrders[group, default: [:]][tip.order] = tip.id
            }
            tips.append(entry)
        }
        let media = mapping["media"].map { list($0, "media") { $0.readMedia($1) } } ?? []
        let mediaIDs = Set(media.map(\.id))
        let tours = mapping["tours"].map { list($0, "tours") { $0.readTour($1, mediaIDs: mediaIDs) } } ?? []
        uniqueIDs(media.map(\.id), in: mapping["media"], "media")
        uniqueIDs(tours.map(\.id), in: mapping["tours"], "tour")
        let checklists = mapping["checklists"].map { list($0, "checklists") { $0.readChecklist($1) } } ?? []
        uniqueIDs(checklists.map(\.id), in: mapping["checklists"], "checklist")
        let articles = mapping["articles"].map { list($0, "articles") { $0.readArticle($1) } } ?? []
        uniqueIDs(articles.map(\.id), in: mapping["articles"], "article")
        let tipIDs = Set(tips.map(\.id))
        for (node, tip) in checklistTips where !tipIDs.contains(tip) {
            fail(at: node, "no tip with the id \"\(tip)\"")
        }
        let tourIDs = Set(tours.map(\.id))
        for (node, tour) in tourActions where !tourIDs.contains(tour) {
            fail(
                at: node, "no tour with the id \"\(tour)\"",
                expected: tourIDs.isEmpty ? "a tour defined under tours" : "one of \(tourIDs.sorted().joined(separator: ", "))")
        }
        let rewards = mapping["rewards"].map { readRewards($0) } ?? RewardPolicy()
        let narration = mapping["narration"].flatMap { readNarration($0) }
        let struggles = mapping["struggles"].map { readStruggles($0) } ?? StruggleThresholds()
        return Catalog(
            frequency: frequency, locales: declaredLocales, segments: segments, tips: tips, tours: tours, checklists: checklists,
            articles: articles, media: media, rewards: rewards, narration: narration, listen: listen, theme: catalogTheme,
            struggles: struggles)
    }

    /// A list of locales (`[hi, ta]`), each checked.
    mutating func readLocales(_ node: Node, _ key: String) -> [String] {
        guard let elements = node.sequence else {
            fail(at: node, "\(key) must be a list of locales", expected: "such as [hi, ta]")
            return []
        }
        var locales: [String] = []
        for element in elements {
            guard let locale = element.string, isLocale(locale) else {
                fail(at: element, "\"\(element.string ?? "")\" is not a locale", expected: "such as hi, ta or pt-BR")
                continue
            }
            locales.append(locale)
        }
        return locales
    }

    /// Reads a list with `read` for each element, skipping the ones that fail.
    mutating func list<T>(_ node: Node, _ key: String, _ read: (inout CatalogReader, Node) -> T?) -> [T] {
        guard let sequence = node.sequence else {
            fail(at: node, "\(key) must be a list")
            return []
        }
        return sequence.compactMap { read(&self, $0) }
    }

    mutating func uniqueIDs(_ ids: [String], in node: Node?, _ kind: String) {
        var seen: Set<String> = []
        for (index, id) in ids.enumerated() where !seen.insert(id).inserted {
            let element = node?.sequence.flatMap { index < $0.count ? Array($0)[index] : nil }
            fail(at: element?.mapping?["id"] ?? element ?? node, "a second \(kind) with the id \"\(id)\"")
        }
    }

    mutating func readTip(_ node: Node) -> CatalogTip? {
        guard let mapping = mapping(node, "a tip", keys: tipKeys, expected: "keys such as id, container and trigger") else { return nil }
        let id = requiredName(mapping, "id", in: node)
        let container = requiredName(mapping, "container", in: node)
        let anchor = mapping["anchor"].flatMap { node in
            string(node, "anchor").flatMap { text -> String? in
                guard Anchor(text) == nil else { return text }
                fail(at: node, "anchor \"\(text)\" names no element", expected: Anchor.expectedForm)
                return nil
            }
        }
        let trigger: Rule? =
            if let triggerNode = mapping["trigger"] { rule(triggerNode) } else {
                missing("trigger", in: node)
            }
        let survey = mapping["survey"].flatMap { readSurvey($0, tip: id) }
        var dismissal = mapping["dismissal"].flatMap { rule($0) }
        if let id, survey != nil, mapping["dismissal"] == nil { dismissal = Survey.answered(tip: id) }
        let priority = mapping["priority"].flatMap { integer($0, "priority") } ?? 0
        let group = mapping["group"].flatMap { string($0, "group") }
        let order = mapping["order"].flatMap { integer($0, "order") } ?? 0
        let policy = mapping["policy"].map { readPolicy($0) } ?? DisplayPolicy()
        var renderer = Renderer.tooltip
        if let node = mapping["renderer"] {
            renderer = oneOf(node, "renderer", Renderer.allCases) ?? .tooltip
        }
        let gesture: Gesture? = mapping["gesture"].flatMap { oneOf($0, "gesture", Gesture.allCases) }
        if gesture != nil && renderer != .pointer, let node = mapping["gesture"] {
            fail(at: node, "only a pointer shows a gesture", expected: "renderer: pointer")
        }
        let selector = mapping["selector"].flatMap { node in
            string(node, "selector").flatMap { text -> String? in
                guard let problem = CSSSelector.problem(text) else { return text }
                fail(
                    at: node, "selector \"\(text.prefix(80))\" is not a CSS selector: \(problem)",
                    expected: "a CSS selector such as #checkout button.pay")
                return nil
            }
        }
        if mapping["anchor"] != nil, let node = mapping["selector"] {
            fail(at: node, "a tip points at one element: by its anchor or by a selector, not both", expected: "anchor or selector")
        }
        if renderer == .hotspot && anchor == nil && mapping["anchor"] == nil && mapping["selector"] == nil {
            fail(at: mapping["renderer"] ?? node, "a hotspot marks an element: it needs an anchor or a selector")
        }
        let content = requiredContent(mapping, in: node, of: "tip")
        let targeting = readTargeting(mapping)
        let variants = mapping["variants"].map { list($0, "variants") { $0.readVariant($1) } } ?? []
        uniqueIDs(variants.map(\.id), in: mapping["variants"], "variant")
        let actions = mapping["actions"].map { readActions($0, next: group != nil) } ?? []
        // A tip's theme is read over the catalog's: together they must still be legible.
        let theme = mapping["theme"].flatMap { readTheme($0, dark: true) }
        if let theme, let node = mapping["theme"] {
            for problem in theme.over(catalogTheme ?? Theme()).contrastProblems { fail(at: node, "theme: \(problem)") }
        }
        guard let id, let container, let trigger, let content else { return nil }
        let tip = Tip(
            id: id, container: container, anchor: anchor, trigger: trigger, dismissal: dismissal, priority: priority,
            group: group, order: order, policy: policy
        )
        return CatalogTip(
            tip: tip, renderer: renderer, gesture: gesture, selector: selector, content: content, targeting: targeting, variants: variants,
            survey: survey, actions: actions, theme: theme
        )
    }

    /// A tip's or page's buttons; `next` says whether one may go to the next step (a tip outside
    /// a group has none).
    mutating func readActions(_ node: Node, next: Bool) -> [Action] {
        let actions = list(node, "actions") { $0.readAction($1, next: next) }
        uniqueIDs(actions.map(\.id), in: node, "action")
        if let sequence = node.sequence, sequence.count > Action.limit {
            fail(at: Array(sequence)[Action.limit], "a tip or page has at most \(Action.limit) buttons")
        }
        // Unless the author says, the first button is the main one and the others its alternatives.
        return actions.enumerated().map { index, action in
            var action = action
            if node.sequence.flatMap({ index < $0.count ? Array($0)[index].mapping?["style"] : nil }) == nil {
                action.style = index == 0 ? .primary : .secondary
            }
            return action
        }
    }

    mutating func readAction(_ node: Node, next: Bool) -> Action? {
        guard let mapping = mapping(node, "an action", keys: actionKeys, expected: "id, label, and one of do, tour, url, route") else {
            return nil
        }
        let id = requiredName(mapping, "id", in: node)
        var label: Localized<String>?
        if let labelNode = mapping["label"] {
            label = buttonLabel(labelNode).map { Localized($0) }
        } else {
            fail(at: node, "label is missing")
        }
        if let localesNode = mapping["locales"] {
            if let entries = localesNode.mapping {
                for (key, value) in entries {
                    guard let locale = key.string, isLocale(locale) else {
                        fail(at: key, "\"\(key.string ?? "")\" is not a locale", expected: "such as hi, ta or pt-BR")
                        continue
                    }
                    if let text = buttonLabel(value) { label?.locales[locale] = text }
                }
            } else {
                fail(at: localesNode, "locales must be a mapping from a locale such as hi to the label in it")
            }
        }
        if let label { warnUntranslated(label.locales.keys, at: mapping["label"] ?? node, "button \"\(id ?? "")\"", "label") }
        let style = mapping["style"].flatMap { oneOf($0, "style", Action.Style.allCases) } ?? .primary
        let effects = ["do", "tour", "url", "route"].compactMap { key in mapping[key].map { (key, $0) } }
        guard effects.count == 1, let (key, effectNode) = effects.first else {
            fail(
                at: effects.dropFirst().first?.1 ?? node, effects.isEmpty ? "an action says what it does" : "an action does one thing",
                expected: "one of do: next, do: dismiss, tour: ID, url: https://..., route: /path")
            return nil
        }
        guard let target = string(effectNode, key) else { return nil }
        var effect: Action.Effect?
        switch Action.effect(kind: key == "do" ? target : key, to: key == "do" ? nil : target, next: next) {
        case .success(let found):
            effect = found
            if case .tour(let tour) = found { tourActions.append((effectNode, tour)) }
        case .failure(let problem):
            fail(at: effectNode, problem.message, expected: problem.expected)
        }
        guard let id, let label, let effect else { return nil }
        return Action(id: id, label: label, effect: effect, style: style)
    }

    mutating func buttonLabel(_ node: Node) -> String? {
        guard let text = string(node, "label") else { return nil }
        if let problem = Action.labelProblem(text) {
            fail(at: node, problem)
            return nil
        }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    mutating func readSurvey(_ node: Node, tip id: String?) -> Survey? {
        guard let mapping = mapping(node, "survey", keys: ["scale", "comment"]) else { return nil }
        let scale: Survey.Scale? =
            if let scaleNode = mapping["scale"] { oneOf(scaleNode, "scale", Survey.Scale.allCases) } else {
                missing("scale", in: node)
            }
        let comment = mapping["comment"].flatMap { flag($0, "comment") } ?? false
        if let problem = id.flatMap(Survey.idProblem) { fail(at: node, problem) }
        return scale.map { Survey(scale: $0, comment: comment) }
    }

    /// The `content` of a tip, variant or page, which each must have.
    /// `kind` (tip, variant, page, checklist, item, article) names it in a warning.
    mutating func requiredContent(_ mapping: Node.Mapping, in node: Node, of kind: String) -> Localized<Content>? {
        guard let contentNode = mapping["content"] else { return missing("content", in: node) }
        let content = readContent(contentNode)
        if let content { warnUntranslated(content.locales.keys, at: contentNode, "\(kind) \"\(mapping["id"]?.string ?? "")\"", "content") }
        return content
    }

    /// Warns, naming `owner`, of each declared locale that `locales` lacks (`hi-IN` counts for `hi`).
    mutating func warnUntranslated(_ locales: some Collection<String>, at node: Node, _ owner: String, _ what: String) {
        let missing = declaredLocales.filter { declared in !locales.contains { $0 == declared || $0.hasPrefix(declared + "-") } }
        guard !missing.isEmpty, let mark = node.mark else { return }
        let lineText = mark.line - 1 < lines.count ? String(lines[mark.line - 1]) : nil
        var warning = Diagnostic(
            file: file, line: mark.line, column: mark.column,
            message: "\(owner) has no \(missing.joined(separator: ", ")) \(what), which the catalog's locales promise", lineText: lineText)
        warning.isWarning = true
        warnings.append(warning)
    }

    mutating func readContent(_ node: Node) -> Localized<Content>? {
        guard let mapping = mapping(node, "content", keys: contentKeys) else { return nil }
        guard let fallback = readText(mapping, in: node) else { return nil }
        var locales: [String: Content] = [:]
        if let localesNode = mapping["locales"] {
            guard let entries = localesNode.mapping else {
                fail(at: localesNode, "locales must be a mapping from a locale such as hi or hi-IN to title and body")
                return nil
            }
            for (key, value) in entries {
                guard let locale = key.string, isLocale(locale) else {
                    fail(at: key, "\"\(key.string ?? "")\" is not a locale", expected: "such as hi, ta or pt-BR")
                    continue
                }
                guard let valueMapping = value.mapping else {
                    fail(at: value, "a locale's content must be a mapping", expected: "title, body, audio")
                    continue
                }
                checkKeys(valueMapping, allowed: textKeys)
                if let text = readText(valueMapping, in: value) { locales[locale] = text }
            }
        }
        return Localized(fallback, locales: locales)
    }

    mutating func readText(_ mapping: Node.Mapping, in node: Node) -> Content? {
        guard let titleNode = mapping["title"] else {
            fail(at: node, "the content has no title")
            return nil
        }
        let title = string(titleNode, "title") ?? ""
        let audio = mapping["audio"].flatMap { readAudio($0) }
        if let htmlNode = mapping["html"] {
            if mapping["body"] != nil { fail(at: htmlNode, "content has a body (Markdown) or html, not both") }
            return Content(title: title, html: bodyText(htmlNode, "html") ?? "", audio: audio)
        }
        return Content(title: title, markdown: mapping["body"].flatMap { bodyText($0, "body") } ?? "", audio: audio)
    }

    /// A body, up to 64 KB: a tip or page, not a book.
    mutating func bodyText(_ node: Node, _ key: String) -> String? {
        guard let text = string(node, key) else { return nil }
        guard text.utf8.count <= 65_536 else {
            fail(at: node, "\(key) is \(text.utf8.count) bytes; the most is 65536")
            return nil
        }
        return text
    }

    mutating func readTargeting(_ mapping: Node.Mapping) -> Targeting {
        var targeting = Targeting()
        if let node = mapping["targeting"], let rule = rule(node) {
            if let problem = targetingProblem(rule) {
                fail(at: node, problem)
            } else if let known = knownSegments, let unknown = segmentNames(in: rule).first(where: { !known.contains($0) }) {
                fail(at: node, "no segment named \"\(unknown)\"", expected: Self.segmentList(known))
            } else {
                targeting.rule = rule
            }
        }
        if let node = mapping["rollout"], let percent = integer(node, "rollout") {
            if (0...100).contains(percent) { targeting.rollout = percent } else { fail(at: node, "rollout must be from 0 to 100") }
        }
        return targeting
    }

    static func segmentList(_ names: Set<String>) -> String {
        names.isEmpty ? "a segment defined under the catalog's segments" : "one of \(names.sorted().joined(separator: ", "))"
    }

    mutating func readSegment(_ node: Node) -> Segment? {
        guard let mapping = mapping(node, "a segment", keys: segmentKeys) else { return nil }
        var name: String?
        if let nameNode = mapping["name"] {
            if let text = string(nameNode, "name") {
                if Segment.isName(text) {
                    name = text
                } else {
                    fail(at: nameNode, "name \"\(text)\" must be a name of the rule language (letters, digits, _ and -), at most 64 bytes")
                }
            }
        } else {
            fail(at: node, "name is missing")
        }
        let summary = mapping["summary"].flatMap { string($0, "summary") } ?? ""
        guard let ruleNode = mapping["rule"] else { return missing("rule", in: node) }
        guard let rule = rule(ruleNode) else { return nil }
        if let problem = Segment.problem(rule) {
            fail(at: ruleNode, problem)
            return nil
        }
        guard let name else { return nil }
        return Segment(name: name, summary: summary, rule: rule)
    }

    mutating func readVariant(_ node: Node) -> Variant? {
        guard let mapping = mapping(node, "a variant", keys: ["id", "weight", "content"]) else { return nil }
        let id = requiredName(mapping, "id", in: node)
        var weight = 1
        if let weightNode = mapping["weight"], let value = integer(weightNode, "weight") {
            if value >= 1 { weight = value } else { fail(at: weightNode, "weight must be at least 1") }
        }
        let content = requiredContent(mapping, in: node, of: "variant")
        guard let id, let content else { return nil }
        return Variant(id: id, weight: weight, content: content)
    }

    mutating func readTour(_ node: Node, mediaIDs: Set<String>) -> Tour? {
        guard let mapping = mapping(node, "a tour", keys: tourKeys) else { return nil }
        let id = requiredName(mapping, "id", in: node)
        let trigger = mapping["trigger"].flatMap { rule($0) }
        let targeting = readTargeting(mapping)
        let screens = readScreens(mapping)
        guard let pagesNode = mapping["pages"] else { return missing("pages", in: node) }
        let pages = list(pagesNode, "pages") { $0.readPage($1, mediaIDs: mediaIDs) }
        uniqueIDs(pages.map(\.id), in: pagesNode, "page")
        if pages.isEmpty && pagesNode.sequence?.isEmpty == true { fail(at: pagesNode, "a tour needs at least one page") }
        guard let id else { return nil }
        return Tour(id: id, trigger: trigger, targeting: targeting, screens: screens, pages: pages)
    }

    mutating func readPage(_ node: Node, mediaIDs: Set<String>) -> TourPage? {
        guard let mapping = mapping(node, "a page", keys: pageKeys) else { return nil }
        let id = requiredName(mapping, "id", in: node)
        let content = requiredContent(mapping, in: node, of: "page")
        var media: String?
        if let mediaNode = mapping["media"], let name = string(mediaNode, "media") {
            if mediaIDs.contains(name) { media = name } else { fail(at: mediaNode, "no media with the id \"\(name)\"") }
        }
        let reward = mapping["reward"].flatMap { readReward($0) }
        var minReadingSeconds: Int?
        if let secondsNode = mapping["minReadingSeconds"], let seconds = integer(secondsNode, "minReadingSeconds") {
            if !(1...TourPage.readingSecondsLimit).contains(seconds) {
                fail(at: secondsNode, "minReadingSeconds must be from 1 to \(TourPage.readingSecondsLimit)")
            } else if mapping["reward"] == nil {
                fail(at: secondsNode, "minReadingSeconds is for a page's credit: the page has no reward")
            } else {
                minReadingSeconds = seconds
            }
        }
        let actions = mapping["actions"].map { readActions($0, next: true) } ?? []
        guard let id, let content else { return nil }
        return TourPage(id: id, content: content, media: media, reward: reward, minReadingSeconds: minReadingSeconds, actions: actions)
    }

    mutating func readChecklist(_ node: Node) -> Checklist? {
        guard let mapping = mapping(node, "a checklist", keys: checklistKeys) else { return nil }
        let id = requiredName(mapping, "id", in: node)
        let content = requiredContent(mapping, in: node, of: "checklist")
        let trigger = mapping["trigger"].flatMap { rule($0) }
        let targeting = readTargeting(mapping)
        let screens = readScreens(mapping)
        let reward = mapping["reward"].flatMap { readReward($0) }
        guard let itemsNode = mapping["items"] else { return missing("items", in: node) }
        let items = list(itemsNode, "items") { $0.readChecklistItem($1) }
        uniqueIDs(items.map(\.id), in: itemsNode, "item")
        if let sequence = itemsNode.sequence {
            if sequence.isEmpty { fail(at: itemsNode, "a checklist needs at least one item") }
            if sequence.count > Checklist.itemLimit {
                fail(at: Array(sequence)[Checklist.itemLimit], "a checklist has at most \(Checklist.itemLimit) items")
            }
        }
        guard let id, let content, !items.isEmpty else { return nil }
        return Checklist(id: id, content: content, trigger: trigger, targeting: targeting, screens: screens, reward: reward, items: items)
    }

    mutating func readChecklistItem(_ node: Node) -> ChecklistItem? {
        guard let mapping = mapping(node, "a checklist item", keys: checklistItemKeys, expected: "id, content, done, and tour or tip")
        else {
            return nil
        }
        let id = requiredName(mapping, "id", in: node)
        let content = requiredContent(mapping, in: node, of: "item")
        let done: Rule? = if let doneNode = mapping["done"] { rule(doneNode) } else { missing("done", in: node) }
        var start: ChecklistItem.Start?
        if let tourNode = mapping["tour"], let tour = string(tourNode, "tour") {
            start = .tour(tour)
            tourActions.append((tourNode, tour))
        }
        if let tipNode = mapping["tip"], let tip = string(tipNode, "tip") {
            if start != nil { fail(at: tipNode, "an item starts a tour or a tip, not both") }
            start = .tip(tip)
            checklistTips.append((tipNode, tip))
        }
        guard let id, let content, let done else { return nil }
        return ChecklistItem(id: id, content: content, done: done, start: start)
    }

    mutating func readArticle(_ node: Node) -> Article? {
        guard let mapping = mapping(node, "an article", keys: articleKeys) else { return nil }
        let id = requiredName(mapping, "id", in: node)
        let content = requiredContent(mapping, in: node, of: "article")
        let screens = readScreens(mapping)
        let keywords = mapping["keywords"].map { words($0, "keywords", names: false) } ?? []
        if keywords.count > Article.keywordLimit, let node = mapping["keywords"] {
            fail(at: node, "an article has at most \(Article.keywordLimit) keywords")
        }
        let targeting = readTargeting(mapping)
        guard let id, let content else { return nil }
        return Article(id: id, content: content, screens: screens, keywords: keywords, targeting: targeting)
    }

    /// The screens a tour, checklist or article belongs to: names as `screen:NAME` has them.
    mutating func readScreens(_ mapping: Node.Mapping) -> [String] {
        mapping["screens"].map { words($0, "screens", names: true) } ?? []
    }

    /// A list of words: screen names (as rules name them) or keywords (any text, 1 to 64 bytes).
    mutating func words(_ node: Node, _ key: String, names: Bool) -> [String] {
        list(node, key) { reader, element -> String? in
            guard let text = reader.string(element, key) else { return nil }
            let word = text.trimmingCharacters(in: .whitespaces)
            if names ? !Segment.isName(word) : (word.isEmpty || word.utf8.count > 64) {
                reader.fail(
                    at: element,
                    names ? "\"\(word)\" is not a screen's name (letters, digits, _ and -)" : "a keyword is 1 to 64 bytes of text")
                return nil
            }
            return word
        }
    }

    /// Credits: 1 to 1,000,000.
    mutating func readReward(_ node: Node) -> Int? {
        guard let credits = integer(node, "reward") else { return nil }
        guard (1...1_000_000).contains(credits) else {
            fail(at: node, "reward must be from 1 to 1000000 credits")
            return nil
        }
        return credits
    }

    mutating func readMedia(_ node: Node) -> Media? {
        guard let mapping = mapping(node, "a media entry", keys: ["id", "variants"]) else { return nil }
        let id = requiredName(mapping, "id", in: node)
        guard let variantsNode = mapping["variants"] else { return missing("variants", in: node) }
        let variants = list(variantsNode, "variants") { $0.readMediaVariant($1) }
        guard let id else { return nil }
        return Media(id: id, variants: variants)
    }

    mutating func readMediaVariant(_ node: Node) -> MediaVariant? {
        guard let mapping = mapping(node, "a media variant", keys: mediaVariantKeys) else { return nil }
        guard let urlNode = mapping["url"] else { return missing("url", in: node) }
        var variant = MediaVariant(url: "")
        variant.thumbnail = mapping["thumbnail"].flatMap { url($0, "thumbnail") }
        variant.type = mapping["type"].flatMap { string($0, "type") }
        variant.model = mapping["model"].flatMap { string($0, "model") }
        variant.family = mapping["family"].flatMap { string($0, "family") }
        if let versionNode = mapping["minAppVersion"] {
            if let version = versionNode.string.flatMap(Version.init(reading:)) {
                variant.minAppVersion = version
            } else {
                fail(at: versionNode, "minAppVersion must be a version", expected: "digits and dots, such as 1.3")
            }
        }
        if let localeNode = mapping["locale"], let locale = string(localeNode, "locale") {
            if isLocale(locale) { variant.locale = locale } else { fail(at: localeNode, "\"\(locale)\" is not a locale") }
        }
        guard let url = url(urlNode, "url") else { return nil }
        variant.url = url
        return variant
    }

    /// A theme: colours (`#rrggbb` or `#rgb`), a font, a radius and a spacing, and (with `dark`)
    /// the colours of dark mode.
    mutating func readTheme(_ node: Node, dark: Bool) -> Theme? {
        let colorKeys = ["surface", "text", "accent", "focus"]
        let keys = dark ? colorKeys + ["font", "radius", "spacing", "dark"] : colorKeys
        guard let mapping = mapping(node, dark ? "theme" : "dark", keys: keys) else { return nil }
        func color(_ key: String) -> String? {
            guard let node = mapping[key], let text = string(node, key) else { return nil }
            guard let color = Theme.color(text) else {
                fail(at: node, "\(key) \"\(text.prefix(40))\" is not a colour", expected: "#rrggbb or #rgb, such as \"#0b5cad\" (quoted)")
                return nil
            }
            return color
        }
        var theme = Theme(
            colors: Theme.Colors(surface: color("surface"), text: color("text"), accent: color("accent"), focus: color("focus")))
        guard dark else { return theme }
        if let node = mapping["font"], let font = string(node, "font") {
            if Theme.isFont(font) {
                theme.font = font
            } else {
                fail(
                    at: node, "font \"\(font.prefix(40))\" is not a font family",
                    expected: "letters, digits, spaces, hyphens and commas, such as Noto Sans")
            }
        }
        for (key, range) in [("radius", Theme.radii), ("spacing", Theme.spacings)] {
            guard let node = mapping[key], let value = integer(node, key) else { continue }
            guard range.contains(value) else {
                fail(at: node, "\(key) is \(value) points; it must be from \(range.lowerBound) to \(range.upperBound)")
                continue
            }
            if key == "radius" { theme.radius = value } else { theme.spacing = value }
        }
        if let node = mapping["dark"] { theme.dark = readTheme(node, dark: false)?.colors }
        return theme
    }

    /// `struggles:`: the thresholds of the signs of struggle an app sets, each within its range.
    mutating func readStruggles(_ node: Node) -> StruggleThresholds {
        var thresholds = StruggleThresholds()
        let names = StruggleThresholds.wholeSettings.map(\.name) + StruggleThresholds.numberSettings.map(\.name)
        guard let mapping = mapping(node, "struggles", keys: names) else { return thresholds }
        for (name, path, range) in StruggleThresholds.wholeSettings {
            guard let valueNode = mapping[name], let value = integer(valueNode, name) else { continue }
            if range.contains(value) {
                thresholds[keyPath: path] = value
            } else {
                fail(at: valueNode, "\(name) must be from \(range.lowerBound) to \(range.upperBound)")
            }
        }
        for (name, path, range) in StruggleThresholds.numberSettings {
            guard let valueNode = mapping[name] else { continue }
            guard let value = valueNode.scalar.flatMap({ Double($0.string) }), value.isFinite else {
                fail(at: valueNode, "\(name) must be a number")
                continue
            }
            if range.contains(value) {
                thresholds[keyPath: path] = value
            } else {
                fail(
                    at: valueNode,
                    "\(name) must be from \(StruggleThresholds.text(range.lowerBound)) to \(StruggleThresholds.text(range.upperBound))")
            }
        }
        return thresholds
    }

    mutating func readRewards(_ node: Node) -> RewardPolicy {
        guard let mapping = mapping(node, "rewards", keys: ["maxCreditsPerUser", "requireReading"]) else { return RewardPolicy() }
        var policy = RewardPolicy()
        if let capNode = mapping["maxCreditsPerUser"], let cap = integer(capNode, "maxCreditsPerUser") {
            if cap >= 0 { policy.maxCreditsPerUser = cap } else { fail(at: capNode, "maxCreditsPerUser must not be negative") }
        }
        if let requireNode = mapping["requireReading"], let require = flag(requireNode, "requireReading") {
            policy.requireReading = require
        }
        return policy
    }

    /// `true` or `false`.
    mutating func flag(_ node: Node, _ key: String) -> Bool? {
        switch node.scalar?.string {
        case "true": return true
        case "false": return false
        default:
            fail(at: node, "\(key) must be true or false")
            return nil
        }
    }

    mutating func readNarration(_ node: Node) -> NarrationSettings? {
        guard let mapping = mapping(node, "narration", keys: ["language", "speed"]) else { return nil }
        guard let languageNode = mapping["language"] else { return missing("language", in: node) }
        guard let language = string(languageNode, "language") else { return nil }
        guard isLocale(language) else {
            fail(at: languageNode, "\"\(language)\" is not a language", expected: "such as en, hi or ta")
            return nil
        }
        var settings = NarrationSettings(language: language)
        if let speedNode = mapping["speed"], let speed = integer(speedNode, "speed") {
            if NarrationSettings.speeds.contains(speed) {
                settings.speed = speed
            } else {
                fail(at: speedNode, "speed is \(speed) words per minute; it must be from 80 to 400")
            }
        }
        return settings
    }

    /// A recording: an http(s) URL, or `recording:KEY` for one uploaded to the server.
    mutating func readAudio(_ node: Node) -> String? {
        guard let text = string(node, "audio") else { return nil }
        if text.hasPrefix(Content.recordingPrefix) {
            let key = text.dropFirst(Content.recordingPrefix.count)
            guard (16...64).contains(key.count), key.allSatisfy({ "0123456789abcdef".contains($0) }) else {
                fail(at: node, "a recording's key is 16 to 64 lowercase hexadecimal digits")
                return nil
            }
            return text
        }
        return url(node, "audio")
    }

    /// An http(s) URL.
    mutating func url(_ node: Node, _ key: String) -> String? {
        guard let text = string(node, key) else { return nil }
        guard CatalogDocument.isWebURL(text) else {
            fail(at: node, "\(key) must be an http or https URL")
            return nil
        }
        return text
    }

    mutating func oneOf<T: RawRepresentable<String>>(_ node: Node, _ key: String, _ cases: [T]) -> T? {
        if let value = node.string.flatMap(T.init(rawValue:)) { return value }
        fail(at: node, "unknown \(key) \"\(node.string ?? "")\"", expected: cases.map(\.rawValue).joined(separator: ", "))
        return nil
    }

    mutating func readPolicy(_ node: Node) -> DisplayPolicy {
        guard let mapping = mapping(node, "policy", keys: policyKeys) else { return DisplayPolicy() }
        var policy = DisplayPolicy()
        if let count = mapping["maxDisplayCount"] {
            if let value = integer(count, "maxDisplayCount") {
                if value >= 1 { policy.maxDisplayCount = value } else { fail(at: count, "maxDisplayCount must be at least 1") }
            }
        }
        if let duration = mapping["maxDisplayDuration"] {
            policy.maxDisplayDuration = seconds(duration)
        }
        if let expiry = mapping["expiresAt"] {
            if let text = expiry.string, let date = Timestamp.date(text) {
                policy.expiresAt = date
            } else {
                fail(at: expiry, "expiresAt must be an RFC 3339 date and time", expected: "such as 2027-01-01T00:00:00Z")
            }
        }
        return policy
    }

    /// A positive duration: a number of seconds, or a window such as `30s` or `5m`.
    mutating func seconds(_ node: Node) -> TimeInterval? {
        let text = node.string ?? ""
        if let number = Double(text), number > 0, number.isFinite { return number }
        if let last = text.last, let unit = Window.Unit(rawValue: String(last)), let amount = Int(text.dropLast()),
            amount > 0
        {
            return TimeInterval(amount) * TimeInterval(unit.milliseconds) / 1000
        }
        fail(at: node, "invalid maxDisplayDuration \"\(text)\"", expected: "a positive number of seconds, or such as 30s or 5m")
        return nil
    }

    // MARK: Values

    mutating func rule(_ node: Node) -> Rule? {
        guard let scalar = node.scalar else {
            fail(at: node, "a rule must be text")
            return nil
        }
        do {
            return try RuleParser().parse(scalar.string)
        } catch {
            report(error, in: scalar)
            return nil
        }
    }

    mutating func requiredName(_ mapping: Node.Mapping, _ key: String, in node: Node) -> String? {
        guard let value = mapping[key] else { return missing(key, in: node) }
        guard let text = string(value, key) else { return nil }
        guard CatalogDocument.isIdentifier(text) else {
            fail(at: value, "\(key) \"\(text)\" must be letters, digits, -, _ or .")
            return nil
        }
        return text
    }

    mutating func string(_ node: Node, _ key: String) -> String? {
        guard let scalar = node.scalar else {
            fail(at: node, "\(key) must be text")
            return nil
        }
        return scalar.string
    }

    mutating func integer(_ node: Node, _ key: String) -> Int? {
        guard let text = node.scalar?.string, let value = Int(text) else {
            fail(at: node, "\(key) must be a whole number")
            return nil
        }
        return value
    }

    mutating func missing<T>(_ key: String, in node: Node) -> T? {
        fail(at: node, "\(key) is missing")
        return nil
    }

    /// A node that must be a mapping with only the given keys; reports it otherwise.
    mutating func mapping(_ node: Node, _ what: String, keys: [String], expected: String? = nil) -> Node.Mapping? {
        guard let mapping = node.mapping else {
            fail(at: node, "\(what) must be a mapping", expected: expected ?? keys.joined(separator: ", "))
            return nil
        }
        checkKeys(mapping, allowed: keys)
        return mapping
    }

    mutating func checkKeys(_ mapping: Node.Mapping, allowed: [String]) {
        for (key, _) in mapping {
            guard let name = key.string, !allowed.contains(name) else { continue }
            fail(at: key, "unknown key \"\(name)\"", expected: "one of \(allowed.joined(separator: ", "))")
        }
    }

    // MARK: Reporting

    mutating func fail(at node: Node?, _ message: String, expected: String? = nil) {
        let mark = node?.mark
        fail(line: mark?.line ?? 1, column: mark?.column ?? 1, message, expected: expected)
    }

    mutating func fail(line: Int, column: Int, _ message: String, expected: String? = nil) {
        let lineText = line - 1 < lines.count ? String(lines[line - 1]) : nil
        diagnostics.append(
            Diagnostic(file: file, line: line, column: column, message: message, expected: expected, lineText: lineText)
        )
    }

    /// A rule error, moved from the rule's own line and column to the file's.
    mutating func report(_ error: RuleError, in scalar: Node.Scalar) {
        guard let mark = scalar.mark else {
            fail(line: 1, column: 1, error.message, expected: error.expected)
            return
        }
        switch scalar.style {
        case .literal, .folded:
            // The text starts on the line after the indicator, at that line's indentation.
            let line = mark.line + error.line
            let indentation = line - 1 < lines.count ? lines[line - 1].prefix { $0 == " " }.count : 0
            fail(line: line, column: indentation + error.column, error.message, expected: error.expected)
        case .singleQuoted, .doubleQuoted:
            fail(line: mark.line + error.line - 1, column: mark.column + error.column, error.message, expected: error.expected)
        default:
            fail(line: mark.line + error.line - 1, column: mark.column + error.column - 1, error.message, expected: error.expected)
        }
    }

    mutating func report(_ error: YamlError) {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            fail(line: mark.line, column: mark.column, "invalid YAML or JSON: \(problem)")
        default:
            fail(line: 1, column: 1, "invalid YAML or JSON: \(error)")
        }
    }
}

/// Why a rule cannot target clients, if it cannot: targeting is decided on the server, from the
/// client context, the user's attributes and the segments they are in (`segment:<name>`), so it
/// may not mention events or other paths.
public func targetingProblem(_ rule: Rule) -> String? {
    switch rule {
    case .constant: return nil
    case .not(let operand): return targetingProblem(operand)
    case .and(let operands), .or(let operands): return operands.lazy.compactMap(targetingProblem).first
    case .sequence(let events, nil) where events.count == 1 && events[0].name == "segment" && events[0].target != nil:
        return events[0].conditions.isEmpty ? nil : "segment:<name> takes no where: its rule is the segment's"
    case .sequence, .count:
        return "targeting reads the client context, user attributes and segments (segment:<name>), not events: use trigger for events"
    case .compare(let path, _, _), .oneOf(let path, _):
        guard targetingPaths.contains(path.description) || isAttribute(path) else {
            return "targeting can read \(targetingPaths.sorted().joined(separator: ", ")) and user attributes (user.<name>), not \(path)"
        }
        return nil
    }
}

/// Whether a path reads a user attribute: `user.<name>`, one name after `user`.
public func isAttribute(_ path: ContextPath) -> Bool {
    path.components.count == 2 && path.components[0] == "user"
}

/// `hi`, `hi-IN`, `pt_BR`, `zh-Hant-TW`: a language of 2 or 3 letters, then up to three subtags of
/// 2 to 8 letters or digits.
func isLocale(_ text: String) -> Bool {
    let parts = text.split(whereSeparator: { $0 == "-" || $0 == "_" }).map { Array($0.unicodeScalars) }
    guard (1...4).contains(parts.count), parts.joined().count + parts.count - 1 == text.unicodeScalars.count else { return false }
    let isLetter = { (s: Unicode.Scalar) in (65...90).contains(s.value) || (97...122).contains(s.value) }
    let isDigit = { (s: Unicode.Scalar) in (48...57).contains(s.value) }
    return (2...3).contains(parts[0].count) && parts[0].allSatisfy(isLetter)
        && parts.dropFirst().allSatisfy { (2...8).contains($0.count) && $0.allSatisfy { isLetter($0) || isDigit($0) } }
}

/// Ids and containers: `[A-Za-z0-9_.-]`.
private func isIdentifierScalar(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 48...57, 65...90, 97...122, 95, 45, 46: true
    default: false
    }
}
