import Foundation
import GRDB
import WaymarkStore

/// The console's tables. The audit log refuses UPDATE and DELETE in the database itself, so no
/// code path, present or future, can rewrite history.
let accountsSchema = """
    CREATE TABLE users (
        id TEXT PRIMARY KEY NOT NULL,
        email TEXT NOT NULL UNIQUE,
        password_hash TEXT NOT NULL,
        created_at INTEGER NOT NULL
    );
    CREATE TABLE memberships (
        user TEXT NOT NULL REFERENCES users(id),
        app TEXT NOT NULL REFERENCES apps(id),
        role TEXT NOT NULL,
        PRIMARY KEY (user, app)
    ) WITHOUT ROWID;
    CREATE TABLE sessions (
        id TEXT PRIMARY KEY NOT NULL,
        user TEXT NOT NULL REFERENCES users(id),
        csrf_token TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL
    );
    CREATE INDEX sessions_by_user ON sessions(user);
    CREATE TABLE audit (
        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
        app TEXT NOT NULL,
        actor TEXT NOT NULL,
        at INTEGER NOT NULL,
        action TEXT NOT NULL,
        object TEXT NOT NULL,
        before TEXT,
        after TEXT
    );
    CREATE INDEX audit_by_app ON audit(app, sequence);
    CREATE TRIGGER audit_is_append_only_update BEFORE UPDATE ON audit
        BEGIN SELECT RAISE(ABORT, 'the audit log cannot be changed'); END;
    CREATE TRIGGER audit_is_append_only_delete BEFORE DELETE ON audit
        BEGIN SELECT RAISE(ABORT, 'the audit log cannot be changed'); END;
    """

/// Failed logins, which the console's throttle counts per email and per client address; in the
/// database, so that every server behind a load balancer counts the same failures.
let loginFailuresSchema = """
    CREATE TABLE login_failures (key TEXT NOT NULL, at INTEGER NOT NULL);
    CREATE INDEX login_failures_by_key ON login_failures(key, at);
    """

extension SQLiteStore {
    // MARK: Users and roles

