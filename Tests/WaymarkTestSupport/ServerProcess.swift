import Foundation
import WaymarkSupport

/// A `waymark serve` process on a free port, logging JSON lines to a file of its own, from which
/// the tests read the address it listens on. Stopped by ``stop()``.
public final class ServerProcess {
    public let process = Process()
    /// The server's log: one JSON object per line.
    public let log: URL
    /// Where it listens, from its log: `http://127.0.0.1:PORT`.
    public private(set) var url = ""

    /// A server that did not say, within 30 s, that it was listening; it has been stopped.
    public struct NotListening: Error, CustomStringConvertible {
        public var log: String
        public var description: String { "the server did not start listening; its log: \(log)" }
    }

    /// Starts `waymark serve --port 0 --log-format json` with the further `arguments`, and waits up
    /// to 30 s for its "waymark listening" line; throws ``NotListening`` without it.
    public init(_ arguments: [String]) async throws {
        log = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-serve-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = try WaymarkBinary.url()
        process.arguments = ["serve", "--port", "0", "--log-format", "json"] + arguments
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        url =
            try await eventually(within: 30, every: .milliseconds(50)) { () -> String? in
                logText.split(separator: "\n").lazy.compactMap {
                    (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
                }
                .first { $0["message"] as? String == "waymark listening" }?["url"] as? String
            } ?? ""
        if url.isEmpty {
            let said = logText
            stop()
            throw NotListening(log: said)
        }
    }

    /// What the server has logged so far.
    public var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Stops the server (see ``stopProcess(_:within:)``) and removes its log.
    public func stop() {
        stopProcess(process)
        try? FileManager.default.removeItem(at: log)
    }
}

/// Stops a process the tests started: SIGTERM, then SIGKILL if it has not ended within `limit`,
/// so that a server that does not shut down fails its test instead of hanging the run.
public func stopProcess(_ process: Process, within limit: Duration = .seconds(30)) {
    guard process.isRunning else { return }
    let deadline = ProcessDeadline(process: process.processIdentifier, limit: limit)
    process.terminate()
    process.waitUntilExit()
    deadline.cancel()
}
