import Crypto
import Foundation
import NIOCore
import WaymarkStore
import WaymarkSupport

/// The events of every app in ClickHouse, for the console's reports: one narrow row an event, in
/// a `MergeTree` ordered by (app, day, name, id) and partitioned by month, so a report over a
/// period reads only that period's days of the names it counts, and only the columns it groups by.
///
/// The store of record (SQLite or PostgreSQL) keeps every event; this holds what its tallies read:
/// the event's app, time, id, user, name, target, platform, app version, and the text of each
/// reported property (``TallyDimension/rolledUpProperties``) as the store of record reads it
/// (``AnalyticsRow``), so both count the same. A tally by any other property is not answered here
/// (``tally(app:_:)`` answers nil), and neither are replays, which read the store of record.
public struct ClickHouseAnalytics: Sendable {
    public let clickHouse: ClickHouse

    public init(_ clickHouse: ClickHouse) {
        self.clickHouse = clickHouse
    }

    /// The column of each reported property.
    static let reportedColumns = TallyDimension.rolledUpProperties.map { "p_\($0)" }

    /// Creates the tables if they are not there: the events, and where each app's backfill got to.
    /// An events table whose ids are text (as the first tables were) is copied into one whose ids
    /// are `UUID`s, then takes its place; a copy cut short is made again.
    public func migrate() async throws(StoreError) {
        try await clickHouse.execute(
            "CREATE TABLE IF NOT EXISTS backfills (app String, timestamp Int64, id String, written Int64) ENGINE = MergeTree ORDER BY (app, written)"
        )
        let tables = Set(
            try await clickHouse.rows("SELECT name FROM system.tables WHERE database = currentDatabase()").compactMap { $0.first ?? nil })
        // A copy renamed in place of the old table, which was renamed out of the way first.
        if !tables.contains("events"), tables.contains("events_uuid") {
            try await clickHouse.execute("RENAME TABLE events_uuid TO events")
        }
        let idType = try await clickHouse.rows(
            "SELECT type FROM system.columns WHERE database = currentDatabase() AND table = 'events' AND name = 'id'")
        guard idType.first?.first == "String" else {
            try await clickHouse.execute(Self.createEvents("events"))
            try await clickHouse.execute("DROP TABLE IF EXISTS events_text")
            return
        }
        try await clickHouse.execute("DROP TABLE IF EXISTS events_uuid")
        try await clickHouse.execute(Self.createEvents("events_uuid"))
        // The same UUIDs as ``uuid(_:)`` makes (ClickHouse works out both sides of an `if`).
        let id = "toUUID(if(match(lower(id), '\(Self.uuidPattern)'), lower(id), UUIDNumToString(MD5(id))))"
        try await clickHouse.execute(
            """
            INSERT INTO events_uuid (\(Self.columns.joined(separator: ", ")))
            SELECT \(Self.columns.map { $0 == "id" ? id : $0 }.joined(separator: ", ")) FROM events
            """)
        try await clickHouse.execute("RENAME TABLE events TO events_text, events_uuid TO events")
        try await clickHouse.execute("DROP TABLE events_text")
    }

    /// The events table: its id a `UUID`, 16 bytes (the SDKs' ids are UUIDv7, so their first
    /// 48 bits, the time, pack well in the table's order); as text it took 37 bytes an event.
    static func createEvents(_ table: String) -> String {
        let reported = reportedColumns.map { "\($0) Nullable(String)" }.joined(separator: ", ")
        return """
            CREATE TABLE IF NOT EXISTS \(table) (
                app String, day Date, timestamp Int64, id UUID, user String, name String, target Nullable(String),
                platform Nullable(String), app_version Nullable(String), \(reported)
            ) ENGINE = MergeTree PARTITION BY toYYYYMM(day) ORDER BY (app, day, name, id)
            """
    }

    /// The events table's columns, in the order ``insert(_:)`` writes them.
    static let columns = ["app", "day", "timestamp", "id", "user", "name", "target", "platform", "app_version"] + reportedColumns

    static let uuidPattern = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"

