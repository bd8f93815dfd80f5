import Foundation
import Testing
import WaymarkSupport

/// A child past its time limit is killed, however busy the process's task threads are; a child
/// that ends in time is left alone. No test here measures how long anything took.
@Suite(.timeLimit(.minutes(1)))
struct ProcessDeadlineTests {
    /// Starts `/bin/sleep` for a minute and a semaphore signalled, once per waiter, when it ends.
    static func sleeper(waiters: Int) throws -> (Process, DispatchSemaphore) {
        let ended = DispatchSemaphore(value: 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["60"]
        process.terminationHandler = { _ in for _ in 0..<waiters { ended.signal() } }
        try process.run()
        return (process, ended)
    }

    @Test func aHangingChildIsKilledAtItsLimit() throws {
        let (process, ended) = try Self.sleeper(waiters: 1)
        let deadline = ProcessDeadline(process: process.processIdentifier, limit: .milliseconds(100))
        ended.wait()
        #expect(deadline.cancel(), "the deadline says it killed the child")
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGKILL)
    }

    /// Every thread of Swift's cooperative pool is blocked waiting for the child: a deadline that
    /// slept in a task would never wake, and the child would run its full minute.
    @Test func aHangingChildIsKilledWhileEveryTaskThreadIsBlocked() async throws {
        let threads = ProcessInfo.processInfo.activeProcessorCount
        let (process, ended) = try Self.sleeper(waiters: threads)
        let deadline = ProcessDeadline(process: process.processIdentifier, limit: .milliseconds(100))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<threads { group.addTask { ended.wait() } }
        }
        #expect(deadline.cancel())
        #expect(process.terminationReason == .uncaughtSignal)
    }

    @Test func aChildThatEndsInTimeIsNotKilled() throws {
        let ended = DispatchSemaphore(value: 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        let deadline = ProcessDeadline(process: process.processIdentifier, limit: .seconds(600))
        ended.wait()
        #expect(!deadline.cancel())
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    @Test func killNowEndsTheChildBeforeItsLimit() throws {
        let (process, ended) = try Self.sleeper(waiters: 1)
        let deadline = ProcessDeadline(process: process.processIdentifier, limit: .seconds(600))
        deadline.killNow()
        ended.wait()
        deadline.cancel()
        #expect(process.terminationReason == .uncaughtSignal)
    }
}
