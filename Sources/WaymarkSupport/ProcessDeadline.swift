import Foundation

/// Kills a child process with SIGKILL when its time limit has passed.
///
/// The wait runs on a thread of its own, not on Swift's cooperative pool or a dispatch queue: a
/// machine whose every task thread is busy or blocked still kills a hanging child on time. Cancel
/// the deadline as soon as the process has ended, so that its process id, which the system may
/// give to another process, is never signalled.
///
/// ```swift
/// try process.run()
/// let deadline = ProcessDeadline(process: process.processIdentifier, limit: .seconds(30))
/// process.waitUntilExit()
/// if deadline.cancel() { /* it was killed: report the time limit, not the exit status */ }
/// ```
@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
public final class ProcessDeadline: @unchecked Sendable {
    private let pid: Int32
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var ended = false
    private var killed = false

    /// Starts the wait for the process `pid`, which is killed once `limit` has passed.
    public init(process pid: Int32, limit: Duration) {
        self.pid = pid
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        let until = Date(timeIntervalSinceNow: max(0, seconds))
        let thread = Thread { [self] in
            condition.lock()
            while !ended, condition.wait(until: until) {}
            if !ended {
                kill(pid, SIGKILL)
                killed = true
            }
            condition.unlock()
        }
        thread.name = "waymark-process-deadline"
        thread.start()
    }

    /// Stops the wait; returns whether the process had already been killed for its time limit.
    @discardableResult
    public func cancel() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        ended = true
        condition.signal()
        return killed
    }

    /// Kills the process now (the server is shutting down, say), unless it has ended.
    public func killNow() {
        condition.lock()
        defer { condition.unlock() }
        guard !ended else { return }
        kill(pid, SIGKILL)
    }
}
