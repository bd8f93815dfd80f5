import Foundation
import Logging
import Testing
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// Segment membership over a real database: the replay of recorded events with the users'
/// attributes, at a moment (what the refresher stores for delivery) and during a period (what the
/// console counts).
@Suite(.timeLimit(.minutes(5))) struct SegmentTests {
    static let catalog = """
        segments:
          - name: big-spenders
            rule: count(purchase where amount >= 10000) >= 1 within 30d
          - name: cod-users
            rule: user.codUser == true
          - name: lapsed
            rule: activation AND NOT activation within 7d
        tips:
          - { id: t, container: c, trigger: activation, targeting: 'segment:big-spenders', content: { title: T } }
        """

    static let now: Int64 = 1_790_000_000_000 - 1_790_000_000_000 % Period.day
    static let day = Period.day

    /// u1 bought a phone for 12,000 three days ago; u2 bought something for 500 yesterday; u3
    /// bought for 15,000 forty days ago (beyond the window, inside the history) and has not been
    /// back; u4 only has attributes; u5 bought for 20,000 two hundred days ago, beyond the history.
    static func events() -> [StoredEvent] {
        var events: [StoredEvent] = []
        func add(_ user: String, _ time: Int64, _ name: String, amount: Int? = nil) {
            var members = [JSONMember(key: "platform", value: "android")]
            if let amount { members.append(JSONMember(key: "amount", value: .number(String(amount)))) }
            events.append(
                StoredEvent(
                    app: "shop", id: EventID.make(milliseconds: time, number: events.count), user: user, name: name, target: nil,
                    timestamp: time, receivedAt: time, clamped: false, members: members))
        }
        add("u1", now - 3 * day, "activation")
        add("u1", now - 3 * day + 60_000, "purchase", amount: 12_000)
        add("u2", now - 1 * day, "activation")
        add("u2", now - 1 * day + 60_000, "purchase", amount: 500)
        add("u3", now - 40 * day, "activation")
        add("u3", now - 40 * day + 60_000, "purchase", amount: 15_000)
        add("u5", now - 200 * day, "purchase", amount: 20_000)
        // Another app's purchase counts nowhere.
        events.append(
            StoredEvent(
                app: "other", id: EventID.make(milliseconds: now - day, number: 99), user: "u2", name: "purchase", target: nil,
                timestamp: now - day, receivedAt: now - day, clamped: false,
                members: [JSONMember(key: "amount", value: .number("50000"))]))
        return events
    }

    func withHistory(_ kind: StoreUnderTest, _ body: (any Store, Catalog) async throws -> Void) async throws {
        try await kind.with { store, _ in
            for app in ["shop", "other"] {
                try await store.createApp(
                    AppRecord(id: app, name: app, identitySecret: "secret-\(app)", createdAt: Date(millisecondsSince1970: Self.now)))
            }
            _ = try await store.insertEvents(Self.events())
            let at = Date(millisecondsSince1970: Self.now - Self.day)
            _ = try await store.updateAttributes(app: "shop", user: "u4", ["codUser": .bool(true)], at: at, limit: 50)
            _ = try await store.updateAttributes(app: "shop", user: "u1", ["codUser": .bool(false)], at: at, limit: 50)
            _ = try await store.updateAttributes(app: "other", user: "u2", ["codUser": .bool(true)], at: at, limit: 50)
            try await body(store, try CatalogDocument.parse(Self.catalog, file: "test.yaml"))
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func membershipAtAMomentReadsTheHistoryAndAttributes(_ kind: StoreUnderTest) async throws {
        try await withHistory(kind) { store, catalog in
            let outcome = try await SegmentReplay(segments: catalog.segments).run(store: store, app: "shop", .at(Self.now))
            // u1, u2, u3 have events in the 90 days; u4 has attributes only; u5 is past the history.
            #expect(outcome.users == 4)
            #expect(outcome.members[0] == ["u1"], "u3's big purchase is past the 30 days; u2's is too small; u5's past the history")
            #expect(outcome.members[1] == ["u4"], "another app's attributes are not this app's")
            #expect(outcome.members[2] == ["u3"], "time alone made u3 lapsed: no activation in the last 7 days")
            // Forty days ago, u3 had just bought.
            let then = try await SegmentReplay(segments: catalog.segments).run(store: store, app: "shop", .at(Self.now - 39 * Self.day))
            #expect(then.members[0] == ["u3"])
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func membershipDuringAPeriodCountsItsActiveUsers(_ kind: StoreUnderTest) async throws {
        try await withHistory(kind) { store, catalog in
            let lastWeek = Period(from: Self.now - 7 * Self.day, to: Self.now)
            let week = try await SegmentReplay(segments: catalog.segments).run(store: store, app: "shop", .during(lastWeek))
            #expect(week.users == 2, "u1 and u2 had events in the week")
            #expect(week.members == [["u1"], [], []])
            // A period forty-one to thirty-two days ago: u3 bought in it, and went quiet for 7 days
            // within it. Lapsed held from the seventh day on, when u3 did not open the app: that
            // does not count, as no device would have seen it.
            let earlier = Period(from: Self.now - 41 * Self.day, to: Self.now - 32 * Self.day)
            let then = try await SegmentReplay(segments: catalog.segments).run(store: store, app: "shop", .during(earlier))
            #expect(then.users == 1)
            #expect(then.members == [["u3"], [], []])
        }
    }

    /// The live catalog's segments are kept day by day with its eligible counts: their members
    /// over a period of kept days are the replay's, and a breakdown reads them.
    @Test(arguments: StoreUnderTest.available)
    func keptDaysHoldTheLiveSegmentsMembers(_ kind: StoreUnderTest) async throws {
        try await withHistory(kind) { store, catalog in
            let eligibility = Eligibility(tips: catalog.tips, segments: catalog.segments, countingFrom: [])
            #expect(try await store.rollUp(app: "shop", before: Self.now, limit: 1000) == 4)
            #expect(try await eligibility.fold(store: store, app: "shop", limit: 1000) == 4)
            for period in [
                Period(from: Self.now - 7 * Self.day, to: Self.now), Period(from: Self.now - 41 * Self.day, to: Self.now - 32 * Self.day),
                Period(from: Self.now - 300 * Self.day, to: Self.now),
            ] {
                let kept = try #require(try await eligibility.segmentMembers(store: store, app: "shop", period: period, replaying: 0))
                let replayed = try await SegmentReplay(segments: catalog.segments).run(store: store, app: "shop", .during(period))
                #expect(catalog.segments.map { kept[$0.name] } == replayed.members, "\(period)")
            }
            let week = Period(from: Self.now - 7 * Self.day, to: Self.now)
            let groups = try await UserGroups(
                .segment(catalog.segments[0]), store: store, app: "shop", period: week, kept: (eligibility, store))
            #expect(groups.group(of: "u1") == "in segment:big-spenders")
            #expect(groups.group(of: "u2") == "not in segment:big-spenders")
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func theRefresherKeepsTheLiveHistorySegmentsMembers(_ kind: StoreUnderTest) async throws {
        try await withHistory(kind) { store, catalog in
            var logger = Logger(label: "test")
            logger.logLevel = .warning
            let refresher = SegmentRefresher(store: store, logger: logger, now: { Date(millisecondsSince1970: Self.now) })
            // Nothing is live yet: nothing to keep.
            #expect(try await refresher.refresh(app: "shop").isEmpty)
            _ = try await store.publish(
                app: "shop", document: CatalogDocument.yaml(catalog), at: Date(millisecondsSince1970: Self.now), note: nil,
                audit: { _ in [] })
            // Only the segments that read history are kept: cod-users is decided at delivery.
            #expect(try await refresher.refresh(app: "shop") == ["big-spenders": ["u1"], "lapsed": ["u3"]])
            #expect(try await store.segments(app: "shop", user: "u1") == ["big-spenders"])
            #expect(try await store.segments(app: "shop", user: "u3") == ["lapsed"])
            #expect(try await store.segments(app: "shop", user: "u4").isEmpty)
            #expect(try await store.segments(app: "other", user: "u1").isEmpty)
            // Once the live catalog's days are kept, the refresher starts from their states.
            let live = try #require(try await Eligibility.live(app: "shop", store: store))
            #expect(try await store.rollUp(app: "shop", before: Self.now, limit: 1000) == 4)
            #expect(try await live.fold(store: store, app: "shop", limit: 1000) == 4)
            #expect(try await live.segmentMembers(at: Self.now, store: store, app: "shop", replaying: 1) != nil)
            #expect(try await refresher.refresh(app: "shop") == ["big-spenders": ["u1"], "lapsed": ["u3"]])
            // A version without them leaves no members behind.
            let without = Catalog(tips: [])
            _ = try await store.publish(
                app: "shop", document: CatalogDocument.yaml(without), at: Date(millisecondsSince1970: Self.now), note: nil,
                audit: { _ in [] })
            #expect(try await refresher.refresh(app: "shop").isEmpty)
            #expect(try await store.segments(app: "shop", user: "u1").isEmpty)
        }
    }

    @Test(arguments: StoreUnderTest.available, ReportSource.available)
    func reportsBreakDownByAnAttributeOrASegment(_ kind: StoreUnderTest, _ source: ReportSource) async throws {
        try await withHistory(kind) { store, catalog in
            try await source.with(store, apps: ["shop"]) { read in try await breakDown(store, catalog, read) }
        }
    }

    /// What ``reportsBreakDownByAnAttributeOrASegment(_:_:)`` checks, on its store and source.
    func breakDown(_ store: any Store, _ catalog: Catalog, _ read: @escaping () async throws -> Analytics) async throws {
        // In the last week u1 (codUser false, a big spender) and u2 (no attribute) were shown
        // the tip, u2 acted on it; both opened the tour, only u1 read its first page; u1
        // answered the survey with 5, u2 with 2.
        var events: [StoredEvent] = []
        func add(_ user: String, _ name: String, _ target: String, _ members: [JSONMember]) {
            let time = Self.now - Self.day + Int64(events.count) * 1000
            events.append(
                StoredEvent(
                    app: "shop", id: EventID.make(milliseconds: time, number: 1000 + events.count), user: user, name: name,
                    target: target, timestamp: time, receivedAt: time, clamped: false, members: members))
        }
        for user in ["u1", "u2"] {
            add(user, "tip_shown", "t", [])
            add(user, "page_viewed", "one", [JSONMember(key: "tour", value: "welcome"), JSONMember(key: "page", value: "one")])
        }
        add("u2", "tip_dismissed", "t", [])
        add("u1", "page_read_to_bottom", "one", [JSONMember(key: "tour", value: "welcome"), JSONMember(key: "page", value: "one")])
        add("u1", Survey.answerEvent, "ask", [JSONMember(key: "score", value: .number("5"))])
        add("u2", Survey.answerEvent, "ask", [JSONMember(key: "score", value: .number("2"))])
        _ = try await store.insertEvents(events)
        let analytics = try await read()
        let week = Period(from: Self.now - 7 * Self.day, to: Self.now)

        let byAttribute = try await UserGroups(.attribute("codUser"), store: store, app: "shop", period: week)
        let tip = try await analytics.tip("t", app: "shop", period: week, by: byAttribute)
        #expect(tip.map(\.group) == ["(none)", "false"], "the most users first, then by name")
        #expect(tip.map(\.funnel) == [TipFunnel(shown: 1, acted: 1), TipFunnel(shown: 1)])

        let bySegment = try await UserGroups(.segment(catalog.segments[0]), store: store, app: "shop", period: week)
        #expect(bySegment.group(of: "u1") == "in segment:big-spenders")
        let split = try await analytics.tip("t", app: "shop", period: week, by: bySegment)
        #expect(split.map(\.group) == ["in segment:big-spenders", "not in segment:big-spenders"])
        #expect(split.map(\.funnel.acted) == [0, 1])

        let tour = Tour(
            id: "welcome", trigger: nil, pages: [TourPage(id: "one", content: Localized(Content(title: "One")))])
        let pages = try await analytics.tour(tour, app: "shop", period: week, by: bySegment)
        #expect(pages.map(\.group) == ["in segment:big-spenders", "not in segment:big-spenders"])
        #expect(pages.map { $0.report.pages[0].readToBottom } == [1, 0])
        #expect(pages.map { $0.report.pages[0].viewed } == [1, 1])

        let ask = CatalogTip(
            tip: Tip(id: "ask", container: "c", trigger: .constant(true)), content: Localized(Content(title: "How was it?")),
            survey: Survey(scale: .csat))
        let answers = try await analytics.survey(ask, app: "shop", period: week, by: byAttribute)
        #expect(answers.map(\.group) == ["(none)", "false"])
        #expect(answers.map(\.score.counts) == [[0, 1, 0, 0, 0], [0, 0, 0, 0, 1]])
    }

    /// The backtest and the eligibility debugger apply targeting as delivery would: with the
    /// attributes and segments it names.
    @Test(arguments: StoreUnderTest.available)
    func replaysOfTipsSeeTheUsersAttributesAndSegments(_ kind: StoreUnderTest) async throws {
        try await withHistory(kind) { store, catalog in
            let week = Period(from: Self.now - 7 * Self.day, to: Self.now)
            var cash = catalog.tips[0]
            cash.tip.id = "cash"
            cash.targeting = Targeting(rule: try Rule(parsing: "user.codUser == false"))
            let outcomes = try await Backtest(tips: [catalog.tips[0], cash], segments: catalog.segments).run(
                store: store, app: "shop", period: week)
            #expect(outcomes.map(\.users) == [1, 1], "u1 is the big spender, and the one whose codUser is false")
            #expect(outcomes.map(\.activeUsers) == [2, 2])
            let trace = try #require(
                try await Analytics(store: store).explain(app: "shop", catalog: catalog, user: "u1", tip: "t", period: week))
            #expect(trace.targeted)
            #expect(trace.context["segment.big-spenders"] == "true")
            let other = try await Analytics(store: store).explain(app: "shop", catalog: catalog, user: "u2", tip: "t", period: week)
            #expect(other?.targeted == false)
        }
    }
}
