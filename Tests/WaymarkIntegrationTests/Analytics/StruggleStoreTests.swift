import Foundation
import Logging
import Testing
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkDelivery
import WaymarkEngine
import WaymarkRules
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// Where people get lost, over each real store: the refresher reads each day's events once it is
/// settled and today's now and then, keeps what it found, and a page tallies it without reading
/// events; erasing a user takes their signs.
@Suite(.timeLimit(.minutes(5))) struct StruggleStoreTests {
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var time: Date
        init(_ time: Date) { self.time = time }
        var now: Date { lock.withLock { time } }
        func advance(_ seconds: TimeInterval) { lock.withLock { time += seconds } }
    }

    /// Yesterday and today, 2026-11-28 noon UTC.
    static let today: Int64 = 1_795_824_000_000
    static let noon = today + 12 * 3_600_000
    static let yesterday = today - Period.day

    /// Two days of events: three users, two of them lost, on `today` (its midnight) and the day before.
    static func events(app: String, today: Int64 = today) -> [StoredEvent] {
        var events: [StoredEvent] = []
        func add(_ user: String, _ name: String, _ target: String?, at time: Int64, _ extra: [String: String] = [:]) {
            events.append(
                StoredEvent(
                    app: app, id: EventID.make(milliseconds: time, number: events.count), user: user, name: name, target: target,
                    timestamp: time, receivedAt: time, clamped: false,
                    properties: ["platform": user == "c" ? "ios" : "android", "locale": user == "b" ? "hi-IN" : "en-IN"].merging(extra) {
                        $1
                    }
                ))
        }
        // Yesterday: a taps "pay" on the cart four times in a second before it answers; b searches
        // the help in Hindi and finds nothing.
        var t = today - Period.day + 10 * 3_600_000
        add("a", "screen", "cart", at: t)
        for step in 1...4 { add("a", "tap", "pay", at: t + Int64(step) * 250 + 5_000) }
        add("a", "screen", "paid", at: t + 6_500)
        add("b", "screen", "orders", at: t + 60_000)
        add("b", "help_searched", nil, at: t + 70_000, ["query": "ऑर्डर रद्द", "results": "0", "screen": "orders"])
        // Today, before noon: c does the same as a.
        t = today + 9 * 3_600_000
        add("c", "screen", "cart", at: t)
        for step in 1...3 { add("c", "tap", "pay", at: t + Int64(step) * 300 + 5_000) }
        add("c", "screen", "paid", at: t + 7_000)
        return events
    }

    @Test(arguments: StoreUnderTest.available)
    func theRefresherKeepsEachDaysSignsAndAPageTalliesThem(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await store.createApp(
                AppRecord(id: "shop", name: "Shop", identitySecret: "s", createdAt: Date(millisecondsSince1970: Self.yesterday)))
            _ = try await store.insertEvents(Self.events(app: "shop"))
            let clock = Clock(Date(millisecondsSince1970: Self.noon))
            let refresher = StruggleRefresher(store: store, logger: Logger(label: "test"), now: { clock.now })

            #expect(try await refresher.refresh(app: "shop") == 30, "every day of the last 30 looked at once")
            let days = try await store.struggleDays(app: "shop")
            #expect(days.count == 30 && days[Self.today] == Self.noon)

            let period = Period(from: Self.yesterday, to: Self.today + Period.day)
            let totals = try await store.struggleTally(app: "shop", period: period, by: [])
            #expect(
                totals.map { "\($0.signal.rawValue) \($0.screen) \($0.element) \($0.occurrences)/\($0.users)/\($0.visits)" } == [
                    "rage_taps cart pay 2/2/2", "failed_search orders help_searched 1/1/1",
                ])
            let byDay = try await store.struggleTally(app: "shop", period: period, by: [.day])
            let rageDays: [String] = byDay.filter { $0.signal == .rageTaps }.map { $0.keys[0] }.sorted()
            let expectedDays: [String] = [String(Self.yesterday), String(Self.today)]
            #expect(rageDays == expectedDays)
            let byPlace = try await store.struggleTally(app: "shop", period: period, by: [.platform, .locale])
            #expect(
                Set(byPlace.map { "\($0.signal.rawValue) \($0.keys)" }) == [
                    "rage_taps [\"android\", \"en-IN\"]", "rage_taps [\"ios\", \"en-IN\"]", "failed_search [\"android\", \"hi-IN\"]",
                ])
            let examples = try await store.struggleExamples(
                app: "shop", signal: .rageTaps, screen: "cart", element: "pay", period: period, limit: 10)
            #expect(examples.map(\.user) == ["c", "a"], "newest first")
            let search = try await store.struggleExamples(
                app: "shop", signal: .failedSearch, screen: "orders", element: "help_searched", period: period, limit: 10)
            #expect(search.first?.query == "ऑर्डर रद्द" && search.first?.locale == "hi-IN")

            // Yesterday is settled; today is looked at again only after a quarter of an hour.
            #expect(try await refresher.refresh(app: "shop") == 0)
            clock.advance(16 * 60)
            #expect(try await refresher.refresh(app: "shop") == 1)

            // Erasing a user takes their signs with their events.
            _ = try await store.eraseUser(
                app: "shop", user: "c",
                audit: { _ in
                    AuditEntry(app: "shop", actor: .cli, at: clock.now, action: .userErase, object: "user", before: nil, after: nil)
                },
                notice: { _ in nil })
            #expect(try await store.struggleTally(app: "shop", period: period, by: []).first?.users == 1)

            // A month on, the old days go.
            clock.advance(40 * 86_400)
            _ = try await refresher.refresh(app: "shop")
            #expect(try await store.struggleTally(app: "shop", period: period, by: []).isEmpty)
            #expect(try await store.struggleDays(app: "shop").keys.min()! > Self.today)
        }
    }
}

