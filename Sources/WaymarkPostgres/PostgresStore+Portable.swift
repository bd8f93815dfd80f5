import Logging
import PostgresNIO
import WaymarkStore

extension PostgresStore {
    /// Fills this empty database in one transaction, for `waymark migrate-data`: `body` inserts
    /// each table's rows through the importer, in ``PortableTable`` order. Nothing is kept if
    /// `body` throws, or if the database already holds anything (`.conflict`: a copy never mixes
    /// with data already there).
    public func importAll(_ body: (PortableImporter) async throws -> Void) async throws(StoreError) {
        try await transaction { connection in
            for table in PortableTable.allCases {
                let used = try await Self.all(
                    PostgresQuery(unsafeSQL: "SELECT EXISTS (SELECT 1 FROM \(table.rawValue))"), as: Bool.self, connection, logger)
                if used.first == true { throw StoreError(.conflict, "the database is not empty: \(table.rawValue) has rows") }
            }
            try await body(PortableImporter(connection: connection, logger: logger))
            // The audit log came with its own numbers: the next entry follows the last.
            try await connection.query(
                "SELECT setval(pg_get_serial_sequence('audit', 'sequence'), COALESCE((SELECT MAX(sequence) FROM audit), 0) + 1, false)",
                logger: logger
            )
        }
    }
}

/// Inserts rows into the database ``PostgresStore/importAll(_:)`` is filling.
public struct PortableImporter: Sendable {
    let connection: PostgresConnection
    let logger: Logger

    /// Inserts the rows, each column bound as one array and unnested.
    public func insert(_ table: PortableTable, _ rows: PortableRows) async throws {
        guard !rows.isEmpty else { return }
        let columns = table.columns
        var arrays = Array(repeating: TextArray(), count: columns.count)
        for row in rows {
            for index in columns.indices { arrays[index].append(index < row.count ? row[index] : nil) }
        }
        var bindings = PostgresBindings(capacity: columns.count)
        for array in arrays { bindings.append(array) }
        let imported = columns.map { Schema.importedColumns["\(table.rawValue).\($0.name)"] }
        let names = columns.indices.map { index in
            imported[index]?.name ?? (columns[index].name == "user" ? "user_id" : columns[index].name)
        }
        let casts = columns.indices.map { index in
            if let imported = imported[index] { return imported.value("c\(index)") }
            switch columns[index].kind {
            case .text: return "c\(index)"
            case .integer: return "c\(index)::BIGINT"
            case .real: return "c\(index)::DOUBLE PRECISION"
            case .boolean: return "c\(index)::BOOLEAN"
            case .bytes: return "decode(c\(index), 'base64')"
            }
        }
        let arguments = columns.indices.map { "$\($0 + 1)::TEXT[]" }
        let sql = """
            INSERT INTO \(table.rawValue) (\(names.joined(separator: ", ")))
            SELECT \(casts.joined(separator: ", ")) FROM unnest(\(arguments.joined(separator: ", "))) AS r(\(columns.indices.map { "c\($0)" }.joined(separator: ", ")))
            """
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
    }

    /// How many rows `table` holds now, within the import.
    public func rowCount(_ table: PortableTable) async throws -> Int {
        Int(
            try await PostgresStore.all(
                PostgresQuery(unsafeSQL: "SELECT COUNT(*) FROM \(table.rawValue)"), as: Int64.self, connection, logger
            ).first ?? 0)
    }
}
