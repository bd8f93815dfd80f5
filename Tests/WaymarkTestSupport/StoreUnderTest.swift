import Foundation
import GRDB
import PostgresNIO
import WaymarkPostgres
import WaymarkSQLite
import WaymarkStore

/// The stores tests run against: SQLite always, PostgreSQL where `WAYMARK_TEST_POSTGRES` names a
/// server (`scripts/test` starts a throwaway one). Under `CI=true` PostgreSQL is always listed, so
/// that a missing URL fails its cases instead of skipping them.
public enum StoreUnderTest: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    public static let postgresURL = ProcessInfo.processInfo.environment["WAYMARK_TEST_POSTGRES"]
    public static let available: [StoreUnderTest] =
        postgresURL != nil || ProcessInfo.processInfo.environment["CI"] == "true" ? allCases : [.sqlite]

    public var description: String { rawValue }

    /// Where a fresh database lives: what `waymark --database` or a second store would be given.
    public enum Location: Sendable {
        case sqlite(path: String)
        case postgres(url: String)
    }

    public struct NotConfigured: Error, CustomStringConvertible {
        public var description: String { "WAYMARK_TEST_POSTGRES is not set: run scripts/test, which starts a throwaway PostgreSQL" }
    }

    /// The URL of the test PostgreSQL server, or an error saying how to get one.
    public static func requirePostgresURL() throws -> String {
        guard let url = postgresURL else { throw NotConfigured() }
        return url
    }

    /// Runs `body` with a store on a fresh, empty, migrated database, removed afterwards.
    public func with<T: Sendable>(_ body: (any Store, Location) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-test-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let path = directory.appendingPathComponent("waymark.sqlite").path
            return try await body(try SQLiteStore(path: path), .sqlite(path: path))
        case .postgres:
            return try await PostgresDatabase.withFresh(url: try Self.requirePostgresURL()) { store, url in
                try await body(store, .postgres(url: url))
            }
        }
    }
}

extension StoreUnderTest.Location {
    /// Runs one SQL statement on the database directly, beside its store: what an operator with
    /// a database shell could do.
    public func execute(sql: String) async throws {
        switch self {
        case .sqlite(let path):
            // The server beside it may be writing: wait for its transaction, as the store does.
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            let database = try DatabaseQueue(path: path, configuration: configuration)
            try await database.write { try $0.execute(sql: sql) }
        case .postgres(let url):
            try await PostgresDatabase.withClient(url: url) { client in
                try await client.query(PostgresQuery(unsafeSQL: sql), logger: PostgresDatabase.logger)
            }
        }
    }
}
