import Foundation
import Logging
import WaymarkPostgres
import WaymarkSQLite
import WaymarkStore

/// Where a server keeps its data: one SQLite file, or a PostgreSQL database that several servers
/// may share.
public enum Storage: Sendable, Equatable {
    /// `DIRECTORY/waymark.sqlite`, made with the directory if missing.
    case sqlite(dataDirectory: String)
    /// `postgres://user[:password]@host[:port]/database[?sslmode=…&sslrootcert=…]` (see
    /// ``WaymarkPostgres/PostgresURL``).
    case postgres(url: String)

    /// The storage named for people: the directory, or the URL with its password masked.
    public var description: String {
        switch self {
        case .sqlite(let directory): directory
        case .postgres(let url): redactingPassword(url)
        }
    }
}

/// A store that cannot be opened: a sentence for the operator, naming what to fix.
public struct StorageError: Error, CustomStringConvertible {
    public var description: String
}

/// Runs `body` with the store `storage` names. PostgreSQL's schema is migrated first (safely when
/// several servers start at once) and its connection pool runs while `body` does; a database that
/// does not answer within the store's patience (5 s) is a ``StorageError``, not a wait.
public func withStore<T: Sendable>(_ storage: Storage, logger: Logger, _ body: (any Store) async throws -> T) async throws -> T {
    switch storage {
    case .sqlite(let directory): try await body(try openSQLite(dataDirectory: directory))
    case .postgres(let url): try await withPostgres(url: url, logger: logger) { try await body($0) }
    }
}

/// The SQLite store of a data directory, made if missing.
public func openSQLite(dataDirectory: String) throws(StorageError) -> SQLiteStore {
    do {
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
    } catch {
        throw StorageError(description: "cannot create the data directory \(dataDirectory): \(error)")
    }
    do {
        return try SQLiteStore(path: (dataDirectory as NSString).appendingPathComponent("waymark.sqlite"))
    } catch {
        throw StorageError(description: "\(error)")
    }
}

/// Runs `body` with the PostgreSQL store at `url`, migrated, its pool running meanwhile.
public func withPostgres<T: Sendable>(url: String, logger: Logger, _ body: (PostgresStore) async throws -> T) async throws -> T {
    let store: PostgresStore
    do {
        store = try PostgresStore(url: url, logger: logger)
    } catch {
        throw StorageError(description: "\(error)")
    }
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await store.run() }
        defer { group.cancelAll() }
        do throws(StoreError) {
            try await store.checkConnection()
            try await store.migrate()
        } catch {
            if error.code == .unavailable {
                throw StorageError(description: "cannot reach the database at \(redactingPassword(url)): \(error.message)")
            }
            throw StorageError(description: "cannot prepare the database: \(error)")
        }
        return try await body(store)
    }
}

/// A database URL fit for a log line or an error: its password masked.
public func redactingPassword(_ url: String) -> String { PostgresURL.redacted(url) }
