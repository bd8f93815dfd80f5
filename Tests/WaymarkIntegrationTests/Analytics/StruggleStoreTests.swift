import Foundation
import Logging
import Testing
import WaymarkAnalytics
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
            #expect(
                byDay.filter { $0.signal == .rageTaps }.map(\.keys).sorted { $0[0] < $1[0] } == [["\(Self.yesterday)"], ["\(Self.today)"]])
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
