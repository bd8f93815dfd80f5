import Foundation
import PostgresNIO
import WaymarkStore
import WaymarkSupport

extension PostgresStore {
    static let tallyDialect = TallySQL.Dialect(
        placeholder: { "$\($0)" }, app: { "app_number = (SELECT number FROM apps WHERE id = \($0))" }, user: "user_id",
        day: "(timestamp - timestamp % \(Period.day))::TEXT", property: { "(properties::JSONB ->> '\($0)')" }, nullText: "NULL::TEXT"
    )

    public func tally(app: String, _ query: TallyQuery) async throws(StoreError) -> [TallyRow] {
        guard let tally = try TallySQL(query, app: app, dialect: Self.tallyDialect) else { return [] }
        var bindings = PostgresBindings()
        for value in tally.arguments {
            switch value {
            case .text(let text): bindings.append(text)
            case .integer(let number): bindings.append(number)
            }
        }
        return try await perform { connection in
            var rows: [TallyRow] = []
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: tally.sql, binds: bindings), logger: logger) {
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
