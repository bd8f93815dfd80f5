import Foundation
import GRDB
import WaymarkStore

/// The platform and app version every SDK puts in an event's properties become columns, bound on
/// insert from the values the server already read (not parsed again from the JSON), so that engagement by platform reads one covering index instead of parsing a million
/// JSON objects. Two indexes serve the shapes of analytics reads: a period of everything
/// (`events_by_time`, covering engagement, and holding the user for the eligibility debugger) and
/// a period of a few names (`events_by_name`: tips, tours). An index by user first would serve the
/// debugger better, but its inserts land all over the tree: it cut plain SQLite's insert rate in
/// this table from 131,000 to 30,000 rows/s.
let analyticsSchema = """
    ALTER TABLE events ADD COLUMN platform TEXT;
    ALTER TABLE events ADD COLUMN app_version TEXT;
    UPDATE events SET platform = json_extract(properties, '$.platform'), app_version = json_extract(properties, '$.appVersion')
        WHERE properties IS NOT NULL;
    CREATE INDEX events_by_time ON events(app, timestamp, platform, user, name);
    CREATE INDEX events_by_name ON events(app, name, timestamp);
    """

/// Replays read events in (timestamp, id) order: with the id right after the time in the index,
/// SQLite walks the index in that order instead of sorting each millisecond's events in a
/// temporary tree (a million-event replay read: 1.24 s, then 0.64 s in the sqlite3 shell).
let eventsByTimeThenID = """
    DROP INDEX events_by_time;
    CREATE INDEX events_by_time ON events(app, timestamp, id, platform, user, name);
    """

/// The daily rollups ``SQLiteStore/tally(app:_:)`` reads for the days in `rolled_days`: per app,
/// day, name, user, target, platform, app version and the reports' properties (as text, in a JSON
/// object), how many events. A day is folded by ``SQLiteStore/rollUp(app:before:limit:)`` once it
/// ended, in one transaction; an event stored for it later unfolds it in the event's. No rollup
/// is written as events arrive: a batch only unfolds its days.
let rollupsSchema = """
    CREATE TABLE event_days (
        app TEXT NOT NULL, day INTEGER NOT NULL, name TEXT NOT NULL, user TEXT NOT NULL, target TEXT, platform TEXT,
        app_version TEXT, properties TEXT NOT NULL, events INTEGER NOT NULL
    );
    CREATE INDEX event_days_by_day ON event_days(app, day, name);
    CREATE INDEX event_days_by_user ON event_days(app, user);
    CREATE TABLE rolled_days (app TEXT NOT NULL, day INTEGER NOT NULL, PRIMARY KEY (app, day)) WITHOUT ROWID;
    """

/// Users numbered per app as the days they appear in are folded, and each folded day's groups of
/// events (the rollups' columns but the user) with their count of events and their set of user
/// numbers (``UserSet``), which tallies unite in the server. Derived like the rollups: every day
/// folds again to make them, and reports read the events meanwhile.
let userSetsSchema = """
    CREATE TABLE user_numbers (app TEXT NOT NULL, user TEXT NOT NULL, number INTEGER NOT NULL, PRIMARY KEY (app, user)) WITHOUT ROWID;
    CREATE UNIQUE INDEX user_numbers_by_number ON user_numbers(app, number);
    CREATE TABLE event_day_users (
        app TEXT NOT NULL, day INTEGER NOT NULL, name TEXT NOT NULL, target TEXT, platform TEXT, app_version TEXT,
        properties TEXT NOT NULL, events INTEGER NOT NULL, users BLOB NOT NULL
    );
    CREATE INDEX event_day_users_by_day ON event_day_users(app, day, name);
    DELETE FROM rolled_days;
    """

extension SQLiteStore {
    /// A property as text, the way PostgreSQL's ->> writes it: json_extract gives a number as a
    /// number (which a text key cannot hold) and a flag as 1 or 0.
    static func propertyText(_ name: String, in column: String = "properties") -> String {
        "CASE json_type(\(column), '$.\(name)') WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' "
            + "ELSE CAST(json_extract(\(column), '$.\(name)') AS TEXT) END"
    }

    static let tallyDialect = TallySQL.Dialect(
        placeholder: { _ in "?" }, app: { "app = \($0)" }, user: "user", text: { "CAST(\($0) AS TEXT)" },
        property: { propertyText($0) }, nullText: "NULL",
        rolledProperty: { "json_extract(properties, '$.\($0)')" }, sum: { "SUM(\($0))" }
    )

    public func tally(app: String, _ query: TallyQuery) async throws(StoreError) -> [TallyRow] {
        try await tallied(app: app, query, grouping: nil)
    }

