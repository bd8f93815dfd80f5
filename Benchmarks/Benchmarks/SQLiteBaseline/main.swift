import Foundation
import GRDB
import WaymarkSupport

/// The yardstick for event ingestion: plain SQLite inserts into a table shaped like Waymark's
/// events table (same schema and indexes, the analytics columns bound the same way, WAL,
/// synchronous=NORMAL, as `SQLiteStore` opens it), 100 rows per
/// transaction, with no HTTP, JSON or validation. Prints rows per second for time-ordered ids
/// (UUIDv7, as the SDKs make them) and for random ones (UUIDv4), to show why ids are time-ordered.
///
///     swift run -c release SQLiteBaseline [ROWS]
let rows = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 200_000 : 200_000

func measure(_ label: String, ids: () -> String) throws -> Double {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-sqlite-baseline-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    var configuration = Configuration()
    configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
    let pool = try DatabasePool(path: directory.appendingPathComponent("baseline.sqlite").path, configuration: configuration)
    try pool.write { db in
        try db.execute(
            sql: """
                CREATE TABLE events (
                    app TEXT NOT NULL, id TEXT NOT NULL, user TEXT NOT NULL, name TEXT NOT NULL, target TEXT,
                    timestamp INTEGER NOT NULL, received_at INTEGER NOT NULL, clamped INTEGER NOT NULL, properties TEXT,
                    platform TEXT, app_version TEXT,
                    PRIMARY KEY (app, id)
                ) WITHOUT ROWID;
                CREATE INDEX events_by_time ON events(app, timestamp, platform, user, name);
                CREATE INDEX events_by_name ON events(app, name, timestamp);
                """)
    }
    let keys = (0..<rows).map { _ in ids() }
    let start = DispatchTime.now().uptimeNanoseconds
    for batch in stride(from: 0, to: rows, by: 100) {
        try pool.write { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO events (app, id, user, name, target, timestamp, received_at, clamped, properties, platform, app_version)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT DO NOTHING
                    """)
            for index in batch..<min(batch + 100, rows) {
                try statement.execute(arguments: [
                    "app_benchmark", keys[index], "user-\(index % 1000)", "tap", "search", 1_795_000_000_000 + index,
                    1_795_000_000_000 + index, false, #"{"appVersion":"1.4","platform":"ios"}"#, "ios", "1.4",
                ])
            }
        }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let rate = Double(rows) / seconds
    print("\(label): \(rows) rows in \(String(format: "%.2f", seconds)) s = \(Int(rate)) rows/s")
    return rate
}

let ordered = try measure("sqlite baseline, time-ordered ids (UUIDv7)") { EventID.make() }
let random = try measure("sqlite baseline, random ids (UUIDv4)") { UUID().uuidString.lowercased() }
print("time-ordered ids are \(String(format: "%.1f", ordered / random))x faster than random ones")
