import Foundation

/// A value behind a lock (Foundation's, so this runs on every platform the SDK targets). Shared by
/// the parts that hold mutable state across tasks: the live engine, the client SDK, the server's caches,
/// the PostgreSQL store.
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    public init(_ value: Value) { self.value = value }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
