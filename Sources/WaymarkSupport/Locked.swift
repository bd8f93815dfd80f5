import Foundation

/// A value behind a lock (Foundation's, so this runs on every platform the SDK targets). Shared by
/// the parts that hold mutable state across tasks: the live engine, the client SDK, the server's caches,
/// the PostgreSQL store.
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    /// A lock around `value`.
    public init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, holding the lock; keep it short, as every other user waits.
    ///
    /// ```swift
    /// let counter = Locked(0)
    /// let next = counter.withLock { value in value += 1; return value }
    /// ```
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
