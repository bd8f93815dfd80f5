import Foundation
import WaymarkCatalog
import WaymarkStore

/// Creating apps and their first keys, for the CLI (`waymark apps create`, `waymark demo`): there is
/// no default password; the first credentials are made here and shown once.
public enum Provisioning {
    public struct NewApp: Sendable, Codable {
        public var appId: String
        public var name: String
        public var clientKey: String
        public var secretKey: String
        public var identitySecret: String
    }

    public static func createApp(name: String, in store: any Store, at time: Date = Date()) async throws(StoreError) -> NewApp {
        let app = AppRecord(
            id: "app_" + Secrets.randomHex(bytes: 8), name: name, identitySecret: "wm_id_" + Secrets.randomHex(bytes: 32),
            createdAt: time
        )
        try await store.createApp(app)
        let client = Secrets.makeKey(app: app.id, kind: .client, at: time)
        let secret = Secrets.makeKey(app: app.id, kind: .secret, at: time)
        try await store.insertKey(client.record)
        try await store.insertKey(secret.record)
        return NewApp(appId: app.id, name: name, clientKey: client.key, secretKey: secret.key, identitySecret: app.identitySecret)
    }

    /// Saves a catalog as the draft of a new app and publishes it (the demo's shop).
    public static func publish(_ catalog: Catalog, app: String, note: String, in store: any Store, at time: Date = Date())
        async throws(StoreError)
    {
        let document = CatalogDocument.yaml(catalog)
        let audit = CatalogChange.changes(from: Catalog(tips: []), to: catalog).map {
            AuditEntry(change: $0, app: app, actor: .cli, at: time)
        }
        _ = try await store.saveDraft(app: app, document: document, at: time, audit: audit, accept: CatalogDraft.unchanged(since: nil))
        _ = try await store.publish(
            app: app, document: document, at: time, note: note, audit: AuditEntry.publication(by: .cli),
            notice: { WebhookNotices.published($0) })
    }

    /// A new key for an existing app, recorded in the audit log; `nil` when there is no such app.
    public static func createKey(
        app: String, kind: KeyRecord.Kind, actor: AuditEntry.Actor, in store: any Store, at time: Date = Date()
    ) async throws(StoreError) -> (key: String, record: KeyRecord)? {
        guard try await store.app(id: app) != nil else { return nil }
        let made = Secrets.makeKey(app: app, kind: kind, at: time)
        try await store.insertKey(made.record)
        try await store.appendAudit(
            AuditEntry(
                app: app, actor: actor, at: time, action: .keyCreate, object: "key \(made.record.id)", before: nil, after: kind.rawValue)
        )
        return made
    }
}