    public func tally(app: String, _ query: TallyQuery, grouping: UserGrouping) async throws(StoreError) -> [TallyRow] {
        try await tallied(app: app, query, grouping: grouping)
    }

    /// A tally, split by the users' groups when `grouping` is given: from the user sets where they
    /// answer it, from the rollups per user and the events otherwise.
    func tallied(app: String, _ query: TallyQuery, grouping: UserGrouping?) async throws(StoreError) -> [TallyRow] {
        try await read { db in
            let folded = try Set(
                Int64.fetchAll(
                    db, sql: "SELECT day FROM rolled_days WHERE app = ? AND day >= ? AND day < ?",
                    arguments: [app, Period.startOfDay(query.period.from), query.period.to]))
            if let sets = try UserSetTallySQL(query, app: app, dialect: Self.tallyDialect, folded: folded) {
                var tally = UserSetTally()
                if let grouping {
                    let numbered = try Row.fetchAll(db, sql: "SELECT number, user FROM user_numbers WHERE app = ?", arguments: [app])
                    tally = UserSetTally(grouping: grouping, numbered: numbered.map { (UInt32($0["number"] as Int64), $0["user"]) })
                }
                let keys = (0..<sets.dimensions).map { "k\($0)" }
                let rows = try Row.fetchCursor(db, sql: sets.sets.sql, arguments: Self.arguments(sets.sets.arguments))
                while let row = try rows.next() {
                    try tally.add(name: row["event_name"], keys: keys.map { row[$0] }, events: row["events"], set: row["users"] as Data)
                }
                if let rest = sets.rest {
                    let rows = try Row.fetchCursor(db, sql: rest.sql, arguments: Self.arguments(rest.arguments))
                    while let row = try rows.next() {
                        tally.add(
                            name: row["event_name"], keys: keys.map { row[$0] }, events: row["events"],
                            number: (row["number"] as Int64?).map { UInt32($0) }, user: row["u"])
                    }
                }
                return tally.rows
            }
            var perUser = query
            if grouping != nil { perUser.dimensions.append(.user) }
            guard let tally = try TallySQL(perUser, app: app, dialect: Self.tallyDialect, folded: folded) else { return [] }
            let rows = try Row.fetchAll(db, sql: tally.sql, arguments: Self.arguments(tally.arguments)).filter { $0["events"] as Int > 0 }
                .map { row in
                    TallyRow(
                        name: row["event_name"], keys: (0..<tally.dimensions).map { row["k\($0)"] as String? }, events: row["events"],
                        users: row["users"]
                    )
                }
            return grouping?.fold(rows) ?? rows
        }
    }

    public func rollUp(app: String, before: Int64, limit: Int) async throws(StoreError) -> Int {
        // The days with events, found a seek at a time in the index by time.
        let due: [Int64] = try await read { db in
            let folded = try Set(Int64.fetchAll(db, sql: "SELECT day FROM rolled_days WHERE app = ?", arguments: [app]))
            let next = try db.cachedStatement(sql: "SELECT MIN(timestamp) FROM events WHERE app = ? AND timestamp >= ?")
            var due: [Int64] = []
            var from = Int64.min
            while due.count < limit, let time = try Int64.fetchOne(next, arguments: [app, from]) {
                let day = Period.startOfDay(time)
                guard day <= before - Period.day else { break }
                if !folded.contains(day) { due.append(day) }
                from = day + Period.day
            }
            return due
        }
        for day in due {
            try await write { db in
                try db.execute(sql: "DELETE FROM event_days WHERE app = ? AND day = ?", arguments: [app, day])
                let kept = TallyDimension.rolledUpProperties.map { "'\($0)', \(Self.propertyText($0))" }.joined(separator: ", ")
                // json_patch drops the members that are null: the row keeps the properties the event has.
                try db.execute(
                    sql: """
                        INSERT INTO event_days (app, day, name, user, target, platform, app_version, properties, events)
                        SELECT app, ?, name, user, target, platform, app_version, kept, COUNT(*) FROM (
                            SELECT app, name, user, target, platform, app_version,
                                CASE WHEN properties IS NULL THEN '{}' ELSE json_patch('{}', json_object(\(kept))) END AS kept
                            FROM events WHERE app = ? AND timestamp >= ? AND timestamp < ?)
                        GROUP BY name, user, target, platform, app_version, kept
                        """,
                    arguments: [day, app, day, day + Period.day])
                try Self.foldUserSets(app: app, day: day, db)
                try db.execute(sql: "INSERT OR IGNORE INTO rolled_days (app, day) VALUES (?, ?)", arguments: [app, day])
            }
        }
        return due.count
    }

