import Foundation
import Logging
import ServiceLifecycle
import WaymarkStore

/// Keeps the daily rollups the reports read (``WaymarkStore/AnalyticsStore/rollUp(app:before:limit:)``):
/// every `interval` it folds each app's whole UTC days that ended at least `settled` ago and are
/// not folded, a day a transaction. A day that gets an event later was unfolded by its insert and
/// is folded again here. On an installation with years of events, the first runs fold them all,
/// `batch` days an app at a time; a report meanwhile reads the events of the days not folded
/// yet, so its numbers are the same at every step. After an app's rollups it folds the days of
/// its live tips' eligible counts (``Eligibility``) that the rollups now allow.
public struct RollupFolder: Service {
    let store: any Store
    let logger: Logger
    let interval: Duration
    let settled: TimeInterval
    let batch: Int
    let now: @Sendable () -> Date

    public init(
        store: any Store, logger: Logger, interval: Duration = .seconds(300), settled: TimeInterval = 3600,
        batch: Int = 31, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.logger = logger
        self.interval = interval
        self.settled = settled
        self.batch = batch
        self.now = now
    }

    public func run() async throws {
        await eachApp(of: store, every: interval, logger: logger, doing: "fold events into rollups") { app in
            // Until the app has no day left to fold, or the service stops.
            while !Task.isCancelled, try await fold(app: app) == batch {}
            // Then the live tips' eligible counts, from the days just folded.
            while !Task.isCancelled, try await foldEligibility(app: app) == batch {}
        }
    }

    /// Keeps up to `batch` of the app's due days of its live tips' eligible counts; answers how many.
    @discardableResult
    public func foldEligibility(app: String) async throws -> Int {
        guard let eligibility = try await Eligibility.live(app: app, store: store) else { return 0 }
        let kept = try await eligibility.fold(store: store, app: app, limit: batch)
        if kept > 0 { logger.debug("kept eligible counts", metadata: ["app": "\(app)", "days": "\(kept)"]) }
        return kept
    }

    /// Folds up to `batch` of the app's due days; answers how many it folded.
    @discardableResult
    public func fold(app: String) async throws -> Int {
        let before = (now().timeIntervalSince1970 - settled) * 1000
        let folded = try await store.rollUp(app: app, before: Int64(before), limit: batch)
        if folded > 0 { logger.debug("folded events into rollups", metadata: ["app": "\(app)", "days": "\(folded)"]) }
        return folded
    }
}
