import Foundation
import Logging
import PostgresNIO
import WaymarkStore

extension PostgresStore {
    /// Adds one delivery of `notice` per endpoint of its app that takes its type, in the caller's
    /// transaction; an app without endpoints costs one indexed read.
    static func enqueue(_ notice: WebhookNotice, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let time = notice.createdAt.millisecondsSince1970
        try await connection.query(
            """
            INSERT INTO webhook_deliveries (event, endpoint, app, type, user_id, body, created_at, state, attempts, next_attempt_at)
            SELECT \(notice.id), id, app, \(notice.type), \(notice.user), \(notice.body), \(time), 'pending', 0, \(time)
            FROM webhook_endpoints
            WHERE app = \(notice.app)
            AND ((types = '*' AND NOT \(notice.onlyWhenNamed)) OR strpos(',' || types || ',', ',' || \(notice.type) || ',') > 0)
            """,
            logger: logger)
    }

    static let endpointColumns = "id, app, url, types, secret, previous_secret, previous_until, created_at"
    typealias EndpointRow = (String, String, String, String, String, String?, Int64?, Int64)

    static func endpoint(_ row: EndpointRow) -> WebhookEndpoint {
        let (id, app, url, types, secret, previousSecret, previousUntil, createdAt) = row
        return WebhookEndpoint(
            id: id, app: app, url: url, types: WebhookEndpoint.types(stored: types), secret: secret, previousSecret: previousSecret,
            previousUntil: previousUntil.map(Date.init(millisecondsSince1970:)), createdAt: Date(millisecondsSince1970: createdAt))
    }

    public func createWebhookEndpoint(_ endpoint: WebhookEndpoint, limit: Int, audit: AuditEntry) async throws(StoreError) -> Bool {
        try await transaction { connection in
            // The app's row is locked: endpoints added at once are counted one after another.
            try await Self.lockApp(endpoint.app, connection, self.logger)
            let count =
                try await Self.all(
                    "SELECT COUNT(*) FROM webhook_endpoints WHERE app = \(endpoint.app)", as: Int64.self, connection, self.logger
                ).first ?? 0
            guard count < limit else { return false }
            try await connection.query(
                """
                INSERT INTO webhook_endpoints (id, app, url, types, secret, previous_secret, previous_until, created_at)
                VALUES (\(endpoint.id), \(endpoint.app), \(endpoint.url), \(endpoint.storedTypes), \(endpoint.secret),
                        \(endpoint.previousSecret), \(endpoint.previousUntil?.millisecondsSince1970), \(endpoint.createdAt.millisecondsSince1970))
                """,
                logger: self.logger)
            _ = try await Self.insertAudit(audit, connection, self.logger)
            return true
        }
    }

    public func webhookEndpoints(app: String) async throws(StoreError) -> [WebhookEndpoint] {
        try await all(
            "SELECT \(unescaped: Self.endpointColumns) FROM webhook_endpoints WHERE app = \(app) ORDER BY created_at, id",
            as: EndpointRow.self
        ).map(Self.endpoint)
    }

    public func rotateWebhookSecret(
        app: String, endpoint: String, secret: String, previousUntil: Date, audit: AuditEntry
    ) async throws(StoreError) -> WebhookEndpoint? {
        try await transaction { connection in
            let rows = try await Self.all(
                """
                UPDATE webhook_endpoints SET previous_secret = secret, previous_until = \(previousUntil.millisecondsSince1970), secret = \(secret)
                WHERE app = \(app) AND id = \(endpoint) RETURNING \(unescaped: Self.endpointColumns)
                """,
                as: EndpointRow.self, connection, self.logger)
            guard let row = rows.first else { return nil }
            _ = try await Self.insertAudit(audit, connection, self.logger)
            return Self.endpoint(row)
        }
    }

    public func deleteWebhookEndpoint(app: String, endpoint: String, audit: AuditEntry) async throws(StoreError) -> Bool {
        try await transaction { connection in
            try await connection.query("DELETE FROM webhook_deliveries WHERE app = \(app) AND endpoint = \(endpoint)", logger: self.logger)
            let gone = try await Self.all(
                "DELETE FROM webhook_endpoints WHERE app = \(app) AND id = \(endpoint) RETURNING id", as: String.self, connection,
                self.logger)
            guard !gone.isEmpty else { return false }
            _ = try await Self.insertAudit(audit, connection, self.logger)
            return true
        }
    }

    typealias DeliveryRow = (String, String, String, String, Int64, String, Int64, Int64, Int64?, Int64?, String?, String?)

