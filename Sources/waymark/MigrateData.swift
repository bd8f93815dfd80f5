import ArgumentParser
import Foundation
import WaymarkApplication
import WaymarkPostgres
import WaymarkSQLite
import WaymarkStore

/// `waymark migrate-data`: the move from one server on SQLite to several on PostgreSQL.
struct MigrateData: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate-data",
        abstract: "Copy the SQLite database of the data directory into an empty PostgreSQL database.",
        discussion: """
            Stop the server first: the copy is of the database as it is while the command runs.
            Everything is copied (apps, keys, drafts, versions, events, grants, console users,
            members, sessions and the audit log with its numbers) in one transaction, and each
            table's rows are counted on both sides before it commits; a PostgreSQL database that
            already holds anything is refused and left alone. Then start the servers with
            --database and the same URL.
            """
    )

    @OptionGroup var options: ServerOptions

    mutating func run() async throws {
        let resolved = try options.resolve()
        guard let url = resolved.database else {
            throw ValidationError("--database postgres://... (or WAYMARK_DATABASE) names the PostgreSQL database to fill")
        }
        let path = (resolved.dataDirectory as NSString).appendingPathComponent("waymark.sqlite")
        guard FileManager.default.fileExists(atPath: path) else {
            printError("error: no SQLite database at \(path) (--data-dir names the directory that holds waymark.sqlite)")
            throw ExitCode(1)
        }
        let logger = bootstrap(resolved)
        let start = Date()
        do {
            let source = try openSQLite(dataDirectory: resolved.dataDirectory)
            try await withPostgres(url: url, logger: logger) { target in
                try await copy(from: source, to: target)
            }
        } catch let error as StorageError {
            printError("error: \(error)")
            throw ExitCode(1)
        }
        print("Copied \(path) into \(redactingPassword(url)) in \(String(format: "%.1f", Date().timeIntervalSince(start))) s.")
        print("Start the servers with --database and that URL.")
    }

    /// Copies every table in one transaction of the target, counting each table's rows on both sides.
    private func copy(from source: SQLiteStore, to target: PostgresStore) async throws {
        do throws(StoreError) {
            try await target.importAll { importer in
                for table in PortableTable.allCases {
                    let expected = try await source.rowCount(table)
                    try await source.exportRows(table) { rows in try await importer.insert(table, rows) }
                    let copied = try await importer.rowCount(table)
                    guard copied == expected else {
                        throw StoreError(.failed, "\(table.rawValue): \(copied) rows copied of \(expected); nothing was kept")
                    }
                    print("\(table.rawValue): \(copied) rows")
                }
            }
        } catch {
            printError("error: \(error.message)")
            throw ExitCode(1)
        }
    }
}
