import Foundation
import WaymarkEngine
import WaymarkRules
import WaymarkSupport
import Yams

extension CatalogDocument {
    /// The catalog as a document in the format ``parse(_:file:)`` reads, with the keys in the
    /// documented order and defaults left out. This is the form the server stores (bodies in
    /// Markdown as written, HTML bodies sanitized) and `waymark pull` writes; reading it back gives
    /// the same catalog.
    public static func yaml(_ catalog: Catalog) -> String { emit(node(catalog)) }

    /// One tip, tour or media entry as a document of its own, as the admin API's per-object
    /// endpoints read and write them.
    public static func yaml(_ tip: CatalogTip) -> String { emit(node(tip)) }
    public static func yaml(_ tour: Tour) -> String { emit(node(tour)) }
    public static func yaml(_ media: Media) -> String { emit(node(media)) }
    public static func yaml(_ segment: Segment) -> String { emit(node(segment)) }
    public static func yaml(_ checklist: Checklist) -> String { emit(node(checklist)) }
    public static func yaml(_ article: Article) -> String { emit(node(article)) }

    private static func emit(_ node: Node) -> String {
        // Every node is made here from strings and numbers, which the emitter always accepts.
        (try? Yams.serialize(node: node, width: -1, allowUnicode: true)) ?? ""
    }

    static func node(_ catalog: Catalog) -> Node {
        var pairs = Pairs()
        pairs["frequency"] = text(catalog.frequency.rawValue)
        if !catalog.locales.isEmpty { pairs["locales"] = Node(catalog.locales.map(text)) }
        if !catalog.listen.isEmpty { pairs["listen"] = Node(catalog.listen.map(text)) }
        if !catalog.segments.isEmpty { pairs["segments"] = Node(catalog.segments.map(node)) }
        pairs["tips"] = Node(catalog.tips.map(node))
        if !catalog.tours.isEmpty { pairs["tours"] = Node(catalog.tours.map(node)) }
        if !catalog.checklists.isEmpty { pairs["checklists"] = Node(catalog.checklists.map(node)) }
        if !catalog.articles.isEmpty { pairs["articles"] = Node(catalog.articles.map(node)) }
        if !catalog.media.isEmpty { pairs["media"] = Node(catalog.media.map(node)) }
        var rewards = Pairs()
        rewards["maxCreditsPerUser"] = catalog.rewards.maxCreditsPerUser.map(number)
        if !catalog.rewards.requireReading { rewards["requireReading"] = Node("false", .init(.bool)) }
        if !rewards.isEmpty { pairs["rewards"] = rewards.node }
        // Only what an app changed: the defaults may improve for everyone else.
        var struggles = Pairs()
        let defaults = StruggleThresholds()
        for (name, path, _) in StruggleThresholds.wholeSettings where catalog.struggles[keyPath: path] != defaults[keyPath: path] {
            struggles[name] = number(catalog.struggles[keyPath: path])
        }
        for (name, path, _) in StruggleThresholds.numberSettings where catalog.struggles[keyPath: path] != defaults[keyPath: path] {
            struggles[name] = Node(StruggleThresholds.text(catalog.struggles[keyPath: path]), .init(.float))
        }
        if !struggles.isEmpty { pairs["struggles"] = struggles.node }
        if let narration = catalog.narration {
            pairs["narration"] = Node([(text("language"), text(narration.language)), (text("speed"), number(narration.speed))])
        }
        pairs["theme"] = catalog.theme.map(node)
        return pairs.node
    }

    static func node(_ theme: Theme) -> Node {
        func colors(_ colors: Theme.Colors, into pairs: inout Pairs) {
            pairs["surface"] = colors.surface.map(text)
            pairs["text"] = colors.text.map(text)
            pairs["accent"] = colors.accent.map(text)
            pairs["focus"] = colors.focus.map(text)
        }
        var pairs = Pairs()
        colors(theme.colors, into: &pairs)
        pairs["font"] = theme.font.map(text)
        pairs["radius"] = theme.radius.map(number)
        pairs["spacing"] = theme.spacing.map(number)
        if let dark = theme.dark {
            var darkPairs = Pairs()
            colors(dark, into: &darkPairs)
            if !darkPairs.isEmpty { pairs["dark"] = darkPairs.node }
        }
        return pairs.node
    }

