import Foundation
import WaymarkAPI
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules
import WaymarkSupport

/// Resolves a published catalog for one client: keeps the tips and tours whose targeting the
/// client meets and whose rollout includes the user, assigns A/B variants, picks one locale's
/// content and the media variant for the device. Pure and deterministic: the same catalog and
/// client give the same answer on every server, which is what makes delivery cacheable.
///
/// Building a resolver compiles the catalog once per published version (``CompiledCatalog``):
/// every tip is rendered in advance for each of its variants and locales, as structs and as JSON,
/// so that resolving for a client is only deciding (``decide(for:)``): a walk over plain integers.
/// ``resolveDirectly(for:)`` is the straightforward version, kept as the specification the
/// compiled one is tested against.
public struct Resolver: Sendable {
    /// The narration of a content in a locale (as written, or `default`): what the server has for
    /// it, asked once per content while the resolver is built.
    public typealias Narration = @Sendable (_ content: Content, _ locale: String) -> DeliveredNarration?

    public let catalog: Catalog
    public let version: Int
    let narration: Narration
    let compiled: CompiledCatalog

    /// - Parameter narration: the audio for each content; by default a content's own web URL.
    public init(catalog: Catalog, version: Int, narration: @escaping Narration = Resolver.recordingOnTheWeb) {
        self.catalog = catalog
        self.version = version
        self.narration = narration
        compiled = CompiledCatalog(catalog, version: version, narration: narration)
    }

    /// A content's recording when its `audio` is a web URL, without a duration.
    public static let recordingOnTheWeb: Narration = { content, _ in
        guard let audio = content.audio, content.recordingKey == nil else { return nil }
        return DeliveredNarration(url: audio, duration: nil, source: .recording)
    }

    /// Whether the targeting of any tip or tour reads a user attribute (`user.plan`): only then is
    /// it worth reading the user's attributes for a client.
    public var readsAttributes: Bool { compiled.readsAttributes }

    /// What this client gets, as a list of prepared renditions: cheap to compute and to compare.
    public func decide(for client: ClientContext) -> Resolution {
        compiled.decide(for: client)
    }

    /// The catalog for this client.
    public func resolve(for client: ClientContext) -> DeliveredCatalog {
        compiled.materialize(decide(for: client))
    }

    /// The catalog for this client as JSON, assembled from the prepared renditions.
    public func json(_ resolution: Resolution) -> [UInt8] {
        compiled.json(resolution)
    }

    /// The length of that JSON, without writing it.
    public func jsonByteCount(_ resolution: Resolution) -> Int {
        compiled.jsonByteCount(resolution)
    }

    /// Writes the same JSON straight into a server's buffer of at least ``jsonByteCount(_:)``
    /// bytes and returns how many it wrote.
    public func writeJSON(_ resolution: Resolution, into output: UnsafeMutableRawBufferPointer) -> Int {
        compiled.writeJSON(resolution, into: output)
    }

