import Foundation
import Logging
import PostgresNIO
import WaymarkStore

extension PostgresStore {
    // MARK: Users and roles

    public func createUser(_ user: ConsoleUser) async throws(StoreError) {
        try await execute(
            """
            INSERT INTO users (id, email, password_hash, created_at)
            VALUES (\(user.id), \(user.email), \(user.passwordHash), \(user.createdAt.millisecondsSince1970))
            """
        )
    }

    public func user(email: String) async throws(StoreError) -> ConsoleUser? {
        try await all("SELECT id, email, password_hash, created_at FROM users WHERE email = \(email)", as: UserRow.self).first.map(
            Self.user)
    }

    public func user(id: String) async throws(StoreError) -> ConsoleUser? {
        try await all("SELECT id, email, password_hash, created_at FROM users WHERE id = \(id)", as: UserRow.self).first.map(Self.user)
    }

    public func memberships(user: String) async throws(StoreError) -> [Membership] {
        try await all("SELECT app, role FROM memberships WHERE user_id = \(user) ORDER BY app", as: (String, String).self).compactMap {
            app, role in
            Role(rawValue: role).map { Membership(user: user, app: app, role: $0) }
        }
    }

    public func members(app: String) async throws(StoreError) -> [Member] {
        try await all(
            """
            SELECT users.id, users.email, users.password_hash, users.created_at, memberships.role
            FROM memberships JOIN users ON users.id = memberships.user_id WHERE app = \(app) ORDER BY email
            """,
            as: (String, String, String, Int64, String).self
        ).compactMap { id, email, hash, created, role in
            Role(rawValue: role).map { Member(user: Self.user((id, email, hash, created)), role: $0) }
        }
    }

    @discardableResult
    public func changeRole(
        _ role: Role?, user: String, app: String, check: @escaping @Sendable (MembershipChange) throws(StoreError) -> Void
    ) async throws(StoreError) -> Role? {
        try await transaction { connection in
            // The app's row serializes changes of its members, so two owners cannot demote each other at once.
            try await Self.lockApp(app, connection, self.logger)
            let before = try await Self.all(
                "SELECT role FROM memberships WHERE user_id = \(user) AND app = \(app)", as: String.self, connection, self.logger
            ).first.flatMap(Role.init(rawValue:))
            let owners =
                try await Self.all(
                    "SELECT COUNT(*) FROM memberships WHERE app = \(app) AND role = 'owner'", as: Int64.self, connection, self.logger
                ).first ?? 0
            try check(MembershipChange(before: before, after: role, owners: Int(owners)))
            if let role {
                try await connection.query(
                    """
                    INSERT INTO memberships (user_id, app, role) VALUES (\(user), \(app), \(role.rawValue))
                    ON CONFLICT (user_id, app) DO UPDATE SET role = excluded.role
                    """,
                    logger: self.logger
                )
            } else {
                try await connection.query("DELETE FROM memberships WHERE user_id = \(user) AND app = \(app)", logger: self.logger)
            }
            return before
        }
    }

    public func setPassword(user: String, hash: String, keeping session: String?) async throws(StoreError) {
        try await transaction { connection in
            try await connection.query("UPDATE users SET password_hash = \(hash) WHERE id = \(user)", logger: self.logger)
            try await connection.query(
                "DELETE FROM sessions WHERE user_id = \(user) AND id IS DISTINCT FROM \(session)", logger: self.logger)
        }
    }

    // MARK: Sessions

    public func insertSession(_ session: ConsoleSession) async throws(StoreError) {
        try await execute(
            """
            INSERT INTO sessions (id, user_id, csrf_token, created_at, last_seen_at)
            VALUES (\(session.id), \(session.user), \(session.csrfToken), \(session.createdAt.millisecondsSince1970), \(session.lastSeenAt.millisecondsSince1970))
            """
        )
    }

    public func session(id: String) async throws(StoreError) -> ConsoleSession? {
        try await all(
            "SELECT id, user_id, csrf_token, created_at, last_seen_at FROM sessions WHERE id = \(id)",
            as: (String, String, String, Int64, Int64).self
        ).first.map { id, user, csrf, created, seen in
            ConsoleSession(
                id: id, user: user, csrfToken: csrf, createdAt: Date(millisecondsSince1970: created),
                lastSeenAt: Date(millisecondsSince1970: seen)
            )
        }
    }

    public func touchSession(id: String, at time: Date) async throws(StoreError) {
        try await execute("UPDATE sessions SET last_seen_at = \(time.millisecondsSince1970) WHERE id = \(id)")
    }

    public func deleteSession(id: String) async throws(StoreError) {
        try await execute("DELETE FROM sessions WHERE id = \(id)")
    }

