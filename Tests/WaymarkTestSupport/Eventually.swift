import Foundation

/// Asks `probe` every `interval` until it answers, for what a server does in the background
/// (speech made, a queue drained); nil when `seconds` pass without an answer.
public func eventually<T>(
    within seconds: Double, every interval: Duration = .milliseconds(100), _ probe: () async throws -> T?
) async throws -> T? {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while true {
        if let answer = try await probe() { return answer }
        guard ContinuousClock.now < deadline else { return nil }
        try await Task.sleep(for: interval)
    }
}

/// The same for a condition: whether it came true within `seconds`.
public func eventually(within seconds: Double, every interval: Duration = .milliseconds(100), _ condition: () async throws -> Bool)
    async throws -> Bool
{
    try await eventually(within: seconds, every: interval) { try await condition() ? true : nil } ?? false
}
