import Foundation
import Hummingbird
import NIOCore
import WaymarkStore
import WaymarkSupport

/// An app's events as a file for a warehouse: NDJSON (one JSON object a line) or CSV, in the order
/// they happened (their time, then their id), read from the store a page at a time and written as
/// each page is read, so memory does not grow with the number of events.
///
/// Every line (and CSV row) starts with its cursor: an export that stopped, or one taken a period
/// at a time, goes on from the last line received with `after` set to its cursor. Events that
/// reach the server later with an earlier time (a phone that was offline for days) are not in an
/// export that had passed that time: export a period once it is over.
public enum EventExport {
    /// How the events are written.
    public enum Format: String, CaseIterable, Sendable {
        /// One JSON object a line: `cursor`, `id`, `user`, `name`, `target`, `timestamp`,
        /// `receivedAt` (RFC 3339, UTC), `clamped` and `properties` (an object) when the event has them.
        case ndjson
        /// A header row, then one row an event: the same fields, `properties` as JSON text.
        case csv

        /// The answer's media type.
        public var contentType: String {
            switch self {
            case .ndjson: "application/x-ndjson; charset=utf-8"
            case .csv: "text/csv; charset=utf-8"
            }
        }
    }

    /// How many events are read from the store at a time.
    public static let pageSize = 1000

    /// The CSV header.
    static let columns = ["cursor", "id", "user", "name", "target", "timestamp", "receivedAt", "clamped", "properties"]

    /// An event's cursor: its time in milliseconds and its id, `1795000000000_0194…`.
    public static func cursor(_ event: StoredEvent) -> String { "\(event.timestamp)_\(event.id)" }

    /// A cursor written by ``cursor(_:)``, or nil for text that is none: event ids are UUIDs.
    public static func parseCursor(_ text: String) -> EventCursor? {
        guard let separator = text.firstIndex(of: "_"), let timestamp = Int64(text[..<separator]) else { return nil }
        let id = String(text[text.index(after: separator)...])
        guard UUID(uuidString: id) != nil else { return nil }
        return EventCursor(timestamp: timestamp, id: id.lowercased())
    }

    /// One event as a line of `format`, its line break included.
    static func line(_ event: StoredEvent, _ format: Format) -> String {
        let timestamp = Timestamp.format(event.timestamp)
        let received = Timestamp.format(event.receivedAt)
        switch format {
        case .ndjson:
            var line =
                #"{"cursor":"# + jsonString(cursor(event)) + #","id":"# + jsonString(event.id) + #","user":"#
                + jsonString(event.user) + #","name":"# + jsonString(event.name)
            if let target = event.target { line += #","target":"# + jsonString(target) }
            line += #","timestamp":""# + timestamp + #"","receivedAt":""# + received + #"","clamped":"# + String(event.clamped)
            if let properties = event.properties { line += #","properties":"# + properties }
            return line + "}\n"
        case .csv:
            return [
                cursor(event), event.id, event.user, event.name, event.target ?? "", timestamp, received, String(event.clamped),
                event.properties ?? "",
            ].map(csvField).joined(separator: ",") + "\r\n"
        }
    }

    /// Writes the events of `app` whose time is in `period`, after `cursor`, to `write` a page
    /// at a time (the CSV header first); answers how many.
    @discardableResult
    public static func write(
        from store: any Store, app: String, period: Period, after cursor: EventCursor?, format: Format,
        to write: (ByteBuffer) async throws -> Void
    ) async throws -> Int {
        if format == .csv { try await write(ByteBuffer(string: columns.joined(separator: ",") + "\r\n")) }
        return try await forEachPage(from: store, app: app, period: period, after: cursor) { events in
            var page = ByteBuffer()
            page.reserveCapacity(events.count * 200)
            for event in events { page.writeString(line(event, format)) }
            try await write(page)
        }
    }

    /// Reads the events of `app` (of one `user`, when given) whose time is in `period`, after
    /// `cursor`, in order, ``pageSize`` at a time, handing each page to `body` before the next
    /// is read; answers how many.
    @discardableResult
    static func forEachPage(
        from store: any Store, app: String, period: Period, user: String? = nil, after cursor: EventCursor? = nil,
        _ body: ([StoredEvent]) async throws -> Void
    ) async throws -> Int {
        var cursor = cursor
        var count = 0
        while true {
            try Task.checkCancellation()
            let events = try await store.events(app: app, period: period, user: user, after: cursor, limit: pageSize)
            guard let last = events.last else { return count }
            try await body(events)
            count += events.count
            cursor = EventCursor(after: last)
            if events.count < pageSize { return count }
        }
    }
}

extension WaymarkServer {
    /// `GET /v1/admin/events?from=&to=&format=ndjson|csv&after=CURSOR`: the app's events whose
    /// time is in [from, to) (RFC 3339; by default all of them), streamed as they are read.
    func exportEvents(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let query = request.uri.queryParameters
        let period = Period(
            from: try request.timeParameter("from", default: 0), to: try request.timeParameter("to", default: Int64.max))
        let formatName = query["format"].map(String.init) ?? EventExport.Format.ndjson.rawValue
        guard let format = EventExport.Format(rawValue: formatName) else {
            throw APIError.badRequest("format must be ndjson or csv")
        }
        let cursor: EventCursor? = try query["after"].map { text in
            guard let parsed = EventExport.parseCursor(String(text)) else {
                throw APIError.badRequest("after must be a cursor of an exported event (TIMESTAMP_ID)")
            }
            return parsed
        }
        let store = self.store
        let app = key.app
        return Response(
            status: .ok,
            headers: [
                .contentType: format.contentType,
                .contentDisposition: "attachment; filename=\"\(app)-events.\(format == .csv ? "csv" : "ndjson")\"",
            ],
            body: ResponseBody { writer in
                try await EventExport.write(from: store, app: app, period: period, after: cursor, format: format) { page in
                    try await writer.write(page)
                }
                try await writer.finish(nil)
            })
    }
}
