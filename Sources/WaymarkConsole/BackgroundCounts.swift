import Foundation
import WaymarkAnalytics
import WaymarkStore
import WaymarkSupport

/// What a page shows that may take longer than a page should wait: eligible counts read the days
/// kept for the live tips (``Eligibility``) and replay the days after them, a fraction of a second
/// once the rollup folder has kept every ended day, seconds for a million events after a
/// publication of new rules, until it has; a proposal's backtest and a breakdown by a segment the
/// kept days do not hold replay the period. So they are counted in the background, once per app,
/// live catalog version, period and subject, and kept for five minutes; a page waits a moment for
/// them and otherwise shows its other figures at once, says the counts are coming, and reloads.
actor BackgroundCounts<Value: Sendable> {
    struct Key: Hashable {
        var app: String
        /// The live catalog version the tips come from (0: none).
        var version: Int
        var period: Period
        /// What is counted: one tip's id, or nil for every tip of the catalog; a proposal's or a
        /// breakdown's rules.
        var tip: String?
    }

    private struct Entry {
        var task: Task<Value, any Error>
        var started: Date
        /// The value, once counted.
        var value: Value?
    }

    static var lifetime: TimeInterval { 300 }
    /// Counts kept at most; the oldest go first.
    static var capacity: Int { 64 }

    private var entries: [Key: Entry] = [:]

    /// The counts for `key`, started with `count` unless they are being counted already or were
    /// counted less than ``lifetime`` ago; nil when they are not ready within `patience` (nil
    /// patience: waits until they are; zero: only counts that are ready already).
    func counts(
        _ key: Key, now: Date, patience: Duration?, count: @escaping @Sendable () async throws -> Value
    ) async throws -> Value? {
        let task = entry(key, now: now, count: count)
        guard let patience else { return try await task.value }
        if patience <= .zero { return entries[key]?.value }
        // Whichever comes first, the counts or the end of patience. Not a task group: leaving one
        // waits for every child, and waiting for a task's value cannot be cancelled, so the page
        // would wait for the whole count.
        let answered = Locked(false)
        return try await withCheckedThrowingContinuation { continuation in
            @Sendable func answer(_ result: Result<Value?, any Error>) {
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

    private func entry(_ key: Key, now: Date, count: @escaping @Sendable () async throws -> Value) -> Task<Value, any Error> {
        if let entry = entries[key], now.timeIntervalSince(entry.started) < Self.lifetime { return entry.task }
        if entries.count >= Self.capacity, let oldest = entries.min(by: { $0.value.started < $1.value.started })?.key {
            entries[oldest] = nil
        }
        let task = Task {
            do {
                let value = try await count()
                self.keep(value, key, startedAt: now)
                return value
            } catch {
                // A failed count is not kept: the next page asks again.
                self.forget(key, startedAt: now)
                throw error
            }
        }
        entries[key] = Entry(task: task, started: now)
        return task
    }

    private func keep(_ value: Value, _ key: Key, startedAt: Date) {
        if entries[key]?.started == startedAt { entries[key]?.value = value }
    }

    private func forget(_ key: Key, startedAt: Date) {
        if entries[key]?.started == startedAt { entries[key] = nil }
    }
}

/// Eligible counts and the proposals' backtests.
typealias EligibleCache = BackgroundCounts<[Backtest.Outcome]>
/// The users' groups under a breakdown by a segment the kept days do not hold.
typealias GroupsCache = BackgroundCounts<UserGroups>
/// Who is in each of the draft's segments, and how long the count took, in seconds.
typealias SegmentsCache = BackgroundCounts<(outcome: SegmentReplay.Outcome, seconds: Double)>