    static func arguments(_ values: [TallySQL.Value]) -> StatementArguments {
        var arguments = StatementArguments()
        for value in values {
            switch value {
            case .text(let text): arguments += [text]
            case .integer(let number): arguments += [number]
            }
        }
        return arguments
    }

    /// Numbers the day's new users and writes the day's user sets from its rollups, just written.
    static func foldUserSets(app: String, day: Int64, _ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO user_numbers (app, user, number)
                SELECT ?, user, base + ROW_NUMBER() OVER (ORDER BY user) FROM (
                    SELECT DISTINCT user FROM event_days AS d WHERE app = ? AND day = ?
                    AND NOT EXISTS (SELECT 1 FROM user_numbers AS n WHERE n.app = d.app AND n.user = d.user)),
                  (SELECT COALESCE(MAX(number), 0) AS base FROM user_numbers WHERE app = ?)
                """, arguments: [app, app, day, app])
        try db.execute(sql: "DELETE FROM event_day_users WHERE app = ? AND day = ?", arguments: [app, day])
        let groups = try Row.fetchAll(
            db,
            sql: """
                SELECT d.name, d.target, d.platform, d.app_version, d.properties, SUM(d.events) AS events,
                    group_concat(n.number || ':' || d.events) AS members
                FROM event_days AS d JOIN user_numbers AS n ON n.app = d.app AND n.user = d.user
                WHERE d.app = ? AND d.day = ?
                GROUP BY d.name, d.target, d.platform, d.app_version, d.properties
                """, arguments: [app, day])
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO event_day_users (app, day, name, target, platform, app_version, properties, events, users)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for group in groups {
            // number:events, between commas.
            let members = (group["members"] as String).split(separator: ",").compactMap { member -> (number: UInt32, events: Int)? in
                let parts = member.split(separator: ":")
                guard parts.count == 2, let number = UInt32(parts[0]), let events = Int(parts[1]) else { return nil }
                return (number, events)
            }
            try insert.execute(arguments: [
                app, day, group["name"], group["target"], group["platform"], group["app_version"], group["properties"], group["events"],
                Data(UserSet.encode(members)),
            ])
        }
    }

    /// Takes an erased user out of the sets of the days of their rollups: their number out of each
    /// set, their events out of each count, a group left with none removed; then forgets their
    /// number. Run before their rollups are removed.
    static func eraseFromUserSets(app: String, user: String, _ db: Database) throws {
        guard
            let number = try Int64.fetchOne(db, sql: "SELECT number FROM user_numbers WHERE app = ? AND user = ?", arguments: [app, user])
        else { return }
        let sets = try Row.fetchAll(
            db,
            sql: """
                SELECT s.rowid AS id, s.users FROM event_days AS d JOIN event_day_users AS s
                  ON s.app = d.app AND s.day = d.day AND s.name = d.name AND s.target IS d.target AND s.platform IS d.platform
                  AND s.app_version IS d.app_version AND s.properties = d.properties
                WHERE d.app = ? AND d.user = ?
                """, arguments: [app, user])
        for set in sets {
            let (left, events) = try UserSet.removing(UInt32(number), from: set["users"] as Data)
            if let left {
                try db.execute(
                    sql: "UPDATE event_day_users SET events = events - ?, users = ? WHERE rowid = ?",
                    arguments: [events, Data(left), set["id"]])
            } else {
                try db.execute(sql: "DELETE FROM event_day_users WHERE rowid = ?", arguments: [set["id"]])
            }
        }
        try db.execute(sql: "DELETE FROM user_numbers WHERE app = ? AND user = ?", arguments: [app, user])
    }

    /// The days `events` were stored in are no longer folded: their rollups lack them, and the
    /// eligible counts kept from the first of them on start from states that lacked them.
    static func unfold(_ events: [StoredEvent], _ db: Database) throws {
        struct AppDay: Hashable {
            var app: String
            var day: Int64
        }
        let days = Set(events.map { AppDay(app: $0.app, day: Period.startOfDay($0.timestamp)) })
        let statement = try db.cachedStatement(sql: "DELETE FROM rolled_days WHERE app = ? AND day = ?")
        var unfolded: [String: Int64] = [:]
        for day in days {
            try statement.execute(arguments: [day.app, day.day])
            if db.changesCount > 0 { unfolded[day.app] = min(unfolded[day.app] ?? .max, day.day) }
        }
        for (app, day) in unfolded { try unkeepEligibility(app: app, from: day, db) }
    }

    /// Retention takes the app's events before `before`: the days wholly before it leave the
    /// rollups, and the day it falls in (which loses some of its events) is unfolded.
    static func forget(app: String, before: Int64, _ db: Database) throws {
        let day = Period.startOfDay(before)
        // The users left with no rollups are no longer numbered: no set keeps their number.
        try db.execute(
            sql: """
                DELETE FROM user_numbers WHERE app = ? AND user IN (SELECT user FROM event_days WHERE app = ? AND day < ?)
                AND NOT EXISTS (SELECT 1 FROM event_days AS d WHERE d.app = user_numbers.app AND d.user = user_numbers.user AND d.day >= ?)
                """, arguments: [app, app, day, day])
        try db.execute(sql: "DELETE FROM event_day_users WHERE app = ? AND day < ?", arguments: [app, day])
        try db.execute(sql: "DELETE FROM event_days WHERE app = ? AND day < ?", arguments: [app, day])
        try db.execute(sql: "DELETE FROM rolled_days WHERE app = ? AND day <= ?", arguments: [app, day])
        try forgetEligibility(app: app, before: day, db)
    }

    /// The columns of a stored event, in the order ``StoredEvent`` is made of a row.
    static let eventColumns = "app, id, user, name, target, timestamp, received_at, clamped, properties, platform, app_version"

    /// The statement selecting `columns` of the app's events of the period (only the user's, with
    /// `user`) after `cursor`, in (timestamp, id) order, at most `limit`.
    static func inOrder(
        _ columns: String, app: String, period: Period, user: String?, after cursor: EventCursor?, limit: Int
    ) -> (String, StatementArguments) {
        var sql = "SELECT \(columns) FROM events WHERE app = ? AND timestamp < ?"
        var arguments: StatementArguments = [app, period.to]
        if let user {
            sql += " AND user = ?"
            arguments += [user]
        }
        if let cursor {
            // The range starts at the cursor's time; ids break ties within one millisecond.
            sql += " AND timestamp >= ? AND (timestamp > ? OR id > ?)"
            arguments += [max(cursor.timestamp, period.from), cursor.timestamp, cursor.id]
        } else {
            sql += " AND timestamp >= ?"
            arguments += [period.from]
        }
        sql += " ORDER BY timestamp, id LIMIT ?"
        arguments += [limit]
        return (sql, arguments)
    }

    public func events(app: String, period: Period, user: String?, after cursor: EventCursor?, limit: Int) async throws(StoreError)
        -> [StoredEvent]
    {
        // Columns by position: GRDB's lookup by name compares names case-insensitively on every
        // read, which cost more than the query itself on a million-event replay.
        let (sql, arguments) = Self.inOrder(Self.eventColumns, app: app, period: period, user: user, after: cursor, limit: limit)
        return try await read { [sql, arguments] db in
            var events: [StoredEvent] = []
            events.reserveCapacity(limit)
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try rows.next() {
                events.append(
                    StoredEvent(
                        app: row[0], id: row[1], user: row[2], name: row[3], target: row[4], timestamp: row[5], receivedAt: row[6],
                        clamped: row[7], propertiesJSON: row[8], platform: row[9], appVersion: row[10]
                    )
                )
            }
            return events
        }
    }

    public func analyticsRows(app: String, period: Period, after cursor: EventCursor?, limit: Int) async throws(StoreError)
        -> [AnalyticsRow]
    {
        let (sql, arguments) = Self.inOrder(
            Self.eventColumns + ", " + Self.reportedTexts(in: "properties"), app: app, period: period, user: nil, after: cursor,
            limit: limit)
        let rows = try await read { [sql, arguments] db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                (
                    StoredEvent(
                        app: row[0], id: row[1], user: row[2], name: row[3], target: row[4], timestamp: row[5], receivedAt: row[6],
                        clamped: row[7], propertiesJSON: row[8], platform: row[9], appVersion: row[10]
                    ), row[11] as String
                )
            }
        }
        return try rows.map { (event, texts) throws(StoreError) in try AnalyticsRow(event: event, reportedJSON: texts) }
    }

    public func grantTotals(app: String, period: Period) async throws(StoreError) -> [GrantTotal] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT tour, page, COUNT(*) AS grants, SUM(credits) AS credits FROM grants
                    WHERE app = ? AND granted_at >= ? AND granted_at < ? GROUP BY tour, page ORDER BY tour, page
                    """,
                arguments: [app, period.from, period.to]
            ).map { GrantTotal(tour: $0["tour"], page: $0["page"], grants: $0["grants"], credits: $0["credits"]) }
        }
    }
}
