import Foundation
import Logging
import PostgresNIO
import WaymarkRules
import WaymarkStore

extension PostgresStore {
    public func updateAttributes(
        app: String, user: String, _ changes: [String: ContextValue?], at time: Date, limit: Int
    ) async throws(StoreError) -> [UserAttribute]? {
        try await transaction { connection in
            // One user's updates take turns, so the count below is the one the change is made to.
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(\("attributes\u{1F}" + app + "\u{1F}" + user), 0))", logger: self.logger)
            let current = try await Self.attributes(app: app, user: user, connection, self.logger)
            guard let writes = AttributeWrites(current: current, changes: changes, limit: limit) else { return nil }
            for name in writes.removed {
                try await connection.query(
                    "DELETE FROM user_attributes WHERE app = \(app) AND user_id = \(user) AND name = \(name)", logger: self.logger)
            }
            for (name, value) in writes.set {
                try await connection.query(
                    """
                    INSERT INTO user_attributes (app, user_id, name, type, value, changed_at)
                    VALUES (\(app), \(user), \(name), \(value.storedType), \(value.plainText), \(time.millisecondsSince1970))
                    ON CONFLICT (app, user_id, name) DO UPDATE SET type = excluded.type, value = excluded.value, changed_at = excluded.changed_at
                    """,
                    logger: self.logger
                )
            }
            return try await Self.attributes(app: app, user: user, connection, self.logger)
        }
    }

    public func attributeSummary(app: String, examples: Int) async throws(StoreError) -> [AttributeSummary] {
        try await perform { connection in
            var query = PostgresQuery(unsafeSQL: AttributeSummary.query(app: "$1", examples: max(1, examples)))
            query.binds.append(app)
            let rows = try await connection.query(query, logger: self.logger).decode((String, String, String, Int64, Int64).self)
            var decoded: [(name: String, type: String, value: String, users: Int, total: Int)] = []
            for try await (name, type, value, users, total) in rows { decoded.append((name, type, value, Int(users), Int(total))) }
            return AttributeSummary.from(decoded)
        }
    }

    public func attributes(app: String, named names: [String]) async throws(StoreError) -> [String: [String: ContextValue]] {
        guard !names.isEmpty else { return [:] }
        return try await perform { connection in
            let rows = try await connection.query(
                "SELECT user_id, name, type, value FROM user_attributes WHERE app = \(app) AND name = ANY(\(names))", logger: self.logger
            ).decode((String, String, String, String).self)
            var users: [String: [String: ContextValue]] = [:]
            for try await (user, name, type, text) in rows {
                if let value = ContextValue(storedType: type, text: text) { users[user, default: [:]][name] = value }
            }
            return users
        }
    }

    public func replaceSegmentMembers(app: String, _ members: [String: Set<String>]) async throws(StoreError) {
        try await transaction { connection in
            try await connection.query("DELETE FROM segment_members WHERE app = \(app)", logger: self.logger)
            for (segment, users) in members where !users.isEmpty {
                // One statement per segment: the users travel as one array.
                let users = Array(users)
                try await connection.query(
                    """
                    INSERT INTO segment_members (app, user_id, segment)
                    SELECT \(app), member, \(segment) FROM unnest(\(users)::TEXT[]) AS member
                    """,
                    logger: self.logger
                )
            }
        }
    }

    public func segments(app: String, user: String) async throws(StoreError) -> [String] {
        try await perform { connection in
            try await Self.all(
                "SELECT segment FROM segment_members WHERE app = \(app) AND user_id = \(user) ORDER BY segment", as: String.self,
                connection, self.logger)
        }
    }

    public func segmentMembers(app: String) async throws(StoreError) -> [String: Set<String>] {
        try await perform { connection in
            var members: [String: Set<String>] = [:]
            let rows = try await Self.all(
                "SELECT segment, user_id FROM segment_members WHERE app = \(app)", as: (String, String).self, connection, self.logger)
            for (segment, user) in rows { members[segment, default: []].insert(user) }
            return members
        }
    }

    public func eraseUser(
        app: String, user: String, audit: @escaping @Sendable (UserErasure) -> AuditEntry,
        notice: @escaping @Sendable (UserErasure) -> WebhookNotice?
    ) async throws(StoreError) -> UserErasure {
        try await transaction { connection in
            func erase(_ query: PostgresQuery) async throws -> Int {
                Int(try await Self.all(query, as: Int64.self, connection, self.logger).first ?? 0)
            }
            // The user's days are held as a fold holds its day, so that no fold under way writes
            // their rollups back, and their sets are told.
            try await connection.query(
                """
                SELECT pg_advisory_xact_lock(app_number, (day / \(Period.day))::INT4) FROM (
                    SELECT app_number, timestamp - timestamp % \(Period.day) AS day FROM events
                    WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND user_id = \(user)
                    UNION SELECT app_number, day FROM event_days
                    WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND user_id = \(user)
                    ORDER BY 1, 2) AS days
                """, logger: self.logger)
            try await Self.eraseFromEligibility(app: app, user: user, connection, self.logger)
            try await Self.eraseFromUserSets(app: app, user: user, connection, self.logger)
            var erased = UserErasure()
            erased.events = try await erase(
                """
                WITH gone AS (
                    DELETE FROM events WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND user_id = \(user) RETURNING 1
                ) SELECT COUNT(*) FROM gone
                """)
            try await connection.query(
                "DELETE FROM event_days WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND user_id = \(user)",
                logger: self.logger)
            erased.grants = try await erase(
                "WITH gone AS (DELETE FROM grants WHERE app = \(app) AND user_id = \(user) RETURNING 1) SELECT COUNT(*) FROM gone")
            erased.attributes = try await erase(
                "WITH gone AS (DELETE FROM user_attributes WHERE app = \(app) AND user_id = \(user) RETURNING 1) SELECT COUNT(*) FROM gone")
            erased.progress = try await erase(
                "WITH gone AS (DELETE FROM user_progress WHERE app = \(app) AND user_id = \(user) RETURNING 1) SELECT COUNT(*) FROM gone")
            erased.segments = try await erase(
                "WITH gone AS (DELETE FROM segment_members WHERE app = \(app) AND user_id = \(user) RETURNING 1) SELECT COUNT(*) FROM gone")
            try await connection.query("DELETE FROM webhook_deliveries WHERE app = \(app) AND user_id = \(user)", logger: self.logger)
            try await connection.query("DELETE FROM struggles WHERE app = \(app) AND user_id = \(user)", logger: self.logger)
            try await connection.query(
                """
                INSERT INTO analytics_outbox (app_number, kind, user_id)
                SELECT number, 'erase', \(user) FROM apps WHERE id = \(app) AND EXISTS (SELECT 1 FROM analytics_outbox_kept)
                """, logger: self.logger)
            _ = try await Self.insertAudit(audit(erased), connection, self.logger)
            if let notice = notice(erased) { try await Self.enqueue(notice, connection, self.logger) }
            return erased
        }
    }

    public func progress(app: String, user: String) async throws(StoreError) -> String? {
        try await perform { connection in
            try await Self.all(
                "SELECT document FROM user_progress WHERE app = \(app) AND user_id = \(user)", as: String.self, connection, self.logger
            ).first
        }
    }

    public func updateProgress(
        app: String, user: String, at time: Date, _ update: @escaping @Sendable (String?) -> String?
    ) async throws(StoreError) -> String? {
        try await transaction { connection in
            // One user's updates take turns, each merging into the one before (a row not there yet
            // has nothing to lock, hence the advisory lock).
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(\("progress\u{1F}" + app + "\u{1F}" + user), 0))", logger: self.logger)
            let current = try await Self.all(
                "SELECT document FROM user_progress WHERE app = \(app) AND user_id = \(user)", as: String.self, connection, self.logger
            ).first
            guard let document = update(current) else { return current }
            try await connection.query(
                """
                INSERT INTO user_progress (app, user_id, document, updated_at) VALUES (\(app), \(user), \(document), \(time.millisecondsSince1970))
                ON CONFLICT (app, user_id) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at
                """,
                logger: self.logger
            )
            return document
        }
    }

    public func attributes(app: String, user: String) async throws(StoreError) -> [UserAttribute] {
        try await perform { try await Self.attributes(app: app, user: user, $0, self.logger) }
    }

    private static func attributes(app: String, user: String, _ connection: PostgresConnection, _ logger: Logger) async throws
        -> [UserAttribute]
    {
        try await all(
            "SELECT name, type, value, changed_at FROM user_attributes WHERE app = \(app) AND user_id = \(user) ORDER BY name",
            as: (String, String, String, Int64).self, connection, logger
        ).compactMap { name, type, value, changed in
            // A row whose value no longer reads is left out, not fatal.
            ContextValue(storedType: type, text: value).map {
                UserAttribute(name: name, value: $0, changedAt: Date(millisecondsSince1970: changed))
            }
        }
    }
}
