import Foundation
import WaymarkEngine
import WaymarkHTML
import WaymarkRules

/// An app's catalog as authored: tips with their content in every locale, tours, media and the
/// reward policy. `waymark lint` checks it, the server stores it, and WaymarkDelivery resolves it
/// for each client.
public struct Catalog: Hashable, Sendable {
    public var frequency: DisplayFrequency
    /// The locales every content and button is written in besides the default (`locales: [hi]`);
    /// `waymark lint` warns of what lacks one.
    public var locales: [String]
    public var tips: [CatalogTip]
    public var tours: [Tour]
    public var media: [Media]
    public var rewards: RewardPolicy
    /// Spoken narration made by the server for content without a recording; nil: none.
    public var narration: NarrationSettings?
    /// The locales (`hi`, and so `hi-IN`) whose users are in the listener's mode until they turn
    /// it off: every tip, tour page and article speaks as it appears (`listen: [hi]`).
    public var listen: [String]
    /// Named groups of users that targeting reads as `segment:<name>`.
    public var segments: [Segment]
    /// Onboarding checklists: tasks each done when a rule over the user's history holds.
    public var checklists: [Checklist]
    /// Help articles the help launcher lists and finds.
    public var articles: [Article]
    /// How the guidance looks (``Theme``); nil: Waymark's look.
    public var theme: Theme?
    /// When a pattern of events counts as a sign that people are lost; the defaults unless set.
    public var struggles: StruggleThresholds

    public init(
        frequency: DisplayFrequency = .immediate, locales: [String] = [], segments: [Segment] = [], tips: [CatalogTip], tours: [Tour] = [],
        checklists: [Checklist] = [], articles: [Article] = [], media: [Media] = [], rewards: RewardPolicy = RewardPolicy(),
        narration: NarrationSettings? = nil, listen: [String] = [], theme: Theme? = nil,
        struggles: StruggleThresholds = StruggleThresholds()
    ) {
        self.theme = theme
        self.struggles = struggles
        self.frequency = frequency
        self.locales = locales
        self.listen = listen
        self.segments = segments
        self.tips = tips
        self.tours = tours
        self.checklists = checklists
        self.articles = articles
        self.media = media
        self.rewards = rewards
        self.narration = narration
    }

    /// The tips as the engine schedules them.
    public var engineTips: [Tip] { tips.map(\.tip) }
}

/// A tip: what the engine schedules, how it is drawn, what it says, and who gets it.
public struct CatalogTip: Hashable, Sendable {
    public var tip: Tip
    public var renderer: Renderer
    /// The gesture a pointer shows.
    public var gesture: Gesture?
    /// A web tip's anchor as a CSS selector (``CSSSelector``), instead of a named `anchor`: the
    /// web SDK points at the first element it matches; the Swift and Java clients leave the tip out.
    public var selector: String?
    public var content: Localized<Content>
    public var targeting: Targeting
    /// A/B variants, each with its own content; empty when the tip has one content.
    public var variants: [Variant]
    /// The question the tip asks, when it is a survey: its title is the question.
    public var survey: Survey?
    /// The tip's buttons; a survey shows them on its ending, once answered.
    public var actions: [Action]
    /// What the tip changes of the catalog's theme, for itself; nil: the catalog's.
    public var theme: Theme?

    public init(
        tip: Tip, renderer: Renderer = .tooltip, gesture: Gesture? = nil, selector: String? = nil, content: Localized<Content>,
        targeting: Targeting = Targeting(), variants: [Variant] = [], survey: Survey? = nil, actions: [Action] = [], theme: Theme? = nil
    ) {
        self.theme = theme
        self.tip = tip
        self.renderer = renderer
        self.gesture = gesture
        self.selector = selector
        self.content = content
        self.targeting = targeting
        self.variants = variants
        self.survey = survey
        self.actions = actions
    }

    public var id: String { tip.id }
}

