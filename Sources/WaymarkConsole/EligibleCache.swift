import Foundation
import WaymarkAnalytics
import WaymarkStore
import WaymarkSupport

/// Eligible counts read the days kept for the live tips (``Eligibility``) and replay the days
/// after them: a fraction of a second once the rollup folder has kept every ended day, seconds
/// for a million events after a publication of new rules, until it has. Too long to hold a page,
/// so they are counted in the background, once per app, live catalog version, period and tip,
/// and kept for five minutes; a page waits a moment for them and otherwise shows its other figures
/// at once, says the counts are coming, and reloads. The proposals' backtests are kept here too.
actor EligibleCache {
    struct Key: Hashable {
        var app: String
        /// The live catalog version the tips come from (0: none).
        var version: Int
        var period: Period
        /// One tip's id, or nil for every tip of the catalog.
        var tip: String?
    }

    private struct Entry {
        var task: Task<[Backtest.Outcome], any Error>
        var started: Date
    }

    static let lifetime: TimeInterval = 300
    /// Counts kept at most; the oldest go first.
    static let capacity = 64

    private var entries: [Key: Entry] = [:]

    /// The counts for `key`, started with `count` unless they are being counted already or were
    /// counted less than ``lifetime`` ago; nil when they are not ready within `patience` (nil
    /// patience: waits until they are).
    func counts(
        _ key: Key, now: Date, patience: Duration?, count: @escaping @Sendable () async throws -> [Backtest.Outcome]
    ) async throws -> [Backtest.Outcome]? {
        let task = entry(key, now: now, count: count)
        guard let patience else { return try await task.value }
        // Whichever comes first, the counts or the end of patience. Not a task group: leaving one
        // waits for every child, and waiting for a task's value cannot be cancelled, so the page
        // would wait for the whole count.
        let answered = Locked(false)
        return try await withCheckedThrowingContinuation { continuation in
            @Sendable func answer(_ result: Result<[Backtest.Outcome]?, any Error>) {
                let first = answered.withLock { answered in
                    defer { answered = true }
                    return !answered
                }
                if first { continuation.resume(with: result) }
            }
            Task {
                do {
                    answer(.success(try await task.value))
                } catch {
                    answer(.failure(error))
                }
            }
            Task {
                try? await Task.sleep(for: patience)
                answer(.success(nil))
            }
        }
    }

    private func entry(_ key: Key, now: Date, count: @escaping @Sendable () async throws -> [Backtest.Outcome]) -> Task<
        [Backtest.Outcome], any Error
    > {
        if let entry = entries[key], now.timeIntervalSince(entry.started) < Self.lifetime { return entry.task }
        if entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value.started < $1.value.started })?.key {
            entries[oldest] = nil
        }
        let task = Task {
            do {
                return try await count()
            } catch {
                // A failed count is not kept: the next page asks again.
                self.forget(key, startedAt: now)
                throw error
            }
        }
        entries[key] = Entry(task: task, started: now)
        return task
    }

    private func forget(_ key: Key, startedAt: Date) {
        if entries[key]?.started == startedAt { entries[key] = nil }
    }
}
