import Foundation
import NIOCore
import Testing
import WaymarkClickHouse
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// ClickHouse counts what the store of record counts: the same random events as the rollups'
/// test, copied from SQLite or PostgreSQL into ClickHouse as a backfill would, must give the same
/// rows for every query of the reports' shapes, and again after a batch is sent twice, an erasure
/// and a retention cut.
@Suite(.timeLimit(.minutes(5)), .enabled(if: ClickHouseDatabase.isAvailable)) struct ClickHouseTests {
    /// Copies the app's events from the store into ClickHouse, a page at a time, as a backfill does.
    static func copy(app: String, from store: any Store, to analytics: ClickHouseAnalytics, page: Int = 97) async throws -> Int {
        var cursor: EventCursor?
        var copied = 0
        while true {
            let rows = try await store.analyticsRows(app: app, period: .always, after: cursor, limit: page)
            guard let last = rows.last else { return copied }
            copied += try await analytics.insert(rows)
            cursor = EventCursor(after: last.event)
        }
    }

    static func expectSameTallies(_ queries: [TallyQuery], _ store: any Store, _ analytics: ClickHouseAnalytics, _ comment: Comment)
        async throws
    {
        var answered = 0
        for query in queries {
            guard let counted = try await analytics.tally(app: "plain", query) else {
                // Only a property the reports do not break events down by is left to the store of record.
                #expect(
                    query.dimensions.contains {
                        if case .property(let name) = $0 { return !TallyDimension.rolledUpProperties.contains(name) }
                        return false
                    }, "\(comment): \(query)")
                continue
            }
            answered += 1
            let stored = try await store.tally(app: "plain", query)
            #expect(Set(counted) == Set(stored), "\(comment): \(query)")
            #expect(counted.count == stored.count, "\(comment): \(query)")
        }
        #expect(answered > queries.count * 3 / 4, "\(comment): ClickHouse answered \(answered) of \(queries.count)")
    }

    @Test(arguments: StoreUnderTest.available)
    func clickHouseAnswersAsTheStoreOfRecordDoes(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await ClickHouseDatabase.with { analytics, _ in
                for app in ["folded", "plain"] {
                    try await store.createApp(
                        AppRecord(
                            id: app, name: app, identitySecret: "secret-\(app)", createdAt: Date(millisecondsSince1970: RollupTests.day0)))
                }
                var random = RollupTests.Random(state: 20_261_202)
                let queries = RollupTests.queries(&random)
                let events = RollupTests.events(&random, count: 900, from: RollupTests.day0, span: 6 * Period.day)
                try await RollupTests.insert(events, first: 0, into: store)
                #expect(try await Self.copy(app: "plain", from: store, to: analytics) == 900)
                #expect(try await analytics.count(app: "plain") == 900)
                #expect(try await analytics.count(app: "folded") == 0, "only the app copied")
                try await Self.expectSameTallies(queries, store, analytics, "copied")

                // A batch sent again (a crash between sending and marking it sent) stores nothing.
                #expect(try await Self.copy(app: "plain", from: store, to: analytics, page: 250) == 0)
                #expect(try await analytics.count(app: "plain") == 900)

                // Late events reach ClickHouse like any other.
                let late = RollupTests.events(&random, count: 60, from: RollupTests.day0, span: 5 * Period.day)
                try await RollupTests.insert(late, first: 900, into: store)
                #expect(try await Self.copy(app: "plain", from: store, to: analytics) == 60)
                try await Self.expectSameTallies(queries, store, analytics, "late events")

                // An erasure and a retention cut, in both.
                let now = Date(millisecondsSince1970: RollupTests.day0 + 7 * Period.day)
                _ = try await store.eraseUser(
                    app: "plain", user: "u3",
                    audit: { _ in
                        AuditEntry(app: "plain", actor: .cli, at: now, action: .userErase, object: "u3", before: nil, after: nil)
                    }, notice: { _ in nil })
                try await analytics.erase(app: "plain", user: "u3")
                let cut = RollupTests.day0 + 2 * Period.day + 43_200_000
                while try await store.deleteEvents(app: "plain", before: cut, limit: 50) > 0 {}
                try await analytics.forget(app: "plain", before: cut)
                #expect(try await eventually(within: 60) { try await analytics.pendingDeletions() == 0 }, "the deletions are carried out")
                #expect(try await analytics.count(app: "plain") == store.eventCount(app: "plain"))
                try await Self.expectSameTallies(queries, store, analytics, "u3 erased, retention")
            }
        }
    }

    @Test func aClickHouseURLIsReadOrRefusedClearly() throws {
        let url = try ClickHouseURL("clickhouse://waymark:p%40ss@127.0.0.1:8123/analytics")
        #expect(url.user == "waymark" && url.password == "p@ss" && url.port == 8123 && !url.secure && url.database == "analytics")
        #expect(url.endpoint == "http://127.0.0.1:8123/" && !url.description.contains("p@ss"))
        let secure = try ClickHouseURL("clickhouses://ch.example.com/waymark")
        #expect(secure.secure && secure.port == 8443 && secure.user == "default" && secure.endpoint == "https://ch.example.com:8443/")
        for bad in ["postgres://a@b/c", "clickhouse://host", "clickhouse://host/bad-name", "clickhouse:///db", "not a url"] {
            #expect(throws: StoreError.self, "\(bad)") { try ClickHouseURL(bad) }
        }
        #expect(throws: StoreError.self) { try ClickHouseURL("clickhouse://u:secret@/x") }
    }

    @Test func anUnreachableClickHouseIsUnavailableAndAStatementItRefusesFails() async throws {
        let nowhere = ClickHouseAnalytics(ClickHouse(url: try ClickHouseURL("clickhouse://u:p@127.0.0.1:9/nowhere"), timeout: .seconds(5)))
        do {
            _ = try await nowhere.count(app: "a")
            Issue.record("a ClickHouse that is not there answered")
        } catch {
            #expect(error.code == .unavailable && error.description.contains("cannot be reached"), "\(error)")
        }
        try await ClickHouseDatabase.with { analytics, _ in
            do {
                try await analytics.clickHouse.execute("SELECT no_such_column FROM events")
                Issue.record("a bad statement went through")
            } catch let error as StoreError {
                #expect(error.code == .failed && error.description.contains("no_such_column"), "\(error)")
            }
        }
    }
}