/// A button on a tip, a tour page or a survey's ending, and what it does: the next step, away,
/// a tour, a web page, or a place in the app (a route the app's `onAction` hook follows; the web
/// SDK follows a route itself when the page gives no hook).
///
/// Pressing it is an event (`tip_action` for a tip, `tour_action` for a tour page) whose target is the
/// tip or tour and whose properties name the action (`action`), what it does (`kind`) and where it
/// led (`to`), so rules read it (`dismissal: tip_action:track-order`, `tip_action:track-order where
/// action == "later"`) and analytics count it.
public struct Action: Hashable, Sendable {
    /// What pressing the button does.
    public enum Effect: Hashable, Sendable {
        /// A tip of a group: done, so the group's next tip may show. A tour page: the next page
        /// (on the last, the tour is finished).
        case next
        /// The tip, or the tour, is closed.
        case dismiss
        /// The tip closes and the tour with this id opens.
        case tour(String)
        /// An http(s) page opens (in a new tab on the web).
        case url(String)
        /// A place in the app, such as `/orders/track`: handed to the app's `onAction` hook.
        case route(String)

        /// The name of what it does: next, dismiss, tour, url or route.
        public var kind: String {
            switch self {
            case .next: "next"
            case .dismiss: "dismiss"
            case .tour: "tour"
            case .url: "url"
            case .route: "route"
            }
        }

        /// Where it leads: the tour's id, the URL or the route; nil for next and dismiss.
        public var destination: String? {
            switch self {
            case .next, .dismiss: nil
            case .tour(let id): id
            case .url(let url): url
            case .route(let route): route
            }
        }
    }

    /// How the button looks: the main thing to do, or another way out.
    public enum Style: String, CaseIterable, Hashable, Sendable {
        case primary, secondary
    }

    /// The most buttons a tip or page carries: more do not fit beside each other on a phone.
    public static let limit = 3
    /// The longest label, in characters: a button, not a sentence.
    public static let labelLimit = 40

    /// A name of the rule language, unique among its tip's or page's actions: the `action`
    /// property of its event.
    public var id: String
    /// The button's text, per locale.
    public var label: Localized<String>
    public var effect: Effect
    public var style: Style

    public init(id: String, label: Localized<String>, effect: Effect, style: Style = .primary) {
        self.id = id
        self.label = label
        self.effect = effect
        self.style = style
    }

    /// Why a button cannot do what it says: the message, and what would do.
    public struct Problem: Error, Hashable, Sendable {
        public var message: String
        public var expected: String?
    }

    /// What a button does, from its kind (`next`, `dismiss`, `tour`, `url`, `route`) and, for the
    /// last three, where it leads, as a catalog or the console's form writes them. `next` says
    /// whether the button may go to a next step (a tip outside a group has none).
    public static func effect(kind: String, to: String?, next: Bool) -> Result<Effect, Problem> {
        let destination = to?.trimmingCharacters(in: .whitespaces) ?? ""
        switch kind {
        case "next" where next: return .success(.next)
        case "next":
            return .failure(Problem(message: "a tip outside a group has no next step", expected: "do: dismiss, or a group on the tip"))
        case "dismiss": return .success(.dismiss)
        case "tour", "url", "route":
            if destination.isEmpty { return .failure(Problem(message: "\(kind) needs where it leads", expected: nil)) }
            if kind == "tour" { return .success(.tour(destination)) }
            if kind == "url" {
                return CatalogDocument.isWebURL(destination)
                    ? .success(.url(destination)) : .failure(Problem(message: "url must be an http or https URL", expected: nil))
            }
            if let problem = routeProblem(destination) { return .failure(Problem(message: problem, expected: nil)) }
            return .success(.route(destination))
        default:
            return .failure(Problem(message: "unknown do \"\(kind)\"", expected: "next or dismiss"))
        }
    }

    /// Why `route` cannot be an action's route, or nil: a path in the app, from `/`, with no
    /// spaces or control characters, at most 512 bytes.
    public static func routeProblem(_ route: String) -> String? {
        guard route.hasPrefix("/"), !route.hasPrefix("//") else {
            return "a route is a path in the app, such as /orders/track (a web page is url:)"
        }
        guard route.utf8.count <= 512 else { return "a route is at most 512 bytes" }
        guard !route.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7f }) else {
            return "a route has no spaces or control characters"
        }
        return nil
    }

    /// Why `label` cannot be a button's text, or nil.
    public static func labelProblem(_ label: String) -> String? {
        let trimmed = label.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return "a button needs a label" }
        if trimmed.count > labelLimit { return "a label is at most \(labelLimit) characters: this one has \(trimmed.count)" }
        return nil
    }
}

