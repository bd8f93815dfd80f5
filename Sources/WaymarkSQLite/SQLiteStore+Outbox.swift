import Foundation
import GRDB
import WaymarkStore

/// The analytics outbox: what ClickHouse must learn, written in the transaction of the change
/// while analytics_outbox_kept has its row.
let outboxSchema = """
    CREATE TABLE analytics_outbox_kept (id INTEGER PRIMARY KEY CHECK (id = 1));
    CREATE TABLE analytics_outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        app TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('event', 'erase', 'forget')),
        event_id TEXT,
        user TEXT,
        before INTEGER
    );
    """

extension SQLiteStore {
    /// One entry of the outbox.
    enum OutboxEntry {
        case event(app: String, id: String)
        case erase(app: String, user: String)
        case forget(app: String, before: Int64)
    }

    static func outbox(_ entry: OutboxEntry, _ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: "INSERT INTO analytics_outbox (app, kind, event_id, user, before) VALUES (?, ?, ?, ?, ?)")
        switch entry {
        case .event(let app, let id): try statement.execute(arguments: [app, "event", id, nil, nil])
        case .erase(let app, let user): try statement.execute(arguments: [app, "erase", nil, user, nil])
        case .forget(let app, let before): try statement.execute(arguments: [app, "forget", nil, nil, before])
        }
    }

    /// The JSON array of the texts the tally reads of each reported property of `column`.
    static func reportedTexts(in column: String) -> String {
        "json_array(" + TallyDimension.rolledUpProperties.map { propertyText($0, in: column) }.joined(separator: ", ") + ")"
    }

    static func keepsOutbox(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM analytics_outbox_kept")) != nil
    }

    public func keepAnalyticsOutbox() async throws(StoreError) {
        try await write { db in try db.execute(sql: "INSERT OR IGNORE INTO analytics_outbox_kept (id) VALUES (1)") }
    }

    @discardableResult public func stopAnalyticsOutbox() async throws(StoreError) -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM analytics_outbox_kept")
            try db.execute(sql: "DELETE FROM analytics_outbox")
            return db.changesCount
        }
    }

    public func analyticsOutbox() async throws(StoreError) -> (kept: Bool, waiting: Int) {
        try await read { db in
            (try Self.keepsOutbox(db), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM analytics_outbox") ?? 0)
        }
    }

    /// One server has a SQLite database: nothing ships meanwhile but what this server does, and
    /// its shipper runs `body` before it ships.
    public func whileNoneShips(_ body: @escaping @Sendable () async throws -> Void) async throws(StoreError) {
        do {
            try await body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.unavailable, "the analytics store could not be changed: \(error)")
        }
    }

    public func shipAnalytics(limit: Int, _ ship: @escaping @Sendable ([AnalyticsChange]) async throws -> Void) async throws(StoreError)
        -> Int
    {
        // The entries, each event with what ClickHouse keeps of it (nothing, if it was erased or
        // forgotten since: its entry is removed unshipped).
        let entries = try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT o.seq, o.app, o.kind, o.user, o.before,
                        e.id, e.user, e.name, e.target, e.timestamp, e.received_at, e.clamped, e.properties, e.platform,
                        e.app_version, \(Self.reportedTexts(in: "e.properties"))
                    FROM analytics_outbox AS o LEFT JOIN events AS e ON o.kind = 'event' AND e.app = o.app AND e.id = o.event_id
                    ORDER BY o.seq LIMIT ?
                    """, arguments: [limit]
            ).map { row -> (Int64, AnalyticsChange?) in
                let app: String = row[1]
                switch row[2] as String {
                case "erase": return (row[0], .erased(app: app, user: row[3]))
                case "forget": return (row[0], .forgotten(app: app, before: row[4]))
                default:
                    guard let id: String = row[5] else { return (row[0], nil) }
                    let event = StoredEvent(
                        app: app, id: id, user: row[6], name: row[7], target: row[8], timestamp: row[9], receivedAt: row[10],
                        clamped: row[11], propertiesJSON: row[12], platform: row[13], appVersion: row[14])
                    return (row[0], .stored([try AnalyticsRow(event: event, reportedJSON: row[15])]))
                }
            }
        }
        guard !entries.isEmpty else { return 0 }
        let changes = AnalyticsChange.grouping(entries.compactMap(\.1))
        do {
            if !changes.isEmpty { try await ship(changes) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.unavailable, "the analytics outbox could not be shipped: \(error)")
        }
        let shipped = entries.map(\.0)
        try await write { db in
            for chunk in stride(from: 0, to: shipped.count, by: 500) {
                let seqs = shipped[chunk..<min(chunk + 500, shipped.count)]
                try db.execute(
                    sql: "DELETE FROM analytics_outbox WHERE seq IN (\(seqs.map { _ in "?" }.joined(separator: ", ")))",
                    arguments: StatementArguments(Array(seqs)))
            }
        }
        return entries.count
    }
}