extension StruggleStoreTests {
    /// The refresher reads each app's thresholds from its live catalog: with `rageTaps: 4`, three
    /// taps in a row are no longer a sign.
    @Test(arguments: StoreUnderTest.available)
    func anAppsOwnThresholdsDecideItsSigns(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await store.createApp(
                AppRecord(id: "shop", name: "Shop", identitySecret: "s", createdAt: Date(millisecondsSince1970: Self.yesterday)))
            _ = try await store.insertEvents(Self.events(app: "shop"))
            _ = try await store.publish(
                app: "shop", document: "struggles: { rageTaps: 4 }\ntips: []\n", at: Date(millisecondsSince1970: Self.yesterday),
                note: nil, audit: { _ in [] }, notice: { _ in nil })
            let refresher = StruggleRefresher(store: store, logger: Logger(label: "test"), now: { Date(millisecondsSince1970: Self.noon) })
            for day in [Self.yesterday, Self.today] { try await refresher.look(app: "shop", day: day) }
            let rage = try await store.struggleUsers(
                app: "shop", signal: .rageTaps, screen: "cart", element: "pay", period: Period(from: Self.yesterday, to: Self.noon))
            #expect(rage == ["a"], "a tapped four times, c three")
        }
    }
}

/// Whether a published tip helped: the sign's share of a screen's users before and after the tip,
/// and after it, among the users its rollout includes against those it holds out.
@Suite(.timeLimit(.minutes(5))) struct TipEffectTests {
    @Test(arguments: StoreUnderTest.available)
    func aTipsEffectComparesItsRolloutWithItsHoldout(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            let published = StruggleStoreTests.today - 3 * Period.day
            try await store.createApp(
                AppRecord(
                    id: "shop", name: "Shop", identitySecret: "s", createdAt: Date(millisecondsSince1970: published - 30 * Period.day)))
            let rollout = Targeting(rollout: 50)
            var events: [StoredEvent] = []
            func visit(_ user: String, at time: Int64, rage: Bool) {
                var t = time
                func add(_ name: String, _ target: String) {
                    events.append(
                        StoredEvent(
                            app: "shop", id: EventID.make(milliseconds: t, number: events.count), user: user, name: name, target: target,
                            timestamp: t, receivedAt: t, clamped: false, properties: ["platform": "android"]))
                }
                add("screen", "cart")
                t += 5_000
                for _ in 0..<(rage ? 3 : 1) {
                    add("tap", "pay")
                    t += 300
                }
                t += 500
                add("screen", "paid")
            }
            // Before: 6 of 10 users tap pay again and again. After: the rollout's users with
            // variant a do not, one in three with variant b still do; the users it holds out
            // still do, one in two.
            let variants = [
                Variant(id: "a", content: Localized(Content(title: "Wait a moment"))),
                Variant(id: "b", content: Localized(Content(title: "It is on its way"))),
            ]
            for number in 0..<10 { visit("before-\(number)", at: published - 2 * Period.day + Int64(number) * 60_000, rage: number < 6) }
            var (with, without, withoutRage) = (0, 0, 0)
            var variantUsers: [String: Int] = [:]
            var variantRage: [String: Int] = [:]
            for number in 0..<60 {
                let user = "after-\(number)"
                let included = Resolver.admits(rollout, id: "pay-help", context: [:], user: user)
                let variant = Resolver.assign(variants, id: "pay-help", user: user)!.id
                let rage = included ? variant == "b" && number % 3 == 0 : number % 2 == 0
                if included {
                    with += 1
                    variantUsers[variant, default: 0] += 1
                    if rage { variantRage[variant, default: 0] += 1 }
                } else {
                    without += 1
                    if rage { withoutRage += 1 }
                }
                visit(user, at: published + Period.day + Int64(number) * 60_000, rage: rage)
            }
            _ = try await store.insertEvents(events)
            let refresher = StruggleRefresher(
                store: store, logger: Logger(label: "test"), now: { Date(millisecondsSince1970: StruggleStoreTests.noon) })
            #expect(try await refresher.refresh(app: "shop") == 30)

            let tip = CatalogTip(
                tip: Tip(id: "pay-help", container: "cart", anchor: "pay", trigger: try Rule(parsing: "count(tap:pay) >= 3 within 3s")),
                content: Localized(Content(title: "Wait a moment")), targeting: rollout, variants: variants)
            let problem = Problem(
                signal: .rageTaps, screen: "cart", element: "pay", occurrences: 0, users: 0, visits: 0, earlier: 0, later: 0, locales: [],
                platforms: [], addressedBy: ["pay-help"])
            let effect = try await TipEffect.measure(
                problem, tip: tip, published: published, now: StruggleStoreTests.noon, store: store, app: "shop")
            #expect(effect.holdout)
            #expect(effect.before == Proportion(6, of: 10))
            let withRage = variantRage["b", default: 0]
            #expect(effect.after == Proportion(withoutRage + withRage, of: 60))
            #expect(effect.with == Proportion(withRage, of: with))
            #expect(effect.without == Proportion(withoutRage, of: without))
            // The rollout's users by their A/B variant: b's words helped less.
            #expect(
                effect.variants == [
                    TipEffect.Variant(id: "a", share: Proportion(0, of: variantUsers["a", default: 0])),
                    TipEffect.Variant(id: "b", share: Proportion(withRage, of: variantUsers["b", default: 0])),
                ])
            #expect(withRage > 0 && variantUsers["a", default: 0] > 5, "\(variantUsers) \(variantRage)")
            #expect(min(with, without) > 15, "the rollout splits the 60 users about in half: \(with) and \(without)")
            #expect((effect.pValue ?? 1) < 0.05)
        }
    }
}