/// A satisfaction survey: a score on the scale's range, and a comment if the tip asks for one.
/// The SDKs send each answer as a `survey_answered` event whose target is the tip and whose
/// properties hold `score` and `comment`.
public struct Survey: Hashable, Sendable {
    public enum Scale: String, CaseIterable, Hashable, Sendable {
        /// Customer satisfaction: 1 (very unsatisfied) to 5 (very satisfied).
        case csat
        /// Net promoter: how likely the user recommends the app, 0 to 10.
        case nps

        public var scores: ClosedRange<Int> { self == .csat ? 1...5 : 0...10 }
    }

    /// The event an answer is sent as.
    public static let answerEvent = "survey_answered"

    public var scale: Scale
    /// Whether the survey offers a free-text comment (always optional for the user).
    public var comment: Bool

    public init(scale: Scale, comment: Bool = false) {
        self.scale = scale
        self.comment = comment
    }

    /// Why a tip with this id cannot be a survey, or nil: answers are events whose target is the
    /// tip, and a target is a name of the rule language (letters, digits, `-` and `_`).
    public static func idProblem(_ id: String) -> String? {
        id.contains(".") ? "a survey's tip id is the target of its answers: letters, digits, - and _ only, no \".\"" : nil
    }

    /// The dismissal a survey tip gets when its author wrote none: answered, it is done.
    public static func answered(tip id: String) -> Rule {
        .sequence([EventPattern(name: answerEvent, target: id)], within: nil)
    }
}

/// How a tip is drawn. A hotspot is a pulsing marker on its anchor that opens the tip as a tooltip
/// when tapped (the event `hotspot_opened`), for help that does not interrupt.
public enum Renderer: String, CaseIterable, Hashable, Sendable {
    case tooltip, spotlight, pointer, banner, modal, hotspot

    /// The event a hotspot's marker sends when tapped open (target: the tip).
    public static let hotspotOpened = "hotspot_opened"
}

public enum Gesture: String, CaseIterable, Hashable, Sendable {
    case tap
    case doubleTap = "double-tap"
    case swipeLeft = "swipe-left"
    case swipeRight = "swipe-right"
    case swipeUp = "swipe-up"
    case swipeDown = "swipe-down"
    case longPress = "long-press"
}

/// What a tip or tour page says in one locale.
///
/// Authors write the body in Markdown (`body`) or HTML (`html`). HTML is kept only sanitized (see
/// ``HTMLSanitizer``); Markdown is kept as written, since it cannot carry markup (Waymark's
/// Markdown shows HTML as typed), beside the sanitized HTML made from it.
public struct Content: Hashable, Sendable {
    /// Plain text: renderers escape it.
    public var title: String
    /// The body as written, when it was written in Markdown.
    public private(set) var markdown: String?
    /// The body as sanitized HTML: what clients get.
    public private(set) var html: String
    /// A narration recording for this locale: an http(s) URL, or `recording:KEY` for one uploaded
    /// to the server (see ``recordingKey``).
    public var audio: String?

    public init(title: String, html: String = "", audio: String? = nil) {
        self.title = title
        self.html = HTMLSanitizer.sanitize(html)
        self.audio = audio
    }

    /// Content whose body is Markdown.
    public init(title: String, markdown: String, audio: String? = nil) {
        self.title = title
        self.markdown = markdown
        self.html = Markdown.html(markdown)
        self.audio = audio
    }

    /// How `audio` names a recording uploaded to the server.
    public static let recordingPrefix = "recording:"

    /// The key of the uploaded recording `audio` names, if it names one.
    public var recordingKey: String? {
        guard let audio, audio.hasPrefix(Self.recordingPrefix) else { return nil }
        return String(audio.dropFirst(Self.recordingPrefix.count))
    }

    /// What narration says: the title, then the body's words.
    public var spokenText: String {
        [title, HTMLText.plain(html)].filter { !$0.isEmpty }.joined(separator: "\n")
    }
}

/// How the server speaks tips and pages that have no recording: with espeak-ng, in each content's
/// language.
public struct NarrationSettings: Hashable, Sendable {
    /// The words per minute a catalog may ask for.
    public static let speeds = 80...400

    /// The language of the default content (`en`, `hi`); each locale speaks its own.
    public var language: String
    /// Words per minute.
    public var speed: Int

    public init(language: String, speed: Int = 150) {
        self.language = language
        self.speed = speed
    }
}

