import Foundation
import WaymarkClickHouse
import WaymarkStore

/// Fresh ClickHouse databases for tests, on the server `WAYMARK_TEST_CLICKHOUSE` names
/// (`scripts/test` starts a throwaway one): each test gets a database of its own, dropped after.
/// Under `CI=true` a missing URL fails the test instead of skipping it.
public enum ClickHouseDatabase {
    public static let url = ProcessInfo.processInfo.environment["WAYMARK_TEST_CLICKHOUSE"]
    /// Whether the ClickHouse tests run: where a server is named, and always under CI.
    public static let isAvailable = url != nil || ProcessInfo.processInfo.environment["CI"] == "true"

    public struct NotConfigured: Error, CustomStringConvertible {
        public var description: String { "WAYMARK_TEST_CLICKHOUSE is not set: run scripts/test, which starts a throwaway ClickHouse" }
    }

    /// Runs `body` with the analytics of a fresh, migrated database, and the database's URL.
    public static func with<T: Sendable>(_ body: (ClickHouseAnalytics, ClickHouseURL) async throws -> T) async throws -> T {
        guard let url else { throw NotConfigured() }
        let server = ClickHouse(url: try ClickHouseURL(url))
        var fresh = server.url
        fresh.database = "test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await server.execute("CREATE DATABASE \(fresh.database)")
        let analytics = ClickHouseAnalytics(ClickHouse(url: fresh))
        do {
            try await analytics.migrate()
            let result = try await body(analytics, fresh)
            try await server.execute("DROP DATABASE \(fresh.database)")
            return result
        } catch {
            _ = try? await server.execute("DROP DATABASE \(fresh.database)")
            throw error
        }
    }
}