extension StruggleStoreTests {
    /// A problem's users by segment, from what is kept: the refresher's members of a segment that
    /// reads history, and the users' attributes for one of attributes alone.
    @Test(arguments: StoreUnderTest.available)
    func aProblemsUsersAreCountedBySegment(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await store.createApp(
                AppRecord(id: "shop", name: "Shop", identitySecret: "s", createdAt: Date(millisecondsSince1970: Self.yesterday)))
            _ = try await store.insertEvents(Self.events(app: "shop"))
            let refresher = StruggleRefresher(store: store, logger: Logger(label: "test"), now: { Date(millisecondsSince1970: Self.noon) })
            _ = try await refresher.refresh(app: "shop")
            try await store.replaceSegmentMembers(app: "shop", ["buyers": ["a", "b"], "gone": ["z"]])
            #expect(try await store.segmentMembers(app: "shop") == ["buyers": ["a", "b"], "gone": ["z"]])
            _ = try await store.updateAttributes(
                app: "shop", user: "c", ["plan": .string("pro")], at: Date(millisecondsSince1970: Self.noon), limit: 50)
            let segments = [
                Segment(name: "buyers", rule: try Rule(parsing: "count(tap:pay) >= 1 within 7d")),
                Segment(name: "pro", rule: try Rule(parsing: "user.plan == \"pro\"")),
                Segment(name: "free", rule: try Rule(parsing: "user.plan == \"free\"")),
            ]
            let period = Period(from: Self.yesterday, to: Self.today + Period.day)
            let problem = try #require(try await Problems(store: store).list(app: "shop", catalog: nil, period: period).first)
            #expect(problem.signal == .rageTaps && problem.users == 2, "a and c")
            let shares = try await Problems.segments(
                of: problem, segments: segments, store: store, app: "shop", period: period, now: Self.noon)
            #expect(
                shares == [
                    SegmentShare(segment: "buyers", users: 1, members: 2), SegmentShare(segment: "pro", users: 1, members: 1),
                    SegmentShare(segment: "free", users: 0, members: 0),
                ])
        }
    }
}
