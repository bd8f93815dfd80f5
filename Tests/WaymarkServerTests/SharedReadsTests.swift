import Testing
import WaymarkEngine
import WaymarkSupport

@testable import WaymarkServer

/// Reads shared by the requests waiting at once never answer a request with a read that began
/// before it arrived.
struct SharedReadsTests {
    /// A database the tests publish to: each read returns the version live when the read began,
    /// and the first read waits until the test lets it finish.
    final class Source: Sendable {
        let published = Locked(1)
        let reads = Locked(0)
        let firstMayFinish = Locked(false)

        func read(_ key: String) async throws -> Int {
            let seen = published.withLock { $0 }
            let number = reads.withLock { reads in
                reads += 1
                return reads
            }
            while number == 1, !firstMayFinish.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
            return seen
        }
    }

    static func until(_ condition: () -> Bool) async throws {
        for _ in 0..<5_000 where !condition() { try await Task.sleep(for: .milliseconds(1)) }
        #expect(condition())
    }

    @Test func requestsThatArriveDuringAReadShareTheNextOne() async throws {
        let source = Source()
        let reads = SharedReads<Int>()
        @Sendable func read(_ key: String) async throws -> Int {
            try await reads.value(key) { try await source.read($0) }
        }
        let first = Task { try await read("app") }
        try await Self.until { source.reads.withLock { $0 } == 1 }
        // Published after the first read began, before the others arrive: they must see it.
        source.published.withLock { $0 = 2 }
        let others = (0..<10).map { _ in Task { try await read("app") } }
        try await Self.until { reads.waiting("app") == 10 }
        #expect(try await read("other app") == 2, "another key does not wait")
        source.firstMayFinish.withLock { $0 = true }
        #expect(try await first.value == 1)
        for other in others { #expect(try await other.value == 2) }
        #expect(source.reads.withLock { $0 } == 3, "one read for the first, one for the ten, one for the other key")
        #expect(reads.waiting("app") == 0)
        #expect(try await read("app") == 2 && source.reads.withLock { $0 } == 4, "idle again: a new request reads at once")
    }

    struct Unreachable: Error {}

    @Test func aFailedReadFailsTheRequestsItAnswersAndTheNextReadIsNew() async throws {
        let failing = Locked(true)
        let count = Locked(0)
        let reads = SharedReads<Int>()
        @Sendable func read() async throws -> Int {
            try await reads.value("app") { _ in
                count.withLock { $0 += 1 }
                if failing.withLock({ $0 }) { throw Unreachable() }
                return 7
            }
        }
        await #expect(throws: Unreachable.self) { try await read() }
        failing.withLock { $0 = false }
        #expect(try await read() == 7)
        #expect(count.withLock { $0 } == 2)
    }
}