    static func node(_ segment: Segment) -> Node {
        var pairs = Pairs()
        pairs["name"] = text(segment.name)
        if !segment.summary.isEmpty { pairs["summary"] = text(segment.summary) }
        pairs["rule"] = text(segment.rule.description)
        return pairs.node
    }

    static func node(_ entry: CatalogTip) -> Node {
        let tip = entry.tip
        var pairs = Pairs()
        pairs["id"] = text(tip.id)
        pairs["container"] = text(tip.container)
        pairs["anchor"] = tip.anchor.map(text)
        pairs["selector"] = entry.selector.map(text)
        pairs["trigger"] = text(tip.trigger.description)
        pairs["dismissal"] = tip.dismissal.map { text($0.description) }
        if tip.priority != 0 { pairs["priority"] = number(tip.priority) }
        pairs["group"] = tip.group.map(text)
        if tip.group != nil || tip.order != 0 { pairs["order"] = number(tip.order) }
        var policy = Pairs()
        policy["maxDisplayCount"] = tip.policy.maxDisplayCount.map(number)
        policy["maxDisplayDuration"] = tip.policy.maxDisplayDuration.map { seconds in
            text(seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds))
        }
        policy["expiresAt"] = tip.policy.expiresAt.map { text(Timestamp.format(Int64(($0.timeIntervalSince1970 * 1000).rounded()))) }
        if !policy.isEmpty { pairs["policy"] = policy.node }
        if entry.renderer != .tooltip { pairs["renderer"] = text(entry.renderer.rawValue) }
        pairs["gesture"] = entry.gesture.map { text($0.rawValue) }
        addTargeting(entry.targeting, to: &pairs)
        pairs["content"] = node(entry.content)
        if let survey = entry.survey {
            var surveyPairs = Pairs()
            surveyPairs["scale"] = text(survey.scale.rawValue)
            if survey.comment { surveyPairs["comment"] = Node("true", .init(.bool)) }
            pairs["survey"] = surveyPairs.node
        }
        if !entry.variants.isEmpty {
            pairs["variants"] = Node(
                entry.variants.map { variant in
                    var pairs = Pairs()
                    pairs["id"] = text(variant.id)
                    pairs["weight"] = number(variant.weight)
                    pairs["content"] = node(variant.content)
                    return pairs.node
                })
        }
        pairs["actions"] = node(entry.actions)
        pairs["theme"] = entry.theme.map(node)
        return pairs.node
    }

    /// Buttons, each with the style written only where it is not the default (the first primary,
    /// the others secondary); nil when there are none.
    private static func node(_ actions: [Action]) -> Node? {
        guard !actions.isEmpty else { return nil }
        return Node(
            actions.enumerated().map { index, action in
                var pairs = Pairs()
                pairs["id"] = text(action.id)
                pairs["label"] = text(action.label.fallback)
                if !action.label.locales.isEmpty {
                    pairs["locales"] = Node(action.label.locales.sorted { $0.key < $1.key }.map { (text($0.key), text($0.value)) })
                }
                switch action.effect {
                case .next: pairs["do"] = text("next")
                case .dismiss: pairs["do"] = text("dismiss")
                case .tour(let id): pairs["tour"] = text(id)
                case .url(let url): pairs["url"] = text(url)
                case .route(let route): pairs["route"] = text(route)
                }
                if action.style != (index == 0 ? .primary : .secondary) { pairs["style"] = text(action.style.rawValue) }
                return pairs.node
            })
    }

    static func node(_ tour: Tour) -> Node {
        var pairs = Pairs()
        pairs["id"] = text(tour.id)
        pairs["trigger"] = tour.trigger.map { text($0.description) }
        addTargeting(tour.targeting, to: &pairs)
        addScreens(tour.screens, to: &pairs)
        pairs["pages"] = Node(
            tour.pages.map { page in
                var pairs = Pairs()
                pairs["id"] = text(page.id)
                pairs["content"] = node(page.content)
                pairs["media"] = page.media.map(text)
                pairs["reward"] = page.reward.map(number)
                pairs["minReadingSeconds"] = page.minReadingSeconds.map(number)
                pairs["actions"] = node(page.actions)
                return pairs.node
            })
        return pairs.node
    }

    static func node(_ checklist: Checklist) -> Node {
        var pairs = Pairs()
        pairs["id"] = text(checklist.id)
        pairs["content"] = node(checklist.content)
        pairs["trigger"] = checklist.trigger.map { text($0.description) }
        addTargeting(checklist.targeting, to: &pairs)
        addScreens(checklist.screens, to: &pairs)
        pairs["reward"] = checklist.reward.map(number)
        pairs["items"] = Node(
            checklist.items.map { item in
                var pairs = Pairs()
                pairs["id"] = text(item.id)
                pairs["content"] = node(item.content)
                pairs["done"] = text(item.done.description)
                switch item.start {
                case .tour(let id): pairs["tour"] = text(id)
                case .tip(let id): pairs["tip"] = text(id)
                case nil: break
                }
                return pairs.node
            })
        return pairs.node
    }

    static func node(_ article: Article) -> Node {
        var pairs = Pairs()
        pairs["id"] = text(article.id)
        pairs["content"] = node(article.content)
        addScreens(article.screens, to: &pairs)
        if !article.keywords.isEmpty { pairs["keywords"] = Node(article.keywords.map(text)) }
        addTargeting(article.targeting, to: &pairs)
        return pairs.node
    }

    static func node(_ media: Media) -> Node {
        Node([
            (text("id"), text(media.id)),
            (
                text("variants"),
                Node(
                    media.variants.map { variant in
                        var pairs = Pairs()
                        pairs["url"] = text(variant.url)
                        pairs["thumbnail"] = variant.thumbnail.map(text)
                        pairs["type"] = variant.type.map(text)
                        pairs["model"] = variant.model.map(text)
                        pairs["family"] = variant.family.map(text)
                        pairs["minAppVersion"] = variant.minAppVersion.map { text($0.description) }
                        pairs["locale"] = variant.locale.map(text)
                        return pairs.node
                    })
            ),
        ])
    }

    private static func addTargeting(_ targeting: Targeting, to pairs: inout Pairs) {
        pairs["targeting"] = targeting.rule.map { text($0.description) }
        if targeting.rollout != 100 { pairs["rollout"] = number(targeting.rollout) }
    }

    private static func addScreens(_ screens: [String], to pairs: inout Pairs) {
        if !screens.isEmpty { pairs["screens"] = Node(screens.map(text)) }
    }

    private static func node(_ content: Localized<Content>) -> Node {
        var pairs = textPairs(content.fallback)
        if !content.locales.isEmpty {
            pairs["locales"] = Node(content.locales.sorted { $0.key < $1.key }.map { (text($0.key), textPairs($0.value).node) })
        }
        return pairs.node
    }

    private static func textPairs(_ content: Content) -> Pairs {
        var pairs = Pairs()
        pairs["title"] = text(content.title)
        if let markdown = content.markdown {
            if !markdown.isEmpty { pairs["body"] = text(markdown) }
        } else if !content.html.isEmpty {
            pairs["html"] = text(content.html)
        }
        pairs["audio"] = content.audio.map(text)
        return pairs
    }

    /// A string, quoted when YAML would otherwise read it as something else.
    private static func text(_ value: String) -> Node {
        Node(value, .init(.str))
    }

    private static func number(_ value: Int) -> Node {
        Node(String(value), .init(.int))
    }
}

/// Keys and values in the order they are set; setting nil adds nothing. (Write-only: a document
/// is built top to bottom.)
private struct Pairs {
    private var pairs: [(Node, Node)] = []

    subscript(key: String) -> Node? {
        @available(*, unavailable) get { fatalError() }
        set {
            guard let newValue else { return }
            pairs.append((Node(key), newValue))
        }
    }

    var isEmpty: Bool { pairs.isEmpty }
    var node: Node { Node(pairs) }
}
