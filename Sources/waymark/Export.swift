import ArgumentParser
import Foundation
import NIOCore
import WaymarkApplication
import WaymarkServer
import WaymarkStore
import WaymarkSupport

extension Waymark {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write an app's events, NDJSON or CSV, straight from the database.",
            discussion: """
                Events come in the order they happened, read and written a thousand at a time, so
                memory does not grow with their number. Each line starts with its cursor: give the
                last one received to --after to go on from there. The server has the same export at
                GET /v1/admin/events with the app's secret key.
                """
        )

        @Option(help: "The app's id.")
        var app: String

        @Option(help: "The first moment, RFC 3339 (default: the first event).")
        var from: String?

        @Option(help: "The moment after the last, RFC 3339 (default: no end).")
        var to: String?

        @Option(help: "ndjson (one JSON object a line) or csv.")
        var format: String = EventExport.Format.ndjson.rawValue

        @Option(help: "Go on after the event with this cursor (the first field of an exported line).")
        var after: String?

        @Option(help: "The file to write (default: standard output).")
        var out: String?

        @OptionGroup var options: ServerOptions

        mutating func run() async throws {
            func time(_ text: String?, _ name: String, default value: Int64) throws -> Int64 {
                guard let text else { return value }
                guard let millis = Timestamp.parse(text) else {
                    throw ValidationError("--\(name) must be an RFC 3339 time, like 2026-11-01T00:00:00Z")
                }
                return millis
            }
            let period = Period(from: try time(from, "from", default: 0), to: try time(to, "to", default: Int64.max))
            guard let format = EventExport.Format(rawValue: format) else { throw ValidationError("--format is ndjson or csv") }
            let cursor = try after.map { text in
                guard let cursor = EventExport.parseCursor(text) else { throw ValidationError("--after takes an exported line's cursor") }
                return cursor
            }
            let output = try outputFile(out)
            let resolved = try options.resolve()
            let app = app
            let count = try await withStoreOrExit(resolved.storage, logger: bootstrap(resolved)) { store in
                guard try await store.app(id: app) != nil else { return nil as Int? }
                return try await EventExport.write(from: store, app: app, period: period, after: cursor, format: format) { page in
                    try output.write(contentsOf: page.readableBytesView)
                }
            }
            try output.close()
            guard let count else {
                printError("error: no app \(app)")
                throw ExitCode(1)
            }
            printError("Exported \(count) events" + (peakMemory().map { " (peak memory \($0 >> 20) MB)" } ?? "") + ".")
        }
    }
}

/// The most memory this process has held (VmHWM), in bytes, where the system says (Linux).
func peakMemory() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Int(line.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
    else { return nil }
    return kilobytes << 10
}
