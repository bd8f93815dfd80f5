import Foundation
import GRDB
import WaymarkStore

extension SQLiteStore {
    /// Reads every row of `table` in primary key order, `batch` rows at a time, for
    /// `waymark migrate-data`. Each batch is read in a transaction of its own: copy from a
    /// database no server is writing to.
    public func exportRows(_ table: PortableTable, batch: Int = 5_000, _ body: (PortableRows) async throws -> Void) async throws {
        let columns = table.columns.map { "\"\($0.name)\"" }
        let key = columns.prefix(table.keyLength).joined(separator: ", ")
        let select = "SELECT \(columns.joined(separator: ", ")) FROM \(table.rawValue)"
        let order = " ORDER BY \(key) LIMIT \(batch)"
        var after: [DatabaseValue]?
        while true {
            let last = after
            let page = try await read { db -> (rows: PortableRows, key: [DatabaseValue]?) in
                let rows: [Row]
                if let last {
                    let placeholders = Array(repeating: "?", count: last.count).joined(separator: ", ")
                    rows = try Row.fetchAll(
                        db, sql: select + " WHERE (\(key)) > (\(placeholders))" + order, arguments: StatementArguments(last)
                    )
                } else {
                    rows = try Row.fetchAll(db, sql: select + order)
                }
                let values = rows.map { row in (0..<row.count).map { Self.portable(row[$0] as DatabaseValue) } }
                return (values, rows.last.map { row in (0..<table.keyLength).map { row[$0] as DatabaseValue } })
            }
            if page.rows.isEmpty { return }
            try await body(page.rows)
            after = page.key
        }
    }

    /// How many rows `table` holds.
    public func rowCount(_ table: PortableTable) async throws(StoreError) -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.rawValue)") ?? 0 }
    }

    private static func portable(_ value: DatabaseValue) -> String? {
        switch value.storage {
        case .null: nil
        case .int64(let integer): String(integer)
        case .double(let double): String(double)
        case .string(let string): string
        case .blob(let data): data.base64EncodedString()
        }
    }
}
