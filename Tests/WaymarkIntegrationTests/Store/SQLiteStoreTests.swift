import Foundation
import GRDB
import Testing
import WaymarkStore

@testable import WaymarkSQLite

/// What the SQLite store promises beyond the contract: databases made by earlier versions open
/// with what they hold.
@Suite struct SQLiteStoreTests {
    /// Grants made before the ledger was numbered get numbers by when they were granted, per app,
    /// and the next grant follows them.
    @Test func earlierGrantsAreNumberedByTheirTime() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-grants-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteStore.migrator.migrate(queue, upTo: "v10: segment members")
            try await queue.write { db in
                for (app, user, id, time) in [("a", "u1", "g3", 30), ("a", "u2", "g1", 10), ("b", "u1", "g9", 20), ("a", "u1", "g2", 20)] {
                    try db.execute(
                        sql: "INSERT INTO grants (app, user, tour, page, id, credits, granted_at) VALUES (?, ?, 't', ?, ?, 1, ?)",
                        arguments: [app, user, id, id, time])
                }
            }
        }
        let store = try SQLiteStore(path: path)
        #expect(try await store.grants(app: "a", after: 0, limit: 10).map { "\($0.sequence) \($0.id)" } == ["1 g1", "2 g2", "3 g3"])
        #expect(try await store.grants(app: "b", after: 0, limit: 10).map(\.sequence) == [1])
        let next = try await store.claim(Grant(id: "g4", app: "a", user: "u3", tour: "t", page: "p", credits: 1, grantedAt: Date())) { _ in
            1
        }
        #expect(next.grant.sequence == 4)
    }
}
