import Foundation
import PostgresNIO
import WaymarkStore

extension PostgresStore {
    public func replaceStruggles(app: String, day: Int64, _ occurrences: [StruggleOccurrence], at time: Date) async throws(StoreError) {
        let computed = time.millisecondsSince1970
        try await transaction { connection in
            try await connection.query("DELETE FROM struggles WHERE app = \(app) AND day = \(day)", logger: self.logger)
            // Each column bound as one array and unnested, ten thousand rows a statement.
            var start = 0
            while start < occurrences.count {
                let rows = occurrences[start..<min(start + 10_000, occurrences.count)]
                start += rows.count
                try await connection.query(
                    """
                    INSERT INTO struggles (app, day, signal, screen, element, user_id, visit, at, platform, locale, query)
                    SELECT \(app), \(day), s, sc, e, u, v, a, p, l, NULLIF(q, '') FROM unnest(
                        \(rows.map(\.signal.rawValue))::TEXT[], \(rows.map(\.screen))::TEXT[], \(rows.map(\.element))::TEXT[],
                        \(rows.map(\.user))::TEXT[], \(rows.map(\.visit))::BIGINT[], \(rows.map(\.at))::BIGINT[],
                        \(rows.map(\.platform))::TEXT[], \(rows.map(\.locale))::TEXT[], \(rows.map { $0.query ?? "" })::TEXT[]
                    ) AS r(s, sc, e, u, v, a, p, l, q)
                    """, logger: self.logger)
            }
            try await connection.query(
                """
                INSERT INTO struggle_days (app, day, computed_at) VALUES (\(app), \(day), \(computed))
                ON CONFLICT (app, day) DO UPDATE SET computed_at = excluded.computed_at
                """, logger: self.logger)
        }
    }

    public func struggleDays(app: String) async throws(StoreError) -> [Int64: Int64] {
        let rows = try await all("SELECT day, computed_at FROM struggle_days WHERE app = \(app)", as: (Int64, Int64).self)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.0, $0.1) })
    }

    public func struggleTally(app: String, period: Period, by dimensions: [StruggleDimension]) async throws(StoreError)
        -> [StruggleTallyRow]
    {
        // The dimensions are this enum's own column names: nothing the caller typed reaches the SQL.
        let keys = dimensions.map { $0 == .day ? "day::TEXT" : $0.rawValue }
        let group = (["signal", "screen", "element"] + keys).joined(separator: ", ")
        let select = (["signal", "screen", "element", "count(*)", "count(DISTINCT user_id)", "count(DISTINCT (user_id, visit))"] + keys)
            .joined(separator: ", ")
        let query: PostgresQuery = """
            SELECT \(unescaped: select) FROM struggles WHERE app = \(app) AND at >= \(period.from) AND at < \(period.to)
            GROUP BY \(unescaped: group) ORDER BY 5 DESC, 4 DESC, \(unescaped: group)
            """
        let rows = try await perform { connection in
            var found: [StruggleTallyRow] = []
            for try await row in try await connection.query(query, logger: self.logger) {
                let cells = Array(row)
                let text = { (index: Int) in try cells[index].decode(String.self) }
                let count = { (index: Int) in Int(try cells[index].decode(Int64.self)) }
                guard let signal = StruggleSignal(rawValue: try text(0)) else { continue }
                found.append(
                    StruggleTallyRow(
                        signal: signal, screen: try text(1), element: try text(2), keys: try keys.indices.map { try text(6 + $0) },
                        occurrences: try count(3), users: try count(4), visits: try count(5)))
            }
            return found
        }
        return rows
    }

    public func struggleExamples(
        app: String, signal: StruggleSignal, screen: String, element: String, period: Period, limit: Int
    ) async throws(StoreError) -> [StruggleOccurrence] {
        let signalName = signal.rawValue
        return try await all(
            """
            SELECT screen, element, user_id, visit, at, platform, locale, query FROM struggles
            WHERE app = \(app) AND signal = \(signalName) AND screen = \(screen) AND element = \(element) AND at >= \(period.from)
            AND at < \(period.to) ORDER BY at DESC LIMIT \(Int64(limit))
            """, as: (String, String, String, Int64, Int64, String, String, String?).self
        ).map { screen, element, user, visit, at, platform, locale, query in
            StruggleOccurrence(
                signal: signal, screen: screen, element: element, user: user, visit: visit, at: at, platform: platform, locale: locale,
                query: query)
        }
    }

    public func struggleUsers(app: String, signal: StruggleSignal, screen: String, element: String, period: Period) async throws(StoreError)
        -> Set<String>
    {
        let signalName = signal.rawValue
        return Set(
            try await all(
                """
                SELECT DISTINCT user_id FROM struggles WHERE app = \(app) AND signal = \(signalName) AND screen = \(screen)
                AND element = \(element) AND at >= \(period.from) AND at < \(period.to)
                """, as: String.self))
    }

    public func deleteStruggles(app: String, before day: Int64) async throws(StoreError) {
        try await transaction { connection in
            try await connection.query("DELETE FROM struggles WHERE app = \(app) AND day < \(day)", logger: self.logger)
            try await connection.query("DELETE FROM struggle_days WHERE app = \(app) AND day < \(day)", logger: self.logger)
        }
    }
}
