import Foundation
import PostgresNIO
import WaymarkStore
import WaymarkSupport

extension PostgresStore {
    static let tallyDialect = TallySQL.Dialect(
        placeholder: { "$\($0)" }, app: { "app_number = (SELECT number FROM apps WHERE id = \($0))" }, user: "user_id",
        text: { "(\($0))::TEXT" }, property: { "(properties::JSONB ->> '\($0)')" }, nullText: "NULL::TEXT",
        rolledProperty: { "(properties ->> '\($0)')" }, sum: { "SUM(\($0))::BIGINT" }
    )

    public func tally(app: String, _ query: TallyQuery) async throws(StoreError) -> [TallyRow] {
        try await transaction { connection in
            // The folded days and their rollups as of one moment: a day unfolded between two
            // reads would lose its new events.
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: self.logger)
            let folded = try await Self.all(
                """
                SELECT day FROM rolled_days WHERE app_number = (SELECT number FROM apps WHERE id = \(app))
                AND day >= \(Period.startOfDay(query.period.from)) AND day < \(query.period.to)
                """, as: Int64.self, connection, self.logger)
            guard let tally = try TallySQL(query, app: app, dialect: Self.tallyDialect, folded: Set(folded)) else { return [] }
            var bindings = PostgresBindings()
            for value in tally.arguments {
                switch value {
                case .text(let text): bindings.append(text)
                case .integer(let number): bindings.append(number)
                }
            }
            var rows: [TallyRow] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: tally.sql, binds: bindings), logger: self.logger) {
                let cells = Array(row)
                let events = try cells[tally.dimensions + 1].decode(Int64.self)
                guard events > 0 else { continue }
                rows.append(
                    TallyRow(
                        name: try cells[0].decode(String?.self),
                        keys: try (0..<tally.dimensions).map { try cells[1 + $0].decode(String?.self) },
                        events: Int(events), users: Int(try cells[tally.dimensions + 2].decode(Int64.self))
                    )
                )
            }
            return rows
        }
    }

    public func rollUp(app: String, before: Int64, limit: Int) async throws(StoreError) -> Int {
        guard let number = try await all("SELECT number FROM apps WHERE id = \(app)", as: Int32.self).first else { return 0 }
        // The days with events, found a seek at a time in the index by time.
        let due: [Int64] = try await perform { connection in
            let folded = Set(
                try await Self.all("SELECT day FROM rolled_days WHERE app_number = \(number)", as: Int64.self, connection, self.logger))
            var due: [Int64] = []
            var from = Int64.min
            while due.count < limit {
                let next = try await Self.all(
                    "SELECT MIN(timestamp) FROM events WHERE app_number = \(number) AND timestamp >= \(from)", as: Int64?.self,
                    connection, self.logger)
                guard let time = next.first ?? nil else { break }
                let day = Period.startOfDay(time)
                guard day <= before - Period.day else { break }
                if !folded.contains(day) { due.append(day) }
                from = day + Period.day
            }
            return due
        }
        let kept = TallyDimension.rolledUpProperties.map { "'\($0)', j ->> '\($0)'" }.joined(separator: ", ")
        for day in due {
            try await transaction { connection in
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(\(number), \(Int32(truncatingIfNeeded: day / Period.day)))", logger: self.logger)
                try await connection.query("DELETE FROM event_days WHERE app_number = \(number) AND day = \(day)", logger: self.logger)
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            INSERT INTO event_days (app_number, day, events, name, user_id, target, platform, app_version, properties)
                            SELECT app_number, $2, COUNT(*), name, user_id, target, platform, app_version, kept FROM (
                                SELECT app_number, name, user_id, target, platform, app_version,
                                    jsonb_strip_nulls(jsonb_build_object(\(kept))) AS kept
                                FROM (SELECT *, properties::JSONB AS j FROM events
                                      WHERE app_number = $1 AND timestamp >= $2 AND timestamp < $3) AS day_events) AS kept_events
                            GROUP BY app_number, name, user_id, target, platform, app_version, kept
                            """,
                        binds: {
                            var binds = PostgresBindings()
                            binds.append(number)
                            binds.append(day)
                            binds.append(day + Period.day)
                            return binds
                        }()), logger: self.logger)
                try await connection.query(
                    "INSERT INTO rolled_days (app_number, day) VALUES (\(number), \(day)) ON CONFLICT DO NOTHING", logger: self.logger)
            }
        }
        return due.count
    }

    public func events(app: String, period: Period, user: String?, after cursor: EventCursor?, limit: Int) async throws(StoreError)
        -> [StoredEvent]
    {
        let from = max(cursor?.timestamp ?? period.from, period.from)
        // Row comparison walks events_by_time in (timestamp, id) order from the cursor. The order
        // names the table's columns: a bare `id` would be the text selected, sorted apart.
        let query: PostgresQuery = """
            SELECT id::TEXT, user_id, name, target, timestamp, received_at, clamped, properties, platform, app_version FROM events
            WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND timestamp >= \(from) AND timestamp < \(period.to)
              AND (\(cursor == nil) OR (timestamp, id) > (\(cursor?.timestamp ?? 0), \(cursor?.id ?? EventID.make(milliseconds: 0, number: 0))::UUID))
              AND (\(user == nil) OR user_id = \(user ?? ""))
            ORDER BY events.timestamp, events.id LIMIT \(Int64(limit))
            """
        return try await all(query, as: (String, String, String, String?, Int64, Int64, Bool, String?, String?, String?).self).map {
            id, user, name, target, timestamp, received, clamped, properties, platform, appVersion in
            StoredEvent(
                app: app, id: id, user: user, name: name, target: target, timestamp: timestamp, receivedAt: received, clamped: clamped,
                propertiesJSON: properties, platform: platform, appVersion: appVersion
            )
        }
    }

    public func analyticsRows(app: String, period: Period, after cursor: EventCursor?, limit: Int) async throws(StoreError)
        -> [AnalyticsRow]
    {
        let from = max(cursor?.timestamp ?? period.from, period.from)
        let reported =
            "json_build_array(" + TallyDimension.rolledUpProperties.map(Self.tallyDialect.property).joined(separator: ", ") + ")::TEXT"
        let query: PostgresQuery = """
            SELECT id::TEXT, user_id, name, target, timestamp, received_at, clamped, properties, platform, app_version,
              \(unescaped: reported) FROM events
            WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND timestamp >= \(from) AND timestamp < \(period.to)
              AND (\(cursor == nil) OR (timestamp, id) > (\(cursor?.timestamp ?? 0), \(cursor?.id ?? EventID.make(milliseconds: 0, number: 0))::UUID))
            ORDER BY events.timestamp, events.id LIMIT \(Int64(limit))
            """
        return try await all(query, as: (String, String, String, String?, Int64, Int64, Bool, String?, String?, String?, String).self).map {
            (id, user, name, target, timestamp, received, clamped, properties, platform, appVersion, texts) throws(StoreError) in
            try AnalyticsRow(
                event: StoredEvent(
                    app: app, id: id, user: user, name: name, target: target, timestamp: timestamp, receivedAt: received,
                    clamped: clamped, propertiesJSON: properties, platform: platform, appVersion: appVersion
                ), reportedJSON: texts)
        }
    }

    public func grantTotals(app: String, period: Period) async throws(StoreError) -> [GrantTotal] {
        try await all(
            """
            SELECT tour, page, COUNT(*), SUM(credits)::BIGINT FROM grants
            WHERE app = \(app) AND granted_at >= \(period.from) AND granted_at < \(period.to) GROUP BY tour, page ORDER BY tour, page
            """,
            as: (String, String, Int64, Int64).self
        ).map { GrantTotal(tour: $0.0, page: $0.1, grants: Int($0.2), credits: Int($0.3)) }
    }
}