/// A value per locale with a default, read through the fallback chain `hi-IN` -> `hi` -> default.
public struct Localized<Value: Hashable & Sendable>: Hashable, Sendable {
    public var fallback: Value
    /// Keyed by locale as written (`hi`, `hi-IN`), matched case-insensitively.
    public var locales: [String: Value]

    public init(_ fallback: Value, locales: [String: Value] = [:]) {
        self.fallback = fallback
        self.locales = locales
    }

    /// The value for a locale and the locale it was found under (`default` for the fallback).
    public func resolve(_ locale: String?) -> (locale: String, value: Value) {
        for candidate in localeChain(locale) {
            if let match = locales.first(where: { $0.key.caseInsensitiveCompare(candidate) == .orderedSame }) {
                return (match.key, match.value)
            }
        }
        return ("default", fallback)
    }
}

/// The fallback chain of a locale, most specific first: `hi-IN` -> [`hi-IN`, `hi`]; `pt_BR` reads
/// as `pt-BR`.
public func localeChain(_ locale: String?) -> [String] {
    guard let locale, !locale.isEmpty else { return [] }
    // Plain Swift rather than Foundation's replacingOccurrences: this runs on every catalog request.
    var parts = locale.split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init)
    var chain: [String] = []
    while !parts.isEmpty {
        chain.append(parts.joined(separator: "-"))
        parts.removeLast()
    }
    return chain
}

/// A named group of users, such as first-time buyers or cash-on-delivery users in smaller cities:
/// a rule over the user's attributes (`user.<name>`) and, optionally, what they did in the last
/// ``historyDays`` days (`count(purchase where amount >= 10000) >= 1 within 30d`). Targeting
/// reads it as `segment:<name>`; the console counts and breaks analytics down by it.
///
/// The server decides membership: a segment of attributes alone when it delivers the catalog,
/// from the attributes it keeps; one that reads history from the user's recorded events, replayed
/// in the background (see the segment refresher), since reading one user's history on every
/// catalog request would need an index by user that slows every event's insert.
public struct Segment: Hashable, Sendable {
    /// A name of the rule language (`cod-users`), as `segment:<name>` names it.
    public var name: String
    /// What the segment is for, in the author's words.
    public var summary: String
    public var rule: Rule

    /// How far back a segment's history reaches: a term without `within` reads this many days,
    /// and no `within` may reach further.
    public static let historyDays = 90

    public init(name: String, summary: String = "", rule: Rule) {
        self.name = name
        self.summary = summary
        self.rule = rule
    }

    /// Whether the rule reads events, and so needs the user's history, not only their attributes.
    public var readsHistory: Bool { Self.readsHistory(rule) }

    /// The rule as a replay evaluates it: each term without `within` reads the last
    /// ``historyDays`` days (`screen:product` as `screen:product within 90d`), so that a replay
    /// of any history as long or longer decides the same.
    public var boundedRule: Rule { Self.bounded(rule) }

    static func bounded(_ rule: Rule) -> Rule {
        let history = Window(historyDays, .days)
        switch rule {
        case .constant, .compare, .oneOf: return rule
        case .not(let operand): return .not(bounded(operand))
        case .and(let operands): return .and(operands.map(bounded))
        case .or(let operands): return .or(operands.map(bounded))
        case .sequence(let events, let window): return .sequence(events, within: window ?? history)
        case .count(let event, let comparator, let threshold, let window):
            return .count(event, comparator, threshold, within: window ?? history)
        }
    }

    static func readsHistory(_ rule: Rule) -> Bool {
        switch rule {
        case .constant, .compare, .oneOf: false
        case .sequence, .count: true
        case .not(let operand): readsHistory(operand)
        case .and(let operands), .or(let operands): operands.contains(where: readsHistory)
        }
    }

    /// Why a rule cannot define a segment, if it cannot: it reads the user's attributes and their
    /// events, within ``historyDays``, and names no other segment.
    public static func problem(_ rule: Rule) -> String? {
        switch rule {
        case .constant: return nil
        case .not(let operand): return problem(operand)
        case .and(let operands), .or(let operands): return operands.lazy.compactMap(problem).first
        case .sequence(let events, let window):
            if events.contains(where: { $0.name == "segment" }) { return "a segment cannot include another segment" }
            return windowProblem(window)
        case .count(let event, _, _, let window):
            if event.name == "segment" { return "a segment cannot include another segment" }
            return windowProblem(window)
        case .compare(let path, _, _), .oneOf(let path, _):
            guard isAttribute(path), !targetingPaths.contains(path.description) else {
                return
                    "a segment reads the user's attributes (user.<name>) and events, not \(path): the device's context belongs in targeting"
            }
            return nil
        }
    }

