import Foundation
import GRDB
import WaymarkStore

/// What the eligible counts keep day by day (``EligibilityStore``): the days of each ruleset kept,
/// each user's state at the end of each of their days, the sets of users who could have been shown
/// each tip, and per app an epoch that changes whenever kept days may have (a late event, an
/// erasure, retention), under which a fold saves, and the day before which states were thinned.
let eligibilitySchema = """
    CREATE TABLE eligibility_days (app TEXT NOT NULL, ruleset TEXT NOT NULL, day INTEGER NOT NULL, PRIMARY KEY (app, ruleset, day))
        WITHOUT ROWID;
    CREATE TABLE eligibility_states (
        app TEXT NOT NULL, ruleset TEXT NOT NULL, user TEXT NOT NULL, day INTEGER NOT NULL, state BLOB NOT NULL,
        PRIMARY KEY (app, ruleset, user, day)
    ) WITHOUT ROWID;
    CREATE INDEX eligibility_states_by_day ON eligibility_states(app, day);
    CREATE TABLE eligible_sets (
        app TEXT NOT NULL, ruleset TEXT NOT NULL, day INTEGER NOT NULL, tip TEXT NOT NULL, platform TEXT, app_version TEXT,
        users BLOB NOT NULL
    );
    CREATE INDEX eligible_sets_by_day ON eligible_sets(app, ruleset, day);
    CREATE TABLE eligibility_epochs (app TEXT PRIMARY KEY, epoch INTEGER NOT NULL, thinned INTEGER) WITHOUT ROWID;
    """

extension SQLiteStore {
    public func eligibilityProgress(app: String, ruleset: String, through: Int64) async throws(StoreError) -> EligibilityProgress {
        try await read { db in
            let next = try db.cachedStatement(sql: "SELECT MIN(timestamp) FROM events WHERE app = ? AND timestamp >= ?")
            let days = try daysWithEvents(before: through) { try Int64.fetchOne(next, arguments: [app, $0]) }
            return EligibilityProgress(
                days: days,
                kept: try Set(
                    Int64.fetchAll(db, sql: "SELECT day FROM eligibility_days WHERE app = ? AND ruleset = ?", arguments: [app, ruleset])),
                rolled: try Set(Int64.fetchAll(db, sql: "SELECT day FROM rolled_days WHERE app = ?", arguments: [app])),
                epoch: try Self.eligibilityEpoch(app: app, db))
        }
    }

    static func eligibilityEpoch(app: String, _ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT epoch FROM eligibility_epochs WHERE app = ?", arguments: [app]) ?? 0
    }

