import Foundation
import PostgresNIO
import WaymarkStore

extension PostgresStore {
    /// The advisory lock the server shipping the analytics outbox holds for its transaction
    /// ("Waymark" in ASCII): one server ships at a time.
    static let outboxLock: Int64 = 0x5761_796D_6172_6B

    public func keepAnalyticsOutbox() async throws(StoreError) {
        try await perform { connection in
            _ = try await connection.query("INSERT INTO analytics_outbox_kept (id) VALUES (1) ON CONFLICT DO NOTHING", logger: self.logger)
        }
    }

    @discardableResult public func stopAnalyticsOutbox() async throws(StoreError) -> Int {
        try await transaction { connection in
            _ = try await connection.query("DELETE FROM analytics_outbox_kept", logger: self.logger)
            // Under the shippers' lock, so no shipment is under way; an event stored by a
            // transaction that saw the outbox kept may still leave an entry, which no one ships.
            _ = try await connection.query("SELECT pg_advisory_xact_lock(\(Self.outboxLock))", logger: self.logger)
            let removed = try await Self.all(
                "WITH removed AS (DELETE FROM analytics_outbox RETURNING 1) SELECT COUNT(*) FROM removed", as: Int64.self, connection,
                self.logger)
            return Int(removed.first ?? 0)
        }
    }

    public func analyticsOutbox() async throws(StoreError) -> (kept: Bool, waiting: Int) {
        let rows = try await all(
            "SELECT EXISTS (SELECT 1 FROM analytics_outbox_kept), (SELECT COUNT(*) FROM analytics_outbox)", as: (Bool, Int64).self)
        return (rows.first?.0 ?? false, Int(rows.first?.1 ?? 0))
    }

    public func whileNoneShips(_ body: @escaping @Sendable () async throws -> Void) async throws(StoreError) {
        try await transaction { connection in
            _ = try await connection.query("SELECT pg_advisory_xact_lock(\(Self.outboxLock))", logger: self.logger)
            try await body()
        }
    }

    public func shipAnalytics(limit: Int, _ ship: @escaping @Sendable ([AnalyticsChange]) async throws -> Void) async throws(StoreError)
        -> Int
    {
        let reported =
            "json_build_array(" + TallyDimension.rolledUpProperties.map(Self.tallyDialect.property).joined(separator: ", ") + ")::TEXT"
        return try await transaction { connection in
            guard
                try await Self.all("SELECT pg_try_advisory_xact_lock(\(Self.outboxLock))", as: Bool.self, connection, self.logger).first
                    == true
            else { return 0 }
            // Each event with what ClickHouse keeps of it (nothing, if it was erased or forgotten
            // since: its entry is removed unshipped). Entries are removed by their numbers: one
            // committed meanwhile with a smaller number is shipped next time.
            let query: PostgresQuery = """
                SELECT o.seq, a.id, o.kind, o.user_id, o.before, e.id::TEXT, e.user_id, e.name, e.target, e.timestamp, e.received_at,
                    e.clamped, e.properties, e.platform, e.app_version, \(unescaped: reported)
                FROM analytics_outbox AS o JOIN apps AS a ON a.number = o.app_number
                LEFT JOIN events AS e ON o.kind = 'event' AND e.app_number = o.app_number AND e.id = o.event_id
                ORDER BY o.seq LIMIT \(Int64(limit))
                """
            let rows = try await Self.all(
                query,
                as: (
                    Int64, String, String, String?, Int64?, String?, String?, String?, String?, Int64?, Int64?, Bool?, String?, String?,
                    String?, String?
                ).self, connection, self.logger)
            guard !rows.isEmpty else { return 0 }
            var entries: [AnalyticsChange] = []
            for row in rows {
                let (
                    _, app, kind, user, before, id, eventUser, name, target, timestamp, received, clamped, properties, platform, version,
                    texts
                ) =
                    row
                switch kind {
                case "erase": entries.append(.erased(app: app, user: user ?? ""))
                case "forget": entries.append(.forgotten(app: app, before: before ?? 0))
                default:
                    guard let id, let eventUser, let name, let timestamp, let received, let clamped, let texts else { continue }
                    let event = StoredEvent(
                        app: app, id: id, user: eventUser, name: name, target: target, timestamp: timestamp, receivedAt: received,
                        clamped: clamped, propertiesJSON: properties, platform: platform, appVersion: version)
                    entries.append(.stored([try AnalyticsRow(event: event, reportedJSON: texts)]))
                }
            }
            let changes = AnalyticsChange.grouping(entries)
            if !changes.isEmpty { try await ship(changes) }
            try await connection.query("DELETE FROM analytics_outbox WHERE seq = ANY(\(rows.map(\.0)))", logger: self.logger)
            return rows.count
        }
    }
}
