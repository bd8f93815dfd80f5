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
        try await read { db in
            let folded = try Set(
                Int64.fetchAll(
                    db, sql: "SELECT day FROM rolled_days WHERE app = ? AND day >= ? AND day < ?",
                    arguments: [app, Period.startOfDay(query.period.from), query.period.to]))
            guard let tally = try TallySQL(query, app: app, dialect: Self.tallyDialect, folded: folded) else { return [] }
            var arguments = StatementArguments()
            for value in tally.arguments {
                switch value {
                case .text(let text): arguments += [text]
                case .integer(let number): arguments += [number]
                }
            }
            return try Row.fetchAll(db, sql: tally.sql, arguments: arguments).filter { $0["events"] as Int > 0 }.map { row in
                TallyRow(
                    name: row["event_name"], keys: (0..<tally.dimensions).map { row["k\($0)"] as String? }, events: row["events"],
                    users: row["users"]
                )
            }
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
                try db.execute(sql: "INSERT OR IGNORE INTO rolled_days (app, day) VALUES (?, ?)", arguments: [app, day])
            }
        }
        return due.count
    }

    /// The days `events` were stored in are no longer folded: their rollups lack them.
    static func unfold(_ events: [StoredEvent], _ db: Database) throws {
        struct AppDay: Hashable {
            var app: String
            var day: Int64
        }
        let days = Set(events.map { AppDay(app: $0.app, day: Period.startOfDay($0.timestamp)) })
        let statement = try db.cachedStatement(sql: "DELETE FROM rolled_days WHERE app = ? AND day = ?")
        for day in days { try statement.execute(arguments: [day.app, day.day]) }
    }

    /// Retention takes the app's events before `before`: the days wholly before it leave the
    /// rollups, and the day it falls in (which loses some of its events) is unfolded.
    static func forget(app: String, before: Int64, _ db: Database) throws {
        let day = Period.startOfDay(before)
        try db.execute(sql: "DELETE FROM event_days WHERE app = ? AND day < ?", arguments: [app, day])
        try db.execute(sql: "DELETE FROM rolled_days WHERE app = ? AND day <= ?", arguments: [app, day])
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