    public func eligibilityStarts(app: String, ruleset: String, period: Period) async throws(StoreError) -> [EligibilityStart] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT u.user, n.number, (
                        SELECT state FROM eligibility_states AS s WHERE s.app = ? AND s.ruleset = ? AND s.user = u.user AND s.day < ?
                        ORDER BY s.day DESC LIMIT 1) AS state
                    FROM (SELECT DISTINCT user FROM events WHERE app = ? AND timestamp >= ? AND timestamp < ?) AS u
                    LEFT JOIN user_numbers AS n ON n.app = ? AND n.user = u.user
                    """,
                arguments: [app, ruleset, Period.startOfDay(period.from), app, period.from, period.to, app]
            ).map { row in
                EligibilityStart(user: row["user"], number: (row["number"] as Int64?).map { UInt32($0) }, state: row["state"])
            }
        }
    }

    public func latestEligibilityStates(app: String, ruleset: String, period: Period) async throws(StoreError) -> [(
        user: String, state: Data
    )] {
        try await read { db in
            // SQLite takes a bare column from the row whose MAX it answers.
            try Row.fetchAll(
                db,
                sql: """
                    SELECT user, MAX(day), state FROM eligibility_states
                    WHERE app = ? AND ruleset = ? AND day >= ? AND day + ? <= ? GROUP BY user
                    """,
                arguments: [app, ruleset, period.from, Period.day, period.to]
            ).map { (user: $0["user"], state: $0["state"]) }
        }
    }

    public func eligibleSets(app: String, ruleset: String, period: Period) async throws(StoreError) -> [EligibleSet] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT day, tip, platform, app_version, users FROM eligible_sets
                    WHERE app = ? AND ruleset = ? AND day >= ? AND day + ? <= ? ORDER BY day
                    """,
                arguments: [app, ruleset, period.from, Period.day, period.to]
            ).map { row in
                EligibleSet(
                    day: row["day"], tip: row["tip"], platform: row["platform"], appVersion: row["app_version"], users: row["users"])
            }
        }
    }

    public func keepEligibility(app: String, ruleset: String, _ day: EligibilityDay, epoch: Int64) async throws(StoreError) -> Bool {
        try await write { db in
            guard try Self.eligibilityEpoch(app: app, db) == epoch,
                try Bool.fetchOne(db, sql: "SELECT 1 FROM rolled_days WHERE app = ? AND day = ?", arguments: [app, day.day]) != nil,
                try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM eligibility_days WHERE app = ? AND ruleset = ? AND day = ?", arguments: [app, ruleset, day.day])
                    == nil
            else { return false }
            if try Bool.fetchOne(
                db, sql: "SELECT 1 FROM eligibility_days WHERE app = ? AND ruleset <> ? LIMIT 1", arguments: [app, ruleset])
                != nil
            {
                for table in ["eligibility_days", "eligibility_states", "eligible_sets"] {
                    try db.execute(sql: "DELETE FROM \(table) WHERE app = ? AND ruleset <> ?", arguments: [app, ruleset])
                }
                try db.execute(sql: "UPDATE eligibility_epochs SET thinned = NULL WHERE app = ?", arguments: [app])
            }
            try db.execute(sql: "INSERT INTO eligibility_days (app, ruleset, day) VALUES (?, ?, ?)", arguments: [app, ruleset, day.day])
            let state = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO eligibility_states (app, ruleset, user, day, state) VALUES (?, ?, ?, ?, ?)")
            for (user, data) in day.states { try state.execute(arguments: [app, ruleset, user, day.day, data]) }
            let set = try db.cachedStatement(
                sql: "INSERT INTO eligible_sets (app, ruleset, day, tip, platform, app_version, users) VALUES (?, ?, ?, ?, ?, ?, ?)")
            for row in day.sets { try set.execute(arguments: [app, ruleset, day.day, row.tip, row.platform, row.appVersion, row.users]) }
            // The states that the day at the window's edge supersedes.
            try db.execute(
                sql: """
                    DELETE FROM eligibility_states AS o WHERE app = ? AND ruleset = ? AND day < ? AND EXISTS (
                        SELECT 1 FROM eligibility_states AS s WHERE s.app = o.app AND s.ruleset = o.ruleset AND s.user = o.user AND s.day = ?)
                    """, arguments: [app, ruleset, day.edge, day.edge])
            try db.execute(
                sql: """
                    INSERT INTO eligibility_epochs (app, epoch, thinned) VALUES (?, 0, ?)
                    ON CONFLICT (app) DO UPDATE SET thinned = MAX(COALESCE(thinned, excluded.thinned), excluded.thinned)
                    """, arguments: [app, day.edge])
            return true
        }
    }

    public func users(app: String, numbered numbers: [UInt32]) async throws(StoreError) -> [UInt32: String] {
        guard !numbers.isEmpty else { return [:] }
        let list = "[" + numbers.map(String.init).joined(separator: ",") + "]"
        return try await read { db in
            var users: [UInt32: String] = [:]
            let rows = try Row.fetchCursor(
                db, sql: "SELECT number, user FROM user_numbers WHERE app = ? AND number IN (SELECT value FROM json_each(?))",
                arguments: [app, list])
            while let row = try rows.next() { users[UInt32(row["number"] as Int64)] = row["user"] }
            return users
        }
    }

    /// A new epoch for the app: a fold under way saves nothing.
    static func changeEligibilityEpoch(app: String, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO eligibility_epochs (app, epoch) VALUES (?, 1)
                ON CONFLICT (app) DO UPDATE SET epoch = epoch + 1
                """, arguments: [app])
    }

    /// A day unfolded from the rollups takes every kept day from it on, of every ruleset: their
    /// states start from it. A day as far back as the states were thinned takes every kept day.
    static func unkeepEligibility(app: String, from day: Int64, _ db: Database) throws {
        try changeEligibilityEpoch(app: app, db)
        let thinned = try Int64.fetchOne(db, sql: "SELECT thinned FROM eligibility_epochs WHERE app = ?", arguments: [app])
        let from = thinned.map { day <= $0 } == true ? Int64.min : day
        for table in ["eligibility_days", "eligibility_states", "eligible_sets"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE app = ? AND day >= ?", arguments: [app, from])
        }
        if from == .min { try db.execute(sql: "UPDATE eligibility_epochs SET thinned = NULL WHERE app = ?", arguments: [app]) }
    }

    /// Takes an erased user out of the kept states and sets (every set: their states before the
    /// window are thinned, so they do not tell the days). Run while their number is known.
    static func eraseFromEligibility(app: String, user: String, _ db: Database) throws {
        try changeEligibilityEpoch(app: app, db)
        if let number = try Int64.fetchOne(db, sql: "SELECT number FROM user_numbers WHERE app = ? AND user = ?", arguments: [app, user]) {
            let sets = try Row.fetchAll(
                db,
                sql: "SELECT rowid AS id, users FROM eligible_sets WHERE app = ?", arguments: [app])
            for set in sets {
                let (left, removed) = try UserSet.removing(UInt32(number), from: set["users"] as Data)
                guard removed > 0 else { continue }
                if let left {
                    try db.execute(sql: "UPDATE eligible_sets SET users = ? WHERE rowid = ?", arguments: [Data(left), set["id"]])
                } else {
                    try db.execute(sql: "DELETE FROM eligible_sets WHERE rowid = ?", arguments: [set["id"]])
                }
            }
        }
        try db.execute(sql: "DELETE FROM eligibility_states WHERE app = ? AND user = ?", arguments: [app, user])
    }

    /// Retention's cut at `day`: the kept days before it go, and the states of the users with
    /// none from it on.
    static func forgetEligibility(app: String, before day: Int64, _ db: Database) throws {
        try changeEligibilityEpoch(app: app, db)
        try db.execute(sql: "DELETE FROM eligibility_days WHERE app = ? AND day < ?", arguments: [app, day])
        try db.execute(sql: "DELETE FROM eligible_sets WHERE app = ? AND day < ?", arguments: [app, day])
        try db.execute(
            sql: """
                DELETE FROM eligibility_states WHERE app = ? AND day < ? AND NOT EXISTS (
                    SELECT 1 FROM eligibility_states AS later
                    WHERE later.app = eligibility_states.app AND later.ruleset = eligibility_states.ruleset
                    AND later.user = eligibility_states.user AND later.day >= ?)
                """, arguments: [app, day, day])
    }
}
