import Benchmark
import Foundation
import Logging
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkPostgres
import WaymarkSQLite
import WaymarkStore
import WaymarkSupport

/// The console's analytics over a SQLite database of one million events: 20,000 users on three
/// platforms over 30 days, a tenth of the events from tips. Each benchmark is one page's reads.
/// Target: fast with a million events; docs/performance.md states the times.
///
/// `WAYMARK_BENCH_EVENTS=10000000` makes the database that large (users grow with it: one per 50
/// events), and `WAYMARK_BENCH_POSTGRES=postgres://…` fills that empty database in place of SQLite
/// (`scripts/postgres-cluster start DIR` makes one). The benchmarks' names say which they measured.
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
    let scale = Scale.fromEnvironment()
    let (size, on) = (scale.size, scale.on)
    let (store, period) = try! makeDatabase(scale)
    let analytics = Analytics(store: store)

    Benchmark("Engagement by platform and day, 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try await analytics.engagement(app: "bench", period: period)) }
    }
    Benchmark("Tip funnels by platform and version with the eligible replay, 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try await analytics.tips(app: "bench", catalog: catalog, period: period)) }
    }
    Benchmark("Reading the \(size) events of 30 days in replay order, no replay\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            var count = 0
            try await store.forEachEvent(app: "bench", period: period) { _ in count += 1 }
            blackHole(count)
        }
    }
    // The reports' tallies read the days folded into rollups; beside them, the same tallies read
    // from the events, as they were before rollups (the yardstick).
    Benchmark("Engagement's four tallies from the events (yardstick), 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            for query in engagementQueries(period) {
                var query = query
                query.fromEvents = true
                blackHole(try await store.tally(app: "bench", query))
            }
        }
    }
    Benchmark("Tip event counts only (no replay), 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                try await store.tally(
                    app: "bench",
                    TallyQuery(period: period, names: ["tip_shown", "tip_dismissed", "tip_closed"], by: [.target, .platform, .appVersion])))
        }
    }
    Benchmark("Tip event counts only from the events (yardstick), 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                try await store.tally(
                    app: "bench",
                    TallyQuery(
                        period: period, names: ["tip_shown", "tip_dismissed", "tip_closed"], by: [.target, .platform, .appVersion],
                        fromEvents: true)))
        }
    }
    // A late event unfolds its day; the folder folds it again.
    Benchmark("Folding one day again after a late event, \(size) events\(on)") { benchmark in
        for iteration in benchmark.scaledIterations {
            let day = period.to - Period.day
            let late = StoredEvent(
                app: "bench", id: EventID.make(at: Date()), user: "user-late", name: "tap", target: "late",
                timestamp: day + Int64(iteration),
                receivedAt: period.to, clamped: false, properties: ["platform": "web"])
            _ = try await store.insertEvents([late])
            benchmark.startMeasurement()
            blackHole(try await store.rollUp(app: "bench", before: period.to, limit: 1))
            benchmark.stopMeasurement()
        }
    }
    Benchmark("Tour funnel and A/B tests, 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await analytics.tours(app: "bench", catalog: catalog, period: period))
            blackHole(try await analytics.experiments(app: "bench", catalog: catalog, period: period))
        }
    }
    Benchmark("Backtest of one tip over 7 days of a \(size)-event database\(on)") { benchmark in
        let week = Period(from: period.to - 7 * Period.day, to: period.to)
        for _ in benchmark.scaledIterations {
            blackHole(try await Backtest(tips: [catalog.tips[0]]).run(store: store, app: "bench", period: week))
        }
    }
    Benchmark("Segment refresh: two history segments at a moment, \(size) events (30 days of the 90 read)\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await SegmentReplay(segments: catalog.segments).run(store: store, app: "bench", .at(period.to)))
        }
    }
    Benchmark("Tip funnel by a segment (its replay and the per-user tally), 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            let groups = try await UserGroups(.segment(catalog.segments[0]), store: store, app: "bench", period: period)
            blackHole(try await analytics.tip("search-tip", app: "bench", period: period, by: groups))
        }
    }
    // Where people get lost: the background refresher's work, and the page that reads what it kept.
    let refresher = StruggleRefresher(store: store, logger: Logger(label: "bench"), now: { Date(millisecondsSince1970: period.to) })
    Benchmark("Struggles: one day of a \(size)-event database read, its signs found and kept\(on)") { benchmark in
        for _ in benchmark.scaledIterations { try await refresher.look(app: "bench", day: period.to - Period.day) }
    }
    Benchmark("Struggles: all 30 days of a \(size)-event database read, their signs found and kept\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            for day in stride(from: period.from, to: period.to, by: Int(Period.day)) { try await refresher.look(app: "bench", day: day) }
        }
    }
    Benchmark("Where people get lost: the problems of 30 days, from the kept signs of \(size) events\(on)") { benchmark in
        // The days not kept yet (on a database reused from an earlier run, none).
        let kept = try await store.struggleDays(app: "bench")
        for day in stride(from: period.from, to: period.to, by: Int(Period.day)) where kept[day] == nil {
            try await refresher.look(app: "bench", day: day)
        }
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await Problems(store: store).list(app: "bench", catalog: catalog, period: period))
        }
    }
    Benchmark("Eligibility debugger for one user, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await analytics.explain(app: "bench", catalog: catalog, user: "user-77", tip: "search-tip", period: period))
        }
    }
}

