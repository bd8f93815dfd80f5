import Foundation
import Testing
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkClickHouse
import WaymarkEngine
import WaymarkRules
import WaymarkSQLite
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// Where a report reads its tallies: the store of record, or ClickHouse holding a copy of the
/// store's events (as `waymark serve --analytics` has it). Either must give the same report.
enum ReportSource: String, CaseIterable, Sendable, CustomStringConvertible {
    case store
    case clickHouse

    static let available: [ReportSource] = ClickHouseDatabase.isAvailable ? allCases : [.store]
    var description: String { rawValue }

    /// Runs `body` with `read()`, which answers the analytics of the store from this source: for
    /// ClickHouse, once it has copied the apps' events stored so far (late ones too, which a
    /// backfill resuming after the last event copied would miss; none is stored twice).
    func with(_ store: any Store, apps: [String], _ body: (_ read: @escaping () async throws -> Analytics) async throws -> Void)
        async throws
    {
        switch self {
        case .store:
            try await body { Analytics(store: store) }
        case .clickHouse:
            try await ClickHouseDatabase.with { clickHouse, _ in
                try await body {
                    for app in apps { _ = try await ClickHouseTests.copy(app: app, from: store, to: clickHouse) }
                    return Analytics(store: ClickHouseReports(store: store, analytics: clickHouse))
                }
            }
        }
    }
}

