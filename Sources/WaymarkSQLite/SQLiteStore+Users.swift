import Foundation
import GRDB
import WaymarkRules
import WaymarkStore

/// One row per attribute of an identified user: its type, its value as text, and when it took it.
let userAttributesSchema = """
    CREATE TABLE user_attributes (
        app TEXT NOT NULL,
        user TEXT NOT NULL,
        name TEXT NOT NULL,
        type TEXT NOT NULL,
        value TEXT NOT NULL,
        changed_at INTEGER NOT NULL,
        PRIMARY KEY (app, user, name)
    );
    CREATE INDEX user_attributes_by_name ON user_attributes(app, name);
    """

/// One row per identified user with progress: the JSON document their devices' progress merges
/// into, and when it last changed.
let userProgressSchema = """
    CREATE TABLE user_progress (
        app TEXT NOT NULL,
        user TEXT NOT NULL,
        document TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (app, user)
    );
    """

/// Who is in each segment that reads history, as the segment refresher last found them: derived,
/// so `waymark migrate-data` leaves it to the next refresh.
let segmentMembersSchema = """
    CREATE TABLE segment_members (
        app TEXT NOT NULL,
        user TEXT NOT NULL,
        segment TEXT NOT NULL,
        PRIMARY KEY (app, user, segment)
    ) WITHOUT ROWID;
    """

extension SQLiteStore {
    public func attributes(app: String, named names: [String]) async throws(StoreError) -> [String: [String: ContextValue]] {
        guard !names.isEmpty else { return [:] }
        return try await read { db in
            var users: [String: [String: ContextValue]] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql:
                    "SELECT user, name, type, value FROM user_attributes WHERE app = ? AND name IN (\(databaseQuestionMarks(count: names.count)))",
                arguments: StatementArguments([app] + names))
            while let row = try rows.next() {
                if let value = ContextValue(storedType: row[2], text: row[3]) { users[row[0], default: [:]][row[1]] = value }
            }
            return users
        }
    }

    public func replaceSegmentMembers(app: String, _ members: [String: Set<String>]) async throws(StoreError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM segment_members WHERE app = ?", arguments: [app])
            let insert = try db.cachedStatement(sql: "INSERT INTO segment_members (app, user, segment) VALUES (?, ?, ?)")
            for (segment, users) in members {
                for user in users { try insert.execute(arguments: [app, user, segment]) }
            }
        }
    }

    public func segments(app: String, user: String) async throws(StoreError) -> [String] {
        try await read { db in
            try String.fetchAll(
                db, sql: "SELECT segment FROM segment_members WHERE app = ? AND user = ? ORDER BY segment", arguments: [app, user])
        }
    }

    public func segmentMembers(app: String) async throws(StoreError) -> [String: Set<String>] {
        try await read { db in
            var members: [String: Set<String>] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT segment, user FROM segment_members WHERE app = ?", arguments: [app])
            while let row = try rows.next() { members[row[0] as String, default: []].insert(row[1]) }
            return members
        }
    }

    public func updateAttributes(
        app: String, user: String, _ changes: [String: ContextValue?], at time: Date, limit: Int
    ) async throws(StoreError) -> [UserAttribute]? {
        try await write { db in
            let current = try Self.attributes(db, app: app, user: user)
            guard let writes = AttributeWrites(current: current, changes: changes, limit: limit) else { return nil }
            for name in writes.removed {
                try db.execute(sql: "DELETE FROM user_attributes WHERE app = ? AND user = ? AND name = ?", arguments: [app, user, name])
            }
            for (name, value) in writes.set {
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO user_attributes (app, user, name, type, value, changed_at) VALUES (?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [app, user, name, value.storedType, value.plainText, time.millisecondsSince1970]
                )
            }
            return try Self.attributes(db, app: app, user: user)
        }
    }

    public func attributes(app: String, user: String) async throws(StoreError) -> [UserAttribute] {
        try await read { db in try Self.attributes(db, app: app, user: user) }
    }

    public func attributeSummary(app: String, examples: Int) async throws(StoreError) -> [AttributeSummary] {
        try await read { db in
            let rows = try Row.fetchAll(db, sql: AttributeSummary.query(app: "?", examples: max(1, examples)), arguments: [app])
            return AttributeSummary.from(rows.map { ($0["name"], $0["type"], $0["value"], $0["users"], $0["total"]) })
        }
    }

    public func eraseUser(
        app: String, user: String, audit: @escaping @Sendable (UserErasure) -> AuditEntry,
        notice: @escaping @Sendable (UserErasure) -> WebhookNotice?
    ) async throws(StoreError) -> UserErasure {
        try await write { db in
            func erase(_ table: String) throws -> Int {
                try db.execute(sql: "DELETE FROM \(table) WHERE app = ? AND user = ?", arguments: [app, user])
                return db.changesCount
            }
            var erased = UserErasure()
            erased.events = try erase("events")
            try Self.eraseFromEligibility(app: app, user: user, db)
            try Self.eraseFromUserSets(app: app, user: user, db)
            _ = try erase("event_days")
            erased.grants = try erase("grants")
            erased.attributes = try erase("user_attributes")
            erased.progress = try erase("user_progress")
            erased.segments = try erase("segment_members")
            _ = try erase("webhook_deliveries")
            _ = try erase("struggles")
            if try Self.keepsOutbox(db) { try Self.outbox(.erase(app: app, user: user), db) }
            try Self.insertAudit(audit(erased), db)
            if let notice = notice(erased) { try Self.enqueue(notice, db) }
            return erased
        }
    }

    public func progress(app: String, user: String) async throws(StoreError) -> String? {
        try await read { db in
            try String.fetchOne(db, sql: "SELECT document FROM user_progress WHERE app = ? AND user = ?", arguments: [app, user])
        }
    }

    public func updateProgress(
        app: String, user: String, at time: Date, _ update: @escaping @Sendable (String?) -> String?
    ) async throws(StoreError) -> String? {
        try await write { db in
            let current = try String.fetchOne(
                db, sql: "SELECT document FROM user_progress WHERE app = ? AND user = ?", arguments: [app, user])
            guard let document = update(current) else { return current }
            try db.execute(
                sql: "INSERT OR REPLACE INTO user_progress (app, user, document, updated_at) VALUES (?, ?, ?, ?)",
                arguments: [app, user, document, time.millisecondsSince1970])
            return document
        }
    }

    private static func attributes(_ db: Database, app: String, user: String) throws -> [UserAttribute] {
        try Row.fetchAll(
            db, sql: "SELECT name, type, value, changed_at FROM user_attributes WHERE app = ? AND user = ? ORDER BY name",
            arguments: [app, user]
        ).compactMap { row in
            // A row whose value no longer reads is left out, not fatal.
            ContextValue(storedType: row["type"], text: row["value"]).map {
                UserAttribute(name: row["name"], value: $0, changedAt: Date(millisecondsSince1970: row["changed_at"]))
            }
        }
    }
}
