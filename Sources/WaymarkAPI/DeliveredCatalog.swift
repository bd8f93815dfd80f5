import Foundation
import WaymarkRules

/// The catalog as one client receives it from `GET /v1/catalog`: targeting already applied, one
/// variant and one locale's content chosen, media resolved for the device, rules in their JSON form
/// for the device's engine.
public struct DeliveredCatalog: Codable, Hashable, Sendable {
    /// The published version it was resolved from.
    public var version: Int
    /// The minimum gap between two tips appearing: immediate, hourly, daily, weekly or monthly.
    public var frequency: String
    /// The locales (`hi`, and so `hi-IN`) whose users are in the listener's mode until they turn
    /// it off: every tip, tour page and article speaks as it appears; nil when none.
    public var listen: [String]?
    /// The languages the catalog is written in, the default content's first (when the catalog
    /// names it, as its narration's language) and then its declared locales: what a language
    /// picker offers the user; nil when fewer than two.
    public var locales: [String]?
    /// The tips this client may see, in the catalog's order.
    public var tips: [DeliveredTip]
    /// The tours this client may take.
    public var tours: [DeliveredTour]
    /// The onboarding checklists this client is offered; nil when none.
    public var checklists: [DeliveredChecklist]?
    /// The help articles the help launcher lists and finds; nil when none.
    public var articles: [DeliveredArticle]?
    /// The words the web SDK draws around the content (Next, Back, Read aloud, Help...) in the
    /// client's language, by key, with `{n}`, `{total}` and `{title}` to fill in; nil for English
    /// and for languages Waymark has no words in, where the SDK keeps its English ones. Apps that
    /// draw with their own views may use them too.
    public var ui: [String: String]?
    /// How the app's guidance looks, every token given (Waymark's own where the catalog's theme is
    /// silent); nil: Waymark's look. The web SDK draws with it; apps that draw their own views
    /// use it as design tokens.
    public var theme: DeliveredTheme?
    /// Set only in a preview of the draft (a device opened a preview link): until when it lasts,
    /// and whether it ended. The SDKs then draw a "Preview" mark.
    public var preview: DeliveredPreview?

    /// A catalog of `version` with these tips, tours, checklists and articles.
    public init(
        version: Int, frequency: String, tips: [DeliveredTip], tours: [DeliveredTour], checklists: [DeliveredChecklist]? = nil,
        articles: [DeliveredArticle]? = nil, ui: [String: String]? = nil, listen: [String]? = nil, locales: [String]? = nil,
        preview: DeliveredPreview? = nil, theme: DeliveredTheme? = nil
    ) {
        self.preview = preview
        self.theme = theme
        self.version = version
        self.frequency = frequency
        self.listen = listen
        self.locales = locales
        self.tips = tips
        self.tours = tours
        self.checklists = checklists
        self.articles = articles
        self.ui = ui
    }
}

/// A help article for one client, in its language. The help launcher sends `help_opened`
/// (property `screen`), `help_searched` (properties `query` and `results`, the number found) and
/// `article_opened` (target: the article).
public struct DeliveredArticle: Codable, Hashable, Sendable {
    /// The event the help launcher sends when opened (property `screen`).
    public static let helpOpenedEvent = "help_opened"
    /// The event the help launcher sends for a search (properties `query`, `results`, `screen`).
    public static let searchedEvent = "help_searched"
    /// The event the help launcher sends when the user opens an article (target: the article).
    public static let openedEvent = "article_opened"

    /// The article's id, unique in the catalog.
    public var id: String
    /// Its title, text and narration.
    public var content: DeliveredContent
    /// The screens it belongs to; nil: every screen.
    public var screens: [String]?
    /// More words it is found by; nil: none.
    public var keywords: [String]?

    /// An article on these screens, found by these keywords too.
    public init(id: String, content: DeliveredContent, screens: [String]? = nil, keywords: [String]? = nil) {
        self.id = id
        self.content = content
        self.screens = screens
        self.keywords = keywords
    }
}