    public func createUser(_ user: ConsoleUser) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO users (id, email, password_hash, created_at) VALUES (?, ?, ?, ?)",
                arguments: [user.id, user.email, user.passwordHash, user.createdAt.millisecondsSince1970]
            )
        }
    }

    public func user(email: String) async throws(StoreError) -> ConsoleUser? {
        try await read { db in try Row.fetchOne(db, sql: "SELECT * FROM users WHERE email = ?", arguments: [email]).map(Self.user(from:)) }
    }

    public func user(id: String) async throws(StoreError) -> ConsoleUser? {
        try await read { db in try Row.fetchOne(db, sql: "SELECT * FROM users WHERE id = ?", arguments: [id]).map(Self.user(from:)) }
    }

    public func memberships(user: String) async throws(StoreError) -> [Membership] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM memberships WHERE user = ? ORDER BY app", arguments: [user]).compactMap { row in
                Role(rawValue: row["role"]).map { Membership(user: row["user"], app: row["app"], role: $0) }
            }
        }
    }

    public func members(app: String) async throws(StoreError) -> [Member] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT users.*, memberships.role FROM memberships JOIN users ON users.id = memberships.user WHERE app = ? ORDER BY email",
                arguments: [app]
            ).compactMap { row in Role(rawValue: row["role"]).map { Member(user: Self.user(from: row), role: $0) } }
        }
    }

    @discardableResult
    public func changeRole(
        _ role: Role?, user: String, app: String, check: @escaping @Sendable (MembershipChange) throws(StoreError) -> Void
    ) async throws(StoreError) -> Role? {
        try await write { db in
            let before = try String.fetchOne(db, sql: "SELECT role FROM memberships WHERE user = ? AND app = ?", arguments: [user, app])
                .flatMap(Role.init(rawValue:))
            let owners =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM memberships WHERE app = ? AND role = 'owner'", arguments: [app]) ?? 0
            try check(MembershipChange(before: before, after: role, owners: owners))
            if let role {
                try db.execute(
                    sql:
                        "INSERT INTO memberships (user, app, role) VALUES (?, ?, ?) ON CONFLICT (user, app) DO UPDATE SET role = excluded.role",
                    arguments: [user, app, role.rawValue]
                )
            } else {
                try db.execute(sql: "DELETE FROM memberships WHERE user = ? AND app = ?", arguments: [user, app])
            }
            return before
        }
    }

    public func setPassword(user: String, hash: String, keeping session: String?) async throws(StoreError) {
        try await write { db in
            try db.execute(sql: "UPDATE users SET password_hash = ? WHERE id = ?", arguments: [hash, user])
            try db.execute(sql: "DELETE FROM sessions WHERE user = ? AND id IS NOT ?", arguments: [user, session])
        }
    }

    // MARK: Sessions

    public func insertSession(_ session: ConsoleSession) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO sessions (id, user, csrf_token, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [
                    session.id, session.user, session.csrfToken, session.createdAt.millisecondsSince1970,
                    session.lastSeenAt.millisecondsSince1970,
                ]
            )
        }
    }

    public func session(id: String) async throws(StoreError) -> ConsoleSession? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM sessions WHERE id = ?", arguments: [id]).map { row in
                ConsoleSession(
                    id: row["id"], user: row["user"], csrfToken: row["csrf_token"],
                    createdAt: Date(millisecondsSince1970: row["created_at"]),
                    lastSeenAt: Date(millisecondsSince1970: row["last_seen_at"])
                )
            }
        }
    }

    public func touchSession(id: String, at time: Date) async throws(StoreError) {
        try await write { db in
            try db.execute(sql: "UPDATE sessions SET last_seen_at = ? WHERE id = ?", arguments: [time.millisecondsSince1970, id])
        }
    }

    public func deleteSession(id: String) async throws(StoreError) {
        try await write { db in try db.execute(sql: "DELETE FROM sessions WHERE id = ?", arguments: [id]) }
    }

    @discardableResult
    public func deleteExpiredSessions(lastSeenBefore: Date, createdBefore: Date) async throws(StoreError) -> Int {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM sessions WHERE last_seen_at < ? OR created_at < ?",
                arguments: [lastSeenBefore.millisecondsSince1970, createdBefore.millisecondsSince1970]
            )
            return db.changesCount
        }
    }

    // MARK: Failed logins

    public func loginFailures(keys: [String], since: Date) async throws(StoreError) -> [String: LoginFailures] {
        try await read { db in try Self.loginFailures(db, keys: keys, since: since) }
    }

    public func chargeLoginFailure(keys: [(key: String, limit: Int)], at time: Date, since: Date) async throws(StoreError)
        -> [String: LoginFailures]?
    {
        try await write { db in
            let failures = try Self.loginFailures(db, keys: keys.map(\.key), since: since)
            if keys.contains(where: { (failures[$0.key]?.count ?? 0) >= $0.limit }) { return failures }
            for (key, _) in keys {
                try db.execute(sql: "INSERT INTO login_failures (key, at) VALUES (?, ?)", arguments: [key, time.millisecondsSince1970])
            }
            return nil
        }
    }

    private static func loginFailures(_ db: Database, keys: [String], since: Date) throws -> [String: LoginFailures] {
        var failures: [String: LoginFailures] = [:]
        for key in keys {
            let row = try Row.fetchOne(
                db, sql: "SELECT COUNT(*), MIN(at) FROM login_failures WHERE key = ? AND at >= ?",
                arguments: [key, since.millisecondsSince1970]
            )
            if let row, let earliest: Int64 = row[1] {
                failures[key] = LoginFailures(count: row[0], earliest: Date(millisecondsSince1970: earliest))
            }
        }
        return failures
    }

    public func forgetLoginFailure(keys: [String], at time: Date) async throws(StoreError) {
        try await write { db in
            for key in keys {
                try db.execute(
                    sql: "DELETE FROM login_failures WHERE rowid = (SELECT rowid FROM login_failures WHERE key = ? AND at = ? LIMIT 1)",
                    arguments: [key, time.millisecondsSince1970])
            }
        }
    }

    public func clearLoginFailures(key: String) async throws(StoreError) {
        try await write { db in try db.execute(sql: "DELETE FROM login_failures WHERE key = ?", arguments: [key]) }
    }

    @discardableResult
    public func deleteLoginFailures(before: Date) async throws(StoreError) -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM login_failures WHERE at < ?", arguments: [before.millisecondsSince1970])
            return db.changesCount
        }
    }

    // MARK: Audit log

    @discardableResult
    public func appendAudit(_ entry: AuditEntry) async throws(StoreError) -> AuditEntry {
        try await write { db in try Self.insertAudit(entry, db) }
    }

    @discardableResult
    static func insertAudit(_ entry: AuditEntry, _ db: Database) throws -> AuditEntry {
        try db.execute(
            sql: "INSERT INTO audit (app, actor, at, action, object, before, after) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [
                entry.app, entry.actor.description, entry.at.millisecondsSince1970, entry.action.description, entry.object, entry.before,
                entry.after,
            ]
        )
        var saved = entry
        saved.sequence = db.lastInsertedRowID
        return saved
    }

    public func auditLog(app: String, limit: Int) async throws(StoreError) -> [AuditEntry] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM audit WHERE app = ? ORDER BY sequence DESC LIMIT ?", arguments: [app, limit]).map {
                row in
                AuditEntry(
                    sequence: row["sequence"], app: row["app"], actor: AuditEntry.Actor(stored: row["actor"]),
                    at: Date(millisecondsSince1970: row["at"]),
                    action: AuditEntry.Action(stored: row["action"]), object: row["object"], before: row["before"], after: row["after"]
                )
            }
        }
    }

    private static func user(from row: Row) -> ConsoleUser {
        ConsoleUser(
            id: row["id"], email: row["email"], passwordHash: row["password_hash"],
            createdAt: Date(millisecondsSince1970: row["created_at"]))
    }
}
