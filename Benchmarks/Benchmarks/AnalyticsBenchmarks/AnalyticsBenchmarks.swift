import Benchmark
import Foundation
import Logging
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkSQLite
import WaymarkStore
import WaymarkSupport

/// The console's analytics over a SQLite database of one million events: 20,000 users on three
/// platforms over 30 days, a tenth of the events from tips. Each benchmark is one page's reads.
/// Target: fast with a million events; docs/performance.md states the times.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock],
        timeUnits: .milliseconds,
        maxDuration: .seconds(30),
        maxIterations: 10
    )

    let catalog = try! CatalogDocument.parse(
        """
        segments:
          - { name: shoppers, rule: 'count(tap:add-to-cart) >= 3 within 7d' }
          - { name: browsers, rule: 'screen:product AND NOT tap:checkout within 14d' }
        tips:
          - id: search-tip
            container: home
            trigger: count(screen:home) >= 2 within 1d
            dismissal: tap:search
            content: { title: Search }
            variants:
              - { id: a, content: { title: Search } }
              - { id: b, content: { title: Find } }
          - id: cart-tip
            container: product
            trigger: screen:product THEN screen:product within 10m
            dismissal: tap:add-to-cart
            targeting: device.platform in ["ios", "android"]
            content: { title: Cart }
          - id: checkout-tip
            container: cart
            trigger: count(tap:add-to-cart) >= 3 within 7d
            dismissal: tap:checkout
            content: { title: Checkout }
        tours:
          - id: tour
            pages:
              - { id: one, content: { title: One } }
              - { id: two, content: { title: Two } }
        """, file: "bench")
    let (store, period) = try! makeDatabase(events: 1_000_000)
    let analytics = Analytics(store: store)

    Benchmark("Engagement by platform and day, 30 days, 1M events") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try await analytics.engagement(app: "bench", period: period)) }
    }
    Benchmark("Tip funnels by platform and version with the eligible replay, 30 days, 1M events") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try await analytics.tips(app: "bench", catalog: catalog, period: period)) }
    }
    Benchmark("Reading the 1M events of 30 days in replay order, no replay") { benchmark in
        for _ in benchmark.scaledIterations {
            var count = 0
            try await store.forEachEvent(app: "bench", period: period) { _ in count += 1 }
            blackHole(count)
        }
    }
    Benchmark("Tip event counts only (no replay), 30 days, 1M events") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                try await store.tally(
                    app: "bench",
                    TallyQuery(period: period, names: ["tip_shown", "tip_dismissed", "tip_closed"], by: [.target, .platform, .appVersion])))
        }
    }
    Benchmark("Tour funnel and A/B tests, 30 days, 1M events") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await analytics.tours(app: "bench", catalog: catalog, period: period))
            blackHole(try await analytics.experiments(app: "bench", catalog: catalog, period: period))
        }
    }
    Benchmark("Backtest of one tip over 7 days of a 1M-event database") { benchmark in
        let week = Period(from: period.to - 7 * Period.day, to: period.to)
        for _ in benchmark.scaledIterations {
            blackHole(try await Backtest(tips: [catalog.tips[0]]).run(store: store, app: "bench", period: week))
        }
    }
    Benchmark("Segment refresh: two history segments at a moment, 1M events (30 days of the 90 read)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await SegmentReplay(segments: catalog.segments).run(store: store, app: "bench", .at(period.to)))
        }
    }
    Benchmark("Tip funnel by a segment (its replay and the per-user tally), 30 days, 1M events") { benchmark in
        for _ in benchmark.scaledIterations {
            let groups = try await UserGroups(.segment(catalog.segments[0]), store: store, app: "bench", period: period)
            blackHole(try await analytics.tip("search-tip", app: "bench", period: period, by: groups))
        }
    }
    // Where people get lost: the background refresher's work, and the page that reads what it kept.
    let refresher = StruggleRefresher(store: store, logger: Logger(label: "bench"), now: { Date(millisecondsSince1970: period.to) })
    Benchmark("Struggles: one day of a 1M-event database read, its signs found and kept (about 33,000 events)") { benchmark in
        for _ in benchmark.scaledIterations { try await refresher.look(app: "bench", day: period.to - Period.day) }
    }
    Benchmark("Struggles: all 30 days of a 1M-event database read, their signs found and kept") { benchmark in
        for _ in benchmark.scaledIterations {
            for day in stride(from: period.from, to: period.to, by: Int(Period.day)) { try await refresher.look(app: "bench", day: day) }
        }
    }
    Benchmark("Where people get lost: the problems of 30 days, from the kept signs of 1M events") { benchmark in
        for day in stride(from: period.from, to: period.to, by: Int(Period.day)) { try await refresher.look(app: "bench", day: day) }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await Problems(store: store).list(app: "bench", catalog: catalog, period: period))
        }
    }
    Benchmark("Eligibility debugger for one user, 1M events") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await analytics.explain(app: "bench", catalog: catalog, user: "user-77", tip: "search-tip", period: period))
        }
    }
}

/// The benchmark database's directory, removed when the process exits (a quarter of a gigabyte a run).
nonisolated(unsafe) var databaseDirectory: String?

/// A fresh database in a temporary directory with `events` events spread over 30 days.
func makeDatabase(events count: Int) throws -> (SQLiteStore, Period) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-analytics-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    databaseDirectory = directory.path
    atexit { if let path = databaseDirectory { try? FileManager.default.removeItem(atPath: path) } }
    let store = try SQLiteStore(path: directory.appendingPathComponent("waymark.sqlite").path)
    let end: Int64 = 1_790_000_000_000 - 1_790_000_000_000 % Period.day
    let start = end - 30 * Period.day
    let names: [(String, String?)] = [
        ("activation", nil), ("screen", "home"), ("screen", "product"), ("screen", "cart"), ("tap", "search"), ("tap", "add-to-cart"),
        ("tap", "checkout"), ("scroll", nil), ("tap", "reviews"), ("screen", "search"),
    ]
    let tipNames = ["tip_shown", "tip_dismissed", "tip_closed"]
    let tips = ["search-tip", "cart-tip", "checkout-tip"]
    var state: UInt64 = 42
    func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
    let semaphore = DispatchSemaphore(value: 0)
    let batches = count / 10_000
    Task {
        try await store.createApp(
            AppRecord(id: "bench", name: "Bench", identitySecret: "secret", createdAt: Date(millisecondsSince1970: start)))
        for batch in 0..<batches {
            var events: [StoredEvent] = []
            events.reserveCapacity(10_000)
            for index in 0..<10_000 {
                let number = batch * 10_000 + index
                // Time grows with the id, as UUIDv7 ids do.
                let time = start + Int64(number) * (30 * Period.day) / Int64(count)
                let user = next(20_000)
                let platform = ["ios", "android", "web"][user % 3]
                let version = ["1.2", "1.3", "1.4"][user % 5 % 3]
                var properties = ["appVersion": version, "platform": platform]
                let name: String
                let target: String?
                if next(10) == 0 {
                    name = tipNames[next(3)]
                    target = tips[next(3)]
                    properties["tip"] = target
                    properties["variant"] = ["a", "b"][user % 2]
                } else {
                    (name, target) = names[next(names.count)]
                }
                events.append(
                    StoredEvent(
                        app: "bench", id: EventID.make(milliseconds: time, number: number), user: "user-\(user)", name: name,
                        target: target, timestamp: time,
                        receivedAt: time, clamped: false, properties: properties
                    ))
            }
            _ = try await store.insertEvents(events)
        }
        semaphore.signal()
    }
    semaphore.wait()
    return (store, Period(from: start, to: end))
}
