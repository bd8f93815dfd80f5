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
    public var tips: [DeliveredTip]
    public var tours: [DeliveredTour]

    public init(version: Int, frequency: String, tips: [DeliveredTip], tours: [DeliveredTour]) {
        self.version = version
        self.frequency = frequency
        self.tips = tips
        self.tours = tours
    }
}

/// One tip for one client.
public struct DeliveredTip: Codable, Hashable, Sendable {
    public var id: String
    public var container: String
    public var anchor: String?
    public var trigger: Rule
    public var dismissal: Rule?
    public var priority: Int
    public var group: String?
    public var order: Int
    public var policy: DeliveredPolicy
    /// tooltip, spotlight, pointer, banner or modal.
    public var renderer: String
    /// For a pointer: tap, double-tap, swipe-left, swipe-right, swipe-up, swipe-down or long-press.
    public var gesture: String?
    /// The A/B variant this client was assigned, if the tip has variants.
    public var variant: String?
    public var content: DeliveredContent
    /// The question, when the tip is a survey: the content's title asks it.
    public var survey: DeliveredSurvey?

    public init(
        id: String, container: String, anchor: String?, trigger: Rule, dismissal: Rule?, priority: Int,
        group: String?, order: Int, policy: DeliveredPolicy, renderer: String, gesture: String?, variant: String?,
        content: DeliveredContent, survey: DeliveredSurvey? = nil
    ) {
        self.id = id
        self.container = container
        self.anchor = anchor
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
    }
}

/// A survey on the wire: the scores a renderer offers and whether it asks for a comment. An
/// answer is sent as the event `survey_answered` with the tip as target and the properties
/// `score` (the number as text) and `comment`.
public struct DeliveredSurvey: Codable, Hashable, Sendable {
    /// csat or nps.
    public var scale: String
    public var min: Int
    public var max: Int
    public var comment: Bool

    public init(scale: String, min: Int, max: Int, comment: Bool) {
        self.scale = scale
        self.min = min
        self.max = max
        self.comment = comment
    }
}

/// A tip's display policy on the wire: durations in seconds, dates in RFC 3339.
public struct DeliveredPolicy: Codable, Hashable, Sendable {
    public var maxDisplayCount: Int?
    public var maxDisplayDuration: Double?
    public var expiresAt: String?

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
    public var title: String
    /// Sanitized HTML.
    public var html: String
    /// The content read aloud, if there is audio for it.
    public var narration: DeliveredNarration?

    public init(locale: String, title: String, html: String, narration: DeliveredNarration? = nil) {
        self.locale = locale
        self.title = title
        self.html = html
        self.narration = narration
    }
}

/// Audio that reads a content aloud: a recording, or speech the server made from the text.
public struct DeliveredNarration: Codable, Hashable, Sendable {
    public enum Source: String, Codable, Hashable, Sendable {
        case recording, generated
    }

    /// Absolute (a recording elsewhere), or a path on the server the catalog came from.
    public var url: String
    /// Seconds; nil when unknown (a recording elsewhere).
    public var duration: Double?
    public var source: Source

    public init(url: String, duration: Double?, source: Source) {
        self.url = url
        self.duration = duration
        self.source = source
    }
}

/// A tour for one client: its pages in order, each with the media variant chosen for the device.
public struct DeliveredTour: Codable, Hashable, Sendable {
    public var id: String
    /// When the tour offers itself; `nil`: when the app opens it.
    public var trigger: Rule?
    public var pages: [DeliveredPage]

    public init(id: String, trigger: Rule?, pages: [DeliveredPage]) {
        self.id = id
        self.trigger = trigger
        self.pages = pages
    }
}

public struct DeliveredPage: Codable, Hashable, Sendable {
    public var id: String
    public var content: DeliveredContent
    public var media: DeliveredMedia?
    /// Credits for reading the page to the bottom.
    public var reward: Int?

    public init(id: String, content: DeliveredContent, media: DeliveredMedia?, reward: Int?) {
        self.id = id
        self.content = content
        self.media = media
        self.reward = reward
    }
}

public struct DeliveredMedia: Codable, Hashable, Sendable {
    public var id: String
    public var url: String
    public var thumbnail: String?
    public var type: String?

    public init(id: String, url: String, thumbnail: String?, type: String?) {
        self.id = id
        self.url = url
        self.thumbnail = thumbnail
        self.type = type
    }
}

/// Who is asking for the catalog: the query parameters of `GET /v1/catalog`.
public struct ClientContext: Hashable, Sendable {
    public var platform: String?
    public var model: String?
    public var appVersion: String?
    public var locale: String?
    public var user: String?

    public init(platform: String? = nil, model: String? = nil, appVersion: String? = nil, locale: String? = nil, user: String? = nil) {
        self.platform = platform
        self.model = model
        self.appVersion = appVersion
        self.locale = locale
        self.user = user
    }

    /// The values rules read: `device.platform`, `device.model`, `app.version`, `user.locale`, `user.id`.
    public var values: [String: ContextValue] {
        var values: [String: ContextValue] = [:]
        values["device.platform"] = platform.map(ContextValue.string)
        values["device.model"] = model.map(ContextValue.string)
        values["app.version"] = appVersion.map(ContextValue.string)
        values["user.locale"] = locale.map(ContextValue.string)
        values["user.id"] = user.map(ContextValue.string)
        return values
    }
}