    /// The specification: resolves by walking the authored catalog for each client.
    func resolveDirectly(for client: ClientContext) -> DeliveredCatalog {
        let context = client.values
        let mediaByID = Dictionary(catalog.media.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var tips: [DeliveredTip] = []
        for entry in catalog.tips where Self.admits(entry.targeting, id: entry.id, context: context, user: client.user) {
            tips.append(deliver(entry, client: client))
        }
        var tours: [DeliveredTour] = []
        for tour in catalog.tours where Self.admits(tour.targeting, id: tour.id, context: context, user: client.user) {
            let pages = tour.pages.map { page in
                let content = Self.deliver(page.content, locale: client.locale, narration)
                return DeliveredPage(
                    id: page.id, content: content, media: page.media.flatMap { mediaByID[$0] }.flatMap { Self.choose($0, for: client) },
                    reward: page.reward, actions: Self.deliver(page.actions, with: content)
                )
            }
            tours.append(DeliveredTour(id: tour.id, trigger: tour.trigger, screens: Self.screens(tour.screens), pages: pages))
        }
        let checklists = catalog.checklists.filter { Self.admits($0.targeting, id: $0.id, context: context, user: client.user) }.map {
            Self.render($0, content: Self.deliver($0.content, locale: client.locale, narration), narration)
        }
        let articles = catalog.articles.filter { Self.admits($0.targeting, id: $0.id, context: context, user: client.user) }.map {
            Self.render($0, content: Self.deliver($0.content, locale: client.locale, narration))
        }
        return DeliveredCatalog(
            version: version, frequency: catalog.frequency.rawValue, tips: tips, tours: tours,
            checklists: checklists.isEmpty ? nil : checklists, articles: articles.isEmpty ? nil : articles,
            ui: InterfaceText.strings(forLocale: client.locale), listen: catalog.listen.isEmpty ? nil : catalog.listen,
            locales: Self.pickable(catalog), theme: catalog.theme.map(DeliveredTheme.init))
    }

    /// The languages a picker offers: the default content's (its narration's language), then the
    /// declared locales, each once; nil when fewer than two.
    static func pickable(_ catalog: Catalog) -> [String]? {
        var locales: [String] = []
        for locale in [catalog.narration?.language].compactMap({ $0 }) + catalog.locales
        where !locales.contains(where: { $0.lowercased() == locale.lowercased() }) {
            locales.append(locale)
        }
        return locales.count < 2 ? nil : locales
    }

    /// Screens as delivered: none (every screen) is left out.
    static func screens(_ screens: [String]) -> [String]? {
        screens.isEmpty ? nil : screens
    }

    /// An article as delivered with its content in one locale.
    static func render(_ article: Article, content: DeliveredContent) -> DeliveredArticle {
        DeliveredArticle(
            id: article.id, content: content, screens: screens(article.screens),
            keywords: article.keywords.isEmpty ? nil : article.keywords)
    }

    /// A checklist as delivered with its content in one locale: its items in the same language.
    static func render(_ checklist: Checklist, content: DeliveredContent, _ narration: Narration) -> DeliveredChecklist {
        let locale = content.locale == "default" ? nil : content.locale
        return DeliveredChecklist(
            id: checklist.id, content: content, trigger: checklist.trigger, screens: screens(checklist.screens), reward: checklist.reward,
            items: checklist.items.map { item in
                var tour: String?
                var tip: String?
                switch item.start {
                case .tour(let id): tour = id
                case .tip(let id): tip = id
                case nil: break
                }
                return DeliveredChecklistItem(
                    id: item.id, content: deliver(item.content, locale: locale, narration), done: item.done, tour: tour, tip: tip)
            })
    }

    private func deliver(_ entry: CatalogTip, client: ClientContext) -> DeliveredTip {
        let variant = Self.assign(entry.variants, id: entry.id, user: client.user)
        return Self.render(
            entry, variant: variant, content: Self.deliver(variant?.content ?? entry.content, locale: client.locale, narration),
            theme: catalog.theme)
    }

    /// A tip as delivered with a given variant (or none) and content; one with a theme of its own
    /// carries it over the catalog's `theme`.
    static func render(_ entry: CatalogTip, variant: Variant?, content: DeliveredContent, theme: Theme?) -> DeliveredTip {
        let tip = entry.tip
        var delivered = DeliveredTip(
            id: tip.id, container: tip.container, anchor: tip.anchor, trigger: tip.trigger, dismissal: tip.dismissal,
            priority: tip.priority, group: tip.group, order: tip.order,
            policy: DeliveredPolicy(
                maxDisplayCount: tip.policy.maxDisplayCount, maxDisplayDuration: tip.policy.maxDisplayDuration,
                expiresAt: tip.policy.expiresAt.map { Timestamp.format($0) }
            ),
            renderer: entry.renderer.rawValue, gesture: entry.gesture?.rawValue, variant: variant?.id, content: content,
            survey: entry.survey.map { survey in
                DeliveredSurvey(
                    scale: survey.scale.rawValue, min: survey.scale.scores.lowerBound, max: survey.scale.scores.upperBound,
                    comment: survey.comment
                )
            },
            actions: deliver(entry.actions, with: content), selector: entry.selector
        )
        delivered.theme = entry.theme.map { DeliveredTheme($0.over(theme ?? Theme())) }
        return delivered
    }

    /// Buttons with their labels in the language `content` was delivered in, so a button never
    /// speaks another language than the text above it; nil when there are none.
    static func deliver(_ actions: [Action], with content: DeliveredContent) -> [DeliveredAction]? {
        deliver(actions, locale: content.locale == "default" ? nil : content.locale)
    }

    static func deliver(_ actions: [Action], locale: String?) -> [DeliveredAction]? {
        guard !actions.isEmpty else { return nil }
        return actions.map { action in
            DeliveredAction(
                id: action.id, label: action.label.resolve(locale).value, style: action.style.rawValue, kind: action.effect.kind,
                to: action.effect.destination)
        }
    }

    static func deliver(_ content: Localized<Content>, locale: String?, _ narration: Narration) -> DeliveredContent {
        let (found, text) = content.resolve(locale)
        return delivered(text, locale: found, narration)
    }

    /// Content as delivered, in the locale it was found under (`default` for the fallback).
    static func delivered(_ content: Content, locale: String, _ narration: Narration) -> DeliveredContent {
        DeliveredContent(locale: locale, title: content.title, html: content.html, narration: narration(content, locale))
    }

    // MARK: Targeting, rollout and variants

    /// Whether a client gets a tip or tour: its targeting rule holds for the context, and the user
    /// falls inside the rollout. Without a user id only a full rollout includes the client.
    public static func admits(_ targeting: Targeting, id: String, context: [String: ContextValue], user: String?) -> Bool {
        if let rule = targeting.rule, !holds(rule, context) { return false }
        if targeting.rollout >= 100 { return true }
        guard let user, targeting.rollout > 0 else { return false }
        return bucket("rollout", id, user, buckets: 100) < UInt64(targeting.rollout)
    }

    /// A variant by weight, the same for a user every time; the first without a user.
    public static func assign(_ variants: [Variant], id: String, user: String?) -> Variant? {
        guard let first = variants.first else { return nil }
        guard let user else { return first }
        let total = variants.reduce(0) { $0 + UInt64($1.weight) }
        var point = bucket("variant", id, user, buckets: total)
        for variant in variants {
            if point < UInt64(variant.weight) { return variant }
            point -= UInt64(variant.weight)
        }
        return first
    }

    /// A stable bucket in `0..<buckets` for a user and an object: FNV-1a over
    /// `purpose/object/user`, then a 64-bit finalizer so that near keys spread. Any SDK or server
    /// computes the same number.
    static func bucket(_ purpose: String, _ object: String, _ user: String, buckets: UInt64) -> UInt64 {
        bucket(seed: seed(purpose, object), user: Array(user.utf8), buckets: buckets)
    }

    /// The hash state after `purpose/object/`: the part of a bucket that does not depend on the user.
    static func seed(_ purpose: String, _ object: String) -> UInt64 {
        fnv(Array("\(purpose)/\(object)/".utf8), from: 0xcbf2_9ce4_8422_2325)
    }

    static func fnv(_ bytes: [UInt8], from start: UInt64) -> UInt64 {
        var hash = start
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }

    static func bucket(seed: UInt64, user: [UInt8], buckets: UInt64) -> UInt64 {
        var hash = fnv(user, from: seed)
        hash ^= hash >> 33
        hash = hash &* 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        hash = hash &* 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return hash % max(buckets, 1)
    }

    /// A targeting rule over the context (the catalog reader allows only comparisons and
    /// `segment:<name>` in them; a segment holds when the context has `segment.<name>` true), or a
    /// segment's rule of attributes alone.
    public static func holds(_ rule: Rule, _ context: [String: ContextValue]) -> Bool {
        switch rule {
        case .constant(let value): value
        case .not(let operand): !holds(operand, context)
        case .and(let operands): operands.allSatisfy { holds($0, context) }
        case .or(let operands): operands.contains { holds($0, context) }
        case .compare(let path, let comparator, let literal): literal.compared(with: context[path.description], by: comparator)
        case .oneOf(let path, let literals): literals.contains { $0.matches(context[path.description]) }
        case .sequence(let events, nil) where events.count == 1 && events[0].name == "segment":
            events[0].target.map { context["segment." + $0] == .bool(true) } ?? false
        case .sequence, .count: false
        }
    }

    // MARK: Segments

    /// Whether the targeting of any tip or tour names a segment: only then is it worth deciding
    /// which the user is in.
    public var readsSegments: Bool { !compiled.segments.isEmpty }

    /// Whether any segment targeting names reads history, whose members the refresher keeps.
    public var readsSegmentMembers: Bool { compiled.segments.contains(where: \.readsHistory) }

    /// The segments targeting names that the client's user is in: one of attributes alone is
    /// decided here from the client's attributes; one that reads history is taken from
    /// `members`, the segments the refresher last found the user in.
    public func segments(for client: ClientContext, members: [String]) -> Set<String> {
        let context = client.values
        var segments: Set<String> = []
        for segment in compiled.segments {
            let holds = segment.readsHistory ? members.contains(segment.name) : Self.holds(segment.rule, context)
            if holds { segments.insert(segment.name) }
        }
        return segments
    }

    // MARK: Media

    /// The media variant for a client, as the source app chose its videos: variants for the
    /// client's exact model, else for its model family, else for any model; among them those whose
    /// `minAppVersion` is not newer than the client's app version, the newest first; then by locale
    /// along the fallback chain, a variant without a locale last.
    static func choose(_ media: Media, for client: ClientContext) -> DeliveredMedia? {
        chooseIndex(media, for: MediaClient(client)).map { deliver(media, variant: $0) }
    }

    /// What media choice reads of a client, worked out once per request.
    struct MediaClient {
        var model: String?
        var family: String?
        var appVersion: Version?
        /// The locale chain, lowercased.
        var locales: [String]

        init(_ client: ClientContext) {
            model = client.model
            family = client.model.map(Resolver.family(of:))
            appVersion = client.appVersion.flatMap(Version.init(reading:))
            locales = localeChain(client.locale).map { $0.lowercased() }
        }
    }

    static func deliver(_ media: Media, variant index: Int) -> DeliveredMedia {
        let pick = media.variants[index]
        return DeliveredMedia(id: media.id, url: pick.url, thumbnail: pick.thumbnail, type: pick.type)
    }

    /// The index of ``choose(_:for:)``'s variant.
    static func chooseIndex(_ media: Media, for client: MediaClient) -> Int? {
        let variants = media.variants
        // 0: made for this model, 1: for its family, 2: for any model; -1: for another device.
        func tier(_ variant: MediaVariant) -> Int {
            if let model = variant.model { return model == client.model ? 0 : -1 }
            if let family = variant.family { return family == client.family ? 1 : -1 }
            return 2
        }
        func usable(_ variant: MediaVariant) -> Bool {
            guard let minimum = variant.minAppVersion else { return true }
            guard let appVersion = client.appVersion else { return false }
            return minimum <= appVersion
        }
        // No minimum counts as the oldest version.
        func older(_ left: Version?, _ right: Version?) -> Bool {
            guard let right else { return false }
            guard let left else { return true }
            return left < right
        }
        for level in 0...2 {
            var found = false
            var newest: Version?
            for variant in variants where tier(variant) == level && usable(variant) {
                if !found || older(newest, variant.minAppVersion) { newest = variant.minAppVersion }
                found = true
            }
            guard found else { continue }
            func candidate(_ variant: MediaVariant) -> Bool {
                tier(variant) == level && usable(variant) && variant.minAppVersion == newest
            }
            for locale in client.locales {
                for (index, variant) in variants.enumerated() where candidate(variant) {
                    if let own = variant.locale, sameLocale(own, locale) { return index }
                }
            }
            for (index, variant) in variants.enumerated() where candidate(variant) && variant.locale == nil { return index }
        }
        return nil
    }

    /// Whether a locale as written equals a lowercased one, ignoring ASCII case, without allocating.
    static func sameLocale(_ written: String, _ lowercased: String) -> Bool {
        written.utf8.count == lowercased.utf8.count
            && zip(written.utf8, lowercased.utf8).allSatisfy { ($0 >= 65 && $0 <= 90 ? $0 + 32 : $0) == $1 }
    }

    /// A model's family: its leading letters (`iPhone15,2` -> `iPhone`, `Pixel 8` -> `Pixel`).
    static func family(of model: String) -> String {
        String(model.prefix { $0.isLetter })
    }
}
