import Foundation
import GRDB
import WaymarkStore

/// The ``Store`` on an embedded SQLite database in WAL mode: one file in the data directory,
/// nothing to install. Reads run concurrently; writes are serialized by SQLite.
///
/// Events are keyed by (app, id) in a table without rowids, so the time-ordered ids the SDKs make
/// (UUIDv7) append to the end of the primary key instead of splitting pages at random.
public final class SQLiteStore: Store {
    private let pool: DatabasePool

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    public init(path: String) throws(StoreError) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
        } catch {
            throw StoreError(.unavailable, "cannot open \(path): \(error)")
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE apps (
                        id TEXT PRIMARY KEY NOT NULL,
                        name TEXT NOT NULL,
                        identity_secret TEXT NOT NULL,
                        created_at INTEGER NOT NULL
                    );
                    CREATE TABLE keys (
                        id TEXT PRIMARY KEY NOT NULL,
                        app TEXT NOT NULL REFERENCES apps(id),
                        kind TEXT NOT NULL,
                        hash TEXT NOT NULL UNIQUE,
                        created_at INTEGER NOT NULL,
                        revoked_at INTEGER
                    );
                    CREATE INDEX keys_by_app ON keys(app);
                    CREATE TABLE drafts (
                        app TEXT PRIMARY KEY NOT NULL REFERENCES apps(id),
                        document TEXT NOT NULL,
                        updated_at INTEGER NOT NULL
                    );
                    CREATE TABLE versions (
                        app TEXT NOT NULL REFERENCES apps(id),
                        number INTEGER NOT NULL,
                        document TEXT NOT NULL,
                        published_at INTEGER NOT NULL,
                        note TEXT,
                        PRIMARY KEY (app, number)
                    ) WITHOUT ROWID;
                    CREATE TABLE events (
                        app TEXT NOT NULL,
                        id TEXT NOT NULL,
                        user TEXT NOT NULL,
                        name TEXT NOT NULL,
                        target TEXT,
                        timestamp INTEGER NOT NULL,
                        received_at INTEGER NOT NULL,
                        clamped INTEGER NOT NULL,
                        properties TEXT,
                        PRIMARY KEY (app, id)
                    ) WITHOUT ROWID;
                    CREATE TABLE grants (
                        app TEXT NOT NULL,
                        user TEXT NOT NULL,
                        tour TEXT NOT NULL,
                        page TEXT NOT NULL,
                        id TEXT NOT NULL UNIQUE,
                        credits INTEGER NOT NULL,
                        granted_at INTEGER NOT NULL,
                        PRIMARY KEY (app, user, tour, page)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v2: draft revisions") { db in
            try db.execute(sql: "ALTER TABLE drafts ADD COLUMN revision INTEGER NOT NULL DEFAULT 1")
        }
        migrator.registerMigration("v3: console accounts and audit log") { db in
            try db.execute(sql: accountsSchema)
        }
        migrator.registerMigration("v4: analytics columns and indexes") { db in
            try db.execute(sql: analyticsSchema)
        }
        migrator.registerMigration("v5: events by time, then id") { db in
            try db.execute(sql: eventsByTimeThenID)
        }
        migrator.registerMigration("v6: narration audio") { db in
            try db.execute(sql: narrationSchema)
        }
        migrator.registerMigration("v7: failed logins") { db in
            try db.execute(sql: loginFailuresSchema)
        }
        migrator.registerMigration("v8: user attributes") { db in
            try db.execute(sql: userAttributesSchema)
        }
        migrator.registerMigration("v9: user progress") { db in
            try db.execute(sql: userProgressSchema)
        }
        migrator.registerMigration("v10: segment members") { db in
            try db.execute(sql: segmentMembersSchema)
        }
        migrator.registerMigration("v11: grants numbered in the order they were made") { db in
            try db.execute(sql: grantSequenceSchema)
        }
        migrator.registerMigration("v12: reading events by user") { db in
            try db.execute(sql: readingEventsSchema)
        }
        migrator.registerMigration("v13: event retention") { db in
            try db.execute(sql: "CREATE TABLE event_retention (app TEXT PRIMARY KEY, days INTEGER NOT NULL) WITHOUT ROWID")
        }
        migrator.registerMigration("v14: webhook endpoints and their outbox") { db in
            try db.execute(sql: webhooksSchema)
        }
        migrator.registerMigration("v15: anchors and areas the SDKs saw") { db in
            try db.execute(sql: anchorSightingsSchema)
        }
        migrator.registerMigration("v16: draft previews") { db in
            try db.execute(sql: previewsSchema)
        }
        migrator.registerMigration("v17: screens paired devices captured") { db in
            try db.execute(sql: capturesSchema)
        }
        migrator.registerMigration("v18: page builders") { db in
            try db.execute(sql: "ALTER TABLE previews ADD COLUMN edits TEXT")
        }
        migrator.registerMigration("v19: where people get lost") { db in
            try db.execute(sql: strugglesSchema)
        }
        migrator.registerMigration("v20: daily rollups of events") { db in
            try db.execute(sql: rollupsSchema)
        }
        migrator.registerMigration("v21: the analytics outbox") { db in
            try db.execute(sql: outboxSchema)
        }
        migrator.registerMigration("v22: user numbers and each folded day's user sets") { db in
            try db.execute(sql: userSetsSchema)
        }
        migrator.registerMigration("v23: eligible counts kept day by day") { db in
            try db.execute(sql: eligibilitySchema)
        }
        return migrator
    }

    // MARK: Apps and keys

    public func createApp(_ app: AppRecord) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO apps (id, name, identity_secret, created_at) VALUES (?, ?, ?, ?)",
                arguments: [app.id, app.name, app.identitySecret, app.createdAt.millisecondsSince1970]
            )
        }
    }

    public func app(id: String) async throws(StoreError) -> AppRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM apps WHERE id = ?", arguments: [id]).map(Self.app(from:))
        }
    }

    public func apps() async throws(StoreError) -> [AppRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM apps ORDER BY created_at, id").map(Self.app(from:))
        }
    }

    public func insertKey(_ key: KeyRecord) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO keys (id, app, kind, hash, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    key.id, key.app, key.kind.rawValue, key.hash, key.createdAt.millisecondsSince1970, key.revokedAt?.millisecondsSince1970,
                ]
            )
        }
    }

    public func key(hash: String) async throws(StoreError) -> KeyRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM keys WHERE hash = ?", arguments: [hash]).map(Self.key(from:))
        }
    }

    public func keys(app: String) async throws(StoreError) -> [KeyRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM keys WHERE app = ? ORDER BY created_at, id", arguments: [app])
                .map(Self.key(from:))
        }
    }

    public func revokeKey(id: String, app: String, at time: Date) async throws(StoreError) -> Bool {
        try await write { db in
            try db.execute(
                sql: "UPDATE keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND app = ?",
                arguments: [time.millisecondsSince1970, id, app]
            )
            return db.changesCount > 0
        }
    }

    // MARK: Catalog

    public func draft(app: String) async throws(StoreError) -> CatalogDraft? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM drafts WHERE app = ?", arguments: [app]).map { row in
                CatalogDraft(
                    app: row["app"], document: row["document"], updatedAt: Date(millisecondsSince1970: row["updated_at"]),
                    revision: row["revision"]
                )
            }
        }
    }

    public func saveDraft(
        app: String, document: String, at time: Date, audit: [AuditEntry], accept: @escaping @Sendable (_ currentRevision: Int) -> Bool
    ) async throws(StoreError) -> CatalogDraft? {
        try await write { db in
            let current = try Int.fetchOne(db, sql: "SELECT revision FROM drafts WHERE app = ?", arguments: [app]) ?? 0
            guard accept(current) else { return nil }
            try db.execute(
                sql: """
                    INSERT INTO drafts (app, document, updated_at, revision) VALUES (?, ?, ?, ?)
                    ON CONFLICT (app) DO UPDATE SET
                        document = excluded.document, updated_at = excluded.updated_at, revision = excluded.revision
                    """,
                arguments: [app, document, time.millisecondsSince1970, current + 1]
            )
            for entry in audit { try Self.insertAudit(entry, db) }
            return CatalogDraft(app: app, document: document, updatedAt: time, revision: current + 1)
        }
    }

    public func publish(
        app: String, document: String, at time: Date, note: String?, audit: @escaping @Sendable (CatalogVersion) -> [AuditEntry],
        notice: @escaping @Sendable (CatalogVersion) -> WebhookNotice?
    ) async throws(StoreError) -> CatalogVersion {
        try await write { db in
            let last = try Int.fetchOne(db, sql: "SELECT MAX(number) FROM versions WHERE app = ?", arguments: [app]) ?? 0
            let version = CatalogVersion(app: app, number: last + 1, document: document, publishedAt: time, note: note)
            try db.execute(
                sql: "INSERT INTO versions (app, number, document, published_at, note) VALUES (?, ?, ?, ?, ?)",
                arguments: [app, version.number, document, time.millisecondsSince1970, note]
            )
            for entry in audit(version) { try Self.insertAudit(entry, db) }
            if let notice = notice(version) { try Self.enqueue(notice, db) }
            return version
        }
    }

    public func liveVersion(app: String) async throws(StoreError) -> CatalogVersion? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM versions WHERE app = ? ORDER BY number DESC LIMIT 1", arguments: [app]
            ).map(Self.version(from:))
        }
    }

    public var isShared: Bool { false }

    public func liveVersionNumber(app: String) async throws(StoreError) -> Int? {
        try await read { db in try Int.fetchOne(db, sql: "SELECT MAX(number) FROM versions WHERE app = ?", arguments: [app]) }
    }

    public func version(app: String, number: Int) async throws(StoreError) -> CatalogVersion? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM versions WHERE app = ? AND number = ?", arguments: [app, number]
            ).map(Self.version(from:))
        }
    }

    public func versions(app: String) async throws(StoreError) -> [CatalogVersion] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT app, number, '' AS document, published_at, note FROM versions WHERE app = ? ORDER BY number DESC",
                arguments: [app]
            ).map(Self.version(from:))
        }
    }

    // MARK: Events

    public func insertEvents(
        _ events: [StoredEvent], notices: @escaping @Sendable ([StoredEvent]) -> [WebhookNotice]
    ) async throws(StoreError) -> [Bool] {
        guard !events.isEmpty else { return [] }
        if let error = StoreError.invalidEventIDs(events) { throw error }
        return try await write { db in
            let app = try db.cachedStatement(sql: "SELECT 1 FROM apps WHERE id = ?")
            var known: Set<String> = []
            for event in events where !known.contains(event.app) {
                guard try Bool.fetchOne(app, arguments: [event.app]) != nil else {
                    throw StoreError(.conflict, "events of an app that does not exist: \(event.app)")
                }
                known.insert(event.app)
            }
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO events (app, id, user, name, target, timestamp, received_at, clamped, properties, platform, app_version)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT DO NOTHING
                    """)
            var inserted: [Bool] = []
            inserted.reserveCapacity(events.count)
            var new: [StoredEvent] = []
            for event in events {
                try statement.execute(arguments: [
                    event.app, event.id, event.user, event.name, event.target, event.timestamp, event.receivedAt,
                    event.clamped, event.properties, event.platform, event.appVersion,
                ])
                inserted.append(db.changesCount > 0)
                if db.changesCount > 0 { new.append(event) }
            }
            try Self.unfold(new, db)
            if try Self.keepsOutbox(db) { for event in new { try Self.outbox(.event(app: event.app, id: event.id), db) } }
            for notice in notices(new) { try Self.enqueue(notice, db) }
            return inserted
        }
    }

    public func eventCount(app: String) async throws(StoreError) -> Int {
        try await read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM events WHERE app = ?", arguments: [app]) ?? 0
        }
    }

    public func deleteEvents(app: String, before: Int64, limit: Int) async throws(StoreError) -> Int {
        try await write { db in
            try Self.forget(app: app, before: before, db)
            try db.execute(
                sql: """
                    DELETE FROM events WHERE app = ? AND id IN (
                        SELECT id FROM events WHERE app = ? AND timestamp < ? ORDER BY timestamp LIMIT ?)
                    """,
                arguments: [app, app, before, limit])
            let deleted = db.changesCount
            if deleted > 0, try Self.keepsOutbox(db) { try Self.outbox(.forget(app: app, before: before), db) }
            return deleted
        }
    }

    public func eventRetentions() async throws(StoreError) -> [String: Int] {
        try await read { db in
            Dictionary(
                try Row.fetchAll(db, sql: "SELECT app, days FROM event_retention").map { ($0["app"] as String, $0["days"] as Int) },
                uniquingKeysWith: { first, _ in first })
        }
    }

    public func setEventRetention(app: String, days: Int?, audit: AuditEntry) async throws(StoreError) {
        try await write { db in
            if let days {
                try db.execute(
                    sql: "INSERT INTO event_retention (app, days) VALUES (?, ?) ON CONFLICT (app) DO UPDATE SET days = excluded.days",
                    arguments: [app, days])
            } else {
                try db.execute(sql: "DELETE FROM event_retention WHERE app = ?", arguments: [app])
            }
            try Self.insertAudit(audit, db)
        }
    }

    public func readingEvents(app: String, user: String, page: String, limit: Int) async throws(StoreError) -> [StoredEvent] {
        // The condition on the names is the partial index's own, so the planner takes it.
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT app, id, user, name, target, timestamp, received_at, clamped, properties, platform, app_version FROM events
                    WHERE app = ? AND user = ? AND target = ? AND name IN ('page_viewed', 'page_read_to_bottom')
                    ORDER BY timestamp DESC LIMIT ?
                    """,
                arguments: [app, user, page, limit]
            ).map { row in
                StoredEvent(
                    app: row[0], id: row[1], user: row[2], name: row[3], target: row[4], timestamp: row[5], receivedAt: row[6],
                    clamped: row[7], propertiesJSON: row[8], platform: row[9], appVersion: row[10])
            }
        }
    }

    public func eventNames(app: String, since: Int64, limit: Int) async throws(StoreError) -> [String] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT name, target FROM events WHERE app = ? AND timestamp >= ?
                    GROUP BY name, target ORDER BY COUNT(*) DESC, name, target LIMIT ?
                    """,
                arguments: [app, since, limit]
            ).map { row in
                let name: String = row["name"]
                let target: String? = row["target"]
                return target.map { "\(name):\($0)" } ?? name
            }
        }
    }

    // MARK: Rewards

    public func claim(
        _ grant: Grant, credits: @escaping @Sendable (_ balance: Int) -> Int, notice: @escaping @Sendable (ClaimOutcome) -> WebhookNotice?
    ) async throws(StoreError) -> ClaimOutcome {
        // One writer at a time: the balance cannot change before the grant, and the grant's
        // number is the next of the app's when it commits.
        try await write { db in
            let balance = try Self.balance(db, app: grant.app, user: grant.user)
            if let row = try Row.fetchOne(
                db, sql: "SELECT * FROM grants WHERE app = ? AND user = ? AND tour = ? AND page = ?",
                arguments: [grant.app, grant.user, grant.tour, grant.page]
            ) {
                return ClaimOutcome(grant: Self.grant(from: row), created: false, balance: balance)
            }
            var granted = grant
            granted.credits = credits(balance)
            granted.sequence =
                try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(sequence), 0) + 1 FROM grants WHERE app = ?", arguments: [grant.app]) ?? 1
            try db.execute(
                sql: """
                    INSERT INTO grants (app, user, tour, page, id, credits, granted_at, sequence) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    granted.app, granted.user, granted.tour, granted.page, granted.id, granted.credits,
                    granted.grantedAt.millisecondsSince1970, granted.sequence,
                ]
            )
            let outcome = ClaimOutcome(grant: granted, created: true, balance: balance + granted.credits)
            if let notice = notice(outcome) { try Self.enqueue(notice, db) }
            return outcome
        }
    }

    public func grants(app: String, user: String) async throws(StoreError) -> [Grant] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM grants WHERE app = ? AND user = ? ORDER BY sequence", arguments: [app, user])
                .map(Self.grant(from:))
        }
    }

    public func grants(app: String, after sequence: Int64, limit: Int) async throws(StoreError) -> [Grant] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM grants WHERE app = ? AND sequence > ? ORDER BY sequence LIMIT ?", arguments: [app, sequence, limit]
            ).map(Self.grant(from:))
        }
    }

    public func balance(app: String, user: String) async throws(StoreError) -> Int {
        try await read { db in try Self.balance(db, app: app, user: user) }
    }

    private static func balance(_ db: Database, app: String, user: String) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(credits), 0) FROM grants WHERE app = ? AND user = ?", arguments: [app, user]) ?? 0
    }

    // MARK: Rows

    private static func app(from row: Row) -> AppRecord {
        AppRecord(
            id: row["id"], name: row["name"], identitySecret: row["identity_secret"],
            createdAt: Date(millisecondsSince1970: row["created_at"]))
    }

    private static func key(from row: Row) -> KeyRecord {
        KeyRecord(
            id: row["id"], app: row["app"], kind: KeyRecord.Kind(rawValue: row["kind"]) ?? .client, hash: row["hash"],
            createdAt: Date(millisecondsSince1970: row["created_at"]),
            revokedAt: (row["revoked_at"] as Int64?).map(Date.init(millisecondsSince1970:))
        )
    }

    private static func version(from row: Row) -> CatalogVersion {
        CatalogVersion(
            app: row["app"], number: row["number"], document: row["document"],
            publishedAt: Date(millisecondsSince1970: row["published_at"]),
            note: row["note"]
        )
    }

    private static func grant(from row: Row) -> Grant {
        Grant(
            id: row["id"], app: row["app"], user: row["user"], tour: row["tour"], page: row["page"], credits: row["credits"],
            grantedAt: Date(millisecondsSince1970: row["granted_at"]), sequence: row["sequence"]
        )
    }

    // MARK: Transactions

    func read<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws(StoreError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw Self.storeError(error)
        }
    }

    func write<T: Sendable>(_ body: @Sendable @escaping (Database) throws -> T) async throws(StoreError) -> T {
        do {
            return try await pool.write(body)
        } catch {
            throw Self.storeError(error)
        }
    }

    private static func storeError(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_CONSTRAINT {
            return StoreError(.conflict, "\(error)")
        }
        return StoreError(.failed, "\(error)")
    }
}

/// Each grant's place in its app's ledger: existing grants numbered by when they were granted,
/// new ones by the claim that makes them (``SQLiteStore/claim(_:credits:)``).
let grantSequenceSchema = """
    ALTER TABLE grants ADD COLUMN sequence INTEGER NOT NULL DEFAULT 0;
    UPDATE grants SET sequence = numbered.n
    FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY app ORDER BY granted_at, id) AS n FROM grants) AS numbered
    WHERE grants.id = numbered.id;
    CREATE UNIQUE INDEX grants_by_sequence ON grants(app, sequence);
    """

/// A credit claim reads the user's own page events. An index by user over every event would slow
/// every insert (see `analyticsSchema`); this one holds the two names a claim reads and nothing else.
let readingEventsSchema = """
    CREATE INDEX events_for_reading ON events(app, user, target, timestamp)
    WHERE name IN ('page_viewed', 'page_read_to_bottom');
    """
