import Foundation
import Hummingbird
import WaymarkAPI
import WaymarkCatalog
import WaymarkStore
import WaymarkSupport

/// The admin API, for secret keys: publishing, versions, rollback and keys (the draft: Drafts.swift).
extension WaymarkServer {
    /// Freezes the draft as the next version and makes it live.
    func publish(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let version = try await publishDraft(app: key.app, actor: .key(key.id))
        return jsonResponse(VersionSummary(version), status: .created)
    }

    /// `{"version": n}`: publishes version n again, as a new version.
    func rollback(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let body = try await request.decodeBody(as: RollbackBody.self, context: context)
        let version = try await rollback(app: key.app, to: body.version, actor: .key(key.id))
        return jsonResponse(VersionSummary(version), status: .created)
    }

    func versions(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        return jsonResponse(try await store.versions(app: key.app).map(VersionSummary.init))
    }

    func version(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        guard let number = context.parameters.get("number", as: Int.self),
            let version = try await store.version(app: key.app, number: number)
        else { throw APIError.notFound }
        return yamlResponse(version.document)
    }

    // MARK: Keys

    func listKeys(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        return jsonResponse(try await store.keys(app: key.app).map(KeySummary.init))
    }

    /// `{"kind": "client" | "secret"}`: a new key, shown in this answer only.
    func createKey(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let body = try await request.decodeBody(as: NewKeyBody.self, context: context)
        guard let (secret, record) = try await createKey(app: key.app, kind: body.kind, actor: .key(key.id)) else {
            throw APIError.notFound
        }
        var summary = KeySummary(record)
        summary.key = secret
        return jsonResponse(summary, status: .created)
    }

    func revokeKey(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        guard let id = context.parameters.get("id"), try await revokeKey(id: id, app: key.app, actor: .key(key.id)) else {
            throw APIError.notFound
        }
        return Response(status: .noContent)
    }

    /// A new key for the app (shown only in what this returns), recorded in the audit log; nil
    /// when there is no such app.
    public func createKey(app: String, kind: KeyRecord.Kind, actor: AuditEntry.Actor) async throws(StoreError) -> (
        key: String, record: KeyRecord
    )? {
        try await Provisioning.createKey(app: app, kind: kind, actor: actor, in: store, at: now())
    }

    /// Revokes the app's key: this server refuses it from the next request, other servers on the
    /// same database within ``KeyCache/sharedLifetime`` (5 s). False when the app has no
    /// such key; revoking a revoked key changes nothing and is not logged again.
    public func revokeKey(id: String, app: String, actor: AuditEntry.Actor) async throws(StoreError) -> Bool {
        let time = now()
        guard let record = try await store.keys(app: app).first(where: { $0.id == id }) else { return false }
        if record.revokedAt == nil {
            _ = try await store.revokeKey(id: id, app: app, at: time)
            try await store.appendAudit(
                AuditEntry(
                    app: app, actor: actor, at: time, action: .keyRevoke, object: "key \(id)", before: record.kind.rawValue,
                    after: "revoked")
            )
        }
        keys.drop(keyID: id)
        return true
    }
}

struct VersionSummary: Codable {
    var version: Int
    var publishedAt: String
    var note: String?

    init(_ version: CatalogVersion) {
        self.version = version.number
        publishedAt = Timestamp.format(version.publishedAt)
        note = version.note
    }
}

struct KeySummary: Codable {
    var id: String
    var kind: String
    var createdAt: String
    var revokedAt: String?
    /// Only when the key was just made.
    var key: String?

    init(_ record: KeyRecord) {
        id = record.id
        kind = record.kind.rawValue
        createdAt = Timestamp.format(record.createdAt)
        revokedAt = record.revokedAt.map { Timestamp.format($0) }
    }
}

/// `POST /v1/admin/catalog/rollback`: `{"version": n}`.
struct RollbackBody: Decodable {
    var version: Int

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(["version"])
        version = try decoder.container(keyedBy: AnyCodingKey.self).decode(Int.self, forKey: AnyCodingKey(stringValue: "version"))
    }
}

/// `POST /v1/admin/keys`: `{"kind": "client"}` or `{"kind": "secret"}`.
struct NewKeyBody: Decodable {
    var kind: KeyRecord.Kind

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(["kind"])
        let text = try decoder.container(keyedBy: AnyCodingKey.self).decode(String.self, forKey: AnyCodingKey(stringValue: "kind"))
        guard let kind = KeyRecord.Kind(rawValue: text), kind != .preview else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [], debugDescription: "kind",
                    underlyingError: FieldError(message: "\"kind\" is client or secret, not \"\(text)\""))
            )
        }
        self.kind = kind
    }
}
