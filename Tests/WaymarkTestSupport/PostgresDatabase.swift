import Foundation
import Logging
import PostgresNIO
import WaymarkPostgres
import WaymarkStore

/// Fresh PostgreSQL databases for tests, on the server `WAYMARK_TEST_POSTGRES` names: each test
/// gets its own database, migrated, and dropped afterwards.
public enum PostgresDatabase {
    public static let logger: Logger = {
        var logger = Logger(label: "waymark-test-postgres")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs `body` with a store on a new database (migrated unless `migrate` is false) and that
    /// database's URL, then drops the database.
    public static func withFresh<T: Sendable>(url: String, migrate: Bool = true, _ body: (PostgresStore, String) async throws -> T)
        async throws -> T
    {
        let name = "waymark_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        guard var components = URLComponents(string: url) else { throw StoreError(.unavailable, "not a URL: \(url)") }
        components.path = "/" + name
        let freshURL = components.string ?? url
        try await withClient(url: url) { admin in
            try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        }
        // Tests share one cluster on a small machine: while dozens of databases are made at once a
        // connection may take longer than a server's 5 s, which is no failure of what is tested.
        let store = try PostgresStore(url: freshURL, logger: logger, patience: .seconds(30))
        let result: Result<T, any Error> = await withTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            do {
                if migrate { try await store.migrate() }
                return .success(try await body(store, freshURL))
            } catch {
                return .failure(error)
            }
        }
        // The store's pool is closed now; FORCE ends any connection still open.
        try await withClient(url: url) { admin in
            try await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
        }
        return try result.get()
    }

    /// Runs `body` with a client of the database at `url`, running meanwhile.
    @discardableResult
    public static func withClient<T: Sendable>(url: String, _ body: (PostgresClient) async throws -> T) async throws -> T {
        let client = PostgresClient(configuration: try PostgresStore.configuration(url: url), backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}
