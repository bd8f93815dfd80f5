import Foundation
import WaymarkAPI
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules

/// What one client gets from a published catalog, as indices of prepared renditions: which tips
/// (each in its variant and locale), which tours (each page in its locale, with its media). Two
/// clients with equal resolutions get byte-identical catalogs, so the ETag is computed from the
/// resolution, not from the JSON, and a 304 costs no encoding.
public struct Resolution: Hashable, Sendable {
    public let version: Int
    /// Per delivered tip, its rendition.
    let tips: [Int32]
    /// Per delivered tour: the tour's index, its page count, then per page its rendition.
    let tours: [Int32]
    /// Per delivered checklist, its rendition.
    let checklists: [Int32]
    /// Per delivered article, its rendition.
    let articles: [Int32]
    /// The language of the SDK's words (``InterfaceText``) the catalog carries, or nil for none.
    let language: String?
    /// A strong ETag: a 128-bit hash of the catalog's renditions and of the choice among them.
    public let etag: String
}

/// A catalog compiled for delivery: every tip rendered in advance for each variant and locale,
/// every tour page for each locale and media variant, as structs and as JSON; targeting rules
/// deduplicated; rollout and variant hashes seeded with everything but the user. Deciding for a
/// client then walks arrays of plain integers, with no string work per tip.
final class CompiledCatalog: Sendable {
    /// Per tip: who gets it and where its renditions are. Plain values, so the walk does no
    /// reference counting.
    struct TipPlan {
        var rule: Int32
        var rollout: Int32
        var rolloutSeed: UInt64
        var variantSeed: UInt64
        var totalWeight: UInt64
        var firstOption: Int32
        var optionCount: Int32
    }

    /// One variant of a tip (or the tip itself without variants): its weight and its renditions
    /// by locale.
    struct Option {
        var weight: UInt64
        var fallback: Int32
        var firstLocale: Int32
        var localeCount: Int32
    }

    struct LocaleEntry {
        var locale: Int32
        var rendition: Int32
    }

    struct TourPlan {
        var rule: Int32
        var rollout: Int32
        var rolloutSeed: UInt64
        var pages: [PagePlan]
    }

    /// A checklist or an article: who gets it, and its renditions (0 its default text, n the nth
    /// of `locales`).
    struct LocalizedPlan {
        var rule: Int32
        var rollout: Int32
        var rolloutSeed: UInt64
        var locales: [LocaleEntry]
        var firstRendition: Int32
    }

    /// A tour page; its content option 0 is the default text, option n the nth of `locales`.
    struct PagePlan {
        var locales: [LocaleEntry]
        /// The page's media, if any; its renditions are `rendition(content, media variant)`.
        var media: Media?
        var firstRendition: Int32
        /// Renditions per content option: one without media, then one per media variant.
        var stride: Int32
    }

    let version: Int
    let frequency: String
    /// The locales whose users are in the listener's mode by default; nil when none.
    let listen: [String]?
    /// The catalog's theme as delivered, if it has one.
    let theme: DeliveredTheme?
    /// The languages a picker offers (``Resolver/pickable(_:)``); nil when fewer than two.
    let locales: [String]?
    let rules: [Rule]
    /// Whether any targeting rule reads a user attribute (`user.<name>`).
    let readsAttributes: Bool
    /// The segments targeting rules name (`segment:<name>`), in the catalog's order.
    let segments: [Segment]
    /// Lowercased locale -> id, over every locale any content is written in.
    let localeIDs: [String: Int32]
    let tipPlans: [TipPlan]
    let options: [Option]
    let localeEntries: [LocaleEntry]
    let tipRenditions: [DeliveredTip]
    let tourPlans: [TourPlan]
    /// Each tour as delivered but for its pages, which a resolution picks.
    let tourShells: [DeliveredTour]
    let pageRenditions: [DeliveredPage]
    let checklistPlans: [LocalizedPlan]
    let checklistRenditions: [DeliveredChecklist]
    let articlePlans: [LocalizedPlan]
    let articleRenditions: [DeliveredArticle]
    /// Every piece of JSON a delivered catalog is assembled from, in one array.
    let pieces: JSONPieces
    /// Where each kind of piece starts in `pieces`: tip renditions, page renditions, tour heads
    /// (`{"id":…,"pages":[`) and tour tails (`],"screens":[…],"trigger":…}`, `]}` or between), each
    /// in index order.
    let firstTip, firstPage, firstTourHead, firstTourTail, firstChecklist, firstArticle: Int32
    /// By language of ``InterfaceText``, the catalog's tail with the SDK's words in it
    /// (`],"ui":{…},"version":…}`).
    let interfaceTails: [String: Int32]
    /// A hash of every rendition: the ETag's seed, so different catalogs never share one.
    let contentHash: (UInt64, UInt64)

