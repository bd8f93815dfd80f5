import WaymarkSupport

/// One read shared by the requests that need it at the same moment, without ever answering a
/// request with a read that began before it arrived.
///
/// On a shared database every catalog request asks which version is live, since another server
/// may have published a moment ago. A read per request is correct but costs a round trip each;
/// reusing a recent answer for a while would serve a rolled-back catalog after the rollback was
/// acknowledged. Here, per key, one read runs at a time: the requests that arrive while it runs
/// wait for the next one, which starts when it ends and answers all of them at once. Every request
/// is answered by a read that started after it arrived, so it sees everything committed before it
/// arrived, exactly as with a read of its own; under load, one read answers many requests.
///
/// A read is run in the task of one of the requests waiting for it (no task is made), with the
/// `read` that request passed: the callers of one key pass reads that do the same.
final class SharedReads<Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Turn, any Error>

    /// What a waiting request is told: the value read for it, or to run the read itself for
    /// itself and `followers`.
    private enum Turn {
        case value(Value)
        case run(followers: [Waiter])
    }

    private struct Key: Sendable {
        /// The requests that arrived while a read was running, for the next read.
        var next: [Waiter] = []
    }

    /// Per key with a read running, the requests waiting for the next one.
    private let running = Locked<[String: Key]>([:])

    init() {}

    /// How many requests wait for the next read of `key` (for tests).
    func waiting(_ key: String) -> Int {
        running.withLock { $0[key]?.next.count ?? 0 }
    }

    /// The value read for `key` by a read that started after this call.
    func value(_ key: String, read: (String) async throws -> Value) async throws -> Value {
        let turn = try await withCheckedThrowingContinuation { (waiter: Waiter) in
            let runNow = running.withLock { running in
                if running[key] != nil {
                    running[key]!.next.append(waiter)
                    return false
                }
                running[key] = Key()
                return true
            }
            if runNow { waiter.resume(returning: .run(followers: [])) }
        }
        switch turn {
        case .value(let value):
            return value
        case .run(let followers):
            let result: Result<Value, any Error>
            do { result = .success(try await read(key)) } catch { result = .failure(error) }
            // Those who came during this read wait for another: the first of them runs it.
            let next = running.withLock { running in
                let next = running[key]?.next ?? []
                if next.isEmpty { running[key] = nil } else { running[key]!.next = [] }
                return next
            }
            if let runner = next.first { runner.resume(returning: .run(followers: Array(next.dropFirst()))) }
            if case .failure(let error) = result, error is CancellationError, let first = followers.first {
                // This request was cancelled, not its followers: one of them reads instead.
                first.resume(returning: .run(followers: Array(followers.dropFirst())))
            } else {
                for follower in followers { follower.resume(with: result.map { .value($0) }) }
            }
            return try result.get()
        }
    }
}
