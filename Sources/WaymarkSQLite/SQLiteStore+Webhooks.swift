import Foundation
import GRDB
import WaymarkStore

extension SQLiteStore {
    static let webhooksSchema = """
        CREATE TABLE webhook_endpoints (
            id TEXT PRIMARY KEY,
            app TEXT NOT NULL REFERENCES apps(id),
            url TEXT NOT NULL,
            types TEXT NOT NULL,
            secret TEXT NOT NULL,
            previous_secret TEXT,
            previous_until INTEGER,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX webhook_endpoints_by_app ON webhook_endpoints (app);
        CREATE TABLE webhook_deliveries (
            event TEXT NOT NULL,
            endpoint TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
            app TEXT NOT NULL,
            type TEXT NOT NULL,
            user TEXT,
            body TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            state TEXT NOT NULL,
            attempts INTEGER NOT NULL,
            next_attempt_at INTEGER NOT NULL,
            lease_until INTEGER,
            last_attempt_at INTEGER,
            last_status INTEGER,
            last_answer TEXT,
            last_error TEXT,
            PRIMARY KEY (event, endpoint)
        ) WITHOUT ROWID;
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
        CREATE INDEX webhook_deliveries_by_app ON webhook_deliveries (app, created_at);
        CREATE INDEX webhook_deliveries_by_user ON webhook_deliveries (app, user) WHERE user IS NOT NULL;
        """

    /// Adds one delivery of `notice` per endpoint of its app that takes its type, in the caller's
    /// transaction; an app without endpoints costs one indexed read.
    static func enqueue(_ notice: WebhookNotice, _ db: Database) throws {
        let time = notice.createdAt.millisecondsSince1970
        try db.cachedStatement(
            sql: """
                INSERT INTO webhook_deliveries (event, endpoint, app, type, user, body, created_at, state, attempts, next_attempt_at)
                SELECT ?, id, app, ?, ?, ?, ?, 'pending', 0, ? FROM webhook_endpoints
                WHERE app = ? AND ((types = '*' AND NOT ?) OR instr(',' || types || ',', ',' || ? || ',') > 0)
                """
        ).execute(arguments: [notice.id, notice.type, notice.user, notice.body, time, time, notice.app, notice.onlyWhenNamed, notice.type])
    }

    public func createWebhookEndpoint(_ endpoint: WebhookEndpoint, limit: Int, audit: AuditEntry) async throws(StoreError) -> Bool {
        // One writer at a time: the count cannot change before the insert.
        try await write { db in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM webhook_endpoints WHERE app = ?", arguments: [endpoint.app]) ?? 0
            guard count < limit else { return false }
            try db.execute(
                sql: """
                    INSERT INTO webhook_endpoints (id, app, url, types, secret, previous_secret, previous_until, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    endpoint.id, endpoint.app, endpoint.url, endpoint.storedTypes, endpoint.secret, endpoint.previousSecret,
                    endpoint.previousUntil?.millisecondsSince1970, endpoint.createdAt.millisecondsSince1970,
                ])
            _ = try Self.insertAudit(audit, db)
            return true
        }
    }

    public func webhookEndpoints(app: String) async throws(StoreError) -> [WebhookEndpoint] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM webhook_endpoints WHERE app = ? ORDER BY created_at, id", arguments: [app])
                .map(Self.endpoint(from:))
        }
    }

    public func rotateWebhookSecret(
        app: String, endpoint: String, secret: String, previousUntil: Date, audit: AuditEntry
    ) async throws(StoreError) -> WebhookEndpoint? {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE webhook_endpoints SET previous_secret = secret, previous_until = ?, secret = ? WHERE app = ? AND id = ?
                    """,
                arguments: [previousUntil.millisecondsSince1970, secret, app, endpoint])
            guard db.changesCount > 0 else { return nil }
            _ = try Self.insertAudit(audit, db)
            return try Row.fetchOne(db, sql: "SELECT * FROM webhook_endpoints WHERE id = ?", arguments: [endpoint]).map(
                Self.endpoint(from:))
        }
    }