/// An onboarding checklist for one client: its items each done once their rule holds, in the
/// language of the checklist's content. The SDKs send `checklist_item_done` (target: the
/// checklist; property `item`) as an item gets done and `checklist_completed` when all are.
public struct DeliveredChecklist: Codable, Hashable, Sendable {
    /// The event an SDK sends when an item gets done (target: the checklist; property `item`).
    public static let itemDoneEvent = "checklist_item_done"
    /// The event an SDK sends when every item is done (target: the checklist).
    public static let completedEvent = "checklist_completed"
    /// The event an SDK sends when the user opens the checklist's panel (target: the checklist).
    public static let openedEvent = "checklist_opened"

    /// The checklist's id, unique in the catalog.
    public var id: String
    /// Its name and a line about it.
    public var content: DeliveredContent
    /// When it is offered; nil: from the start.
    public var trigger: Rule?
    /// The screens whose help lists it; nil: every screen.
    public var screens: [String]?
    /// Credits for completing it, claimed once with `{"checklist": id}`.
    public var reward: Int?
    /// Its tasks, in order.
    public var items: [DeliveredChecklistItem]

    /// A checklist with these items, listed by the help on `screens` (nil: every screen).
    public init(
        id: String, content: DeliveredContent, trigger: Rule?, screens: [String]? = nil, reward: Int?, items: [DeliveredChecklistItem]
    ) {
        self.id = id
        self.content = content
        self.trigger = trigger
        self.screens = screens
        self.reward = reward
        self.items = items
    }
}

/// One task of a delivered checklist.
public struct DeliveredChecklistItem: Codable, Hashable, Sendable {
    /// Unique in its checklist.
    public var id: String
    /// The task's words.
    public var content: DeliveredContent
    /// Done once this rule holds; it stays done.
    public var done: Rule
    /// A tour its "Show me" button starts, if any.
    public var tour: String?
    /// A tip its "Show me" button shows, if any.
    public var tip: String?

    /// An item done by `done`, starting `tour` or `tip`.
    public init(id: String, content: DeliveredContent, done: Rule, tour: String? = nil, tip: String? = nil) {
        self.id = id
        self.content = content
        self.done = done
        self.tour = tour
        self.tip = tip
    }
}

/// One tip for one client.
public struct DeliveredTip: Codable, Hashable, Sendable {
    /// Sent when a shown tip's anchor was not found on the screen within
    /// ``anchorWaitSeconds``: target the tip, properties `anchor` and `screen`; at most once per
    /// tip and screen view. Rules do not see it; the console counts it per tip and screen.
    public static let anchorMissingEvent = "anchor_missing"
    /// How long a renderer looks for a shown tip's anchor before it reports it missing.
    public static let anchorWaitSeconds = 5

    /// The tip's id, unique in the catalog.
    public var id: String
    /// The screen area the tip shows in; at most one tip per area at a time.
    public var container: String
    /// The element the tip points at, if any.
    public var anchor: String?
    /// The element the tip points at as a CSS selector, for the web SDK (`CSSSelector` in WaymarkEngine): the
    /// Swift and Java clients leave such a tip out (their `ignoredTips` says why).
    public var selector: String?
    /// The tip may show while this rule holds.
    public var trigger: Rule
    /// The tip is done for good once this rule holds: the user did what it teaches.
    public var dismissal: Rule?
    /// Higher shows first when several tips want the same area.
    public var priority: Int
    /// The tour (group of tips) the tip belongs to, if any.
    public var group: String?
    /// Its place in its group: it waits for the tips of the group with a lower order.
    public var order: Int
    /// How often and how long it may show.
    public var policy: DeliveredPolicy
    /// tooltip, spotlight, pointer, banner, modal or hotspot (a marker on the anchor that opens
    /// the tip as a tooltip when tapped, sending `hotspot_opened`).
    public var renderer: String
    /// For a pointer: tap, double-tap, swipe-left, swipe-right, swipe-up, swipe-down or long-press.
    public var gesture: String?
    /// The A/B variant this client was assigned, if the tip has variants.
    public var variant: String?
    /// The text in the locale chosen for this client.
    public var content: DeliveredContent
    /// The question, when the tip is a survey: the content's title asks it.
    public var survey: DeliveredSurvey?
    /// The tip's buttons (a survey shows them once answered); nil when it has none.
    public var actions: [DeliveredAction]?
    /// The tip's own look, when it has one: the catalog's theme with what the tip changes, every
    /// token given; nil: the catalog's.
    public var theme: DeliveredTheme?