    private static func windowProblem(_ window: Window?) -> String? {
        guard let window, window.milliseconds > Int64(historyDays) * 86_400_000 else { return nil }
        return "a segment's history reaches back \(historyDays) days: within \(window) is longer"
    }

    /// Whether `name` can name a segment: a name of the rule language, so that `segment:<name>`
    /// reads as one.
    public static func isName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 64, case .sequence(let events, nil)? = try? Rule(parsing: "segment:" + name) else {
            return false
        }
        return events.count == 1 && events[0].target == name
    }
}

/// The names of the segments a targeting rule reads (`segment:cod-users`), in order of mention.
public func segmentNames(in rule: Rule) -> [String] {
    switch rule {
    case .constant, .compare, .oneOf, .count: []
    case .not(let operand): segmentNames(in: operand)
    case .and(let operands), .or(let operands): operands.flatMap { segmentNames(in: $0) }
    case .sequence(let events, _): events.compactMap { $0.name == "segment" ? $0.target : nil }
    }
}

/// Who gets a tip or a tour: a rule over the client context and a percentage of users.
public struct Targeting: Hashable, Sendable {
    /// Over `device.platform`, `device.model`, `app.version`, `user.locale`, `user.id`; `nil`: everyone.
    public var rule: Rule?
    /// 0 to 100: the share of users (by a sticky hash of the user id) who get it.
    public var rollout: Int

    public init(rule: Rule? = nil, rollout: Int = 100) {
        self.rule = rule
        self.rollout = rollout
    }
}

/// An A/B variant: its own content, and a weight for the share of users assigned to it.
public struct Variant: Hashable, Sendable {
    public var id: String
    public var weight: Int
    public var content: Localized<Content>

    public init(id: String, weight: Int = 1, content: Localized<Content>) {
        self.id = id
        self.weight = weight
        self.content = content
    }
}

/// A guided tour: pages of HTML in order, each with an optional video and credit reward.
public struct Tour: Hashable, Sendable {
    public var id: String
    public var trigger: Rule?
    public var targeting: Targeting
    /// The screens whose help lists it (`checkout`, as `screen:checkout` names them); empty: every
    /// screen. A search of the help finds it on any screen.
    public var screens: [String]
    public var pages: [TourPage]

    public init(id: String, trigger: Rule? = nil, targeting: Targeting = Targeting(), screens: [String] = [], pages: [TourPage]) {
        self.id = id
        self.trigger = trigger
        self.targeting = targeting
        self.screens = screens
        self.pages = pages
    }
}

public struct TourPage: Hashable, Sendable {
    public var id: String
    public var content: Localized<Content>
    /// The id of an entry of the catalog's media.
    public var media: String?
    /// Credits for reading the page to the bottom.
    public var reward: Int?
    /// For the credit, the least time in seconds the user's own events must show between opening
    /// the page (`page_viewed`) and reaching its bottom (`page_read_to_bottom`); nil: reaching the
    /// bottom is enough.
    public var minReadingSeconds: Int?
    /// The page's buttons, beside the panel's own back and next.
    public var actions: [Action]

    /// The longest reading time a page may ask for: an hour.
    public static let readingSecondsLimit = 3600

    public init(
        id: String, content: Localized<Content>, media: String? = nil, reward: Int? = nil, minReadingSeconds: Int? = nil,
        actions: [Action] = []
    ) {
        self.id = id
        self.content = content
        self.media = media
        self.reward = reward
        self.minReadingSeconds = minReadingSeconds
        self.actions = actions
    }
}

