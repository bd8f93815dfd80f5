import Foundation

/// `POST /v1/events`: `{"events": [...]}`, at most ``maxEvents`` events and ``maxBodyBytes`` bytes.
public struct EventBatch: Codable, Sendable {
    public static let maxEvents = 500
    public static let maxBodyBytes = 512 * 1024

    public var events: [IncomingEvent]

    public init(events: [IncomingEvent]) { self.events = events }
}

/// One event as a client sends it. The id is made by the client (a UUIDv7, time-ordered), so a
/// retried upload is recognised and stored once.
public struct IncomingEvent: Codable, Hashable, Sendable {
    public var id: String
    public var user: String
    public var name: String
    public var target: String?
    /// RFC 3339.
    public var timestamp: String
    /// Small string properties (platform, appVersion, tip, tour, page...).
    public var properties: [String: String]?

    public init(id: String, user: String, name: String, target: String? = nil, timestamp: String, properties: [String: String]? = nil) {
        self.id = id
        self.user = user
        self.name = name
        self.target = target
        self.timestamp = timestamp
        self.properties = properties
    }

    /// Names the SDKs send by themselves.
    public static let standardNames: Set<String> = [
        "tap", "pan", "keystroke", "activation", "scroll", "screen",
        "tip_shown", "tip_closed", "tip_dismissed", "tip_action",
        "page_viewed", "page_read_to_bottom", "video_played",
    ]
}

/// The answer to an upload: one result per event, in the order sent.
public struct EventBatchResult: Codable, Hashable, Sendable {
    public var results: [EventResult]

    public init(results: [EventResult]) { self.results = results }
}

public struct EventResult: Codable, Hashable, Sendable {
    public enum Status: String, Codable, Sendable { case accepted, duplicate, rejected }

    public var id: String?
    public var status: Status
    /// Why the event was rejected, or what was changed (a clamped timestamp).
    public var reason: String?
    /// Set when a timestamp in the future was replaced by the time of receipt.
    public var clamped: Bool?

    public init(id: String?, status: Status, reason: String? = nil, clamped: Bool? = nil) {
        self.id = id
        self.status = status
        self.reason = reason
        self.clamped = clamped
    }
}