/// Every report over a real SQLite database holding a small, hand-counted history, read from the
/// database and from ClickHouse.
@Suite(.timeLimit(.minutes(5))) struct AnalyticsTests {
    static let catalog = """
        tips:
          - id: search-tip
            container: home
            trigger: count(screen) >= 2
            dismissal: tap:search
            content: { title: Search }
            variants:
              - id: short
                content: { title: Search }
              - id: long
                content: { title: Looking for something? }
          - id: ios-tip
            container: cart
            trigger: tap:cart
            targeting: device.platform == "ios"
            content: { title: Checkout }
          - id: quiet-tip
            container: banner
            trigger: NOT tap within 1h
            content: { title: Still there? }
        tours:
          - id: welcome
            pages:
              - id: one
                content: { title: One }
              - id: two
                content: { title: Two }
                reward: 5
        """

    static let day0: Int64 = 1_790_000_000_000 - 1_790_000_000_000 % Period.day

    struct History {
        /// Where this history's event numbers start: histories added to the shared one start elsewhere.
        var firstNumber = 0
        var events: [StoredEvent] = []
        mutating func add(
            _ user: String, _ minute: Int64, _ name: String, _ target: String? = nil, platform: String, version: String,
            _ extra: [String: String] = [:]
        ) {
            var properties = ["platform": platform, "appVersion": version]
            properties.merge(extra) { $1 }
            let time = AnalyticsTests.day0 + minute * 60_000
            events.append(
                StoredEvent(
                    app: "shop", id: EventID.make(milliseconds: time, number: firstNumber + events.count), user: user, name: name,
                    target: target,
                    timestamp: time, receivedAt: time, clamped: false, properties: properties
                ))
        }
    }

    /// u1 on iOS sees search-tip (variant short) and then searches; u2 on Android searched before
    /// it could show; u3 on the web is shown it (variant long) and closes it; u1 also opens the cart
    /// (ios-tip) and reads the tour; on day 1, u2 comes back.
    static func history() -> [StoredEvent] {
        var h = History()
        h.add("u1", 0, "activation", platform: "ios", version: "1.2")
        h.add("u1", 1, "screen", "home", platform: "ios", version: "1.2")
        h.add("u1", 2, "screen", "list", platform: "ios", version: "1.2")
        h.add("u1", 2, "tip_shown", "search-tip", platform: "ios", version: "1.2", ["variant": "short"])
        h.add("u1", 3, "tap", "search", platform: "ios", version: "1.2")
        h.add("u1", 3, "tip_dismissed", "search-tip", platform: "ios", version: "1.2", ["variant": "short"])
        h.add("u1", 4, "tap", "cart", platform: "ios", version: "1.2")
        h.add("u1", 5, "page_viewed", "one", platform: "ios", version: "1.2", ["tour": "welcome", "page": "one"])
        h.add("u1", 6, "page_read_to_bottom", "one", platform: "ios", version: "1.2", ["tour": "welcome", "page": "one"])
        h.add("u1", 6, "page_viewed", "two", platform: "ios", version: "1.2", ["tour": "welcome", "page": "two"])
        h.add("u1", 6, "video_played", "intro", platform: "ios", version: "1.2", ["tour": "welcome", "page": "two"])
        h.add("u1", 7, "video_played", "intro", platform: "ios", version: "1.2", ["tour": "welcome", "page": "two"])
        h.add("u2", 0, "activation", platform: "android", version: "1.10")
        h.add("u2", 1, "screen", "home", platform: "android", version: "1.10")
        h.add("u2", 2, "tap", "search", platform: "android", version: "1.10")
        h.add("u2", 3, "screen", "list", platform: "android", version: "1.10")
        h.add("u2", 4, "tap", "cart", platform: "android", version: "1.10")
        h.add("u2", 5, "page_viewed", "one", platform: "android", version: "1.10", ["tour": "welcome", "page": "one"])
        h.add("u3", 10, "activation", platform: "web", version: "1.2")
        h.add("u3", 11, "screen", "home", platform: "web", version: "1.2")
        h.add("u3", 12, "screen", "list", platform: "web", version: "1.2")
        h.add("u3", 12, "tip_shown", "search-tip", platform: "web", version: "1.2", ["variant": "long"])
        h.add("u3", 13, "tip_closed", "search-tip", platform: "web", version: "1.2", ["variant": "long"])
        h.add("u3", 14, "tap", "logo", platform: "web", version: "1.2")
        h.add("u2", 1440 + 5, "activation", platform: "android", version: "1.10")
        h.add("u2", 1440 + 6, "activation", platform: "android", version: "1.10")
        return h.events
    }

    func withStore(_ body: (SQLiteStore, Catalog, Period) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-analytics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("waymark.sqlite").path)
        for app in ["shop", "other"] {
            try await store.createApp(
                AppRecord(id: app, name: app, identitySecret: "secret-\(app)", createdAt: Date(millisecondsSince1970: Self.day0)))
        }
        var events = Self.history()
        // Another app's events and events outside the period count nowhere.
        events.append(
            StoredEvent(
                app: "other", id: EventID.make(milliseconds: Self.day0, number: 2_000_001), user: "u9", name: "tip_shown",
                target: "search-tip", timestamp: Self.day0,
                receivedAt: Self.day0, clamped: false, properties: ["platform": "ios"]))
        events.append(
            StoredEvent(
                app: "shop", id: EventID.make(milliseconds: Self.day0 - 1, number: 2_000_002), user: "u9", name: "tip_shown",
                target: "search-tip", timestamp: Self.day0 - 1,
                receivedAt: Self.day0, clamped: false, properties: ["platform": "ios"]))
        _ = try await store.insertEvents(events)
        let grant = Grant(
            id: "g1", app: "shop", user: "u1", tour: "welcome", page: "two", credits: 5,
            grantedAt: Date(millisecondsSince1970: Self.day0 + 7 * 60_000))
        _ = try await store.claim(grant) { _ in grant.credits }
        let catalog = try CatalogDocument.parse(Self.catalog, file: "test.yaml")
        try await body(store, catalog, Period(from: Self.day0, to: Self.day0 + 2 * Period.day))
    }

    /// ``withStore(_:)``, with `read()` answering the analytics from the source.
    func withReports(
        _ source: ReportSource, _ body: (SQLiteStore, Catalog, Period, _ read: @escaping () async throws -> Analytics) async throws -> Void
    ) async throws {
        try await withStore { store, catalog, period in
            try await source.with(store, apps: ["shop", "other"]) { read in try await body(store, catalog, period, read) }
        }
    }

    @Test(arguments: ReportSource.available) func narrationListenersStandBesideTheTipsConversion(_ source: ReportSource) async throws {
        try await withReports(source) { store, catalog, period, read in
            var h = History(firstNumber: 1_000_000)
            h.add("u1", 2, "narration_played", "search-tip", platform: "ios", version: "1.2", ["source": "generated"])
            h.add("u1", 2, "narration_completed", "search-tip", platform: "ios", version: "1.2", ["source": "generated"])
            h.add("u1", 3, "narration_played", "search-tip", platform: "ios", version: "1.2", ["source": "generated"])
            h.add("u3", 12, "narration_played", "search-tip", platform: "web", version: "1.2", ["source": "browser"])
            // A tour page's narration names the page: it is no tip.
            h.add("u1", 5, "narration_played", "one", platform: "ios", version: "1.2", ["tour": "welcome", "page": "one"])
            _ = try await store.insertEvents(h.events)
            let reports = try await read().tips(app: "shop", catalog: catalog, period: period)
            #expect(reports.map(\.tip) == ["search-tip", "ios-tip", "quiet-tip"])
            #expect(reports[0].total == TipFunnel(eligible: 2, shown: 2, acted: 1, closed: 1, listened: 2, heardToTheEnd: 1))
            #expect(reports[0].total.listenRate == Proportion(2, of: 2))
            #expect(reports[0].byPlatform.map(\.funnel.listened) == [1, 1])
        }
    }

    @Test(arguments: ReportSource.available) func tipFunnelsByPlatformAndVersion(_ source: ReportSource) async throws {
        try await withReports(source) { store, catalog, period, read in
            let reports = try await read().tips(app: "shop", catalog: catalog, period: period)
            #expect(reports.map(\.tip) == ["search-tip", "ios-tip", "quiet-tip"])
            let search = reports[0]
            // u1 and u3 could see it, u2 searched first.
            #expect(search.total == TipFunnel(eligible: 2, shown: 2, acted: 1, closed: 1))
            #expect(search.total.conversion == Proportion(1, of: 2))
            #expect(
                search.byPlatform.map(\.platformVersion) == [
                    PlatformVersion(platform: "ios", appVersion: "1.2"), PlatformVersion(platform: "web", appVersion: "1.2"),
                ])
            #expect(
                search.byPlatform.map(\.funnel) == [
                    TipFunnel(eligible: 1, shown: 1, acted: 1), TipFunnel(eligible: 1, shown: 1, closed: 1),
                ])
            // Only iOS is targeted, though u2 also tapped the cart on Android.
            #expect(reports[1].total == TipFunnel(eligible: 1))
            // A rule made true by time alone: every user sat an hour without tapping at the end.
            #expect(reports[2].total.eligible == 3)
        }
    }

    @Test func backtestCountsWhoWouldHaveSeenItAndThenActed() async throws {
        try await withStore { store, catalog, period in
            let outcome = try await Backtest(tips: [catalog.tips[0]]).run(store: store, app: "shop", period: period)[0]
            #expect(outcome.activeUsers == 3)
            #expect(outcome.users == 2)
            #expect(outcome.acted == 1)
            #expect(outcome.alreadyDid == 1)
            #expect(outcome.byDay == [Self.day0: 2])
            #expect(outcome.medianSecondsToAct == 60)
            #expect(
                outcome.byPlatform == [
                    PlatformVersion(platform: "ios", appVersion: "1.2"): 1, PlatformVersion(platform: "web", appVersion: "1.2"): 1,
                ])
        }
    }

    /// Rules that compare what the device reports read it from each event's recorded context, as
    /// the device did: the app's version then, its platform, its locale.
    @Test func backtestReadsTheContextEachEventReported() async throws {
        try await withStore { store, _, period in
            var h = History(firstNumber: 4_000_000)
            // u4 updated the app between opening it and tapping the cart.
            h.add("u4", 20, "activation", platform: "android", version: "1.0", ["locale": "hi-IN"])
            h.add("u4", 21, "tap", "cart", platform: "android", version: "1.5", ["locale": "hi-IN"])
            _ = try await store.insertEvents(h.events)
            let tips = try CatalogDocument.parse(
                """
                tips:
                  - { id: recent, container: c, trigger: "tap:cart AND app.version >= v1.2", content: { title: a } }
                  - { id: android, container: c, trigger: 'tap:cart AND device.platform == "android"', content: { title: a } }
                  - { id: future, container: c, trigger: "tap:cart AND app.version >= v2.0", content: { title: a } }
                  - { id: updated, container: c, trigger: "activation THEN tap:cart AND app.version >= v1.5", content: { title: a } }
                  - { id: hindi, container: c, trigger: 'tap:cart AND user.locale in ["hi-IN"]', content: { title: a } }
                """, file: "context.yaml"
            ).tips
            let outcomes = try await Backtest(tips: tips).run(store: store, app: "shop", period: period)
            // u1 on iOS 1.2, u2 on Android 1.10 and u4 on Android 1.5 tapped the cart; u4 had 1.0
            // when the app opened and 1.5 by the tap, when the rule was true.
            #expect(outcomes.map(\.users) == [3, 2, 0, 2, 1])
        }
    }

    /// A live tip counts users only from when it was first published: u1 and u2 tapped the cart
    /// before it existed, and only u2 came back (day 1), when their device would have shown it.
    @Test func eligibilityCountsFromWhenATipWasPublished() async throws {
        try await withStore { store, _, period in
            let tip = try CatalogDocument.parse(
                "tips: [{ id: cart-tip, container: c, trigger: tap:cart, content: { title: a } }]", file: "cart.yaml"
            ).tips
            let always = try await Backtest(tips: tip).run(store: store, app: "shop", period: period)[0]
            #expect(always.users == 2, "a draft's backtest replays the whole period")
            let published = Self.day0 + 60 * 60_000
            let live = try await Backtest(tips: tip, countingFrom: [published]).run(store: store, app: "shop", period: period)[0]
            #expect(live.users == 1)
            #expect(live.byDay == [Self.day0 + Period.day: 1])
        }
    }

    /// The backtest gives the engine each stored event's properties as they were sent: a number
    /// compares as a number, and the text "799" is no number.
    @Test func backtestTestsEventsPropertiesByType() async throws {
        try await withStore { store, _, period in
            let tip = try CatalogDocument.parse(
                """
                tips:
                  - id: cod-tip
                    container: banner
                    trigger: purchase where amount >= 500 AND cod == true
                    content: { title: Keep cash ready }
                """, file: "cod.yaml"
            ).tips[0]
            let purchases = [("u1", JSONMember.Value.number("799")), ("u2", .text("799")), ("u3", .number("499"))].enumerated().map {
                let time = Self.day0 + Int64($0.offset) * 60_000
                return StoredEvent(
                    app: "shop", id: EventID.make(milliseconds: time, number: 3_000_000 + $0.offset), user: $0.element.0, name: "purchase",
                    target: nil, timestamp: time, receivedAt: time, clamped: false,
                    members: [JSONMember(key: "amount", value: $0.element.1), JSONMember(key: "cod", value: .bool(true))])
            }
            _ = try await store.insertEvents(purchases)
            let outcome = try await Backtest(tips: [tip]).run(store: store, app: "shop", period: period)[0]
            #expect(outcome.users == 1)
        }
    }

    @Test(arguments: ReportSource.available) func toursPageByPage(_ source: ReportSource) async throws {
        try await withReports(source) { store, catalog, period, read in
            let tours = try await read().tours(app: "shop", catalog: catalog, period: period)
            #expect(tours.count == 1)
            let pages = tours[0].pages
            #expect(pages.map(\.page) == ["one", "two"])
            #expect(pages.map(\.viewed) == [2, 1])
            #expect(pages.map(\.readToBottom) == [1, 0])
            #expect(pages.map(\.videoPlays) == [0, 2])
            #expect(pages.map(\.credits) == [0, 5])
            #expect(tours[0].reached(1) == Proportion(1, of: 2))
        }
    }

    @Test(arguments: ReportSource.available) func engagementByPlatformAndDay(_ source: ReportSource) async throws {
        try await withReports(source) { store, _, period, read in
            let report = try await read().engagement(app: "shop", period: period)
            #expect(report.platforms.map(\.platform) == ["android", "ios", "web"])
            #expect(report.platforms.map(\.users) == [1, 1, 1])
            #expect(report.platforms.map(\.sessions) == [3, 1, 1])
            #expect(report.platforms.map(\.events) == [8, 12, 6])
            #expect(report.ratio(report.platforms[1]) == 1)
            #expect(report.days.map(\.day) == [Self.day0, Self.day0, Self.day0, Self.day0 + Period.day])
            #expect(report.days.last == Engagement(platform: "android", day: Self.day0 + Period.day, users: 1, sessions: 2, events: 2))
        }
    }

    @Test(arguments: ReportSource.available) func experimentsPerVariant(_ source: ReportSource) async throws {
        try await withReports(source) { store, catalog, period, read in
            let experiments = try await read().experiments(app: "shop", catalog: catalog, period: period)
            #expect(experiments.map(\.tip) == ["search-tip"])
            #expect(experiments[0].arms.map(\.variant) == ["short", "long"])
            #expect(experiments[0].arms.map(\.conversion) == [Proportion(1, of: 1), Proportion(0, of: 1)])
            #expect(!experiments[0].enoughData)
            #expect(experiments[0].arms.allSatisfy { $0.pValue == nil })
        }
    }

    @Test(arguments: ReportSource.available) func eligibilityTraceExplainsOneUser(_ source: ReportSource) async throws {
        try await withReports(source) { store, catalog, period, read in
            let analytics = try await read()
            let u2 = try #require(try await analytics.explain(app: "shop", catalog: catalog, user: "u2", tip: "search-tip", period: period))
            #expect(u2.targeted)
            #expect(u2.explanation.phase == .finished(.dismissed))
            #expect(u2.steps.contains { $0.input == "tap:search" && $0.outcome == nil })
            let u1 = try #require(try await analytics.explain(app: "shop", catalog: catalog, user: "u1", tip: "search-tip", period: period))
            #expect(u1.steps.map(\.outcome).compactMap { $0 } == ["show in home", "hide in home (dismissed)"])
            #expect(u1.context == ["platform": "ios", "appVersion": "1.2"])
            #expect(u1.explanation.conditions.first { $0.label == "dismissal" }?.satisfied == false)
            #expect(u1.steps.first?.input == "context app.version=1.2 device.platform=ios user.id=u1")
            let android = try #require(
                try await analytics.explain(app: "shop", catalog: catalog, user: "u2", tip: "ios-tip", period: period))
            #expect(!android.targeted)
            #expect(try await analytics.explain(app: "shop", catalog: catalog, user: "u2", tip: "nope", period: period) == nil)
        }
    }

    /// The trace reads the attributes the server keeps for the user, as delivery and the device do.
    @Test(arguments: ReportSource.available) func eligibilityTraceReadsTheUsersAttributes(_ source: ReportSource) async throws {
        try await withReports(source) { store, catalog, period, read in
            let targeted = try CatalogDocument.parse(
                Self.catalog.replacingOccurrences(of: #"targeting: device.platform == "ios""#, with: #"targeting: user.plan == "plus""#),
                file: "catalog.yaml")
            let analytics = try await read()
            let before = try #require(
                try await analytics.explain(app: "shop", catalog: targeted, user: "u2", tip: "ios-tip", period: period))
            #expect(!before.targeted)
            _ = try await store.updateAttributes(app: "shop", user: "u2", ["plan": .string("plus")], at: Date(), limit: 50)
            let after = try #require(
                try await analytics.explain(app: "shop", catalog: targeted, user: "u2", tip: "ios-tip", period: period))
            #expect(after.targeted)
            #expect(after.context["user.plan"] == "plus")
            #expect(after.steps.first?.input.contains(#"user.plan=plus"#) == true, "\(after.steps.first?.input ?? "")")
        }
    }

    /// Each button of the catalog in its order with the users who pressed it and how often, a
    /// button whose destination was edited once per destination, and a button since removed last.
    @Test(arguments: ReportSource.available) func buttonPressesAndWhereTheyLed(_ source: ReportSource) async throws {
        try await withReports(source) { store, _, period, read in
            let catalog = try CatalogDocument.parse(
                """
                tips:
                  - id: order
                    container: c
                    trigger: tap
                    content: { title: Your order }
                    actions: [{ id: track, label: Track, route: /orders/track }, { id: later, label: Later, do: dismiss }]
                tours:
                  - id: guide
                    pages: [{ id: p1, content: { title: One }, actions: [{ id: skip, label: Skip, do: dismiss }] }]
                """, file: "buttons.yaml")
            var h = History(firstNumber: 3_000_000)
            func press(_ user: String, _ minute: Int64, tip: String, _ action: String, kind: String, to: String? = nil) {
                var properties = ["tip": tip, "action": action, "kind": kind]
                properties["to"] = to
                h.add(user, minute, "tip_action", tip, platform: "android", version: "2.0", properties)
            }
            press("a", 10, tip: "order", "track", kind: "route", to: "/orders/track")
            press("a", 11, tip: "order", "track", kind: "route", to: "/orders/track")
            press("b", 12, tip: "order", "track", kind: "route", to: "/orders/track")
            press("c", 13, tip: "order", "track", kind: "route", to: "/orders")
            press("d", 14, tip: "old-tip", "go", kind: "url", to: "https://example.com")
            h.add(
                "a", 15, "tour_action", "guide", platform: "web", version: "2.0",
                ["tour": "guide", "page": "p1", "action": "skip", "kind": "dismiss"])
            _ = try await store.insertEvents(h.events)
            let reports = try await read().actions(app: "shop", catalog: catalog, period: period)
            #expect(
                reports == [
                    ActionReport(owner: "order", page: nil, action: "track", kind: "route", to: "/orders/track", users: 2, presses: 3),
                    ActionReport(owner: "order", page: nil, action: "track", kind: "route", to: "/orders", users: 1, presses: 1),
                    ActionReport(owner: "order", page: nil, action: "later", kind: "dismiss", to: nil),
                    ActionReport(owner: "guide", page: "p1", action: "skip", kind: "dismiss", to: nil, users: 1, presses: 1),
                    ActionReport(owner: "old-tip", page: nil, action: "go", kind: "url", to: "https://example.com", users: 1, presses: 1),
                ])
        }
    }

    /// A hotspot's report counts the users who saw its marker and those who opened it.
    @Test(arguments: ReportSource.available) func hotspotsCountTheUsersWhoOpenedThem(_ source: ReportSource) async throws {
        try await withReports(source) { store, _, period, read in
            let catalog = try CatalogDocument.parse(
                "tips: [{ id: cart-help, container: c, anchor: cart, trigger: tap, renderer: hotspot, content: { title: Cart } }]\n",
                file: "hotspot.yaml")
            var h = History(firstNumber: 4_000_000)
            for (index, user) in ["a", "b", "c", "d"].enumerated() {
                h.add(user, Int64(10 + index), "tip_shown", "cart-help", platform: "web", version: "2.0", ["tip": "cart-help"])
            }
            h.add("a", 20, "hotspot_opened", "cart-help", platform: "web", version: "2.0", ["tip": "cart-help"])
            h.add("a", 21, "hotspot_opened", "cart-help", platform: "web", version: "2.0", ["tip": "cart-help"])
            h.add("c", 22, "hotspot_opened", "cart-help", platform: "web", version: "2.0", ["tip": "cart-help"])
            _ = try await store.insertEvents(h.events)
            let report = try #require(
                try await read().tips(app: "shop", catalog: catalog, period: period, eligible: .unknown).first)
            #expect(report.total.shown == 4 && report.total.opened == 2)
            #expect(report.total.openRate == Proportion(2, of: 4))
        }
    }

    /// A checklist's funnel item by item, its completions with their median time, and its credits.
    @Test(arguments: ReportSource.available) func checklistsCountEachItemAndTheTimeToComplete(_ source: ReportSource) async throws {
        try await withReports(source) { store, _, period, read in
            let catalog = try CatalogDocument.parse(
                """
                tips: []
                checklists:
                  - id: steps
                    content: { title: Steps }
                    reward: 10
                    items:
                      - { id: a, content: { title: A }, done: tap:a }
                      - { id: b, content: { title: B }, done: tap:b }
                """, file: "checklist.yaml")
            var h = History(firstNumber: 5_000_000)
            func done(_ user: String, _ minute: Int64, _ item: String) {
                h.add(user, minute, "checklist_item_done", "steps", platform: "web", version: "2.0", ["checklist": "steps", "item": item])
            }
            h.add("u1", 10, "checklist_opened", "steps", platform: "web", version: "2.0", ["checklist": "steps"])
            h.add("u2", 10, "checklist_opened", "steps", platform: "web", version: "2.0", ["checklist": "steps"])
            done("u1", 11, "a")
            done("u2", 11, "a")
            done("u3", 11, "a")
            done("u1", 12, "b")
            done("u2", 13, "b")
            done("u4", 13, "gone")
            h.add("u1", 12, "checklist_completed", "steps", platform: "web", version: "2.0", ["checklist": "steps", "seconds": "120"])
            h.add("u2", 13, "checklist_completed", "steps", platform: "web", version: "2.0", ["checklist": "steps", "seconds": "300"])
            _ = try await store.insertEvents(h.events)
            let report = try #require(try await read().checklists(app: "shop", catalog: catalog, period: period).first)
            #expect(report.opened == 2 && report.completed == 2)
            #expect(report.users == 4, "u3 and u4 did items without opening the panel")
            #expect(report.items.map(\.item) == ["a", "b", "gone"] && report.items.map(\.users) == [3, 2, 1])
            #expect(report.medianSeconds == 210)
            #expect(report.completion == Proportion(2, of: 3))
        }
    }

    /// The help launcher's opens and searches, what people looked for and did not find (however
    /// the SDK wrote the count), and the articles read.
    @Test(arguments: ReportSource.available) func helpCountsOpensSearchesAndWhatWasNotFound(_ source: ReportSource) async throws {
        try await withReports(source) { store, _, period, read in
            let catalog = try CatalogDocument.parse(
                "tips: []\narticles: [{ id: cod, content: { title: Cash } }, { id: returns, content: { title: Returns } }]\n",
                file: "help.yaml")
            var h = History(firstNumber: 6_000_000)
            func searched(_ user: String, _ minute: Int64, _ query: String, _ results: String) {
                h.add(user, minute, "help_searched", platform: "web", version: "2.0", ["query": query, "results": results])
            }
            h.add("u1", 1, "help_opened", platform: "web", version: "2.0", ["screen": "cart"])
            h.add("u1", 2, "help_opened", platform: "web", version: "2.0", ["screen": "home"])
            h.add("u2", 2, "help_opened", platform: "android", version: "2.0", ["screen": "cart"])
            searched("u1", 3, "gift wrap", "0")
            searched("u2", 3, "gift wrap", "0.0")
            searched("u2", 4, "gift wrap", "0")
            searched("u1", 5, "cash", "1")
            searched("u1", 6, "emi", "0")
            h.add("u1", 7, "article_opened", "cod", platform: "web", version: "2.0", ["article": "cod"])
            _ = try await store.insertEvents(h.events)
            let report = try await read().help(app: "shop", catalog: catalog, period: period)
            #expect(report.opened == 3 && report.openedUsers == 2 && report.searches == 5 && report.searchers == 2)
            #expect(report.unanswered.map(\.query) == ["gift wrap", "emi"] && report.unanswered.map(\.searches) == [3, 1])
            #expect(report.articles.map(\.article) == ["cod", "returns"] && report.articles.map(\.users) == [1, 0])
        }
    }

    /// NPS answers by platform and version, comments newest first, and answers off the scale
    /// counted apart; CSAT's figure is the share of 4 and 5.
    @Test(arguments: ReportSource.available) func surveyAnswersAndComments(_ source: ReportSource) async throws {
        try await withReports(source) { store, catalog, period, read in
            var catalog = catalog
            catalog.tips += try CatalogDocument.parse(
                """
                tips:
                  - { id: nps, container: c, trigger: tap, survey: { scale: nps, comment: true }, content: { title: Recommend us? } }
                  - { id: csat, container: d, trigger: tap, survey: { scale: csat }, content: { title: Happy? } }
                """, file: "surveys.yaml"
            ).tips
            #expect(catalog.tips[3].tip.dismissal?.description == "survey_answered:nps")
            var h = History(firstNumber: 1_000_000)
            func answer(
                _ user: String, _ minute: Int64, _ score: String, _ platform: String, _ version: String, _ comment: String? = nil,
                tip: String = "nps"
            ) {
                var properties = ["tip": tip, "score": score]
                properties["comment"] = comment
                h.add(user, minute, "survey_answered", tip, platform: platform, version: version, properties)
            }
            answer("s1", 20, "10", "ios", "1.2", "Great")
            answer("s2", 21, "9", "android", "1.10")
            answer("s3", 22, "3", "web", "1.2", "Too slow")
            answer("s4", 23, "7", "web", "1.2", "  ")
            answer("s5", 24, "11", "web", "1.2")
            answer("s6", 25, "abc", "web", "1.2")
            answer("s7", 26, "5", "web", "1.2", tip: "gone")
            answer("s1", 1440 + 20, "6", "ios", "1.2", "Worse today")
            _ = try await store.insertEvents(h.events)

            let reports = try await read().surveys(app: "shop", catalog: catalog, period: period)
            #expect(reports.map(\.tip) == ["nps", "csat"])
            let nps = reports[0]
            #expect(nps.total.counts == [0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1])
            #expect(nps.total.answers == 5)
            #expect(nps.total.mean == 7)
            #expect(nps.total.satisfied == Proportion(2, of: 5))
            #expect(nps.total.detractors == Proportion(2, of: 5))
            #expect(nps.total.score == 0)
            #expect(nps.discarded == 2)
            #expect(
                nps.byPlatform.map(\.platformVersion) == [
                    PlatformVersion(platform: "android", appVersion: "1.10"), PlatformVersion(platform: "ios", appVersion: "1.2"),
                    PlatformVersion(platform: "web", appVersion: "1.2"),
                ])
            #expect(nps.byPlatform.map(\.score.score) == [100, 0, -50])
            #expect(nps.comments.map(\.text) == ["Worse today", "Great", "Too slow"])
            #expect(
                nps.comments[0]
                    == SurveyComment(
                        day: Self.day0 + Period.day, platformVersion: PlatformVersion(platform: "ios", appVersion: "1.2"), score: 6,
                        text: "Worse today",
                        times: 1))
            #expect(reports[1].total.answers == 0)
            #expect(reports[1].total.score == nil)
            #expect(reports[1].byPlatform.isEmpty)

            var csat = SurveyScore(scale: .csat)
            csat.counts = [0, 1, 0, 2, 1]
            #expect(csat.score == 75)
            #expect(csat.mean == 3.75)
            #expect(csat.detractors == nil)
        }
    }
}
