import Foundation
import Logging
import NIOCore
import Testing
import WaymarkClickHouse
import WaymarkPostgres
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

                // Another app's events with the same ids are its own.
                #expect(try await Self.copy(app: "folded", from: store, to: analytics) == 900)
                #expect(try await analytics.count(app: "folded") == 900)
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

    /// The outbox carries every change to ClickHouse, once even when a shipment fails half way.
    @Test(arguments: StoreUnderTest.available)
    func theOutboxShipsEveryChangeOnceAndLosesNothingWhenShippingFails(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await ClickHouseDatabase.with { analytics, _ in
                try await store.createApp(
                    AppRecord(
                        id: "plain", name: "plain", identitySecret: "secret", createdAt: Date(millisecondsSince1970: RollupTests.day0)))
                var random = RollupTests.Random(state: 49)
                let queries = RollupTests.queries(&random)
                // Before the outbox is kept, nothing goes into it: a backfill copies those events.
                let before = RollupTests.events(&random, count: 100, from: RollupTests.day0, span: 6 * Period.day)
                try await RollupTests.insert(before, first: 0, into: store, apps: ["plain"])
                #expect(try await store.analyticsOutbox() == (false, 0))
                try await store.keepAnalyticsOutbox()
                try await store.keepAnalyticsOutbox()
                let after = RollupTests.events(&random, count: 700, from: RollupTests.day0, span: 6 * Period.day)
                try await RollupTests.insert(after, first: 100, into: store, apps: ["plain"])
                // A batch sent again stores nothing again, in the store and so in the outbox.
                try await RollupTests.insert(after, first: 100, into: store, apps: ["plain"])
                #expect(try await store.analyticsOutbox() == (true, 700))

                // ClickHouse cannot be reached: the shipment fails and the outbox keeps everything.
                let nowhere = ClickHouseAnalytics(ClickHouse(url: try ClickHouseURL("clickhouse://u:p@127.0.0.1:9/nowhere")))
                let logger = Logger(label: "test")
                await #expect(throws: StoreError.self) {
                    try await ClickHouseShipper(store: store, analytics: nowhere, logger: logger, batch: 300).shipOnce()
                }
                #expect(try await store.analyticsOutbox().waiting == 700)
                // Killed after ClickHouse took a batch and before the outbox let it go: sent again, stored once.
                await #expect(throws: StoreError.self) {
                    try await store.shipAnalytics(limit: 300) { changes in
                        for case .stored(let rows) in changes { try await analytics.insert(rows) }
                        throw StoreError(.unavailable, "killed")
                    }
                }
                #expect(try await analytics.count(app: "plain") == 300)
                let shipper = ClickHouseShipper(store: store, analytics: analytics, logger: logger, batch: 300)
                #expect(try await shipper.shipOnce() == 300)
                #expect(try await shipper.shipOnce() == 300)
                #expect(try await shipper.shipOnce() == 100)
                #expect(try await shipper.shipOnce() == 0)
                #expect(try await analytics.count(app: "plain") == 700)
                // The backfill brings the rest, and a second one, going on from where the first ended, nothing.
                var told: [Int] = []
                #expect(try await analytics.backfill(app: "plain", from: store, page: 64) { told.append($0) } == 100)
                #expect(told.count == 13 && told.last == 100, "\(told)")
                #expect(try await analytics.backfill(app: "plain", from: store, page: 64) == 0)
                try await Self.expectSameTallies(queries, store, analytics, "shipped")

                // An erasure and retention go through the outbox too, after the events before them.
                let late = RollupTests.events(&random, count: 40, from: RollupTests.day0, span: 6 * Period.day)
                try await RollupTests.insert(late, first: 800, into: store, apps: ["plain"])
                _ = try await store.eraseUser(
                    app: "plain", user: "u5",
                    audit: { _ in
                        AuditEntry(
                            app: "plain", actor: .cli, at: Date(millisecondsSince1970: RollupTests.day0), action: .userErase, object: "u5",
                            before: nil, after: nil)
                    }, notice: { _ in nil })
                let cut = RollupTests.day0 + Period.day + 3_600_000
                while try await store.deleteEvents(app: "plain", before: cut, limit: 50) > 0 {}
                while try await shipper.shipOnce() > 0 {}
                #expect(try await store.analyticsOutbox().waiting == 0)
                #expect(try await eventually(within: 60) { try await analytics.pendingDeletions() == 0 }, "the deletions are carried out")
                #expect(try await analytics.count(app: "plain") == store.eventCount(app: "plain"))
                try await Self.expectSameTallies(queries, store, analytics, "erased and cut through the outbox")

                // Leaving ClickHouse: the outbox is no longer kept, and what waited in it goes.
                try await RollupTests.insert(late, first: 900, into: store, apps: ["plain"])
                #expect(try await store.analyticsOutbox() == (true, 40))
                #expect(try await store.stopAnalyticsOutbox() == 40)
                #expect(try await store.stopAnalyticsOutbox() == 0)
                #expect(try await store.analyticsOutbox() == (false, 0))
                try await RollupTests.insert(late, first: 1000, into: store, apps: ["plain"])
                _ = try await store.deleteEvents(app: "plain", before: cut + 3_600_000, limit: 50)
                #expect(try await store.analyticsOutbox() == (false, 0))
            }
        }
    }

    /// Servers beside each other on one PostgreSQL each run a shipper: one shipment at a time (a
    /// shipper that finds another's under way ships nothing that turn), so an erasure shipped by
    /// one never lands in ClickHouse before the user's events another was still shipping, and
    /// ClickHouse ends with what the database has, each event once.
    @Test(.enabled(if: StoreUnderTest.available.contains(.postgres)))
    func shippersOfServersSideBySideShipInOrderAndEachEventOnce() async throws {
        try await StoreUnderTest.postgres.with { store, location in
            guard case .postgres(let url) = location else { return }
            try await ClickHouseDatabase.with { analytics, _ in
                try await store.createApp(
                    AppRecord(
                        id: "plain", name: "plain", identitySecret: "secret", createdAt: Date(millisecondsSince1970: RollupTests.day0)))
                try await store.keepAnalyticsOutbox()
                // The other server's store: a pool of its own on the same database.
                let other = try PostgresStore(url: url, logger: PostgresDatabase.logger, patience: .seconds(30))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await other.run() }
                    defer { group.cancelAll() }
                    let servers: [any Store] = [store, other]
                    let shippers = servers.map {
                        ClickHouseShipper(store: $0, analytics: analytics, logger: PostgresDatabase.logger, batch: 30)
                    }
                    var random = RollupTests.Random(state: 20_261_202)
                    let queries = RollupTests.queries(&random)
                    let events = RollupTests.events(&random, count: 1200, from: RollupTests.day0, span: 3 * Period.day)
                    let now = Date(millisecondsSince1970: RollupTests.day0 + 4 * Period.day)
                    let written = Flag()
                    // Both ship until the writes are done and the outbox is empty.
                    let shipped = try await withThrowingTaskGroup(of: Int.self) { shipping in
                        for shipper in shippers {
                            shipping.addTask {
                                var shipped = 0
                                while true {
                                    let done = await written.isSet
                                    let count = try await shipper.shipOnce()
                                    shipped += count
                                    if count == 0 {
                                        if done, try await store.analyticsOutbox().waiting == 0 { return shipped }
                                        try await Task.sleep(for: .milliseconds(5))
                                    }
                                }
                            }
                        }
                        // Events come to both servers in turn; between them, users are erased.
                        for chunk in 0..<12 {
                            try await RollupTests.insert(
                                Array(events[(chunk * 100)..<(chunk * 100 + 100)]), first: chunk * 100, into: servers[chunk % 2],
                                apps: ["plain"])
                            if chunk % 4 == 3 {
                                let user = "u\(chunk / 4)"
                                _ = try await servers[1 - chunk % 2].eraseUser(
                                    app: "plain", user: user,
                                    audit: { _ in
                                        AuditEntry(
                                            app: "plain", actor: .cli, at: now, action: .userErase, object: user, before: nil, after: nil)
                                    }, notice: { _ in nil })
                            }
                        }
                        await written.set()
                        return try await shipping.reduce(into: [Int]()) { $0.append($1) }
                    }
                    #expect(shipped.reduce(0, +) > 0)
                    #expect(try await store.analyticsOutbox() == (true, 0))
                    #expect(
                        try await eventually(within: 60) { try await analytics.pendingDeletions() == 0 }, "the erasures are carried out")
                    #expect(try await analytics.count(app: "plain") == store.eventCount(app: "plain"))
                    let ids = try await analytics.clickHouse.rows("SELECT id FROM events").compactMap { $0.first ?? nil }
                    #expect(ids.count == Set(ids).count, "each event once")
                    try await Self.expectSameTallies(queries, store, analytics, "two shippers, erasures between")
                }
            }
        }
    }

    /// Servers started at once beside each other on one PostgreSQL each make or change
    /// ClickHouse's tables before they ship: one after the other, under the shippers' lock, so an
    /// old table of text ids is copied once and no server renames or drops it under another.
    @Test(.enabled(if: StoreUnderTest.available.contains(.postgres)))
    func serversStartedAtOnceChangeClickHousesTablesOneAfterTheOther() async throws {
        try await StoreUnderTest.postgres.with { store, location in
            guard case .postgres(let url) = location else { return }
            try await ClickHouseDatabase.with { analytics, _ in
                try await Self.makeEventsTableWithTextIds(analytics)
                try await analytics.clickHouse.execute(
                    "INSERT INTO events (app, day, timestamp, id, user, name) SELECT 'old', toDate('2026-09-21'), number,"
                        + " concat('event-', toString(number)), concat('u', toString(number % 50)), 'tap' FROM numbers(20000)")
                let other = try PostgresStore(url: url, logger: PostgresDatabase.logger, patience: .seconds(30))
                let inside = Locked((now: 0, most: 0))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { await other.run() }
                    defer { group.cancelAll() }
                    try await withThrowingTaskGroup(of: Void.self) { starting in
                        for server in [store, other] as [any Store] {
                            starting.addTask {
                                try await server.whileNoneShips {
                                    inside.withLock {
                                        $0.now += 1
                                        $0.most = max($0.most, $0.now)
                                    }
                                    defer { inside.withLock { $0.now -= 1 } }
                                    try await analytics.migrate()
                                }
                            }
                        }
                        try await starting.waitForAll()
                    }
                }
                #expect(inside.withLock { $0.most } == 1, "one server at a time")
                #expect(try await analytics.count(app: "old") == 20000)
                #expect(
                    try await analytics.clickHouse.rows(
                        "SELECT type FROM system.columns WHERE database = currentDatabase() AND table = 'events' AND name = 'id'")
                        == [["UUID"]])
                #expect(
                    try await analytics.clickHouse.rows("SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name")
                        == [["backfills"], ["events"]])
            }
        }
    }

    /// A backfill's page of ten thousand events names more ids than one statement may hold
    /// (ClickHouse parses at most 256 KiB): it is stored, and sent again it stores nothing.
    @Test func aBatchOfMoreIdsThanAStatementHoldsIsStoredOnce() async throws {
        try await ClickHouseDatabase.with { analytics, _ in
            let reported = [String?](repeating: nil, count: TallyDimension.rolledUpProperties.count)
            let rows = (0..<10_000).map { number -> AnalyticsRow in
                let time = RollupTests.day0 + Int64(number) * 20_000
                return AnalyticsRow(
                    event: StoredEvent(
                        app: "plain", id: EventID.make(milliseconds: time, number: number), user: "u\(number % 70)", name: "tap",
                        target: "t", timestamp: time, receivedAt: time, clamped: false, properties: [:]),
                    reported: reported)
            }
            let stored = try await analytics.insert(rows)
            #expect(stored == 10_000)
            #expect(try await analytics.insert(rows) == 0)
            #expect(try await analytics.insert(Array(rows[4000..<9000].reversed())) == 0)
            #expect(try await analytics.count(app: "plain") == 10_000)
        }
    }

    /// The reports read ClickHouse's tallies, and the store's when ClickHouse is away or keeps no
    /// such property; everything else comes from the store.
    @Test func theReportsReadClickHouseAndTheStoreWhereItCannotAnswer() async throws {
        try await StoreUnderTest.sqlite.with { store, _ in
            try await ClickHouseDatabase.with { analytics, _ in
                try await store.createApp(
                    AppRecord(
                        id: "plain", name: "plain", identitySecret: "secret", createdAt: Date(millisecondsSince1970: RollupTests.day0)))
                var random = RollupTests.Random(state: 5)
                try await RollupTests.insert(
                    RollupTests.events(&random, count: 200, from: RollupTests.day0, span: 2 * Period.day), first: 0, into: store,
                    apps: ["plain"])
                let week = Period(from: RollupTests.day0, to: RollupTests.day0 + 7 * Period.day)
                let byTarget = TallyQuery(period: week, names: ["tip_shown"], by: [.target])
                let byFlag = TallyQuery(period: week, by: [.property("flag")])
                let reports = ClickHouseReports(store: store, analytics: analytics)
                // Nothing shipped yet: ClickHouse counts none, and the reports show what it counts.
                #expect(try await reports.tally(app: "plain", byTarget).isEmpty)
                #expect(
                    try await reports.tally(app: "plain", byFlag) == store.tally(app: "plain", byFlag), "a property ClickHouse keeps not")
                #expect(try await Self.copy(app: "plain", from: store, to: analytics) == 200)
                #expect(Set(try await reports.tally(app: "plain", byTarget)) == Set(try await store.tally(app: "plain", byTarget)))
                let away = ClickHouseReports(
                    store: store, analytics: ClickHouseAnalytics(ClickHouse(url: try ClickHouseURL("clickhouse://u:p@127.0.0.1:9/x"))))
                #expect(Set(try await away.tally(app: "plain", byTarget)) == Set(try await store.tally(app: "plain", byTarget)))
                #expect(try await reports.events(app: "plain", period: week, user: nil, after: nil, limit: 500).count == 200)
            }
        }
    }

    /// Puts an events table of the first kind, whose ids are text, in place of the migrated one.
    static func makeEventsTableWithTextIds(_ analytics: ClickHouseAnalytics) async throws {
        let reported = TallyDimension.rolledUpProperties.map { "p_\($0) Nullable(String)" }.joined(separator: ", ")
        try await analytics.clickHouse.execute("DROP TABLE events")
        try await analytics.clickHouse.execute(
            """
            CREATE TABLE events (
                app String, day Date, timestamp Int64, id String, user String, name String, target Nullable(String),
                platform Nullable(String), app_version Nullable(String), \(reported)
            ) ENGINE = MergeTree PARTITION BY toYYYYMM(day) ORDER BY (app, day, name, id)
            """)
    }

    /// The first events tables kept ids as text. Migrating one copies it into a table of `UUID`
    /// ids (an id that is no UUID gets its MD5's, as PostgreSQL's store gave it), even after a
    /// copy was cut short, and a batch sent again afterwards is still stored once.
    @Test func anEventsTableWithTextIdsBecomesOneWithUUIDsAndKeepsItsEvents() async throws {
        try await ClickHouseDatabase.with { analytics, _ in
            try await Self.makeEventsTableWithTextIds(analytics)
            let time: Int64 = 1_790_000_000_000
            let ids = [EventID.make(milliseconds: time, number: 1), EventID.make(milliseconds: time, number: 2).uppercased(), "abc"]
            let rows = ids.enumerated().map { index, id in
                AnalyticsRow(
                    event: StoredEvent(
                        app: "old", id: id, user: "user-\(index)", name: "tap", target: "search", timestamp: time + Int64(index),
                        receivedAt: time, clamped: false, properties: ["platform": "web"]),
                    reported: TallyDimension.rolledUpProperties.map { _ in nil })
            }
            let old = rows.map { row in
                let event = row.event
                return
                    "('old', toDate('2026-09-21'), \(event.timestamp), \(ClickHouse.literal(event.id)), '\(event.user)', 'tap', 'search')"
            }
            try await analytics.clickHouse.execute(
                "INSERT INTO events (app, day, timestamp, id, user, name, target) VALUES \(old.joined(separator: ", "))")
            // A copy an earlier migration left half made.
            try await analytics.clickHouse.execute("CREATE TABLE events_uuid (app String) ENGINE = MergeTree ORDER BY app")
            try await analytics.migrate()
            // "abc" is no UUID: it is kept as its MD5, 900150983cd24fb0d6963f7d28e17f72.
            let expected = [ids[0], ids[1].lowercased(), "90015098-3cd2-4fb0-d696-3f7d28e17f72"]
            let stored = try await analytics.clickHouse.rows("SELECT toString(id), user FROM events ORDER BY user")
            #expect(stored == expected.enumerated().map { [$1, "user-\($0)"] })
            #expect(
                try await analytics.clickHouse.rows(
                    "SELECT type FROM system.columns WHERE database = currentDatabase() AND table = 'events' AND name = 'id'") == [["UUID"]]
            )
            #expect(
                try await analytics.clickHouse.rows("SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name") == [
                    ["backfills"], ["events"],
                ])
            #expect(try await analytics.insert(rows) == 0)
            try await analytics.migrate()
            #expect(try await analytics.count(app: "old") == 3)
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
            // Text goes in as a literal and comes back from TabSeparated as it was.
            let tricky = "it's a \\ back\tslash\nनमस्ते 🙂 \\N"
            #expect(try await analytics.clickHouse.rows("SELECT \(ClickHouse.literal(tricky)), NULL") == [[tricky, nil]])
            do {
                try await analytics.clickHouse.execute("SELECT no_such_column FROM events")
                Issue.record("a bad statement went through")
            } catch let error as StoreError {
                #expect(error.code == .failed && error.description.contains("no_such_column"), "\(error)")
            }
        }
    }
}

/// A mark one task sets and others read.
private actor Flag {
    private(set) var isSet = false
    func set() { isSet = true }
}