    /// A tip with every field of the wire form.
    public init(
        id: String, container: String, anchor: String?, trigger: Rule, dismissal: Rule?, priority: Int,
        group: String?, order: Int, policy: DeliveredPolicy, renderer: String, gesture: String?, variant: String?,
        content: DeliveredContent, survey: DeliveredSurvey? = nil, actions: [DeliveredAction]? = nil, selector: String? = nil,
        theme: DeliveredTheme? = nil
    ) {
        self.theme = theme
        self.id = id
        self.container = container
        self.anchor = anchor
        self.selector = selector
        self.trigger = trigger
        self.dismissal = dismissal
        self.priority = priority
        self.group = group
        self.order = order
        self.policy = policy
        self.renderer = renderer
        self.gesture = gesture
        self.variant = variant
        self.content = content
        self.survey = survey
        self.actions = actions
    }
}

/// A button on a tip or tour page, its label in the language of the content it comes with.
/// Pressing it sends `tip_action` (target: the tip) or `tour_action` (target: the tour, with the
/// `page`), with the properties `action` (its id), `kind` and, when it leads somewhere, `to`.
public struct DeliveredAction: Codable, Hashable, Sendable {
    /// The event a tip's button sends.
    public static let tipEvent = "tip_action"
    /// The event a tour page's button sends.
    public static let tourEvent = "tour_action"

    /// Unique among its tip's or page's buttons.
    public var id: String
    /// The button's text.
    public var label: String
    /// primary (the main thing to do) or secondary.
    public var style: String
    /// next, dismiss, tour, url or route.
    public var kind: String
    /// Where it leads: the tour's id, an http(s) URL, or the app's route (`/orders/track`).
    public var to: String?

    /// Whether the button leads out of Waymark (a route, a web page, a tour), so the app, not the
    /// tip or panel it is on, does what it says.
    public var leavesWaymark: Bool { kind == "route" || kind == "url" || kind == "tour" }

    /// A button that does `kind`, leading to `to`.
    public init(id: String, label: String, style: String, kind: String, to: String? = nil) {
        self.id = id
        self.label = label
        self.style = style
        self.kind = kind
        self.to = to
    }
}

/// A survey on the wire: the scores a renderer offers and whether it asks for a comment. An
/// answer is sent as the event `survey_answered` with the tip as target and the properties
/// `score` (the number as text) and `comment`.
public struct DeliveredSurvey: Codable, Hashable, Sendable {
    /// csat or nps.
    public var scale: String
    /// The lowest score offered (1 for CSAT, 0 for NPS).
    public var min: Int
    /// The highest score offered (5 for CSAT, 10 for NPS).
    public var max: Int
    /// Whether to offer a free-text comment.
    public var comment: Bool

    /// A survey on `scale` with scores from `min` to `max`.
    public init(scale: String, min: Int, max: Int, comment: Bool) {
        self.scale = scale
        self.min = min
        self.max = max
        self.comment = comment
    }
}

/// A tip's display policy on the wire: durations in seconds, dates in RFC 3339.
public struct DeliveredPolicy: Codable, Hashable, Sendable {
    /// How many times the tip may appear; `nil`: no limit.
    public var maxDisplayCount: Int?
    /// How long it may be visible in all, in seconds; `nil`: no limit.
    public var maxDisplayDuration: Double?
    /// When it stops showing, as RFC 3339; `nil`: never.
    public var expiresAt: String?

    /// A policy with these limits; `nil` is no limit.
    public init(maxDisplayCount: Int? = nil, maxDisplayDuration: Double? = nil, expiresAt: String? = nil) {
        self.maxDisplayCount = maxDisplayCount
        self.maxDisplayDuration = maxDisplayDuration
        self.expiresAt = expiresAt
    }
}

