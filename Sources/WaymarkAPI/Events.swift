import Foundation
import WaymarkRules
import WaymarkSupport

/// `POST /v1/events`: `{"events": [...]}`, at most ``maxEvents`` events and ``maxBodyBytes`` bytes.
public struct EventBatch: Codable, Sendable {
    /// The most events one upload may hold.
    public static let maxEvents = 500
    /// The largest body of one upload, in bytes.
    public static let maxBodyBytes = 512 * 1024

    /// The events, each answered on its own.
    public var events: [IncomingEvent]

    /// An upload of these events.
    public init(events: [IncomingEvent]) { self.events = events }
}

/// One event as a client sends it. The id is made by the client (a UUIDv7, time-ordered), so a
/// retried upload is recognised and stored once.
public struct IncomingEvent: Codable, Hashable, Sendable {
    /// A UUID made by the client when the event happened.
    public var id: String
    /// The user, as the app names them.
    public var user: String
    /// The event's name, as rules name it: 1 to 64 letters, digits, `-` or `_`.
    public var name: String
    /// The element or object the event was about, such as `search`, if any.
    public var target: String?
    /// RFC 3339.
    public var timestamp: String
    /// Small properties the SDKs send (platform, appVersion, tip, tour, page...) and the app's own
    /// (`amount`, `category`): text, finite numbers and flags, which rules test by type
    /// (`purchase where amount >= 500`).
    public var properties: [String: ContextValue]?

    /// An event with these fields.
    public init(
        id: String, user: String, name: String, target: String? = nil, timestamp: String, properties: [String: ContextValue]? = nil
    ) {
        self.id = id
        self.user = user
        self.name = name
        self.target = target
        self.timestamp = timestamp
        self.properties = properties
    }

    /// The properties as the server stores them: numbers as JSON writes them; a number that is
    /// not finite, which JSON cannot hold, is left out; a time or a version, which properties do
    /// not have, as its text (``WaymarkRules/ContextValue/asProperty``).
    public var storedProperties: [JSONMember]? {
        properties.map { properties in
            properties.compactMap { key, value in
                switch value.asProperty {
                case .string(let text): return JSONMember(key: key, value: .text(text))
                case .bool(let flag): return JSONMember(key: key, value: .bool(flag))
                case .number(let number): return number.isFinite ? JSONMember(key: key, value: .number("\(number)")) : nil
                case .time, .version: return nil
                }
            }
        }
    }

    /// What the guidance itself did, as the SDKs send it: tips shown, closed, dismissed and
    /// acted on, hotspots, surveys, tour pages, videos, narration, checklists and the help. The
    /// events an app hands to its own analytics (`GuidanceEvent` in WaymarkClient): a stable list, in the
    /// Swift and Java SDKs alike; docs/analytics-forwarding.md describes each.
    public static let guidanceNames: Set<String> = [
        "tip_shown", "tip_closed", "tip_dismissed", "tip_action", "hotspot_opened", "survey_answered",
        "page_viewed", "page_read_to_bottom", "tour_action", "video_played", "narration_played", "narration_completed",
        "checklist_opened", "checklist_item_done", "checklist_completed", "help_opened", "help_searched", "article_opened",
    ]

    /// Names the SDKs send by themselves.
    public static let standardNames: Set<String> = [
        "tap", "pan", "keystroke", "activation", "scroll", "screen",
        "tip_shown", "tip_closed", "tip_dismissed", "tip_action", "tour_action", "hotspot_opened",
        "checklist_opened", "checklist_item_done", "checklist_completed", "help_opened", "help_searched", "article_opened",
        "page_viewed", "page_read_to_bottom", "video_played", "anchor_missing",
    ]
}

/// The answer to an upload: one result per event, in the order sent.
public struct EventBatchResult: Codable, Hashable, Sendable {
    /// One result per event sent, in the same order.
    public var results: [EventResult]

    /// An answer with these results.
    public init(results: [EventResult]) { self.results = results }
}

/// What the server did with one event.
public struct EventResult: Codable, Hashable, Sendable {
    /// What happened to the event.
    public enum Status: String, Codable, Sendable {
        /// Stored now.
        case accepted
        /// Stored before, by an earlier upload whose answer was lost: not stored again.
        case duplicate
        /// Refused, for the ``EventResult/reason`` given; sending it again will not help.
        case rejected
    }

    /// The event's id, when it had one.
    public var id: String?
    /// Whether the event was stored, had been stored before, or was refused.
    public var status: Status
    /// Why the event was rejected, or what was changed (a clamped timestamp).
    public var reason: String?
    /// Set when a timestamp in the future was replaced by the time of receipt.
    public var clamped: Bool?

    /// A result for the event `id`.
    public init(id: String?, status: Status, reason: String? = nil, clamped: Bool? = nil) {
        self.id = id
        self.status = status
        self.reason = reason
        self.clamped = clamped
    }
}

/// What an event's properties can hold.
extension ContextValue {
    /// The value as an event property: properties are text, numbers and flags, so a time or a
    /// version becomes the text a rule writes (`2026-01-15`, `5.2.1`), in the engine and on the
    /// wire alike.
    public var asProperty: ContextValue {
        switch self {
        case .string, .number, .bool: self
        case .time, .version: .string(plainText)
        }
    }
}