    public func deleteWebhookEndpoint(app: String, endpoint: String, audit: AuditEntry) async throws(StoreError) -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM webhook_deliveries WHERE app = ? AND endpoint = ?", arguments: [app, endpoint])
            try db.execute(sql: "DELETE FROM webhook_endpoints WHERE app = ? AND id = ?", arguments: [app, endpoint])
            guard db.changesCount > 0 else { return false }
            _ = try Self.insertAudit(audit, db)
            return true
        }
    }

    public func webhookDeliveries(app: String, endpoint: String?, limit: Int) async throws(StoreError) -> [WebhookDelivery] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM webhook_deliveries WHERE app = ? AND (? IS NULL OR endpoint = ?)
                    ORDER BY created_at DESC, event DESC LIMIT ?
                    """,
                arguments: [app, endpoint, endpoint, limit]
            ).map(Self.delivery(from:))
        }
    }

    public func leaseWebhookDeliveries(now: Date, until: Date, limit: Int) async throws(StoreError) -> [WebhookDispatch] {
        // One writer at a time: what this transaction reads as free, it leases before any other can.
        try await write { db in
            let time = now.millisecondsSince1970
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.event, d.type, d.body, d.attempts, e.* FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint
                    WHERE d.state = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)
                    ORDER BY d.next_attempt_at LIMIT ?
                    """,
                arguments: [time, time, limit])
            let lease = try db.cachedStatement(sql: "UPDATE webhook_deliveries SET lease_until = ? WHERE event = ? AND endpoint = ?")
            return try rows.map { row in
                let dispatch = WebhookDispatch(
                    event: row["event"], endpoint: Self.endpoint(from: row), type: row["type"], body: row["body"], attempts: row["attempts"]
                )
                try lease.execute(arguments: [until.millisecondsSince1970, dispatch.event, dispatch.endpoint.id])
                return dispatch
            }
        }
    }

    public func recordWebhookAttempt(_ attempt: WebhookAttempt, lease: Date) async throws(StoreError) -> Bool {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = ?, last_status = ?, last_answer = ?,
                        last_error = ?, state = ?, next_attempt_at = ?, lease_until = NULL
                    WHERE event = ? AND endpoint = ? AND lease_until = ?
                    """,
                arguments: [
                    attempt.at.millisecondsSince1970, attempt.status, attempt.answer, attempt.error, attempt.state.rawValue,
                    attempt.nextAttemptAt.millisecondsSince1970, attempt.event, attempt.endpoint, lease.millisecondsSince1970,
                ])
            return db.changesCount > 0
        }
    }

    public func redeliverWebhook(app: String, event: String, endpoint: String, now: Date) async throws(StoreError) -> Bool {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = ?, lease_until = NULL
                    WHERE app = ? AND event = ? AND endpoint = ?
                    """,
                arguments: [now.millisecondsSince1970, app, event, endpoint])
            return db.changesCount > 0
        }
    }

    public func pruneWebhookDeliveries(before: Date) async throws(StoreError) -> Int {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM webhook_deliveries WHERE state <> 'pending' AND created_at < ?", arguments: [before.millisecondsSince1970]
            )
            return db.changesCount
        }
    }

    static func endpoint(from row: Row) -> WebhookEndpoint {
        WebhookEndpoint(
            id: row["id"], app: row["app"], url: row["url"], types: WebhookEndpoint.types(stored: row["types"]), secret: row["secret"],
            previousSecret: row["previous_secret"], previousUntil: (row["previous_until"] as Int64?).map(Date.init(millisecondsSince1970:)),
            createdAt: Date(millisecondsSince1970: row["created_at"]))
    }

    static func delivery(from row: Row) -> WebhookDelivery {
        WebhookDelivery(
            event: row["event"], endpoint: row["endpoint"], app: row["app"], type: row["type"],
            createdAt: Date(millisecondsSince1970: row["created_at"]), state: WebhookDelivery.State(rawValue: row["state"]) ?? .pending,
            attempts: row["attempts"], nextAttemptAt: Date(millisecondsSince1970: row["next_attempt_at"]),
            lastAttemptAt: (row["last_attempt_at"] as Int64?).map(Date.init(millisecondsSince1970:)), lastStatus: row["last_status"],
            lastAnswer: row["last_answer"], lastError: row["last_error"])
    }
}