/// How large the benchmark database is and where it is kept.
struct Scale {
    var events = 1_000_000
    /// An empty PostgreSQL database to fill, or nil for SQLite in a temporary directory.
    var postgres: String?

    static func fromEnvironment() -> Scale {
        let environment = ProcessInfo.processInfo.environment
        var scale = Scale()
        if let events = environment["WAYMARK_BENCH_EVENTS"].flatMap(Int.init), events >= 10_000 { scale.events = events }
        scale.postgres = environment["WAYMARK_BENCH_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
        return scale
    }

    /// "1M", "10M" or the count: part of each benchmark's name.
    var size: String { events % 1_000_000 == 0 ? "\(events / 1_000_000)M" : "\(events)" }
    /// " on PostgreSQL", or nothing for SQLite (the names the SQLite figures were first kept under).
    var on: String { postgres == nil ? "" : " on PostgreSQL" }
}

/// A database with `scale.events` events spread over 30 days, one user per 50 events, its days
/// folded into rollups: filled once and reused while it lasts, since package-benchmark starts a process for each benchmark. SQLite's
/// is kept in the temporary directory (`waymark-analytics-bench-1000000/`, a quarter of a gigabyte
/// a million events); PostgreSQL's is the database named, which must be empty the first time.
func makeDatabase(_ scale: Scale) throws -> (any Store, Period) {
    let store: any Store
    if let url = scale.postgres {
        let postgres = try PostgresStore(url: url, logger: Logger(label: "bench"), patience: .seconds(60))
        Task { await postgres.run() }
        store = postgres
    } else {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-analytics-bench-\(scale.events)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteStore(path: directory.appendingPathComponent("waymark.sqlite").path)
    }
    let count = scale.events
    let users = max(count / 50, 1)
    let end: Int64 = 1_790_000_000_000 - 1_790_000_000_000 % Period.day
    let start = end - 30 * Period.day
    let semaphore = DispatchSemaphore(value: 0)
    Task {
        do {
            try await fill(store, events: count, users: users, from: start)
        } catch {
            fatalError("filling the benchmark database: \(error)")
        }
        semaphore.signal()
    }
    semaphore.wait()
    Task {
        do {
            try await foldAll(store, before: end)
        } catch {
            fatalError("folding the benchmark database: \(error)")
        }
        semaphore.signal()
    }
    semaphore.wait()
    return (store, Period(from: start, to: end))
}

/// Inserts, unless it did before, `count` generated events from `users` users over the 30 days from `start`, in batches
/// of 10,000 (the same events for the same count, from a fixed seed).
func fill(_ store: any Store, events count: Int, users: Int, from start: Int64) async throws {
    let end = start + 30 * Period.day
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
    let batches = count / 10_000
    if let postgres = store as? PostgresStore { try await postgres.migrate() }
    // A second app marks a database filled to the end; one without it (a run stopped while
    // filling) is filled again from the start.
    let filled = "bench-filled"
    if try await store.app(id: filled) != nil { return }
    if try await store.app(id: "bench") != nil {
        fatalError("the benchmark database was not filled to the end: remove it or give an empty one")
    }
    try await store.createApp(
        AppRecord(id: "bench", name: "Bench", identitySecret: "secret", createdAt: Date(millisecondsSince1970: start)))
    for batch in 0..<batches {
        var events: [StoredEvent] = []
        events.reserveCapacity(10_000)
        for index in 0..<10_000 {
            let number = batch * 10_000 + index
            // Time grows with the id, as UUIDv7 ids do.
            let time = start + Int64(number) * (30 * Period.day) / Int64(count)
            let user = next(users)
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
    try await store.createApp(AppRecord(id: filled, name: "Filled", identitySecret: "secret", createdAt: Date(millisecondsSince1970: end)))
}

/// Folds the days of the benchmark database into rollups, as the server's folder would once they
/// ended (nothing to do on a database an earlier process folded), and says how long it took.
func foldAll(_ store: any Store, before end: Int64) async throws {
    let started = ContinuousClock.now
    var days = 0
    while case let folded = try await store.rollUp(app: "bench", before: end, limit: 100), folded > 0 { days += folded }
    if days > 0 { print("folded \(days) days into rollups in \(ContinuousClock.now - started)") }
}

/// The tallies of the engagement report (``WaymarkAnalytics/Analytics/engagement(app:period:)``).
func engagementQueries(_ period: Period) -> [TallyQuery] {
    [
        TallyQuery(period: period, byName: false, by: [.day, .platform]),
        TallyQuery(period: period, names: ["activation"], by: [.day, .platform]),
        TallyQuery(period: period, byName: false, by: [.platform]),
        TallyQuery(period: period, names: ["activation"], by: [.platform]),
    ]
}