/// Text in the locale chosen for the client.
public struct DeliveredContent: Codable, Hashable, Sendable {
    /// The locale the text is in (after the fallback chain), or `default`.
    public var locale: String
    /// The title, as plain text.
    public var title: String
    /// Sanitized HTML.
    public var html: String
    /// The content read aloud, if there is audio for it.
    public var narration: DeliveredNarration?

    /// Content in `locale` with its title, its sanitized HTML and its narration.
    public init(locale: String, title: String, html: String, narration: DeliveredNarration? = nil) {
        self.locale = locale
        self.title = title
        self.html = html
        self.narration = narration
    }
}

/// Audio that reads a content aloud: a recording, or speech the server made from the text.
public struct DeliveredNarration: Codable, Hashable, Sendable {
    /// Where the audio came from.
    public enum Source: String, Codable, Hashable, Sendable {
        /// An author recorded it (uploaded in the console, or a URL in the catalog).
        case recording
        /// The server spoke the text with espeak-ng.
        case generated
    }

    /// Absolute (a recording elsewhere), or a path on the server the catalog came from.
    public var url: String
    /// Seconds; nil when unknown (a recording elsewhere).
    public var duration: Double?
    /// Whether an author recorded it or the server made it.
    public var source: Source

    /// Narration at `url`, `duration` seconds long when known.
    public init(url: String, duration: Double?, source: Source) {
        self.url = url
        self.duration = duration
        self.source = source
    }
}

/// A tour for one client: its pages in order, each with the media variant chosen for the device.
public struct DeliveredTour: Codable, Hashable, Sendable {
    /// The tour's id, unique in the catalog.
    public var id: String
    /// When the tour offers itself; `nil`: when the app opens it.
    public var trigger: Rule?
    /// The screens whose help lists it; nil: every screen.
    public var screens: [String]?
    /// The pages, in order.
    public var pages: [DeliveredPage]

    /// A tour offered when `trigger` holds, with these pages, listed by the help on `screens`
    /// (nil: every screen).
    public init(id: String, trigger: Rule?, screens: [String]? = nil, pages: [DeliveredPage]) {
        self.id = id
        self.trigger = trigger
        self.screens = screens
        self.pages = pages
    }
}

/// One page of a tour: its text, the media chosen for the device, and the credits for reading it.
public struct DeliveredPage: Codable, Hashable, Sendable {
    /// The event an SDK sends when the user opens the page (target: the page; properties `tour`
    /// and `page`).
    public static let viewedEvent = "page_viewed"
    /// The event an SDK sends when the user reaches the page's bottom (target: the page;
    /// properties `tour` and `page`): the server grants a page's credit only once it has it.
    public static let readEvent = "page_read_to_bottom"

    /// The page's id, unique in its tour.
    public var id: String
    /// The text in the locale chosen for this client.
    public var content: DeliveredContent
    /// The video or image for this device, model and app version, if the page has one.
    public var media: DeliveredMedia?
    /// Credits for reading the page to the bottom.
    public var reward: Int?
    /// The page's buttons; nil when it has none.
    public var actions: [DeliveredAction]?

    /// A page with its content, media, reward and buttons.
    public init(id: String, content: DeliveredContent, media: DeliveredMedia?, reward: Int?, actions: [DeliveredAction]? = nil) {
        self.id = id
        self.content = content
        self.media = media
        self.reward = reward
        self.actions = actions
    }
}

/// The media variant the server chose for one device: the newest for its model (or family) not newer than its app version, in its locale.
public struct DeliveredMedia: Codable, Hashable, Sendable {
    /// The media entry's id in the catalog.
    public var id: String
    /// Where to load it from.
    public var url: String
    /// A still image to show while it loads, if there is one.
    public var thumbnail: String?
    /// The MIME type, such as `video/mp4`, if known.
    public var type: String?

    /// A media variant at `url`.
    public init(id: String, url: String, thumbnail: String?, type: String?) {
        self.id = id
        self.url = url
        self.thumbnail = thumbnail
        self.type = type
    }
}

