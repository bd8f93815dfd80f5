import Foundation
import Logging
import PostgresNIO
import Testing
import WaymarkAnalytics
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// The daily rollups answer every tally exactly as the events do: two apps get the same random
/// events, one is folded and the other never is, and every query of the reports' shapes (and
/// random periods, whole days or not) must give the same rows for both, after folding, after late
/// events land in folded days, after an erasure, after retention and after folding again.
@Suite(.timeLimit(.minutes(5))) struct RollupTests {
    /// Midnight (UTC) of 2026-09-21.
    static let day0: Int64 = 1_790_000_000_000 - 1_790_000_000_000 % Period.day

    /// SplitMix64: the same events on every run.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    static let names = [
        "tip_shown", "tip_dismissed", "tip_closed", "page_viewed", "tour_action", "tap", "screen", "activation", "survey_answered",
        "checklist_item_done", "checklist_completed", "help_searched", "anchor_missing", "tip_action",
    ]

    /// `count` events between `from` and `from + span`, numbered from `first`.
    static func events(_ random: inout Random, count: Int, from: Int64, span: Int64) -> [(Int64, String, String, String?, String?)] {
        (0..<count).map { _ in
            let time = from + Int64(random.below(Int(span)))
            var members: [String] = []
            if !random.chance(10) {
                members.append("\"platform\":\"\(random.pick(["ios", "android", "web"]))\"")
                if random.chance(80) { members.append("\"appVersion\":\"\(random.pick(["1.0", "1.2", "2.0"]))\"") }
            }
            let properties: [(String, [String])] = [
                ("tour", ["\"welcome\"", "\"pay\""]), ("page", ["\"one\"", "\"two\"", "3"]), ("variant", ["\"a\"", "\"b\""]),
                ("score", ["0", "7", "10", "9.5"]), ("comment", ["\"fast\"", "\"धीमा\"", "\"\""]), ("seconds", ["12", "12.0", "300"]),
                ("query", ["\"pay bill\"", "\"रिचार्ज\""]), ("results", ["0", "4"]), ("item", ["\"profile\"", "\"kyc\""]),
                ("anchor", ["\"#buy\"", "true", "false"]), ("screen", ["\"home\"", "\"cart\""]), ("action", ["\"next\"", "\"url\""]),
                ("kind", ["\"tour\"", "null"]), ("to", ["\"cart\""]), ("flag", ["true", "false"]),
                ("nested", ["{\"a\":1}", "[1,2]"]),
            ]
            for (key, values) in properties where random.chance(15) { members.append("\"\(key)\":\(random.pick(values))") }
            let json = members.isEmpty && random.chance(50) ? nil : "{" + members.joined(separator: ",") + "}"
            let user = "u\(random.below(12))"
            let name = random.pick(names)
            let target = random.chance(20) ? nil : random.pick(["t1", "t2", "search", "home"])
            return (time, user, name, target, json)
        }
    }

    static func insert(
        _ events: [(Int64, String, String, String?, String?)], first: Int, into store: any Store, apps: [String] = ["folded", "plain"]
    ) async throws {
        for app in apps {
            _ = try await store.insertEvents(
                events.enumerated().map { index, event in
                    let (time, user, name, target, json) = event
                    let platform = json.flatMap { $0.firstRange(of: "\"platform\":\"")?.upperBound }.map { start in
                        String(json![start...].prefix { $0 != "\"" })
                    }
                    let version = json.flatMap { $0.firstRange(of: "\"appVersion\":\"")?.upperBound }.map { start in
                        String(json![start...].prefix { $0 != "\"" })
                    }
                    return StoredEvent(
                        app: app, id: EventID.make(milliseconds: 0, number: first + index), user: user, name: name, target: target,
                        timestamp: time, receivedAt: time, clamped: false, propertiesJSON: json, platform: platform, appVersion: version)
                })
        }
    }

    /// The queries the reports make, over a whole week, one day, and `random` periods.
    static func queries(_ random: inout Random) -> [TallyQuery] {
        var periods = [Period(from: day0, to: day0 + 7 * Period.day), Period(from: day0 + Period.day, to: day0 + 2 * Period.day)]
        for _ in 0..<4 {
            let from = day0 + Int64(random.below(Int(6 * Period.day)))
            periods.append(
                Period(from: random.chance(50) ? Period.startOfDay(from) : from, to: from + Int64(random.below(Int(4 * Period.day)))))
        }
        let shapes: [(names: [String]?, byName: Bool, by: [TallyDimension])] = [
            (["tip_shown", "tip_dismissed", "tip_closed"], true, [.target]),
            (["tip_shown", "tip_dismissed", "tip_closed"], true, [.target, .platform, .appVersion]),
            (["page_viewed", "tour_action"], true, [.property("tour"), .property("page")]),
            (nil, false, [.day, .platform]),
            (["activation"], true, [.day, .platform]),
            (nil, false, [.platform]),
            (["tip_shown", "tip_dismissed"], true, [.target, .property("variant")]),
            (["tip_shown"], true, [.target, .user]),
            (["survey_answered"], true, [.target, .day, .platform, .appVersion, .property("score"), .property("comment")]),
            (["tip_action", "tour_action"], true, [.target, .property("page"), .property("action"), .property("kind"), .property("to")]),
            (["checklist_item_done", "checklist_completed"], true, [.target, .property("item")]),
            (["checklist_completed"], true, [.target, .property("seconds")]),
            (["checklist_item_done", "checklist_completed"], false, [.target]),
            (["help_searched"], true, [.property("query"), .property("results")]),
            (["anchor_missing"], true, [.target, .property("anchor"), .property("screen")]),
            (["screen"], true, [.target, .user]),
            // Not a property the rollups keep: read from the events.
            (nil, true, [.property("flag"), .day]),
            (nil, true, [.property("nested")]),
            ([], true, [.target]),
        ]
        return periods.flatMap { period in shapes.map { TallyQuery(period: period, names: $0.names, byName: $0.byName, by: $0.by) } }
    }

    /// The app whose days fold and the one whose days never do.
    static func createApps(_ store: any Store) async throws {
        for app in ["folded", "plain"] {
            try await store.createApp(
                AppRecord(id: app, name: app, identitySecret: "secret-\(app)", createdAt: Date(millisecondsSince1970: Self.day0)))
        }
    }

    /// Users in groups, as a breakdown by an attribute puts them: some named, the rest together.
    static let grouping = UserGrouping(["u1": "gold", "u2": "gold", "u5": "silver", "u11": "silver", "u3": "bronze"], others: "(none)")

    static func expectSameTallies(_ queries: [TallyQuery], _ store: any Store, _ comment: Comment) async throws {
        for query in queries {
            let folded = try await store.tally(app: "folded", query)
            let plain = try await store.tally(app: "plain", query)
            #expect(Set(folded) == Set(plain), "\(comment): \(query)")
            #expect(folded.count == plain.count, "\(comment): \(query)")
            // Split by the users' groups: from the sets where days are folded, per user where not.
            guard !query.dimensions.contains(.user) else { continue }
            let foldedGroups = try await store.tally(app: "folded", query, grouping: Self.grouping)
            let plainGroups = try await store.tally(app: "plain", query, grouping: Self.grouping)
            #expect(Set(foldedGroups) == Set(plainGroups), "\(comment), grouped: \(query)")
            #expect(foldedGroups.count == plainGroups.count, "\(comment), grouped: \(query)")
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func rollupsAnswerAsTheEventsDo(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.createApps(store)
            var random = Random(state: 20_261_202)
            let queries = Self.queries(&random)
            try await Self.insert(Self.events(&random, count: 900, from: Self.day0, span: 6 * Period.day), first: 0, into: store)
            try await Self.expectSameTallies(queries, store, "nothing folded")

            // Days 0 to 3 have ended an hour before the fold's time: four days fold, then none.
            let now = Self.day0 + 4 * Period.day + 3_600_000
            #expect(try await store.rollUp(app: "folded", before: now - 3_600_000, limit: 2) == 2)
            #expect(try await store.rollUp(app: "folded", before: now - 3_600_000, limit: 10) == 2)
            #expect(try await store.rollUp(app: "folded", before: now - 3_600_000, limit: 10) == 0)
            try await Self.expectSameTallies(queries, store, "four days folded")
            // Every event counts once, half of the week read from rollups, half from events.
            let weekly = TallyQuery(period: Period(from: Self.day0, to: Self.day0 + 7 * Period.day), byName: false, by: [])
            #expect(try await store.tally(app: "folded", weekly).first?.events == 900)

            // Late events, in folded days and in one not folded, unfold their days.
            let late = Self.events(&random, count: 60, from: Self.day0, span: 5 * Period.day)
            try await Self.insert(late, first: 900, into: store)
            try await Self.expectSameTallies(queries, store, "late events")
            #expect(try await store.rollUp(app: "folded", before: now - 3_600_000, limit: 10) == 4)
            try await Self.expectSameTallies(queries, store, "folded again")
            // A batch sent again stores nothing and unfolds nothing.
            try await Self.insert(late, first: 900, into: store)
            #expect(try await store.rollUp(app: "folded", before: now - 3_600_000, limit: 10) == 0)

            // An erased user leaves the rollups with their events.
            for app in ["folded", "plain"] {
                _ = try await store.eraseUser(
                    app: app, user: "u3",
                    audit: { _ in
                        AuditEntry(
                            app: app, actor: .cli, at: Date(millisecondsSince1970: now), action: .userErase, object: "u3", before: nil,
                            after: nil)
                    }, notice: { _ in nil })
            }
            try await Self.expectSameTallies(queries, store, "u3 erased")

            // Retention takes the events before the middle of day 2 (in batches); then all folds again.
            for app in ["folded", "plain"] {
                while try await store.deleteEvents(app: app, before: Self.day0 + 2 * Period.day + 43_200_000, limit: 50) > 0 {}
            }
            try await Self.expectSameTallies(queries, store, "retention")
            // Day 2, which retention unfolded, and days 4 and 5, which had not ended before.
            #expect(try await store.rollUp(app: "folded", before: Self.day0 + 6 * Period.day, limit: 10) == 3)
            try await Self.expectSameTallies(queries, store, "after retention, folded")
        }
    }

    /// During a rolling upgrade a server of an earlier release folds days without their user
    /// sets (its `rolled_days` row takes the default, no sets): the tallies the sets answer read
    /// those days' events, whatever stale sets are left, and the next fold makes them.
    @Test(arguments: StoreUnderTest.available.filter { $0 == .postgres })
    func daysFoldedWithoutTheirSetsAreReadFromEventsUntilFoldedAgain(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, location in
            try await Self.createApps(store)
            var random = Random(state: 20_261_203)
            let queries = Self.queries(&random)
            try await Self.insert(Self.events(&random, count: 600, from: Self.day0, span: 4 * Period.day), first: 0, into: store)
            let end = Self.day0 + 4 * Period.day
            #expect(try await store.rollUp(app: "folded", before: end, limit: 10) == 4)
            // Day 1 as an earlier server folds it, with no sets; day 2 the same, its old sets left
            // behind and wrong.
            let (day1, day2) = (Self.day0 + Period.day, Self.day0 + 2 * Period.day)
            try await location.execute(sql: "DELETE FROM event_day_users WHERE day = \(day1)")
            try await location.execute(sql: "UPDATE event_day_users SET events = events + 1000, users = '\\x01' WHERE day = \(day2)")
            try await location.execute(sql: "UPDATE rolled_days SET sets = FALSE WHERE day IN (\(day1), \(day2))")
            try await Self.expectSameTallies(queries, store, "two days folded without sets")
            #expect(try await store.rollUp(app: "folded", before: end, limit: 10) == 2)
            try await Self.expectSameTallies(queries, store, "folded again with sets")
            #expect(try await store.rollUp(app: "folded", before: end, limit: 10) == 0)
        }
    }

    /// An erasure holds the user's days as a fold holds its day: a fold under way in one of them
    /// (its advisory lock held, its rollups being written) makes the erasure wait until it
    /// commits, and the erasure then takes what it wrote. Without the wait, the fold would commit
    /// the erased user's rollup after the erasure.
    @Test(arguments: StoreUnderTest.available.filter { $0 == .postgres })
    func anErasureWaitsForAFoldUnderWayInTheUsersDays(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, location in
            guard case .postgres(let url) = location else { return }
            try await store.createApp(
                AppRecord(id: "shop", name: "shop", identitySecret: "secret", createdAt: Date(millisecondsSince1970: Self.day0)))
            var random = Random(state: 49)
            let events = Self.events(&random, count: 200, from: Self.day0, span: Period.day)
            try await Self.insert(events, first: 0, into: store, apps: ["shop"])
            let day = Self.day0 / Period.day
            let log = PostgresDatabase.logger
            func count(_ sql: String, _ connection: PostgresConnection) async throws -> Int64 {
                var count: Int64 = -1
                for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: log).decode(Int64.self) {
                    count = value
                }
                return count
            }
            try await PostgresDatabase.withClient(url: url) { client in
                try await client.withConnection { connection in
                    let erasure = try await connection.withTransaction(logger: log) { fold in
                        // The fold's first steps: its day's lock, then the user's rollup row.
                        try await fold.query(
                            "SELECT pg_advisory_xact_lock((SELECT number FROM apps WHERE id = 'shop'), \(Int32(day)))", logger: log)
                        try await fold.query(
                            """
                            INSERT INTO event_days (app_number, day, events, name, user_id, properties)
                            SELECT number, \(Self.day0), 1, 'tap', 'u3', '{}'::JSONB FROM apps WHERE id = 'shop'
                            """, logger: log)
                        let erasure = Task {
                            try await store.eraseUser(
                                app: "shop", user: "u3",
                                audit: { _ in
                                    AuditEntry(
                                        app: "shop", actor: .cli, at: Date(millisecondsSince1970: Self.day0), action: .userErase,
                                        object: "u3", before: nil, after: nil)
                                }, notice: { _ in nil })
                        }
                        // The erasure is seen waiting for the day's lock, in PostgreSQL's own view.
                        #expect(
                            try await eventually(within: 30) {
                                try await count("SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted", fold) > 0
                            })
                        return erasure
                    }
                    // Once the fold committed, the erasure took its row with the user's events.
                    #expect(try await erasure.value.events > 0)
                    for table in ["events", "event_days", "user_numbers"] {
                        #expect(try await count("SELECT COUNT(*) FROM \(table) WHERE user_id = 'u3'", connection) == 0, "\(table)")
                    }
                }
            }
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func theFolderFoldsDaysThatEnded(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await store.createApp(
                AppRecord(id: "shop", name: "shop", identitySecret: "secret", createdAt: Date(millisecondsSince1970: Self.day0)))
            var random = Random(state: 7)
            let events = Self.events(&random, count: 200, from: Self.day0, span: 3 * Period.day)
            _ = try await store.insertEvents(
                events.enumerated().map { index, event in
                    StoredEvent(
                        app: "shop", id: EventID.make(milliseconds: 0, number: index), user: event.1, name: event.2, target: event.3,
                        timestamp: event.0, receivedAt: event.0, clamped: false, propertiesJSON: event.4, platform: nil, appVersion: nil)
                })
            let clock = Locked(Date(millisecondsSince1970: Self.day0 + 2 * Period.day + 1_800_000))
            let folder = RollupFolder(store: store, logger: Logger(label: "test"), batch: 1, now: { clock.withLock { $0 } })
            // Day 1 ended only half an hour ago: not settled yet.
            #expect(try await folder.fold(app: "shop") == 1)
            #expect(try await folder.fold(app: "shop") == 0)
            clock.withLock { $0 += 3_600 }
            #expect(try await folder.fold(app: "shop") == 1)
            #expect(try await folder.fold(app: "shop") == 0)
        }
    }
}