/// An onboarding checklist: first steps for a new user, each done when a rule over what they did
/// holds (`screen:address-saved`), shown with its progress in a panel the user opens. An item can
/// start a tour or show a tip that teaches it. Done items stay done (on every device of a user
/// whose identity is proven); when all are, the checklist is completed (the event
/// `checklist_completed`) and grants its credits once.
public struct Checklist: Hashable, Sendable {
    public var id: String
    /// The checklist's name and a line about it; the items speak the language of its content.
    public var content: Localized<Content>
    /// When the checklist is offered; nil: from the user's first visit.
    public var trigger: Rule?
    public var targeting: Targeting
    /// The screens whose help lists it; empty: every screen. A search of the help finds it on any
    /// screen.
    public var screens: [String]
    /// Credits for completing it, granted once per user.
    public var reward: Int?
    public var items: [ChecklistItem]

    /// The most items a checklist holds: first steps, not a manual.
    public static let itemLimit = 12

    public init(
        id: String, content: Localized<Content>, trigger: Rule? = nil, targeting: Targeting = Targeting(), screens: [String] = [],
        reward: Int? = nil, items: [ChecklistItem]
    ) {
        self.id = id
        self.content = content
        self.trigger = trigger
        self.targeting = targeting
        self.screens = screens
        self.reward = reward
        self.items = items
    }
}

/// A help article: an answer the help launcher lists on the screens it belongs to and finds by
/// its words in the user's language (its title, its text and its keywords), read aloud where it
/// has narration.
public struct Article: Hashable, Sendable {
    public var id: String
    public var content: Localized<Content>
    /// The screens it belongs to (`cart`, as `screen:cart` names them); empty: every screen.
    public var screens: [String]
    /// More words it is found by, in any language and script (`delivery`, `डिलीवरी`).
    public var keywords: [String]
    public var targeting: Targeting

    /// The most keywords an article has.
    public static let keywordLimit = 20

    public init(
        id: String, content: Localized<Content>, screens: [String] = [], keywords: [String] = [], targeting: Targeting = Targeting()
    ) {
        self.id = id
        self.content = content
        self.screens = screens
        self.keywords = keywords
        self.targeting = targeting
    }
}

/// One task of a checklist.
public struct ChecklistItem: Hashable, Sendable {
    /// What the item's "Show me" button starts.
    public enum Start: Hashable, Sendable {
        /// The tour with this id.
        case tour(String)
        /// The tip with this id, drawn at once.
        case tip(String)
    }

    public var id: String
    /// The task, in the checklist's locales.
    public var content: Localized<Content>
    /// The item is done once this rule holds (`screen:address-saved`); it stays done.
    public var done: Rule
    public var start: Start?

    public init(id: String, content: Localized<Content>, done: Rule, start: Start? = nil) {
        self.id = id
        self.content = content
        self.done = done
        self.start = start
    }
}

/// A video (or image) with variants per device model, app version and locale.
public struct Media: Hashable, Sendable {
    public var id: String
    public var variants: [MediaVariant]

    public init(id: String, variants: [MediaVariant]) {
        self.id = id
        self.variants = variants
    }
}

public struct MediaVariant: Hashable, Sendable {
    public var url: String
    public var thumbnail: String?
    public var type: String?
    /// An exact device model (`iPhone15,2`, `iPad13,1`); `nil`: any model.
    public var model: String?
    /// A model family (`iPhone`, `iPad`, `Pixel`), used when no variant names the exact model.
    public var family: String?
    /// The oldest app version this recording shows; `nil`: every version.
    public var minAppVersion: Version?
    public var locale: String?

    public init(
        url: String, thumbnail: String? = nil, type: String? = nil, model: String? = nil, family: String? = nil,
        minAppVersion: Version? = nil, locale: String? = nil
    ) {
        self.url = url
        self.thumbnail = thumbnail
        self.type = type
        self.model = model
        self.family = family
        self.minAppVersion = minAppVersion
        self.locale = locale
    }
}

/// Limits on credits.
public struct RewardPolicy: Hashable, Sendable {
    /// The most credits one user can hold from tour rewards; `nil`: no cap.
    public var maxCreditsPerUser: Int?
    /// Whether a page's credit needs the user's `page_read_to_bottom` of that page stored by the
    /// server first (the SDKs send it before they claim); false: a valid identity proof is
    /// enough. A page with ``TourPage/minReadingSeconds`` is checked either way.
    public var requireReading: Bool

    public init(maxCreditsPerUser: Int? = nil, requireReading: Bool = true) {
        self.maxCreditsPerUser = maxCreditsPerUser
        self.requireReading = requireReading
    }
}