/// Who is asking for the catalog: the query parameters of `GET /v1/catalog`.
public struct ClientContext: Hashable, Sendable {
    /// `ios`, `android`, `web`...: what targeting rules read as `device.platform`.
    public var platform: String?
    /// The device model, such as `iPhone15,2`: chooses media variants (`device.model`).
    public var model: String?
    /// The app's version, such as `1.4.0` (`app.version`).
    public var appVersion: String?
    /// The user's locale, such as `hi-IN`: chooses the content (`user.locale`).
    public var locale: String?
    /// The user's id: keeps rollouts and A/B variants the same for one user (`user.id`).
    public var user: String?
    /// The user's attributes as the server keeps them (`user.<name>`): read from the store for a
    /// user whose identity the request proves, when the catalog's targeting reads any.
    public var attributes: [String: ContextValue]
    /// The segments the user is in, of those the catalog's targeting names (`segment:<name>`):
    /// decided by the server for a user whose identity the request proves.
    public var segments: Set<String>

    /// A context with the values the app knows; missing ones match no targeting rule that reads them.
    public init(
        platform: String? = nil, model: String? = nil, appVersion: String? = nil, locale: String? = nil, user: String? = nil,
        attributes: [String: ContextValue] = [:], segments: Set<String> = []
    ) {
        self.platform = platform
        self.model = model
        self.appVersion = appVersion
        self.locale = locale
        self.user = user
        self.attributes = attributes
        self.segments = segments
    }

    /// The values rules read: `device.platform`, `device.model`, `app.version`, `user.locale`,
    /// `user.id`, `user.<name>` for each attribute, and `segment.<name>`, true, for each segment
    /// the user is in (what targeting's `segment:<name>` reads).
    public var values: [String: ContextValue] {
        var values: [String: ContextValue] = [:]
        values["device.platform"] = platform.map(ContextValue.string)
        values["device.model"] = model.map(ContextValue.string)
        values["app.version"] = appVersion.map(ContextValue.string)
        values["user.locale"] = locale.map(ContextValue.string)
        for (name, value) in attributes where !AttributeLimits.reservedNames.contains(name) { values["user." + name] = value }
        values["user.id"] = user.map(ContextValue.string)
        for name in segments { values["segment." + name] = .bool(true) }
        return values
    }
}

/// What a previewing device is told of its preview.
public struct DeliveredPreview: Codable, Hashable, Sendable {
    /// When the preview stops working (RFC 3339, UTC).
    public var expires: String
    /// True once the preview ended or expired: the catalog is then empty, and the SDKs go back to
    /// the app's own guidance.
    public var ended: Bool?
    /// True for a page builder: a preview opened from the console to write a tip on the app's
    /// web page, where the web SDK loads its builder.
    public var builder: Bool?

    /// A preview lasting until `expires`; `ended` when it is over; `builder` for a page builder.
    public init(expires: String, ended: Bool? = nil, builder: Bool? = nil) {
        self.expires = expires
        self.ended = ended
        self.builder = builder
    }

    /// The query parameter that carries a preview's token in a preview link
    /// (`https://shop.example/?waymark-preview=wm_preview_...`).
    public static let linkParameter = "waymark-preview"
}

/// A theme as delivered: every token given, for the web SDK's style and for apps that draw with
/// their own views.
public struct DeliveredTheme: Codable, Hashable, Sendable {
    /// The colours of one mode, each `#rrggbb`.
    public struct Colors: Codable, Hashable, Sendable {
        /// The tip's background.
        public var surface: String
        /// Its text.
        public var text: String
        /// Links and buttons.
        public var accent: String
        /// The focus ring.
        public var focus: String

        /// The four colours of one mode.
        public init(surface: String, text: String, accent: String, focus: String) {
            self.surface = surface
            self.text = text
            self.accent = accent
            self.focus = focus
        }
    }

    /// The colours in light mode.
    public var colors: Colors
    /// The colours in dark mode; nil: the same.
    public var dark: Colors?
    /// A CSS font family list (`Noto Sans, sans-serif`).
    public var font: String
    /// The corner radius, in points.
    public var radius: Int
    /// The space inside a tip, in points.
    public var spacing: Int

    /// A theme with every token given.
    public init(colors: Colors, dark: Colors? = nil, font: String, radius: Int, spacing: Int) {
        self.colors = colors
        self.dark = dark
        self.font = font
        self.radius = radius
        self.spacing = spacing
    }
}
