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
        try await tallied(app: app, query, grouping: nil)
    }

    public func tally(app: String, _ query: TallyQuery, grouping: UserGrouping) async throws(StoreError) -> [TallyRow] {
        try await tallied(app: app, query, grouping: grouping)
    }

    /// A tally, split by the users' groups when `grouping` is given: from the user sets where they
    /// answer it, from the rollups per user and the events otherwise.
    func tallied(app: String, _ query: TallyQuery, grouping: UserGrouping?) async throws(StoreError) -> [TallyRow] {
        try await transaction { connection in
            // The folded days and their rollups as of one moment: a day unfolded between two
            // reads would lose its new events.
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: self.logger)
            let folded = try await Self.all(
                """
                SELECT day, sets FROM rolled_days WHERE app_number = (SELECT number FROM apps WHERE id = \(app))
                AND day >= \(Period.startOfDay(query.period.from)) AND day < \(query.period.to)
                """, as: (Int64, Bool).self, connection, self.logger)
            let withSets = Set(folded.filter(\.1).map(\.0))
            if let sets = try UserSetTallySQL(query, app: app, dialect: Self.tallyDialect, folded: withSets) {
                var tally = UserSetTally()
                if let grouping {
                    let numbered = try await Self.all(
                        "SELECT number, user_id FROM user_numbers WHERE app_number = (SELECT number FROM apps WHERE id = \(app))",
                        as: (Int32, String).self, connection, self.logger)
                    tally = UserSetTally(grouping: grouping, numbered: numbered.map { (UInt32($0), $1) })
                }
                return try await Self.tally(sets, into: tally, connection, self.logger)
            }
            var perUser = query
            if grouping != nil { perUser.dimensions.append(.user) }
            guard let tally = try TallySQL(perUser, app: app, dialect: Self.tallyDialect, folded: Set(folded.map(\.0))) else { return [] }
            var rows: [TallyRow] = []
            let statement = PostgresQuery(unsafeSQL: tally.sql, binds: Self.bindings(tally.arguments))
            for try await row in try await connection.query(statement, logger: self.logger) {
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
            return grouping?.fold(rows) ?? rows
        }
    }

    /// The folded days' sets and the other days' users, united.
    static func tally(
        _ sql: UserSetTallySQL, into tally: UserSetTally, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [TallyRow] {
        var tally = tally
        let keys = 1..<sql.dimensions + 1
        let sets = PostgresQuery(unsafeSQL: sql.sets.sql, binds: bindings(sql.sets.arguments))
        for try await row in try await connection.query(sets, logger: logger) {
            let cells = Array(row)
            try tally.add(
                name: cells[0].decode(String?.self), keys: keys.map { try cells[$0].decode(String?.self) },
                events: Int(cells[sql.dimensions + 1].decode(Int64.self)),
                set: Array(cells[sql.dimensions + 2].decode(ByteBuffer.self).readableBytesView))
        }
        if let rest = sql.rest {
            // event_name, the keys, the user's id, their events, their number.
            for try await row in try await connection.query(
                PostgresQuery(unsafeSQL: rest.sql, binds: bindings(rest.arguments)), logger: logger)
            {
                let cells = Array(row)
                tally.add(
                    name: try cells[0].decode(String?.self), keys: try keys.map { try cells[$0].decode(String?.self) },
                    events: Int(try cells[sql.dimensions + 2].decode(Int64.self)),
                    number: try cells[sql.dimensions + 3].decode(Int32?.self).map { UInt32($0) },
                    user: try cells[sql.dimensions + 1].decode(String.self))
            }
        }
        return tally.rows
    }

    static func bindings(_ values: [TallySQL.Value]) -> PostgresBindings {
        var bindings = PostgresBindings()
        for value in values {
            switch value {
            case .text(let text): bindings.append(text)
            case .integer(let number): bindings.append(number)
            }
        }
        return bindings
    }

    public func rollUp(app: String, before: Int64, limit: Int) async throws(StoreError) -> Int {
        guard let number = try await all("SELECT number FROM apps WHERE id = \(app)", as: Int32.self).first else { return 0 }
        // The days with events, found a seek at a time in the index by time.
        let due: [Int64] = try await perform { connection in
            let folded = Set(
                try await Self.all(
                    "SELECT day FROM rolled_days WHERE app_number = \(number) AND sets", as: Int64.self, connection, self.logger))
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
                try await Self.foldUserSets(app: number, day: day, connection, self.logger)
                try await connection.query(
                    """
                    INSERT INTO rolled_days (app_number, day, sets) VALUES (\(number), \(day), TRUE)
                    ON CONFLICT (app_number, day) DO UPDATE SET sets = TRUE
                    """, logger: self.logger)
            }
        }
        return due.count
    }

    /// Numbers the day's new users (under the app's numbering lock, which a fold takes after its
    /// day's) and writes the day's user sets from its rollups, just written.
    static func foldUserSets(app number: Int32, day: Int64, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(number), \(numberingLock))", logger: logger)
        try await connection.query(
            """
            INSERT INTO user_numbers (app_number, user_id, number)
            SELECT \(number), user_id, (base + ROW_NUMBER() OVER (ORDER BY user_id))::INT4 FROM (
                SELECT DISTINCT user_id FROM event_days AS d WHERE app_number = \(number) AND day = \(day)
                AND NOT EXISTS (SELECT 1 FROM user_numbers AS n WHERE n.app_number = \(number) AND n.user_id = d.user_id)) AS new,
              (SELECT COALESCE(MAX(number), 0) AS base FROM user_numbers WHERE app_number = \(number)) AS numbered
            """, logger: logger)
        try await connection.query("DELETE FROM event_day_users WHERE app_number = \(number) AND day = \(day)", logger: logger)
        let groups = try await all(
            """
            SELECT d.name, d.target, d.platform, d.app_version, d.properties::TEXT, SUM(d.events)::BIGINT, array_agg(n.number ORDER BY n.number),
                array_agg(d.events ORDER BY n.number)
            FROM event_days AS d JOIN user_numbers AS n ON n.app_number = d.app_number AND n.user_id = d.user_id
            WHERE d.app_number = \(number) AND d.day = \(day)
            GROUP BY d.name, d.target, d.platform, d.app_version, d.properties
            """, as: (String, String?, String?, String?, String, Int64, [Int32], [Int64]).self, connection, logger)
        for (name, target, platform, version, properties, events, numbers, counts) in groups {
            let users = ByteBuffer(bytes: UserSet.encode(zip(numbers, counts).map { (UInt32($0), Int($1)) }))
            try await connection.query(
                """
                INSERT INTO event_day_users (app_number, day, name, target, platform, app_version, properties, events, users)
                VALUES (\(number), \(day), \(name), \(target), \(platform), \(version), \(properties)::JSONB, \(events), \(users))
                """, logger: logger)
        }
    }

    /// The key beside an app's number of the advisory lock that numbers its users: below every
    /// day's (days since 1970).
    static let numberingLock = Int32.min

    /// Takes an erased user out of the sets of the days of their rollups: their number out of each
    /// set, their events out of each count, a group left with none removed; then forgets their
    /// number. Run before their rollups are removed, holding their days' locks.
    static func eraseFromUserSets(app: String, user: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        let numbers = try await all(
            """
            SELECT number FROM user_numbers WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND user_id = \(user)
            """, as: Int32.self, connection, logger)
        guard let number = numbers.first.map({ UInt32($0) }) else { return }
        let sets = try await all(
            """
            SELECT s.id, s.users FROM event_days AS d JOIN event_day_users AS s
              ON s.app_number = d.app_number AND s.day = d.day AND s.name = d.name AND s.target IS NOT DISTINCT FROM d.target
              AND s.platform IS NOT DISTINCT FROM d.platform AND s.app_version IS NOT DISTINCT FROM d.app_version
              AND s.properties = d.properties
            WHERE d.app_number = (SELECT number FROM apps WHERE id = \(app)) AND d.user_id = \(user)
            """, as: (Int64, ByteBuffer).self, connection, logger)
        for (id, users) in sets {
            let (left, events) = try UserSet.removing(number, from: Array(users.readableBytesView))
            if let left {
                let bytes = ByteBuffer(bytes: left)
                try await connection.query(
                    "UPDATE event_day_users SET events = events - \(events), users = \(bytes) WHERE id = \(id)", logger: logger)
            } else {
                try await connection.query("DELETE FROM event_day_users WHERE id = \(id)", logger: logger)
            }
        }
        try await connection.query(
            "DELETE FROM user_numbers WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND user_id = \(user)",
            logger: logger)
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
