import Foundation
import WaymarkSupport

/// The `waymark` executable built beside the tests, and the package it was built from.
public enum WaymarkBinary {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    public struct NotBuilt: Error, CustomStringConvertible {
        public var description: String { "the waymark binary is not built beside the tests: run swift build first" }
    }

    public static func url() throws -> URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent()].map { $0.appendingPathComponent("waymark") }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else { throw NotBuilt() }
        return found
    }
}

extension WaymarkBinary {
    /// What a finished run of a program left.
    public struct Run: Sendable {
        /// The exit status; SIGKILL's number when the program was killed for its time limit.
        public var status: Int32
        public var output: String
        public var errors: String
    }

    /// A program that ran past its time limit and was killed.
    public struct TimedOut: Error, CustomStringConvertible {
        public var program: String
        public var limit: Duration
        public var description: String { "\(program) did not finish within \(limit) and was killed" }
    }

    /// Runs `waymark` with the arguments to its end, in the package's directory.
    public static func run(_ arguments: [String], environment: [String: String] = [:], limit: Duration = .seconds(300)) throws -> Run {
        try run(program: try url(), arguments, environment: environment, limit: limit)
    }

    /// Runs any program (ffprobe, say) to its end, in the package's directory; a program still
    /// running after `limit` is killed, and the test fails with ``TimedOut`` instead of hanging.
    public static func run(
        program: URL, _ arguments: [String], environment: [String: String] = [:], limit: Duration = .seconds(300)
    ) throws -> Run {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = root
        // Output and errors go to files, not pipes: a pipe is read to its end only once every
        // process holding its writing end has closed it, and a server another test starts at the
        // same moment may inherit that end and keep it open for as long as it runs.
        let files = ["out", "err"].map {
            FileManager.default.temporaryDirectory.appendingPathComponent("waymark-run-\(UUID().uuidString).\($0)")
        }
        for file in files {
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        }
        defer { for file in files { try? FileManager.default.removeItem(at: file) } }
        let output = try FileHandle(forWritingTo: files[0])
        defer { try? output.close() }
        let errors = try FileHandle(forWritingTo: files[1])
        defer { try? errors.close() }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let deadline = ProcessDeadline(process: process.processIdentifier, limit: limit)
        process.waitUntilExit()
        if deadline.cancel() { throw TimedOut(program: program.lastPathComponent, limit: limit) }
        let out = (try? Data(contentsOf: files[0])) ?? Data()
        let err = (try? Data(contentsOf: files[1])) ?? Data()
        return Run(
            status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), errors: String(decoding: err, as: UTF8.self))
    }
}