    @discardableResult
    public func deleteExpiredSessions(lastSeenBefore: Date, createdBefore: Date) async throws(StoreError) -> Int {
        try await all(
            """
            DELETE FROM sessions WHERE last_seen_at < \(lastSeenBefore.millisecondsSince1970) OR created_at < \(createdBefore.millisecondsSince1970)
            RETURNING id
            """,
            as: String.self
        ).count
    }

    // MARK: Failed logins

    public func loginFailures(keys: [String], since: Date) async throws(StoreError) -> [String: LoginFailures] {
        let rows = try await all(
            "SELECT key, COUNT(*), MIN(at) FROM login_failures WHERE key = ANY(\(keys)) AND at >= \(since.millisecondsSince1970) GROUP BY key",
            as: (String, Int64, Int64).self
        )
        return Dictionary(uniqueKeysWithValues: rows.map { ($0, LoginFailures(count: Int($1), earliest: Date(millisecondsSince1970: $2))) })
    }

    public func chargeLoginFailure(keys: [(key: String, limit: Int)], at time: Date, since: Date) async throws(StoreError)
        -> [String: LoginFailures]?
    {
        try await transaction { connection in
            // Tries on one key take turns (in one order of keys, so two never wait for each other).
            for key in keys.map(\.key).sorted() {
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtextextended(\("login\u{1F}" + key), 0))", logger: self.logger)
            }
            let rows = try await Self.all(
                """
                SELECT key, COUNT(*), MIN(at) FROM login_failures WHERE key = ANY(\(keys.map(\.key))) AND at >= \(since.millisecondsSince1970)
                GROUP BY key
                """,
                as: (String, Int64, Int64).self, connection, self.logger)
            let failures = Dictionary(
                uniqueKeysWithValues: rows.map { ($0, LoginFailures(count: Int($1), earliest: Date(millisecondsSince1970: $2))) })
            if keys.contains(where: { (failures[$0.key]?.count ?? 0) >= $0.limit }) { return failures }
            try await connection.query(
                "INSERT INTO login_failures (key, at) SELECT unnest(\(keys.map(\.key))::TEXT[]), \(time.millisecondsSince1970)",
                logger: self.logger)
            return nil
        }
    }

    public func forgetLoginFailure(keys: [String], at time: Date) async throws(StoreError) {
        for key in keys {
            // SKIP LOCKED: two successes at one moment take back two rows, not the same one twice.
            try await execute(
                """
                DELETE FROM login_failures WHERE ctid = (
                    SELECT ctid FROM login_failures WHERE key = \(key) AND at = \(time.millisecondsSince1970) LIMIT 1 FOR UPDATE SKIP LOCKED)
                """)
        }
    }

    public func clearLoginFailures(key: String) async throws(StoreError) {
        try await execute("DELETE FROM login_failures WHERE key = \(key)")
    }

    @discardableResult
    public func deleteLoginFailures(before: Date) async throws(StoreError) -> Int {
        let deleted = try await all(
            "WITH gone AS (DELETE FROM login_failures WHERE at < \(before.millisecondsSince1970) RETURNING 1) SELECT COUNT(*) FROM gone",
            as: Int64.self
        )
        return Int(deleted.first ?? 0)
    }

    // MARK: Audit log

    @discardableResult
    public func appendAudit(_ entry: AuditEntry) async throws(StoreError) -> AuditEntry {
        try await perform { try await Self.insertAudit(entry, $0, logger) }
    }

    static func insertAudit(_ entry: AuditEntry, _ connection: PostgresConnection, _ logger: Logger) async throws -> AuditEntry {
        let sequence = try await all(
            """
            INSERT INTO audit (app, actor, at, action, object, before, after)
            VALUES (\(entry.app), \(entry.actor.description), \(entry.at.millisecondsSince1970), \(entry.action.description), \(entry.object), \(entry.before), \(entry.after))
            RETURNING sequence
            """,
            as: Int64.self, connection, logger
        )
        var saved = entry
        saved.sequence = sequence.first ?? 0
        return saved
    }

    public func auditLog(app: String, limit: Int) async throws(StoreError) -> [AuditEntry] {
        try await all(
            """
            SELECT sequence, actor, at, action, object, before, after FROM audit WHERE app = \(app) ORDER BY sequence DESC LIMIT \(Int64(limit))
            """,
            as: (Int64, String, Int64, String, String, String?, String?).self
        ).map { sequence, actor, at, action, object, before, after in
            AuditEntry(
                sequence: sequence, app: app, actor: AuditEntry.Actor(stored: actor), at: Date(millisecondsSince1970: at),
                action: AuditEntry.Action(stored: action), object: object, before: before,
                after: after
            )
        }
    }

    typealias UserRow = (String, String, String, Int64)

    static func user(_ row: UserRow) -> ConsoleUser {
        ConsoleUser(id: row.0, email: row.1, passwordHash: row.2, createdAt: Date(millisecondsSince1970: row.3))
    }
}