    init(_ catalog: Catalog, version: Int, narration: Resolver.Narration) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func json(_ value: some Encodable) -> [UInt8] {
            // Delivered types hold strings, numbers and rules, which always encode.
            Array((try? encoder.encode(value)) ?? Data("null".utf8))
        }
        self.version = version
        frequency = catalog.frequency.rawValue
        theme = catalog.theme.map(DeliveredTheme.init)
        listen = catalog.listen.isEmpty ? nil : catalog.listen
        self.locales = Resolver.pickable(catalog)

        var localeIDs: [String: Int32] = [:]
        func localeID(_ locale: String) -> Int32 {
            let key = locale.lowercased()
            if let id = localeIDs[key] { return id }
            let id = Int32(localeIDs.count)
            localeIDs[key] = id
            return id
        }
        // A content's locales in a fixed order, one per lowercased name (the first by spelling).
        func locales(_ content: Localized<Content>) -> [(id: Int32, key: String, value: Content)] {
            var seen: Set<String> = []
            return content.locales.keys.sorted().compactMap { key in
                guard seen.insert(key.lowercased()).inserted else { return nil }
                return (localeID(key), key, content.locales[key]!)
            }
        }
        var rules: [Rule] = []
        var ruleIndex: [Rule: Int32] = [:]
        func rule(_ targeting: Targeting) -> Int32 {
            guard let rule = targeting.rule else { return -1 }
            if let index = ruleIndex[rule] { return index }
            let index = Int32(rules.count)
            rules.append(rule)
            ruleIndex[rule] = index
            return index
        }

        var tipPlans: [TipPlan] = []
        var options: [Option] = []
        var localeEntries: [LocaleEntry] = []
        var tipRenditions: [DeliveredTip] = []
        for entry in catalog.tips {
            let variants: [Variant?] = entry.variants.isEmpty ? [nil] : entry.variants
            let firstOption = Int32(options.count)
            for variant in variants {
                let content = variant?.content ?? entry.content
                let fallback = Int32(tipRenditions.count)
                tipRenditions.append(
                    Resolver.render(
                        entry, variant: variant, content: Resolver.delivered(content.fallback, locale: "default", narration),
                        theme: catalog.theme)
                )
                let firstLocale = Int32(localeEntries.count)
                for (id, key, value) in locales(content) {
                    localeEntries.append(LocaleEntry(locale: id, rendition: Int32(tipRenditions.count)))
                    tipRenditions.append(
                        Resolver.render(
                            entry, variant: variant, content: Resolver.delivered(value, locale: key, narration), theme: catalog.theme))
                }
                options.append(
                    Option(
                        weight: UInt64(variant?.weight ?? 0), fallback: fallback, firstLocale: firstLocale,
                        localeCount: Int32(localeEntries.count) - firstLocale
                    )
                )
            }
            tipPlans.append(
                TipPlan(
                    rule: rule(entry.targeting), rollout: Int32(entry.targeting.rollout),
                    rolloutSeed: Resolver.seed("rollout", entry.id), variantSeed: Resolver.seed("variant", entry.id),
                    totalWeight: entry.variants.reduce(0) { $0 + UInt64($1.weight) }, firstOption: firstOption,
                    optionCount: Int32(variants.count)
                )
            )
        }