    public func webhookDeliveries(app: String, endpoint: String?, limit: Int) async throws(StoreError) -> [WebhookDelivery] {
        try await all(
            """
            SELECT event, endpoint, app, type, created_at, state, attempts, next_attempt_at, last_attempt_at, last_status, last_answer,
                   last_error
            FROM webhook_deliveries WHERE app = \(app) AND (\(endpoint)::TEXT IS NULL OR endpoint = \(endpoint))
            ORDER BY created_at DESC, event DESC LIMIT \(Int64(limit))
            """,
            as: DeliveryRow.self
        ).map { row in
            let (event, endpoint, app, type, createdAt, state, attempts, nextAttemptAt, lastAttemptAt, lastStatus, lastAnswer, lastError) =
                row
            return WebhookDelivery(
                event: event, endpoint: endpoint, app: app, type: type, createdAt: Date(millisecondsSince1970: createdAt),
                state: WebhookDelivery.State(rawValue: state) ?? .pending, attempts: Int(attempts),
                nextAttemptAt: Date(millisecondsSince1970: nextAttemptAt),
                lastAttemptAt: lastAttemptAt.map(Date.init(millisecondsSince1970:)),
                lastStatus: lastStatus.map { Int($0) }, lastAnswer: lastAnswer, lastError: lastError)
        }
    }

    public func leaseWebhookDeliveries(now: Date, until: Date, limit: Int) async throws(StoreError) -> [WebhookDispatch] {
        // Rows another server is leasing at this moment are skipped, not waited for; once its
        // lease commits, their lease_until keeps every other server off until it runs out.
        let time = now.millisecondsSince1970
        let rows = try await all(
            """
            WITH due AS (
                SELECT event, endpoint FROM webhook_deliveries
                WHERE state = 'pending' AND next_attempt_at <= \(time) AND (lease_until IS NULL OR lease_until <= \(time))
                ORDER BY next_attempt_at LIMIT \(Int64(limit))
                FOR UPDATE SKIP LOCKED
            ), leased AS (
                UPDATE webhook_deliveries d SET lease_until = \(until.millisecondsSince1970)
                FROM due WHERE d.event = due.event AND d.endpoint = due.endpoint
                RETURNING d.event, d.endpoint, d.type, d.body, d.attempts
            )
            SELECT leased.event, leased.type, leased.body, leased.attempts,
                   e.id, e.app, e.url, e.types, e.secret, e.previous_secret, e.previous_until, e.created_at
            FROM leased JOIN webhook_endpoints e ON e.id = leased.endpoint
            """,
            as: (String, String, String, Int64, String, String, String, String, String, String?, Int64?, Int64).self)
        return rows.map { row in
            let (event, type, body, attempts, id, app, url, types, secret, previousSecret, previousUntil, createdAt) = row
            return WebhookDispatch(
                event: event,
                endpoint: Self.endpoint((id, app, url, types, secret, previousSecret, previousUntil, createdAt)),
                type: type, body: body, attempts: Int(attempts))
        }
    }

    public func recordWebhookAttempt(_ attempt: WebhookAttempt, lease: Date) async throws(StoreError) -> Bool {
        let updated = try await all(
            """
            UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = \(attempt.at.millisecondsSince1970),
                last_status = \(attempt.status.map { Int64($0) }), last_answer = \(attempt.answer), last_error = \(attempt.error),
                state = \(attempt.state.rawValue), next_attempt_at = \(attempt.nextAttemptAt.millisecondsSince1970), lease_until = NULL
            WHERE event = \(attempt.event) AND endpoint = \(attempt.endpoint) AND lease_until = \(lease.millisecondsSince1970)
            RETURNING event
            """,
            as: String.self)
        return !updated.isEmpty
    }

    public func redeliverWebhook(app: String, event: String, endpoint: String, now: Date) async throws(StoreError) -> Bool {
        let updated = try await all(
            """
            UPDATE webhook_deliveries SET state = 'pending', next_attempt_at = \(now.millisecondsSince1970), lease_until = NULL
            WHERE app = \(app) AND event = \(event) AND endpoint = \(endpoint) RETURNING event
            """,
            as: String.self)
        return !updated.isEmpty
    }

    public func pruneWebhookDeliveries(before: Date) async throws(StoreError) -> Int {
        let gone = try await all(
            """
            WITH gone AS (DELETE FROM webhook_deliveries WHERE state <> 'pending' AND created_at < \(before.millisecondsSince1970) RETURNING 1)
            SELECT COUNT(*) FROM gone
            """,
            as: Int64.self)
        return Int(gone.first ?? 0)
    }
}
