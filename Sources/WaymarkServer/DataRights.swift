import Foundation
import Hummingbird
import NIOCore
import WaymarkAPI
import WaymarkStore
import WaymarkSupport

/// A person's rights over what an app's Waymark keeps about them (India's DPDP Act, the GDPR):
/// to have it all as a file, and to have it all erased. The admin API, the console (owners) and
/// the command line each call these.
public enum DataRights {
    /// Erases everything about `user` in one transaction (``UserStore/eraseUser(app:user:audit:)``),
    /// audited as `user.erase` with how much went and who asked, never who it was.
    @discardableResult
    public static func erase(app: String, user: String, actor: AuditEntry.Actor, at time: Date, in store: any Store) async throws
        -> UserErasure
    {
        try await store.eraseUser(app: app, user: user) { erased in
            AuditEntry(
                app: app, actor: actor, at: time, action: .userErase, object: "a user of the app", before: nil, after: erased.description)
        }
    }

    /// Whether the app keeps anything about `user`: a grant, an attribute, progress, a segment
    /// membership or an event (read last: finding a user's events reads the app's by time).
    public static func knows(app: String, user: String, in store: any Store) async throws -> Bool {
        async let grants = store.grants(app: app, user: user)
        async let attributes = store.attributes(app: app, user: user)
        async let progress = store.progress(app: app, user: user)
        async let segments = store.segments(app: app, user: user)
        let (kept, named, shared, members) = try await (grants, attributes, progress, segments)
        if !kept.isEmpty || !named.isEmpty || shared != nil || !members.isEmpty { return true }
        return try await !store.events(app: app, period: Period(from: Int64.min, to: Int64.max), user: user, after: nil, limit: 1).isEmpty
    }

    /// Writes everything the app keeps about `user` as one JSON document to `write`, a piece at a
    /// time: `user`, `attributes`, `segments`, `balance`, `grants`, `progress` (the document their
    /// devices share, or null) and `events`, every one as the export writes it, in the order they
    /// happened. A user the app has nothing of gets the document with nothing in it.
    public static func write(app: String, user: String, from store: any Store, to write: (ByteBuffer) async throws -> Void) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func json(_ value: some Encodable) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }
        async let attributes = store.attributes(app: app, user: user)
        async let segments = store.segments(app: app, user: user)
        async let grants = store.grants(app: app, user: user)
        async let progress = store.progress(app: app, user: user)
        let kept = try await grants
        var head = #"{"user":"# + jsonString(user)
        head +=
            #","attributes":"#
            + (try json(
                try await attributes.map {
                    IdentifiedUser.Attribute(name: $0.name, value: $0.value, changedAt: Timestamp.format($0.changedAt))
                }))
        head += #","segments":"# + (try json(try await segments))
        head += #","balance":\#(kept.reduce(0) { $0 + $1.credits })"#
        head += #","grants":"# + (try json(kept.map(LedgerGrant.init)))
        head += #","progress":"# + (try await progress ?? "null")
        head += #","events":["#
        try await write(ByteBuffer(string: head))
        var cursor: EventCursor?
        var first = true
        while true {
            try Task.checkCancellation()
            let events = try await store.events(
                app: app, period: Period(from: Int64.min, to: Int64.max), user: user, after: cursor, limit: EventExport.pageSize)
            guard let last = events.last else { break }
            var page = ByteBuffer()
            for event in events {
                page.writeString((first ? "\n" : ",\n") + EventExport.line(event, .ndjson).dropLast())
                first = false
            }
            try await write(page)
            cursor = EventCursor(after: last)
            if events.count < EventExport.pageSize { break }
        }
        try await write(ByteBuffer(string: "\n]}\n"))
    }
}

/// `DELETE /v1/admin/users/{user}`: what was erased.
struct ErasureAnswer: Encodable {
    struct Counts: Codable {
        var events, grants, attributes, progress, segments: Int
    }

    var user: String
    var erased: Counts
}

extension WaymarkServer {
    /// `GET /v1/admin/users/{user}`: everything the app keeps about the user, as one JSON file;
    /// 404 when it keeps nothing (never seen, or erased).
    func userData(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let user = try context.userParameter()
        guard try await DataRights.knows(app: key.app, user: user, in: store) else {
            throw APIError(.notFound, .notFound, "the app keeps nothing about this user")
        }
        let store = self.store
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8", .contentDisposition: "attachment; filename=\"user-data.json\""],
            body: ResponseBody { writer in
                try await DataRights.write(app: key.app, user: user, from: store) { try await writer.write($0) }
                try await writer.finish(nil)
            })
    }

    /// `DELETE /v1/admin/users/{user}`: erases everything about the user.
    func eraseUser(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let user = try context.userParameter()
        let erased = try await DataRights.erase(app: key.app, user: user, actor: .key(key.id), at: now(), in: store)
        return jsonResponse(
            ErasureAnswer(
                user: user,
                erased: .init(
                    events: erased.events, grants: erased.grants, attributes: erased.attributes, progress: erased.progress,
                    segments: erased.segments)))
    }
}
