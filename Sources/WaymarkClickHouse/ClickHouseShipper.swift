import Foundation
import Logging
import ServiceLifecycle
import WaymarkStore

/// Ships the store of record's analytics outbox to ClickHouse: every stored event, each erasure
/// and each retention cut, in the order they were written, `batch` entries a transaction, until
/// the outbox is empty; then it looks again every `interval`. An entry leaves the outbox only once
/// ClickHouse has it, so nothing is lost when either side is killed; what is shipped twice after
/// a crash, ClickHouse stores once (``ClickHouseAnalytics/insert(_:)``). While ClickHouse cannot be
/// reached, it waits longer each time, up to a minute, and the outbox grows meanwhile. It starts
/// by having the store keep the outbox (``WaymarkStore/AnalyticsOutbox/keepAnalyticsOutbox()``)
/// and ClickHouse make its table; the events stored before that come by a backfill.
public struct ClickHouseShipper: Service {
    let store: any AnalyticsOutbox
    let analytics: ClickHouseAnalytics
    let logger: Logger
    let interval: Duration
    let batch: Int

    public init(
        store: any AnalyticsOutbox, analytics: ClickHouseAnalytics, logger: Logger, interval: Duration = .seconds(1), batch: Int = 5000
    ) {
        self.store = store
        self.analytics = analytics
        self.logger = logger
        self.interval = interval
        self.batch = batch
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var failures = 0
            var ready = false
            while !Task.isCancelled {
                var pause = interval
                do {
                    // First: writes keep the outbox from now on, and ClickHouse has the table (made or
                    // changed while no other server ships or changes it).
                    if !ready {
                        try await store.keepAnalyticsOutbox()
                        try await store.whileNoneShips { try await analytics.migrate() }
                        ready = true
                        logger.info("the analytics go to ClickHouse", metadata: ["clickhouse": "\(analytics.clickHouse.url)"])
                    }
                    // A full batch: more is waiting.
                    if try await shipOnce() == batch { pause = .zero }
                    if failures > 0 { logger.info("ClickHouse takes the analytics again", metadata: ["after": "\(failures) failures"]) }
                    failures = 0
                } catch {
                    if Task.isCancelled { return }
                    failures += 1
                    pause = min(interval * (1 << min(failures, 6)), .seconds(60))
                    logger.warning(
                        "could not ship the analytics outbox to ClickHouse",
                        metadata: ["error": "\(error)", "failures": "\(failures)", "retry in": "\(pause)"])
                }
                if pause > .zero {
                    do { try await Task.sleep(for: pause) } catch { return }
                }
            }
        }
    }

    /// Ships one batch of the outbox; answers how many entries it shipped.
    @discardableResult
    public func shipOnce() async throws(StoreError) -> Int {
        try await store.shipAnalytics(limit: batch) { [analytics] changes in
            for change in changes {
                switch change {
                case .stored(let rows): try await analytics.insert(rows)
                case .erased(let app, let user): try await analytics.erase(app: app, user: user)
                case .forgotten(let app, let before): try await analytics.forget(app: app, before: before)
                }
            }
        }
    }
}
