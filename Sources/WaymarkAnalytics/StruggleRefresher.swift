import Foundation
import Logging
import ServiceLifecycle
import WaymarkCatalog
import WaymarkStore

/// Finds where people get lost in the background, a UTC day at a time, so that no page reads
/// events: every `interval` it looks at each app's last `days` days and runs a
/// ``StruggleDetector`` over each day not yet looked at since it ended (plus `settled`, for the
/// events phones send late), and over today again once `todayEvery` passed since the last look.
/// What it finds replaces what the day had (``WaymarkStore/StruggleStore``); days older than
/// `days` are removed. A visit that crosses midnight counts as two. Each app's thresholds are its
/// live catalog's (`struggles:`), as they were when a day was read.
public struct StruggleRefresher: Service {
    let store: any Store
    let logger: Logger
    let interval: Duration
    let days: Int
    let settled: TimeInterval
    let todayEvery: TimeInterval
    /// The thresholds for every app; nil: each app's own, from its live catalog (`struggles:`).
    let thresholds: StruggleThresholds?
    let now: @Sendable () -> Date

    public init(
        store: any Store, logger: Logger, interval: Duration = .seconds(300), days: Int = 30, settled: TimeInterval = 6 * 3600,
        todayEvery: TimeInterval = 900, thresholds: StruggleThresholds? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.logger = logger
        self.interval = interval
        self.days = days
        self.settled = settled
        self.todayEvery = todayEvery
        self.thresholds = thresholds
        self.now = now
    }

    public func run() async throws {
        await eachApp(of: store, every: interval, logger: logger, doing: "look for struggles") { app in
            let looked = try await refresh(app: app)
            if looked > 0 { logger.debug("looked for struggles", metadata: ["app": "\(app)", "days": "\(looked)"]) }
        }
    }

    /// The thresholds the app's live catalog sets, or the defaults; the refresher's own when given.
    func thresholds(app: String) async throws -> StruggleThresholds {
        if let thresholds { return thresholds }
        guard let document = try await store.liveVersion(app: app)?.document else { return StruggleThresholds() }
        return (try? CatalogDocument.parse(document, file: "live catalog"))?.struggles ?? StruggleThresholds()
    }

    /// Looks at the app's days that need it now; answers how many.
    @discardableResult
    public func refresh(app: String) async throws -> Int {
        let time = now().millisecondsSince1970
        let today = Period.startOfDay(time)
        let first = today - Int64(days - 1) * Period.day
        let looked = try await store.struggleDays(app: app)
        var count = 0
        for day in stride(from: first, through: today, by: Int(Period.day)) {
            if let at = looked[day] {
                // Settled: looked at long enough after the day ended. Else today's (or a day
                // whose late events may still come) is looked at again now and then.
                if at >= day + Period.day + Int64(settled * 1000) { continue }
                if time - at < Int64(todayEvery * 1000) { continue }
            }
            try await look(app: app, day: day)
            count += 1
        }
        try await store.deleteStruggles(app: app, before: first)
        return count
    }

    /// Runs the detector over one day's events and keeps what it found.
    public func look(app: String, day: Int64) async throws {
        var detector = StruggleDetector(thresholds: try await thresholds(app: app))
        try await store.forEachPage(app: app, period: Period(from: day, to: day + Period.day)) { page in
            for event in page { detector.add(event) }
        }
        detector.finish()
        try await store.replaceStruggles(app: app, day: day, detector.occurrences, at: now())
    }
}

/// Runs `work` for each of the store's apps every `interval` until the service is shut down; a
/// failure is logged as "could not `what`" and the next app's turn comes. Stopping the server
/// cancels the work under way: no failure to report.
func eachApp(
    of store: any Store, every interval: Duration, logger: Logger, doing what: String,
    _ work: @escaping @Sendable (String) async throws -> Void
) async {
    await cancelWhenGracefulShutdown {
        while !Task.isCancelled {
            do {
                for app in try await store.apps() {
                    do {
                        try await work(app.id)
                    } catch {
                        if Task.isCancelled { return }
                        logger.warning("could not \(what)", metadata: ["app": "\(app.id)", "error": "\(error)"])
                    }
                }
            } catch {
                logger.warning("could not read the apps to \(what)", metadata: ["error": "\(error)"])
            }
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }
}