    /// An event's id as the `UUID` column keeps it: the id, lowercase, or for text that is no UUID
    /// (a SQLite database may keep such ids from before the server took nothing else) the UUID
    /// written from its MD5, as the PostgreSQL store made of them (so both give the same id).
    static func uuid(_ id: String) -> String {
        EventID.stored(id) ?? EventID.text(Insecure.MD5.hash(data: Data(id.utf8)))
    }

    /// How many ids one lookup of ``insert(_:)`` names: 40 bytes each, well inside 256 KiB.
    static let idsALookup = 4000

    /// Stores the rows whose events are not stored yet (a batch sent again after a crash stores
    /// nothing twice) and answers how many it stored. One `INSERT` is one block, which ClickHouse
    /// writes whole or not at all.
    @discardableResult
    public func insert(_ rows: [AnalyticsRow]) async throws(StoreError) -> Int {
        guard !rows.isEmpty else { return 0 }
        // What is there already, looked for in the rows' own apps and days, a few thousand ids a
        // statement: ClickHouse parses at most 256 KiB of a statement (`max_query_size`).
        var stored = Set<String>()
        let byApp = Dictionary(grouping: rows, by: \.event.app)
        for (app, appRows) in byApp {
            for start in stride(from: 0, to: appRows.count, by: Self.idsALookup) {
                let some = appRows[start..<min(start + Self.idsALookup, appRows.count)]
                let days = Set(some.map { Self.day($0.event.timestamp) }).sorted().map { "toDate(\(ClickHouse.literal($0)))" }
                // An array made into UUIDs once: eight times quicker than a `toUUID` call per id.
                let ids = some.map { ClickHouse.literal(Self.uuid($0.event.id)) }
                let found = try await clickHouse.rows(
                    "SELECT id FROM events WHERE app = \(ClickHouse.literal(app)) AND day IN (\(days.joined(separator: ", ")))"
                        + " AND id IN (SELECT arrayJoin(arrayMap(x -> toUUID(x), [\(ids.joined(separator: ", "))])))")
                for row in found { if let id = row.first ?? nil { stored.insert(app + "\u{1}" + id) } }
            }
        }
        var data = ""
        var seen = Set<String>()
        for row in rows {
            // By app and id: two apps' events may share an id.
            let id = Self.uuid(row.event.id)
            let key = row.event.app + "\u{1}" + id
            guard !stored.contains(key), seen.insert(key).inserted else { continue }
            let event = row.event
            let fields =
                [event.app, Self.day(event.timestamp), String(event.timestamp), id, event.user, event.name].map(ClickHouse.field)
                + [event.target, event.platform, event.appVersion].map(ClickHouse.field) + row.reported.map(ClickHouse.field)
            data += fields.joined(separator: "\t") + "\n"
        }
        guard !seen.isEmpty else { return 0 }
        try await clickHouse.execute(
            "INSERT INTO events (\(Self.columns.joined(separator: ", "))) FORMAT TabSeparated", data: ByteBuffer(string: data))
        return seen.count
    }

    /// What the store of record's ``AnalyticsStore/tally(app:_:)`` answers, from ClickHouse; nil
    /// for a tally by a property that is not reported, which only the store of record can count.
    public func tally(app: String, _ query: TallyQuery) async throws(StoreError) -> [TallyRow]? {
        for case .property(let name) in query.dimensions where !TallyDimension.rolledUpProperties.contains(name) { return nil }
        guard let tally = try TallySQL(query, app: app, dialect: Self.dialect) else { return [] }
        // The placeholders, from the last so that {{1}} is not taken for the start of {{10}}.
        var sql = tally.sql
        for (index, value) in tally.arguments.enumerated().reversed() {
            let literal: String
            switch value {
            case .text(let text): literal = ClickHouse.literal(text)
            case .integer(let number): literal = "toInt64(\(number))"
            }
            sql = sql.replacingOccurrences(of: Self.dialect.placeholder(index + 1), with: literal)
        }
        var rows: [TallyRow] = []
        for row in try await clickHouse.rows(sql) {
            guard row.count == tally.dimensions + 3, let events = row[row.count - 2].flatMap({ Int($0) }),
                let users = row[row.count - 1].flatMap({ Int($0) })
            else { throw StoreError(.failed, "ClickHouse answered a tally with a row of another shape: \(row)") }
            // A tally with nothing to group by answers one row even for no events, as the stores drop.
            if events > 0 {
                rows.append(TallyRow(name: row[0], keys: Array(row[1..<(1 + tally.dimensions)]), events: events, users: users))
            }
        }
        return rows
    }

