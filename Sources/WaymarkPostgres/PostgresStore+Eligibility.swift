import Foundation
import Logging
import PostgresNIO
import WaymarkStore

extension PostgresStore {
    public func eligibilityProgress(app: String, ruleset: String, through: Int64) async throws(StoreError) -> EligibilityProgress {
        guard let number = try await all("SELECT number FROM apps WHERE id = \(app)", as: Int32.self).first else {
            return EligibilityProgress(kept: [], due: [], pending: nil, epoch: 0)
        }
        return try await transaction { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: self.logger)
            // The days with events, found a seek at a time in the index by time.
            var days: [Int64] = []
            var from = Int64.min
            while let time = try await Self.all(
                "SELECT MIN(timestamp) FROM events WHERE app_number = \(number) AND timestamp >= \(from)", as: Int64?.self, connection,
                self.logger
            ).first ?? nil, time < through {
                days.append(Period.startOfDay(time))
                from = Period.startOfDay(time) + Period.day
            }
            return EligibilityProgress(
                days: days,
                kept: Set(
                    try await Self.all(
                        "SELECT day FROM eligibility_days WHERE app_number = \(number) AND ruleset = \(ruleset)", as: Int64.self,
                        connection, self.logger)),
                rolled: Set(
                    try await Self.all(
                        "SELECT day FROM rolled_days WHERE app_number = \(number) AND sets", as: Int64.self, connection, self.logger)),
                epoch: try await Self.all(
                    "SELECT epoch FROM eligibility_epochs WHERE app_number = \(number)", as: Int64.self, connection, self.logger
                ).first ?? 0)
        }
    }

    public func eligibilityStarts(app: String, ruleset: String, period: Period) async throws(StoreError) -> [EligibilityStart] {
        try await transaction { connection in
            // Each user's latest state is one step back in the primary key. Planned with the
            // statistics of a table that a day's fold has just grown from nothing, a scan of the
            // whole table for each user looked cheaper, and took a quarter of an hour at 10M.
            try await connection.query("SET LOCAL enable_seqscan = off", logger: self.logger)
            return try await Self.all(
                """
                WITH app AS (SELECT number FROM apps WHERE id = \(app))
                SELECT u.user_id, n.number, s.state FROM (
                    SELECT DISTINCT user_id FROM events
                    WHERE app_number = (SELECT number FROM app) AND timestamp >= \(period.from) AND timestamp < \(period.to)) AS u
                LEFT JOIN user_numbers AS n ON n.app_number = (SELECT number FROM app) AND n.user_id = u.user_id
                LEFT JOIN LATERAL (
                    SELECT state FROM eligibility_states AS s
                    WHERE s.app_number = (SELECT number FROM app) AND s.ruleset = \(ruleset) AND s.user_id = u.user_id
                    AND s.day < \(Period.startOfDay(period.from))
                    ORDER BY s.day DESC LIMIT 1) AS s ON true
                """, as: (String, Int32?, ByteBuffer?).self, connection, self.logger
            ).map { user, number, state in
                EligibilityStart(user: user, number: number.map { UInt32($0) }, state: state.map { Data($0.readableBytesView) })
            }
        }
    }

    public func latestEligibilityStates(app: String, ruleset: String, period: Period) async throws(StoreError) -> [(
        user: String, state: Data
    )] {
        // Backwards along the primary key: each user's latest day first.
        try await all(
            """
            SELECT DISTINCT ON (user_id) user_id, state FROM eligibility_states
            WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND ruleset = \(ruleset)
            AND day >= \(period.from) AND day + \(Period.day) <= \(period.to) ORDER BY user_id DESC, day DESC
            """, as: (String, ByteBuffer).self
        ).map { (user: $0, state: Data($1.readableBytesView)) }
    }

    public func eligibleSets(app: String, ruleset: String, period: Period) async throws(StoreError) -> [EligibleSet] {
        try await all(
            """
            SELECT day, tip, platform, app_version, users FROM eligible_sets
            WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND ruleset = \(ruleset)
            AND day >= \(period.from) AND day + \(Period.day) <= \(period.to) ORDER BY day
            """, as: (Int64, String, String?, String?, ByteBuffer).self
        ).map { day, tip, platform, version, users in
            EligibleSet(day: day, tip: tip, platform: platform, appVersion: version, users: Data(users.readableBytesView))
        }
    }

    public func users(app: String, numbered numbers: [UInt32]) async throws(StoreError) -> [UInt32: String] {
        guard !numbers.isEmpty else { return [:] }
        let rows = try await all(
            """
            SELECT number, user_id FROM user_numbers
            WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND number = ANY(\(numbers.map { Int32(bitPattern: $0) }))
            """, as: (Int32, String).self)
        return Dictionary(rows.map { (UInt32(bitPattern: $0), $1) }, uniquingKeysWith: { first, _ in first })
    }

    public func keepEligibility(app: String, ruleset: String, _ day: EligibilityDay, epoch: Int64) async throws(StoreError) -> Bool {
        guard let number = try await all("SELECT number FROM apps WHERE id = \(app)", as: Int32.self).first else { return false }
        return try await transaction { connection in
            // Held to the commit: an insert unfolding a day waits for it, then deletes what it saved.
            let current = try await Self.holdEligibilityEpoch(app: number, connection, self.logger)
            guard current == epoch,
                try await !Self.all(
                    "SELECT day FROM rolled_days WHERE app_number = \(number) AND day = \(day.day) AND sets", as: Int64.self, connection,
                    self.logger
                ).isEmpty,
                try await Self.all(
                    "SELECT day FROM eligibility_days WHERE app_number = \(number) AND ruleset = \(ruleset) AND day = \(day.day)",
                    as: Int64.self, connection, self.logger
                ).isEmpty
            else { return false }
            let others = try await Self.all(
                "SELECT day FROM eligibility_days WHERE app_number = \(number) AND ruleset <> \(ruleset) LIMIT 1", as: Int64.self,
                connection, self.logger)
            if !others.isEmpty {
                try await connection.query(
                    "DELETE FROM eligibility_days WHERE app_number = \(number) AND ruleset <> \(ruleset)", logger: self.logger)
                try await connection.query(
                    "DELETE FROM eligibility_states WHERE app_number = \(number) AND ruleset <> \(ruleset)", logger: self.logger)
                try await connection.query(
                    "DELETE FROM eligible_sets WHERE app_number = \(number) AND ruleset <> \(ruleset)", logger: self.logger)
                try await connection.query("UPDATE eligibility_epochs SET thinned = NULL WHERE app_number = \(number)", logger: self.logger)
            }
            try await connection.query(
                "INSERT INTO eligibility_days (app_number, ruleset, day) VALUES (\(number), \(ruleset), \(day.day))", logger: self.logger)
            let users = day.states.map(\.user)
            let states = day.states.map { ByteBuffer(bytes: $0.state) }
            try await connection.query(
                """
                INSERT INTO eligibility_states (app_number, ruleset, user_id, day, state)
                SELECT \(number), \(ruleset), user_id, \(day.day), state FROM UNNEST(\(users)::TEXT[], \(states)::BYTEA[]) AS s (user_id, state)
                ON CONFLICT (app_number, ruleset, user_id, day) DO UPDATE SET state = EXCLUDED.state
                """, logger: self.logger)
            var tips: [String] = []
            var platforms = TextArray()
            var versions = TextArray()
            var sets: [ByteBuffer] = []
            for set in day.sets {
                tips.append(set.tip)
                platforms.append(set.platform)
                versions.append(set.appVersion)
                sets.append(ByteBuffer(bytes: set.users))
            }
            try await connection.query(
                """
                INSERT INTO eligible_sets (app_number, ruleset, day, tip, platform, app_version, users)
                SELECT \(number), \(ruleset), \(day.day), tip, platform, app_version, users
                FROM UNNEST(\(tips)::TEXT[], \(platforms)::TEXT[], \(versions)::TEXT[], \(sets)::BYTEA[]) AS s (tip, platform, app_version, users)
                """, logger: self.logger)
            // The states that the day at the window's edge supersedes.
            try await connection.query(
                """
                DELETE FROM eligibility_states AS o USING eligibility_states AS s
                WHERE s.app_number = \(number) AND s.ruleset = \(ruleset) AND s.day = \(day.edge)
                AND o.app_number = \(number) AND o.ruleset = \(ruleset) AND o.user_id = s.user_id AND o.day < \(day.edge)
                """, logger: self.logger)
            try await connection.query(
                """
                UPDATE eligibility_epochs SET thinned = GREATEST(COALESCE(thinned, \(day.edge)), \(day.edge))
                WHERE app_number = \(number)
                """, logger: self.logger)
            return true
        }
    }

    /// Moves the app's epoch on, or, with `change` false, only holds its row; answers the epoch.
    /// Held to the end of the transaction: a fold saving and a change to kept days wait for each
    /// other.
    static func holdEligibilityEpoch(app number: Int32, change: Bool = false, _ connection: PostgresConnection, _ logger: Logger)
        async throws -> Int64
    {
        try await all(
            """
            INSERT INTO eligibility_epochs AS e (app_number, epoch) VALUES (\(number), \(change ? 1 : 0))
            ON CONFLICT (app_number) DO UPDATE SET epoch = e.epoch + \(change ? 1 : 0) RETURNING epoch
            """, as: Int64.self, connection, logger
        ).first ?? 0
    }

    /// Takes an erased user out of the kept states and sets (every set: their states before the
    /// window are thinned, so they do not tell the days). Run while their number is known.
    static func eraseFromEligibility(app: String, user: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        guard let app = try await all("SELECT number FROM apps WHERE id = \(app)", as: Int32.self, connection, logger).first else { return }
        _ = try await holdEligibilityEpoch(app: app, change: true, connection, logger)
        if let number = try await all(
            "SELECT number FROM user_numbers WHERE app_number = \(app) AND user_id = \(user)", as: Int32.self, connection, logger
        ).first.map({ UInt32($0) }) {
            let sets = try await all(
                "SELECT id, users FROM eligible_sets WHERE app_number = \(app)", as: (Int64, ByteBuffer).self, connection, logger)
            for (id, users) in sets {
                let (left, removed) = try UserSet.removing(number, from: Array(users.readableBytesView))
                guard removed > 0 else { continue }
                if let left {
                    let bytes = ByteBuffer(bytes: left)
                    try await connection.query("UPDATE eligible_sets SET users = \(bytes) WHERE id = \(id)", logger: logger)
                } else {
                    try await connection.query("DELETE FROM eligible_sets WHERE id = \(id)", logger: logger)
                }
            }
        }
        try await connection.query("DELETE FROM eligibility_states WHERE app_number = \(app) AND user_id = \(user)", logger: logger)
    }

    /// Retention's cut at `day`: the kept days before it go, and the states of the users with
    /// none from it on.
    static func forgetEligibility(app: String, before day: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws {
        guard let app = try await all("SELECT number FROM apps WHERE id = \(app)", as: Int32.self, connection, logger).first else { return }
        _ = try await holdEligibilityEpoch(app: app, change: true, connection, logger)
        try await connection.query("DELETE FROM eligibility_days WHERE app_number = \(app) AND day < \(day)", logger: logger)
        try await connection.query("DELETE FROM eligible_sets WHERE app_number = \(app) AND day < \(day)", logger: logger)
        try await connection.query(
            """
            DELETE FROM eligibility_states AS s WHERE app_number = \(app) AND day < \(day) AND NOT EXISTS (
                SELECT 1 FROM eligibility_states AS later
                WHERE later.app_number = s.app_number AND later.ruleset = s.ruleset AND later.user_id = s.user_id AND later.day >= \(day))
            """, logger: logger)
    }
}
