import Foundation
import GRDB
import WaymarkStore

extension SQLiteStore {
    static let strugglesSchema = """
        CREATE TABLE struggles (
            app TEXT NOT NULL, day INTEGER NOT NULL, signal TEXT NOT NULL, screen TEXT NOT NULL, element TEXT NOT NULL,
            user TEXT NOT NULL, visit INTEGER NOT NULL, at INTEGER NOT NULL, platform TEXT NOT NULL, locale TEXT NOT NULL, query TEXT
        );
        CREATE INDEX struggles_by_day ON struggles (app, day);
        CREATE INDEX struggles_by_place ON struggles (app, signal, screen, element, at);
        CREATE INDEX struggles_by_user ON struggles (app, user);
        CREATE TABLE struggle_days (
            app TEXT NOT NULL, day INTEGER NOT NULL, computed_at INTEGER NOT NULL, PRIMARY KEY (app, day)
        ) WITHOUT ROWID;
        """

    public func replaceStruggles(app: String, day: Int64, _ occurrences: [StruggleOccurrence], at time: Date) async throws(StoreError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM struggles WHERE app = ? AND day = ?", arguments: [app, day])
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO struggles (app, day, signal, screen, element, user, visit, at, platform, locale, query)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for o in occurrences {
                try insert.execute(arguments: [
                    app, day, o.signal.rawValue, o.screen, o.element, o.user, o.visit, o.at, o.platform, o.locale, o.query,
                ])
            }
            try db.execute(
                sql: """
                    INSERT INTO struggle_days (app, day, computed_at) VALUES (?, ?, ?)
                    ON CONFLICT (app, day) DO UPDATE SET computed_at = excluded.computed_at
                    """,
                arguments: [app, day, time.millisecondsSince1970])
        }
    }

    public func struggleDays(app: String) async throws(StoreError) -> [Int64: Int64] {
        try await read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT day, computed_at FROM struggle_days WHERE app = ?", arguments: [app])
            return Dictionary(uniqueKeysWithValues: rows.map { ($0["day"], $0["computed_at"]) })
        }
    }

    public func struggleTally(app: String, period: Period, by dimensions: [StruggleDimension]) async throws(StoreError)
        -> [StruggleTallyRow]
    {
        // The dimensions are this enum's own column names: nothing the caller typed reaches the SQL.
        let keys = dimensions.map(\.rawValue)
        let group = (["signal", "screen", "element"] + keys).joined(separator: ", ")
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(group), count(*) AS occurrences, count(DISTINCT user) AS users, count(DISTINCT user || char(9) || visit) AS visits
                    FROM struggles WHERE app = ? AND at >= ? AND at < ? GROUP BY \(group) ORDER BY users DESC, occurrences DESC, \(group)
                    """,
                arguments: [app, period.from, period.to]
            ).compactMap { row in
                StruggleSignal(rawValue: row["signal"]).map { signal in
                    StruggleTallyRow(
                        signal: signal, screen: row["screen"], element: row["element"],
                        keys: keys.map { key in (row[key] as DatabaseValue).storage.value.map { "\($0)" } ?? "" },
                        occurrences: row["occurrences"], users: row["users"], visits: row["visits"])
                }
            }
        }
    }

    public func struggleExamples(
        app: String, signal: StruggleSignal, screen: String, element: String, period: Period, limit: Int
    ) async throws(StoreError) -> [StruggleOccurrence] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT * FROM struggles WHERE app = ? AND signal = ? AND screen = ? AND element = ? AND at >= ? AND at < ?
                    ORDER BY at DESC LIMIT ?
                    """,
                arguments: [app, signal.rawValue, screen, element, period.from, period.to, limit]
            ).map { row in
                StruggleOccurrence(
                    signal: signal, screen: row["screen"], element: row["element"], user: row["user"], visit: row["visit"], at: row["at"],
                    platform: row["platform"], locale: row["locale"], query: row["query"])
            }
        }
    }

    public func struggleUsers(app: String, signal: StruggleSignal, screen: String, element: String, period: Period) async throws(StoreError)
        -> Set<String>
    {
        try await read { db in
            Set(
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT user FROM struggles WHERE app = ? AND signal = ? AND screen = ? AND element = ? AND at >= ? AND at < ?
                        """,
                    arguments: [app, signal.rawValue, screen, element, period.from, period.to]))
        }
    }

    public func deleteStruggles(app: String, before day: Int64) async throws(StoreError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM struggles WHERE app = ? AND day < ?", arguments: [app, day])
            try db.execute(sql: "DELETE FROM struggle_days WHERE app = ? AND day < ?", arguments: [app, day])
        }
    }
}