    /// Removes the user's events (an erasure). ClickHouse removes them in the background, soon.
    public func erase(app: String, user: String) async throws(StoreError) {
        try await clickHouse.execute(
            "ALTER TABLE events DELETE WHERE app = \(ClickHouse.literal(app)) AND user = \(ClickHouse.literal(user))")
    }

    /// Removes the app's events before a time (retention), in the background like an erasure.
    public func forget(app: String, before: Int64) async throws(StoreError) {
        try await clickHouse.execute("ALTER TABLE events DELETE WHERE app = \(ClickHouse.literal(app)) AND timestamp < toInt64(\(before))")
    }

    /// Copies the app's events from the store of record, in (timestamp, id) order, `page` at a
    /// time, from where an earlier backfill of the app stopped (kept in ClickHouse after each
    /// page), so that a backfill cut short goes on where it was. Events ClickHouse has already
    /// (shipped from the outbox meanwhile) are not stored again. `progress` is told the events
    /// stored so far. Answers how many it stored.
    @discardableResult
    public func backfill(
        app: String, from store: any AnalyticsExport, page: Int = 10_000, progress: (Int) -> Void = { _ in }
    ) async throws(StoreError) -> Int {
        let saved = try await clickHouse.rows(
            "SELECT timestamp, id FROM backfills WHERE app = \(ClickHouse.literal(app)) ORDER BY written DESC LIMIT 1")
        var cursor = saved.first.flatMap { row in
            row.count == 2 ? row[0].flatMap { Int64($0) }.flatMap { time in row[1].map { EventCursor(timestamp: time, id: $0) } } : nil
        }
        var stored = 0
        var written = Int64(Date().timeIntervalSince1970 * 1000)
        while true {
            let rows = try await store.analyticsRows(app: app, period: .always, after: cursor, limit: page)
            guard let last = rows.last else { return stored }
            stored += try await insert(rows)
            cursor = EventCursor(after: last.event)
            written += 1
            try await clickHouse.execute(
                "INSERT INTO backfills VALUES (\(ClickHouse.literal(app)), \(last.event.timestamp), \(ClickHouse.literal(last.event.id)), \(written))"
            )
            progress(stored)
        }
    }

    /// How many erasures and retention cuts ClickHouse is still carrying out.
    public func pendingDeletions() async throws(StoreError) -> Int {
        let rows = try await clickHouse.rows("SELECT count() FROM system.mutations WHERE database = currentDatabase() AND is_done = 0")
        return rows.first?.first.flatMap { $0.flatMap { Int($0) } } ?? 0
    }

    /// How many events of the app are stored.
    public func count(app: String) async throws(StoreError) -> Int {
        let rows = try await clickHouse.rows("SELECT count() FROM events WHERE app = \(ClickHouse.literal(app))")
        return rows.first?.first.flatMap { $0.flatMap { Int($0) } } ?? 0
    }

    static let dialect = TallySQL.Dialect(
        placeholder: { "{{\($0)}}" }, app: { "app = \($0)" }, user: "user", text: { "toString(\($0))" },
        property: { "p_\($0)" }, nullText: "CAST(NULL AS Nullable(String))",
        rolledProperty: { "p_\($0)" }, sum: { "sum(\($0))" },
        // ClickHouse's `uniqExact` of a text keeps a 128-bit hash of each; of its 64-bit hash, half
        // the memory, which the distinct users of each day and platform of 100 million events
        // need (docs/clickhouse.md).
        distinct: { "uniqExact(cityHash64(\($0)))" })

    /// The UTC day of a time as ClickHouse writes a `Date`: the date of its RFC 3339 form. A Date
    /// starts in 1970: an earlier time (no SDK sends one) counts on its first day.
    static func day(_ millis: Int64) -> String {
        String(Timestamp.format(max(0, millis)).prefix(10))
    }
}
