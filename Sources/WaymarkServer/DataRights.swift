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
        try await store.eraseUser(
            app: app, user: user,
            audit: { erased in
                AuditEntry(
                    app: app, actor: actor, at: time, action: .userErase, object: "a user of the app", before: nil,
                    after: erased.description)
            },
            notice: { WebhookNotices.userErased(app: app, user: user, erased: $0, at: time) })
    }

    /// What the app keeps about one user besides their events, read once for the file.
    public struct Kept: Sendable {
        public var attributes: [UserAttribute] = []
        public var segments: [String] = []
        public var grants: [Grant] = []
        /// The progress document their devices share, if any.
        public var progress: String?
        /// Whether they have at least one event.
        public var hasEvents = false

        /// Nothing at all: a user never seen, or erased.
        public var isEmpty: Bool { attributes.isEmpty && segments.isEmpty && grants.isEmpty && progress == nil && !hasEvents }
    }

    /// What the app keeps about `user`; whether they have events is read last, and only when
    /// nothing else is kept (finding a user's events reads the app's by time).
    public static func kept(app: String, user: String, in store: any Store) async throws -> Kept {
        async let attributes = store.attributes(app: app, user: user)
        async let segments = store.segments(app: app, user: user)
        async let grants = store.grants(app: app, user: user)
        async let progress = store.progress(app: app, user: user)
        var kept = Kept(
            attributes: try await attributes, segments: try await segments, grants: try await grants, progress: try await progress)
        if kept.isEmpty {
            kept.hasEvents = try await !store.events(app: app, period: .always, user: user, after: nil, limit: 1).isEmpty
        }
        return kept
    }

    /// Writes `kept` and every event of `user` as one JSON document to `write`, a piece at a
    /// time: `user`, `attributes`, `segments`, `balance`, `grants`, `progress` (or null) and
    /// `events`, every one as the export writes it, in the order they happened.
    public static func write(
        _ kept: Kept, app: String, user: String, from store: any Store, to write: (ByteBuffer) async throws -> Void
    ) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func json(_ value: some Encodable) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }
        let attributes = kept.attributes.map {
            IdentifiedUser.Attribute(name: $0.name, value: $0.value, changedAt: Timestamp.format($0.changedAt))
        }
        var head = #"{"user":"# + jsonString(user)
        head += #","attributes":"# + (try json(attributes))
        head += #","segments":"# + (try json(kept.segments))
        head += #","balance":\#(kept.grants.reduce(0) { $0 + $1.credits })"#
        head += #","grants":"# + (try json(kept.grants.map(LedgerGrant.init)))
        head += #","progress":"# + (kept.progress ?? "null")
        head += #","events":["#
        try await write(ByteBuffer(string: head))
        var first = true
        try await EventExport.forEachPage(from: store, app: app, period: .always, user: user) { events in
            var page = ByteBuffer()
            for event in events {
                page.writeString((first ? "\n" : ",\n") + EventExport.line(event, .ndjson).dropLast())
                first = false
            }
            try await write(page)
        }
        try await write(ByteBuffer(string: "\n]}\n"))
    }
}

/// `DELETE /v1/admin/users/{user}`: what was erased.
struct ErasureAnswer: Encodable {
    var user: String
    var erased: UserErasure
}

extension WaymarkServer {
    /// `GET /v1/admin/users/{user}`: everything the app keeps about the user, as one JSON file;
    /// 404 when it keeps nothing (never seen, or erased).
    func userData(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let user = try context.userParameter()
        let kept = try await DataRights.kept(app: key.app, user: user, in: store)
        guard !kept.isEmpty else { throw APIError(.notFound, .notFound, "the app keeps nothing about this user") }
        let store = self.store
        return Response(
            status: .ok,
            headers: [.contentType: "application/json; charset=utf-8", .contentDisposition: "attachment; filename=\"user-data.json\""],
            body: ResponseBody { writer in
                try await DataRights.write(kept, app: key.app, user: user, from: store) { try await writer.write($0) }
                try await writer.finish(nil)
            })
    }

    /// `DELETE /v1/admin/users/{user}`: erases everything about the user.
    func eraseUser(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let user = try context.userParameter()
        let erased = try await DataRights.erase(app: key.app, user: user, actor: .key(key.id), at: now(), in: store)
        return jsonResponse(ErasureAnswer(user: user, erased: erased))
    }
}
