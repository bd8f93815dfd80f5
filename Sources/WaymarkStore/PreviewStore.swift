import Foundation

/// Draft previews: short-lived links that show an app's draft on a real device, and what that
/// device sent while previewing. A preview's events are kept here, apart from the events table,
/// so that no report, webhook or segment ever counts them; they carry no user. Part of every
/// ``Store``.
public protocol PreviewStore: Sendable {
    /// Keeps a new preview, and removes every preview (of any app) that ended before
    /// `removingEndedBefore`, with its events: previews clean up after themselves as new ones are made.
    func createPreview(_ preview: PreviewRecord, removingEndedBefore: Date) async throws(StoreError)
    /// The preview whose token has this hash, ended or not.
    func preview(hash: String) async throws(StoreError) -> PreviewRecord?
    /// One of the app's previews, by its public id.
    func preview(app: String, id: String) async throws(StoreError) -> PreviewRecord?
    /// The app's previews, newest first.
    func previews(app: String) async throws(StoreError) -> [PreviewRecord]
    /// Ends the preview now (its link and token stop working); false when the app has no such
    /// preview or it had ended already.
    func endPreview(app: String, id: String, at time: Date) async throws(StoreError) -> Bool
    /// Keeps the events a previewing device sent; one already kept (by id) is not kept twice, and
    /// nothing is kept once the preview holds `limit` events.
    func recordPreviewEvents(preview: String, _ events: [PreviewEvent], limit: Int) async throws(StoreError)
    /// The preview's events, newest first, at most `limit`.
    func previewEvents(preview: String, limit: Int) async throws(StoreError) -> [PreviewEvent]
}

/// A preview of an app's draft: who made it, where its link opens, and until when it works.
/// Its token is shown once, in the link; only its SHA-256 is kept.
public struct PreviewRecord: Hashable, Sendable {
    /// A short public id, for the console's pages.
    public var id: String
    public var app: String
    /// SHA-256 of the token, lowercase hex.
    public var hash: String
    /// Where the link opens, with the token added as `waymark-preview`: the app's web page, or a
    /// link into a native app.
    public var url: String
    /// Who made it (an audit actor's description).
    public var createdBy: String
    public var createdAt: Date
    public var expiresAt: Date
    /// When it was ended before it expired.
    public var endedAt: Date?
    /// The draft tip a page builder edits with this token: a builder may save that one tip (made
    /// if the draft has no such tip yet) and nothing else. Nil for a preview, which only shows.
    public var edits: String?

    public init(
        id: String, app: String, hash: String, url: String, createdBy: String, createdAt: Date, expiresAt: Date, endedAt: Date? = nil,
        edits: String? = nil
    ) {
        self.edits = edits
        self.id = id
        self.app = app
        self.hash = hash
        self.url = url
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.endedAt = endedAt
    }

    /// When it stops working: when it was ended, else when it expires.
    public var end: Date { min(endedAt ?? expiresAt, expiresAt) }

    /// Whether its token still works at `time`, to the millisecond, as stores keep times.
    public func isActive(at time: Date) -> Bool { time.millisecondsSince1970 < end.millisecondsSince1970 }
}

/// An event a previewing device sent, as the preview page lists it.
public struct PreviewEvent: Hashable, Sendable {
    /// The client-made id.
    public var id: String
    public var name: String
    public var target: String?
    /// When it happened, by the device's clock, in ms since 1970.
    public var timestamp: Int64
    /// When the server received it, in ms since 1970.
    public var receivedAt: Int64
    /// The properties as a JSON object, or nil.
    public var properties: String?

    public init(id: String, name: String, target: String?, timestamp: Int64, receivedAt: Int64, properties: String?) {
        self.id = id
        self.name = name
        self.target = target
        self.timestamp = timestamp
        self.receivedAt = receivedAt
        self.properties = properties
    }
}