        let mediaByID = Dictionary(catalog.media.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var tourPlans: [TourPlan] = []
        var pageRenditions: [DeliveredPage] = []
        var tourHeads: [[UInt8]] = []
        var tourTails: [[UInt8]] = []
        for tour in catalog.tours {
            var pages: [PagePlan] = []
            for page in tour.pages {
                let media = page.media.flatMap { mediaByID[$0] }
                let mediaOptions: [DeliveredMedia?] =
                    [nil] + (media.map { media in media.variants.indices.map { Resolver.deliver(media, variant: $0) } } ?? [])
                let first = Int32(pageRenditions.count)
                func add(_ content: DeliveredContent) {
                    for option in mediaOptions {
                        pageRenditions.append(
                            DeliveredPage(
                                id: page.id, content: content, media: option, reward: page.reward,
                                actions: Resolver.deliver(page.actions, with: content)))
                    }
                }
                add(Resolver.delivered(page.content.fallback, locale: "default", narration))
                var entries: [LocaleEntry] = []
                for (index, (id, key, value)) in locales(page.content).enumerated() {
                    entries.append(LocaleEntry(locale: id, rendition: Int32(index + 1)))
                    add(Resolver.delivered(value, locale: key, narration))
                }
                pages.append(PagePlan(locales: entries, media: media, firstRendition: first, stride: Int32(mediaOptions.count)))
            }
            tourPlans.append(
                TourPlan(
                    rule: rule(tour.targeting), rollout: Int32(tour.targeting.rollout), rolloutSeed: Resolver.seed("rollout", tour.id),
                    pages: pages)
            )
            tourHeads.append(Array(#"{"id":"#.utf8) + json(tour.id) + Array(#","pages":["#.utf8))
            // The delivered tour's keys after "pages", sorted as the encoder sorts them.
            var tail = Array("]".utf8)
            if let screens = Resolver.screens(tour.screens) { tail += Array(#","screens":"#.utf8) + json(screens) }
            if let trigger = tour.trigger { tail += Array(#","trigger":"#.utf8) + json(trigger) }
            tourTails.append(tail + Array("}".utf8))
        }

        // A checklist's or an article's plan, its renditions made by `render` for each locale of its content.
        func plan<T>(
            _ id: String, _ targeting: Targeting, _ content: Localized<Content>, into renditions: inout [T],
            _ render: (DeliveredContent) -> T
        ) -> LocalizedPlan {
            let first = Int32(renditions.count)
            renditions.append(render(Resolver.delivered(content.fallback, locale: "default", narration)))
            var entries: [LocaleEntry] = []
            for (index, (id, key, value)) in locales(content).enumerated() {
                entries.append(LocaleEntry(locale: id, rendition: Int32(index + 1)))
                renditions.append(render(Resolver.delivered(value, locale: key, narration)))
            }
            return LocalizedPlan(
                rule: rule(targeting), rollout: Int32(targeting.rollout), rolloutSeed: Resolver.seed("rollout", id), locales: entries,
                firstRendition: first)
        }
        var checklistRenditions: [DeliveredChecklist] = []
        let checklistPlans = catalog.checklists.map { checklist in
            plan(checklist.id, checklist.targeting, checklist.content, into: &checklistRenditions) {
                Resolver.render(checklist, content: $0, narration)
            }
        }
        var articleRenditions: [DeliveredArticle] = []
        let articlePlans = catalog.articles.map { article in
            plan(article.id, article.targeting, article.content, into: &articleRenditions) { Resolver.render(article, content: $0) }
        }

        self.rules = rules
        let named = Set(rules.flatMap { segmentNames(in: $0) })
        segments = catalog.segments.filter { named.contains($0.name) }
        // A segment of attributes alone is decided from the attributes delivery reads.
        readsAttributes = rules.contains(where: Self.readsAttributes) || segments.contains { !$0.readsHistory }
        self.localeIDs = localeIDs
        self.tipPlans = tipPlans
        self.options = options
        self.localeEntries = localeEntries
        self.tipRenditions = tipRenditions
        self.tourPlans = tourPlans
        tourShells = catalog.tours.map { DeliveredTour(id: $0.id, trigger: $0.trigger, screens: Resolver.screens($0.screens), pages: []) }
        self.pageRenditions = pageRenditions
        self.checklistPlans = checklistPlans
        self.checklistRenditions = checklistRenditions
        self.articlePlans = articlePlans
        self.articleRenditions = articleRenditions

        var pieces = JSONPieces(
            head: Array(#"{"frequency":"#.utf8) + json(frequency)
                + (catalog.listen.isEmpty ? [] : Array(#","listen":"#.utf8) + json(catalog.listen))
                + (Resolver.pickable(catalog).map { Array(#","locales":"#.utf8) + json($0) } ?? [])
                + (catalog.theme.map { Array(#","theme":"#.utf8) + json(DeliveredTheme($0)) } ?? []) + Array(#","tips":["#.utf8),
            tail: Array(#"],"version":\#(version)}"#.utf8)
        )
        firstTip = pieces.count
        for tip in tipRenditions { pieces.append(json(tip)) }
        firstTourHead = pieces.count
        for head in tourHeads { pieces.append(head) }
        firstTourTail = pieces.count
        for tail in tourTails { pieces.append(tail) }
        firstPage = pieces.count
        for page in pageRenditions { pieces.append(json(page)) }
        firstChecklist = pieces.count
        for checklist in checklistRenditions { pieces.append(json(checklist)) }
        firstArticle = pieces.count
        for article in articleRenditions { pieces.append(json(article)) }
        var interfaceTails: [String: Int32] = [:]
        for (language, words) in InterfaceText.tables.sorted(by: { $0.key < $1.key }) {
            interfaceTails[language] = pieces.count
            pieces.append(Array(#"],"ui":"#.utf8) + json(words) + Array(#","version":\#(version)}"#.utf8))
        }
        self.interfaceTails = interfaceTails
        self.pieces = pieces

        // Every piece but the comma and the tours' opening, each hashed on its own.
        var hash = (Self.offsetA, Self.offsetB)
        for piece in [JSONPieces.head, JSONPieces.tail] + Array(Int(firstTip)..<Int(pieces.count)) {
            Self.mix(&hash, pieces.bytes[pieces.range(piece)])
        }
        contentHash = hash
    }

    static func readsAttributes(_ rule: Rule) -> Bool {
        switch rule {
        case .constant, .sequence, .count: false
        case .not(let operand): readsAttributes(operand)
        case .and(let operands), .or(let operands): operands.contains(where: readsAttributes)
        case .compare(let path, _, _), .oneOf(let path, _):
            isAttribute(path) && !AttributeLimits.reservedNames.contains(path.components[1])
        }
    }

    // MARK: Deciding

    func decide(for client: ClientContext) -> Resolution {
        let context = client.values
        var ruleValues = [Int8](repeating: -1, count: rules.count)
        func admitted(_ rule: Int32, _ rollout: Int32, _ seed: UInt64, _ user: [UInt8]?) -> Bool {
            if rule >= 0 {
                let index = Int(rule)
                if ruleValues[index] < 0 { ruleValues[index] = Resolver.holds(rules[index], context) ? 1 : 0 }
                if ruleValues[index] == 0 { return false }
            }
            if rollout >= 100 { return true }
            guard let user, rollout > 0 else { return false }
            return Resolver.bucket(seed: seed, user: user, buckets: 100) < UInt64(rollout)
        }
        let user = client.user.map { Array($0.utf8) }
        let chain = localeChain(client.locale).compactMap { localeIDs[$0.lowercased()] }

        var tips: [Int32] = []
        tips.reserveCapacity(tipPlans.count)
        tipPlans.withUnsafeBufferPointer { plans in
            options.withUnsafeBufferPointer { options in
                localeEntries.withUnsafeBufferPointer { entries in
                    for plan in plans where admitted(plan.rule, plan.rollout, plan.rolloutSeed, user) {
                        var option = options[Int(plan.firstOption)]
                        if plan.optionCount > 1, let user {
                            var point = Resolver.bucket(seed: plan.variantSeed, user: user, buckets: plan.totalWeight)
                            for index in Int(plan.firstOption)..<Int(plan.firstOption + plan.optionCount) {
                                if point < options[index].weight {
                                    option = options[index]
                                    break
                                }
                                point -= options[index].weight
                            }
                        }
                        tips.append(Self.pick(chain, Int(option.firstLocale), Int(option.localeCount), entries) ?? option.fallback)
                    }
                }
            }
        }

        var tours: [Int32] = []
        var mediaClient: Resolver.MediaClient?
        for (index, plan) in tourPlans.enumerated() where admitted(plan.rule, plan.rollout, plan.rolloutSeed, user) {
            tours.append(Int32(index))
            tours.append(Int32(plan.pages.count))
            for page in plan.pages {
                let content = page.locales.withUnsafeBufferPointer { Self.pick(chain, 0, $0.count, $0) } ?? 0
                var media: Int32 = 0
                if let pageMedia = page.media {
                    if mediaClient == nil { mediaClient = Resolver.MediaClient(client) }
                    media = Resolver.chooseIndex(pageMedia, for: mediaClient!).map { Int32($0 + 1) } ?? 0
                }
                tours.append(page.firstRendition + content * page.stride + media)
            }
        }

        func renditions(_ plans: [LocalizedPlan]) -> [Int32] {
            plans.filter { admitted($0.rule, $0.rollout, $0.rolloutSeed, user) }.map { plan in
                plan.firstRendition + (plan.locales.withUnsafeBufferPointer { Self.pick(chain, 0, $0.count, $0) } ?? 0)
            }
        }
        let checklists = renditions(checklistPlans)
        let articles = renditions(articlePlans)

        var hash = contentHash
        tips.withUnsafeBytes { Self.mix(&hash, $0) }
        Self.mix(&hash, [0xFF])
        tours.withUnsafeBytes { Self.mix(&hash, $0) }
        Self.mix(&hash, [0xFE])
        checklists.withUnsafeBytes { Self.mix(&hash, $0) }
        Self.mix(&hash, [0xFD])
        articles.withUnsafeBytes { Self.mix(&hash, $0) }
        let language = InterfaceText.language(forLocale: client.locale)
        Self.mix(&hash, [0xFC] + Array((language ?? "").utf8))
        let etag = "\"" + Self.hex(hash.0) + Self.hex(hash.1) + "\""
        return Resolution(
            version: version, tips: tips, tours: tours, checklists: checklists, articles: articles, language: language, etag: etag)
    }

    /// The rendition for the most specific locale of the chain that the entries have.
    private static func pick(_ chain: [Int32], _ first: Int, _ count: Int, _ entries: UnsafeBufferPointer<LocaleEntry>) -> Int32? {
        guard count > 0 else { return nil }
        for locale in chain {
            for index in first..<(first + count) where entries[index].locale == locale {
                return entries[index].rendition
            }
        }
        return nil
    }

    // MARK: Output

    func materialize(_ resolution: Resolution) -> DeliveredCatalog {
        var tours: [DeliveredTour] = []
        walkTours(resolution) { tour, pages in
            var delivered = tourShells[tour]
            delivered.pages = pages.map { pageRenditions[Int($0)] }
            tours.append(delivered)
        }
        return DeliveredCatalog(
            version: version, frequency: frequency, tips: resolution.tips.map { tipRenditions[Int($0)] }, tours: tours,
            checklists: resolution.checklists.isEmpty ? nil : resolution.checklists.map { checklistRenditions[Int($0)] },
            articles: resolution.articles.isEmpty ? nil : resolution.articles.map { articleRenditions[Int($0)] },
            ui: resolution.language.flatMap { InterfaceText.tables[$0] }, listen: listen, locales: locales, theme: theme
        )
    }

    func json(_ resolution: Resolution) -> [UInt8] {
        let count = jsonByteCount(resolution)
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = writeJSON(resolution, into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// The length of ``json(_:)``'s answer, without writing it.
    func jsonByteCount(_ resolution: Resolution) -> Int {
        var count = 0
        forEachPiece(of: resolution) { count += pieces.range($0).count }
        return count
    }

    /// Writes the JSON into `output`, which holds at least ``jsonByteCount(_:)`` bytes, and
    /// returns how many it wrote: one copy per piece, no reference counting.
    func writeJSON(_ resolution: Resolution, into output: UnsafeMutableRawBufferPointer) -> Int {
        pieces.bytes.withUnsafeBytes { bytes in
            var written = 0
            forEachPiece(of: resolution) { piece in
                let range = pieces.range(piece)
                precondition(written + range.count <= output.count, "the output is shorter than jsonByteCount")
                output.baseAddress!.advanced(by: written).copyMemory(
                    from: bytes.baseAddress!.advanced(by: range.lowerBound), byteCount: range.count)
                written += range.count
            }
            return written
        }
    }

    /// The catalog's JSON as a list of pieces, in order: the head, the tips with commas between,
    /// the tours' opening, each tour (its head, its pages with commas, its tail) with commas
    /// between, the checklists' opening and the checklists with commas between (when there are
    /// any), the same for the articles, the tail (with the SDK's words in the client's language,
    /// when it has them).
    private func forEachPiece(of resolution: Resolution, _ body: (Int) -> Void) {
        body(JSONPieces.head)
        for (position, tip) in resolution.tips.enumerated() {
            if position > 0 { body(JSONPieces.comma) }
            body(Int(firstTip + tip))
        }
        body(JSONPieces.toursOpening)
        var first = true
        walkTours(resolution) { tour, pages in
            if !first { body(JSONPieces.comma) }
            first = false
            body(Int(firstTourHead) + tour)
            for (position, page) in pages.enumerated() {
                if position > 0 { body(JSONPieces.comma) }
                body(Int(firstPage + page))
            }
            body(Int(firstTourTail) + tour)
        }
        for (opening, first, chosen) in [
            (JSONPieces.checklistsOpening, firstChecklist, resolution.checklists),
            (JSONPieces.articlesOpening, firstArticle, resolution.articles),
        ] where !chosen.isEmpty {
            body(opening)
            for (position, rendition) in chosen.enumerated() {
                if position > 0 { body(JSONPieces.comma) }
                body(Int(first + rendition))
            }
        }
        body(resolution.language.flatMap { interfaceTails[$0] }.map(Int.init) ?? JSONPieces.tail)
    }

    /// Calls `body` with each delivered tour's index and its pages' renditions.
    private func walkTours(_ resolution: Resolution, _ body: (_ tour: Int, _ pages: ArraySlice<Int32>) -> Void) {
        var position = 0
        let tours = resolution.tours
        while position < tours.count {
            let count = Int(tours[position + 1])
            body(Int(tours[position]), tours[(position + 2)..<(position + 2 + count)])
            position += 2 + count
        }
    }

    // MARK: Hashing

    static let offsetA: UInt64 = 0xcbf2_9ce4_8422_2325
    static let offsetB: UInt64 = 0x6c62_272e_07bb_0142

    /// Two FNV-1a streams with different starts: 128 bits, the same on every server.
    static func mix(_ hash: inout (UInt64, UInt64), _ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            hash.0 = (hash.0 ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            hash.1 = (hash.1 ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        hash.1 = hash.1 &+ 0x9e37_79b9_7f4a_7c15
    }

    static func hex(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}

/// Pieces of JSON stored end to end in one array, so that assembling a catalog from them reads
/// one array instead of retaining and releasing an array per piece (measured: that was 4% of the
/// server's time under the catalog load).
struct JSONPieces: Sendable {
    /// The fixed pieces every catalog has, first in this order.
    static let head = 0, tail = 1, comma = 2, toursOpening = 3, checklistsOpening = 4, articlesOpening = 5

    private(set) var bytes: [UInt8] = []
    /// Where each piece ends in `bytes`; piece i starts where piece i - 1 ends.
    private(set) var ends: [Int32] = []

    /// The fixed pieces: the catalog's `head` (up to its tips' `[`) and `tail` (after its tours' `]`).
    init(head: [UInt8], tail: [UInt8]) {
        append(head)
        append(tail)
        append(Array(",".utf8))
        append(Array(#"],"tours":["#.utf8))
        append(Array(#"],"checklists":["#.utf8))
        append(Array(#"],"articles":["#.utf8))
    }

    var count: Int32 { Int32(ends.count) }

    mutating func append(_ piece: [UInt8]) {
        bytes.append(contentsOf: piece)
        ends.append(Int32(bytes.count))
    }

    /// Where the piece lies in `bytes`.
    func range(_ piece: Int) -> Range<Int> {
        (piece == 0 ? 0 : Int(ends[piece - 1]))..<Int(ends[piece])
    }
}
