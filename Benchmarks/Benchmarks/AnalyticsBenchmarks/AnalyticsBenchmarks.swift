import Benchmark
import Foundation
import GRDB
import Logging
import PostgresNIO
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkClickHouse
import WaymarkPostgres
import WaymarkSQLite
import WaymarkStore
import WaymarkSupport

/// The console's analytics over a SQLite database of one million events: 20,000 users on three
/// platforms over 30 days, a tenth of the events from tips and one in forty from checklists, the
/// help, surveys and buttons. Each benchmark is one page's reads.
/// Target: fast with a million events; docs/performance.md states the times.
///
/// `WAYMARK_BENCH_EVENTS=10000000` makes the database that large (users grow with it: one per 50
/// events), and `WAYMARK_BENCH_POSTGRES=postgres://…` fills that empty database in place of SQLite
/// (`scripts/postgres-cluster start DIR` makes one). `WAYMARK_BENCH_CLICKHOUSE=clickhouse://…`
/// copies the events into that ClickHouse database as `waymark backfill-analytics` would
/// (`scripts/clickhouse-cluster start DIR` makes one) and measures the reports reading their tallies
/// from it, as `waymark serve --analytics` has them; with `WAYMARK_BENCH_CLICKHOUSE_GENERATE=1` too,
/// the events are generated inside ClickHouse alone (`INSERT … SELECT … FROM numbers(…)`, the same
/// shape of history), for sizes the store of record would take hours to fill here, and only the
/// reports that read nothing but tallies run. `WAYMARK_BENCH_KEEP=0` runs only the benchmarks
/// before the eligible counts kept day by day, which it does not keep (keeping 100 million
/// events' days would take about an hour here). The benchmarks' names say which they measured.
/// An event arriving late in a day of the period (by default its last), which unfolds it.
func lateEvent(_ period: Period, _ iteration: Int, day: Int64? = nil) -> StoredEvent {
    StoredEvent(
        app: "bench", id: EventID.make(at: Date()), user: "user-late", name: "tap", target: "late",
        timestamp: (day ?? period.to - Period.day) + Int64(iteration), receivedAt: period.to, clamped: false,
        properties: ["platform": "web"])
}

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
            actions:
              - { id: open, label: Search now, route: /search }
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
            survey: { scale: csat, comment: true }
            content: { title: Checkout }
        tours:
          - id: tour
            pages:
              - { id: one, content: { title: One }, actions: [{ id: next, label: Next, do: next }] }
              - { id: two, content: { title: Two } }
        checklists:
          - id: setup
            content: { title: Set up }
            items:
              - { id: profile, content: { title: Profile }, done: tap:profile }
              - { id: address, content: { title: Address }, done: tap:address }
              - { id: payment, content: { title: Payment }, done: tap:payment }
        articles:
          - { id: returns, content: { title: Returns, body: Send it back within 7 days. } }
          - { id: delivery, content: { title: Delivery, body: Three days at most. } }
        """, file: "bench")
    let scale = Scale.fromEnvironment()
    let (size, on, ofRecord) = (scale.size, scale.on, scale.ofRecord)
    let (store, period) = try! makeDatabase(scale)
    let clickHouse = scale.clickHouse.map {
        try! copyToClickHouse(store, url: $0, events: scale.events, period: period, generate: scale.generatedInClickHouse)
    }
    // What the reports read: the store of record, or ClickHouse's tallies beside it.
    let reports: any AnalyticsStore & UserStore = clickHouse.map { ClickHouseReports(store: store, analytics: $0) } ?? store
    let analytics = Analytics(store: reports)

    Benchmark(
        "Bytes on disk, \(size) events\(on)",
        configuration: .init(metrics: DiskUse.metrics, timeUnits: .milliseconds, maxIterations: 1)
    ) { benchmark in
        let disk = try await DiskUse.measure(scale, clickHouse: clickHouse)
        benchmark.measurement(DiskUse.perThousandEvents, disk.total * 1000 / scale.events)
        benchmark.measurement(DiskUse.events, disk.events)
        benchmark.measurement(DiskUse.rollups, disk.rollups)
        benchmark.measurement(DiskUse.sets, disk.sets)
        benchmark.measurement(DiskUse.eligibility, disk.eligibility)
        print(
            "bytes on disk\(on): \(disk.total) in all, \(String(format: "%.1f", Double(disk.total) / Double(scale.events))) an event"
                + " (the events \(disk.events), the rollups \(disk.rollups), of which the user sets and numbers \(disk.sets);"
                + " the kept eligible counts \(disk.eligibility))")
    }

    Benchmark("Engagement by platform and day, 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try await analytics.engagement(app: "bench", period: period)) }
    }
    // What the tips page waits for: its eligible counts come from a replay in the background.
    Benchmark("Tip funnels by platform and version, eligible counts kept, 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await analytics.tips(app: "bench", catalog: catalog, period: period, eligible: .unknown))
        }
    }
    Benchmark("Tip event counts only (no replay), 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                try await reports.tally(
                    app: "bench",
                    TallyQuery(period: period, names: ["tip_shown", "tip_dismissed", "tip_closed"], by: [.target, .platform, .appVersion])))
        }
    }
    Benchmark("Tour funnel and A/B tests, 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await analytics.tours(app: "bench", catalog: catalog, period: period))
            blackHole(try await analytics.experiments(app: "bench", catalog: catalog, period: period))
        }
    }
    // The pages of the rest of the guidance: a checklist's funnel, the help, a survey's scores,
    // the buttons.
    Benchmark("Checklists, help, surveys and buttons, 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await analytics.checklists(app: "bench", catalog: catalog, period: period))
            blackHole(try await analytics.help(app: "bench", catalog: catalog, period: period))
            blackHole(try await analytics.surveys(app: "bench", catalog: catalog, period: period))
            blackHole(try await analytics.actions(app: "bench", catalog: catalog, period: period))
        }
    }
    // The rest replays events, or reads them, from the store of record, which events generated
    // inside ClickHouse are not in.
    guard !scale.generatedInClickHouse else { return }
    Benchmark("Tip funnels by platform and version with the eligible replay, 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try await analytics.tips(app: "bench", catalog: catalog, period: period)) }
    }
    Benchmark("Reading the \(size) events of 30 days in replay order, no replay\(ofRecord)") { benchmark in
        for _ in benchmark.scaledIterations {
            var count = 0
            try await store.forEachEvent(app: "bench", period: period) { _ in count += 1 }
            blackHole(count)
        }
    }
    // The reports' tallies read the days folded into rollups; beside them, the same tallies read
    // from the events, as they were before rollups (the yardstick).
    Benchmark("Engagement's four tallies from the events (yardstick), 30 days, \(size) events\(ofRecord)") { benchmark in
        for _ in benchmark.scaledIterations {
            for query in engagementQueries(period) {
                var query = query
                query.fromEvents = true
                blackHole(try await store.tally(app: "bench", query))
            }
        }
    }
    Benchmark("Tip event counts only from the events (yardstick), 30 days, \(size) events\(ofRecord)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                try await store.tally(
                    app: "bench",
                    TallyQuery(
                        period: period, names: ["tip_shown", "tip_dismissed", "tip_closed"], by: [.target, .platform, .appVersion],
                        fromEvents: true)))
        }
    }
    Benchmark("Tip funnel by a segment (its replay and the per-user tally), 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            let groups = try await UserGroups(.segment(catalog.segments[0]), store: store, app: "bench", period: period)
            blackHole(try await analytics.tip("search-tip", app: "bench", period: period, by: groups))
        }
    }
    // No user has the attribute: every user falls in one group, after the same per-user tally.
    Benchmark("Tip funnel by an attribute (the per-user tally), 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            let groups = try await UserGroups(.attribute("plan"), store: store, app: "bench", period: period)
            blackHole(try await analytics.tip("search-tip", app: "bench", period: period, by: groups))
        }
    }
    // The rest reads only the store of record: measured without ClickHouse.
    guard clickHouse == nil else { return }
    // A late event unfolds its day; the folder folds it again.
    Benchmark("Folding one day again after a late event, \(size) events\(on)") { benchmark in
        for iteration in benchmark.scaledIterations {
            _ = try await store.insertEvents([lateEvent(period, iteration)])
            benchmark.startMeasurement()
            blackHole(try await store.rollUp(app: "bench", before: period.to, limit: 1))
            benchmark.stopMeasurement()
        }
    }
    // The eligible counts kept day by day: each day's replay starts from the states kept at the
    // end of the day before. Each benchmark runs in a process of its own, whose setup keeps the
    // days not kept yet (all 30 on a new database, timed and printed).
    let eligibility = Eligibility(tips: catalog.tips, segments: catalog.segments, countingFrom: [])
    // `WAYMARK_BENCH_KEEP=0` leaves the days unkept: for the reports alone at a size whose
    // keeping would take longer than the run may.
    guard ProcessInfo.processInfo.environment["WAYMARK_BENCH_KEEP"] != "0" else { return }
    waitFor("keeping the eligible counts") {
        let started = ContinuousClock.now
        let kept = try await eligibility.fold(store: store, app: "bench", limit: 40)
        if kept > 0 { print("kept the eligible counts of \(kept) days\(on) in \(ContinuousClock.now - started)") }
    }
    Benchmark("Tip funnels by platform and version, eligible counts from the kept days, 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            let counts = try await eligibility.counts(store: store, app: "bench", period: period)
            blackHole(try await analytics.tips(app: "bench", catalog: catalog, period: period, eligible: .counted(counts)))
        }
    }
    // The members of a live segment are kept with the eligible counts: read, then the sets split.
    Benchmark("Tip funnel by a segment from the kept days, 30 days, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            let groups = try await UserGroups(
                .segment(catalog.segments[0]), store: store, app: "bench", period: period, kept: (eligibility, store))
            blackHole(try await analytics.tip("search-tip", app: "bench", period: period, by: groups))
        }
    }
    Benchmark("Segment members of the 30 days from the kept days (the segments page), \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try await eligibility.segmentMembers(store: store, app: "bench", period: period))
        }
    }
    // The segment refresher's question at noon of the last day: the states kept at the end of
    // the day before, and the morning's events replayed from them (beside the replay of the whole
    // history at a moment, "Segment refresh", the yardstick).
    Benchmark("Segment refresh from the kept days: two history segments at noon, \(size) events\(on)") { benchmark in
        for _ in benchmark.scaledIterations {
            let members = try await eligibility.segmentMembers(at: period.to - Period.day / 2, store: store, app: "bench")
            precondition(members != nil, "the days before are kept")
            blackHole(members)
        }
    }
    // A late event in the last day takes its kept counts; the folder folds its rollups, then them.
    Benchmark("Keeping one day's eligible counts again after a late event, \(size) events\(on)") { benchmark in
        for iteration in benchmark.scaledIterations {
            _ = try await store.insertEvents([lateEvent(period, iteration)])
            _ = try await store.rollUp(app: "bench", before: period.to, limit: 1)
            benchmark.startMeasurement()
            blackHole(try await eligibility.fold(store: store, app: "bench", limit: 1))
            benchmark.stopMeasurement()
        }
    }
    // A late event in the first day takes every kept day: all 30 are kept again.
    Benchmark(
        "Keeping all 30 days' eligible counts again after a late event in the first, \(size) events\(on)",
        configuration: .init(warmupIterations: 0, maxIterations: 1)
    ) { benchmark in
        _ = try await store.insertEvents([lateEvent(period, 0, day: period.from)])
        _ = try await store.rollUp(app: "bench", before: period.to, limit: 1)
        benchmark.startMeasurement()
        blackHole(try await eligibility.fold(store: store, app: "bench", limit: 40))
        benchmark.stopMeasurement()
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
    /// A ClickHouse database to copy the events into, whose tallies the reports then read.
    var clickHouse: String?
    /// Whether the events are generated inside ClickHouse, the store of record left empty.
    var generatedInClickHouse = false

    static func fromEnvironment() -> Scale {
        let environment = ProcessInfo.processInfo.environment
        var scale = Scale()
        if let events = environment["WAYMARK_BENCH_EVENTS"].flatMap(Int.init), events >= 10_000 { scale.events = events }
        scale.postgres = environment["WAYMARK_BENCH_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 }
        scale.clickHouse = environment["WAYMARK_BENCH_CLICKHOUSE"].flatMap { $0.isEmpty ? nil : $0 }
        scale.generatedInClickHouse = scale.clickHouse != nil && environment["WAYMARK_BENCH_CLICKHOUSE_GENERATE"] == "1"
        return scale
    }

    /// "1M", "10M" or the count: part of each benchmark's name.
    var size: String { events % 1_000_000 == 0 ? "\(events / 1_000_000)M" : "\(events)" }
    /// " on ClickHouse", " on PostgreSQL", or nothing for SQLite (the names the SQLite figures were
    /// first kept under): where the reports read their tallies.
    var on: String { clickHouse == nil ? ofRecord : generatedInClickHouse ? " on ClickHouse, generated there" : " on ClickHouse" }
    /// The same for the store of record.
    var ofRecord: String { postgres == nil ? "" : " on PostgreSQL" }
}

/// The benchmark's events copied from the store of record into ClickHouse, as the backfill command
/// copies them (from where an earlier process stopped), merged as ClickHouse merges them in time.
func copyToClickHouse(_ store: any Store, url: String, events: Int, period: Period, generate: Bool) throws -> ClickHouseAnalytics {
    // Statements over a hundred million events take minutes on two cores.
    let analytics = ClickHouseAnalytics(ClickHouse(url: try ClickHouseURL(url), timeout: .minutes(30)))
    waitFor("copying the benchmark's events into ClickHouse") {
        try await analytics.migrate()
        if try await analytics.count(app: "bench") < events {
            let started = ContinuousClock.now
            let copied: Int
            if generate {
                // From nothing (a run cut short left part), ten million a statement.
                try await analytics.clickHouse.execute("DROP TABLE IF EXISTS events")
                try await analytics.migrate()
                for first in stride(from: 0, to: events, by: 10_000_000) {
                    try await analytics.clickHouse.execute(
                        generation(events: events, numbers: first..<min(first + 10_000_000, events), from: period.from))
                }
                copied = try await analytics.count(app: "bench")
            } else {
                copied = try await analytics.backfill(app: "bench", from: store)
            }
            let took = ContinuousClock.now - started
            let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
            print(
                "\(generate ? "generated" : "copied") \(copied) events into ClickHouse in \(took), \(Int(Double(copied) / seconds)) events/s"
            )
            try await analytics.clickHouse.execute("OPTIMIZE TABLE events FINAL")
        }
    }
    return analytics
}

/// The statement that generates the `numbers` of `events` events inside ClickHouse, shaped as ``fill(_:events:users:from:)``
/// makes them (its seeded generator's draws become hashes of the event's number): a user in 50
/// events, its platform and version from its number, a tenth from the three tips (with a variant
/// by user), one in forty from the rest of ``Guidance``, the others from the same ten names and
/// targets, ids as ``benchmarkID(milliseconds:number:)``.
func generation(events: Int, numbers: Range<Int>, from start: Int64) -> String {
    let span = 30 * Period.day
    let names = "['activation', 'screen', 'screen', 'screen', 'tap', 'tap', 'tap', 'scroll', 'tap', 'screen']"
    let targets = "['', 'home', 'product', 'cart', 'search', 'add-to-cart', 'checkout', '', 'reviews', 'search']"
    // hex() of a time of these years is 12 digits; of a word with its top bit set, 16.
    let random = "hex(bitOr(cityHash64(number, 6), 0x8000000000000000))"
    let more = "hex(bitOr(cityHash64(number, 7), 0x8000000000000000))"
    // The rest of the guidance: its names and targets by `g`, each property by `g` and `v`.
    func list(_ texts: [String]) -> String { "[" + texts.map { "'\($0)'" }.joined(separator: ", ") + "]" }
    let guideNames = list(Guidance.events.map(\.name))
    let guideTargets = list(Guidance.events.map { $0.target ?? "" })
    let keys = Guidance.events.flatMap { $0.properties.map(\.0) }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
    let properties = keys.map { key in
        let cases = Guidance.events.indices.compactMap { index -> String? in
            guard let values = Guidance.events[index].properties.first(where: { $0.0 == key })?.1 else { return nil }
            return "guide AND g = \(index), nullIf(\(list(values))[v % \(values.count) + 1], '')"
        }
        return "multiIf(\(cases.joined(separator: ", ")), CAST(NULL AS Nullable(String)))"
    }
    return """
        INSERT INTO events (app, day, timestamp, id, user, name, target, platform, app_version, p_variant\(keys.map { ", p_\($0)" }.joined()))
        SELECT 'bench', toDate('1970-01-01') + intDiv(ts, \(Period.day)), ts,
            toUUID(lower(concat(substring(hex(toUInt64(ts)), 1, 8), '-', substring(hex(toUInt64(ts)), 9, 4), '-7', substring(\(random), 2, 3), '-',
                concat('8', substring(\(more), 2, 3)), '-', substring(\(more), 5, 12)))),
            concat('user-', toString(u)),
            if(tip, ['tip_shown', 'tip_dismissed', 'tip_closed'][cityHash64(number, 3) % 3 + 1], if(guide, \(guideNames)[g + 1], \(names)[k + 1])),
            if(tip, toNullable(['search-tip', 'cart-tip', 'checkout-tip'][cityHash64(number, 4) % 3 + 1]),
                nullIf(if(guide, \(guideTargets)[g + 1], \(targets)[k + 1]), '')),
            toNullable(['ios', 'android', 'web'][u % 3 + 1]), toNullable(['1.2', '1.3', '1.4'][u % 5 % 3 + 1]),
            if(tip, toNullable(['a', 'b'][u % 2 + 1]), CAST(NULL AS Nullable(String)))\(properties.map { ",\n    \($0)" }.joined())
        FROM (
            SELECT number, toInt64(\(start) + intDiv(number * \(span), \(events))) AS ts, cityHash64(number, 1) % \(max(events / 50, 1)) AS u,
                cityHash64(number, 2) % 40 AS kind, kind < 4 AS tip, kind = 4 AS guide, cityHash64(number, 5) % 10 AS k,
                cityHash64(number, 8) % \(Guidance.events.count) AS g, cityHash64(number, 9) % 1000 AS v
            FROM numbers(\(numbers.lowerBound), \(numbers.count))
        )
        """
}

/// What the benchmark's events take on disk, indexes included: the table of events and the
/// rollups beside it (ClickHouse keeps none), of which the user sets with the users' numbers, and in
/// all (for SQLite and PostgreSQL, the whole database, whose other tables hold almost nothing).
struct DiskUse {
    var events: Int
    var rollups: Int
    var sets: Int
    /// The eligible counts kept day by day: the users' states and the days' sets.
    var eligibility: Int
    var total: Int

    static let perThousandEvents = BenchmarkMetric.custom("bytes on disk per 1,000 events", useScalingFactor: false)
    static let events = BenchmarkMetric.custom("bytes on disk, the events", useScalingFactor: false)
    static let rollups = BenchmarkMetric.custom("bytes on disk, the rollups", useScalingFactor: false)
    static let sets = BenchmarkMetric.custom("bytes on disk, the user sets and numbers", useScalingFactor: false)
    static let eligibility = BenchmarkMetric.custom("bytes on disk, the kept eligible counts", useScalingFactor: false)
    static let metrics = [perThousandEvents, events, rollups, sets, eligibility]

    static func measure(_ scale: Scale, clickHouse: ClickHouseAnalytics?) async throws -> DiskUse {
        if let clickHouse {
            let rows = try await clickHouse.clickHouse.rows(
                "SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = currentDatabase() AND table = 'events'")
            let bytes = rows.first?.first.flatMap { $0.flatMap { Int($0) } } ?? 0
            return DiskUse(events: bytes, rollups: 0, sets: 0, eligibility: 0, total: bytes)
        }
        if let url = scale.postgres {
            let client = PostgresClient(configuration: try PostgresStore.configuration(url: url))
            return try await withThrowingDiscardingTaskGroup { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                let sizes = try await client.query(
                    """
                    SELECT pg_total_relation_size('events'),
                        pg_total_relation_size('event_days') + pg_total_relation_size('rolled_days'),
                        pg_total_relation_size('event_day_users') + pg_total_relation_size('user_numbers'),
                        pg_total_relation_size('eligibility_states') + pg_total_relation_size('eligible_sets')
                            + pg_total_relation_size('eligibility_days'),
                        pg_database_size(current_database())
                    """)
                for try await (events, rollups, sets, eligibility, total) in sizes.decode((Int, Int, Int, Int, Int).self) {
                    return DiskUse(events: events, rollups: rollups + sets, sets: sets, eligibility: eligibility, total: total)
                }
                return DiskUse(events: 0, rollups: 0, sets: 0, eligibility: 0, total: 0)
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-analytics-bench-\(scale.events)")
        var total = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            total += (attributes[.size] as? Int) ?? 0
        }
        // By table, from SQLite's dbstat table (its pages, indexes counted with their table).
        var configuration = Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(path: directory.appendingPathComponent("waymark.sqlite").path, configuration: configuration)
        let tables = try await database.read { db in
            try [String: Int](
                Row.fetchAll(
                    db, sql: "SELECT s.tbl_name, sum(d.pgsize) FROM dbstat d JOIN sqlite_schema s ON s.name = d.name GROUP BY s.tbl_name"
                ).map { ($0[0], $0[1]) }, uniquingKeysWith: +)
        }
        let sets = tables["event_day_users", default: 0] + tables["user_numbers", default: 0]
        return DiskUse(
            events: tables["events", default: 0], rollups: tables["event_days", default: 0] + tables["rolled_days", default: 0] + sets,
            sets: sets,
            eligibility: tables["eligibility_states", default: 0] + tables["eligible_sets", default: 0]
                + tables["eligibility_days", default: 0],
            total: total)
    }
}

/// A database with `scale.events` events spread over 30 days, one user per 50 events, its days
/// folded into rollups: filled once and reused while it lasts, since package-benchmark starts a process for each benchmark. SQLite's
/// is kept in the temporary directory (`waymark-analytics-bench-1000000/`, a quarter of a gigabyte
/// a million events); PostgreSQL's is the database named, which must be empty the first time.
func makeDatabase(_ scale: Scale) throws -> (any Store, Period) {
    let end: Int64 = 1_790_000_000_000 - 1_790_000_000_000 % Period.day
    let start = end - 30 * Period.day
    let store: any Store
    if scale.generatedInClickHouse {
        // The store of record is there for what ClickHouse does not answer: none of the reports run.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-analytics-bench-empty-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (try SQLiteStore(path: directory.appendingPathComponent("waymark.sqlite").path), Period(from: start, to: end))
    } else if let url = scale.postgres {
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
    waitFor("filling the benchmark database") { try await fill(store, events: count, users: users, from: start) }
    waitFor("folding the benchmark database") { try await foldAll(store, before: end) }
    return (store, Period(from: start, to: end))
}

/// Runs `work` to its end from the benchmarks' synchronous setup; a failure ends the process, saying
/// what was `doing`.
func waitFor(_ doing: String, _ work: @escaping @Sendable () async throws -> Void) {
    let semaphore = DispatchSemaphore(value: 0)
    Task {
        do { try await work() } catch { fatalError("\(doing): \(error)") }
        semaphore.signal()
    }
    semaphore.wait()
}

/// The guidance besides tips in the benchmark's history, for the checklist, help, survey and
/// button reports: an event's name, target and properties, each property's value one of its list.
enum Guidance {
    static let events: [(name: String, target: String?, properties: [(String, [String])])] = [
        ("checklist_opened", "setup", []),
        ("checklist_item_done", "setup", [("item", ["profile", "address", "payment"])]),
        ("checklist_completed", "setup", [("seconds", ["60", "300", "900", "3600", "86400"])]),
        ("help_opened", nil, []),
        ("help_searched", nil, [("query", ["refund", "delivery", "cod", "return", "upi"]), ("results", ["0", "1", "2"])]),
        ("article_opened", "returns", []),
        ("survey_answered", "checkout-tip", [("score", ["1", "2", "3", "4", "5"]), ("comment", ["", "", "", "slow", "easy"])]),
        ("tip_action", "search-tip", [("action", ["open"]), ("kind", ["route"]), ("to", ["/search"])]),
        ("tour_action", "tour", [("page", ["one"]), ("action", ["next"]), ("kind", ["next"])]),
    ]
}

/// Inserts, unless it did before, `count` generated events from `users` users over the 30 days from `start`, in batches
/// of 10,000 (the same events for the same count, from a fixed seed): a tenth from tips, one in
/// forty from the rest of ``Guidance``, the others the app's own taps and screens.
func fill(_ store: any Store, events count: Int, users: Int, from start: Int64) async throws {
    let end = start + 30 * Period.day
    let names: [(String, String?)] = [
        ("activation", nil), ("screen", "home"), ("screen", "product"), ("screen", "cart"), ("tap", "search"), ("tap", "add-to-cart"),
        ("tap", "checkout"), ("scroll", nil), ("tap", "reviews"), ("screen", "search"),
    ]
    let tipNames = ["tip_shown", "tip_dismissed", "tip_closed"]
    let tips = ["search-tip", "cart-tip", "checkout-tip"]
    let guidance = Guidance.events
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
            let kind = next(40)
            if kind < 4 {
                name = tipNames[next(3)]
                target = tips[next(3)]
                properties["tip"] = target
                properties["variant"] = ["a", "b"][user % 2]
            } else if kind == 4 {
                let guide = guidance[next(guidance.count)]
                (name, target) = (guide.name, guide.target)
                let value = next(1_000)
                for (key, values) in guide.properties where !values[value % values.count].isEmpty {
                    properties[key] = values[value % values.count]
                }
            } else {
                (name, target) = names[next(names.count)]
            }
            events.append(
                StoredEvent(
                    app: "bench", id: benchmarkID(milliseconds: time, number: number), user: "user-\(user)", name: name,
                    target: target, timestamp: time,
                    receivedAt: time, clamped: false, properties: properties
                ))
        }
        _ = try await store.insertEvents(events)
    }
    try await store.createApp(AppRecord(id: filled, name: "Filled", identitySecret: "secret", createdAt: Date(millisecondsSince1970: end)))
}

/// An id shaped as the SDKs' UUIDv7 ids are: 48 bits of milliseconds, the version, then 74 bits
/// that look random (from the event's number, so the same for the same database). Their random
/// bits are what an id costs on disk where columns are compressed, as in ClickHouse.
func benchmarkID(milliseconds: Int64, number: Int) -> String {
    // SplitMix64 of the number: two well-mixed words.
    func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    let (high, low) = (mix(UInt64(number) &* 2), mix(UInt64(number) &* 2 &+ 1))
    let time = UInt64(bitPattern: milliseconds) & 0xFFFF_FFFF_FFFF
    var bytes = (0..<6).map { UInt8(truncatingIfNeeded: time >> (40 - 8 * $0)) }
    bytes.append(0x70 | UInt8(truncatingIfNeeded: high >> 60))
    bytes.append(UInt8(truncatingIfNeeded: high >> 52))
    bytes.append(0x80 | UInt8(truncatingIfNeeded: low >> 58))
    bytes += (0..<7).map { UInt8(truncatingIfNeeded: low >> (48 - 8 * $0)) }
    return EventID.text(bytes)
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
