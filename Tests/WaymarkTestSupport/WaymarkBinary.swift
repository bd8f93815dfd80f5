import Foundation

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
        public var status: Int32
        public var output: String
        public var errors: String
    }

    /// Runs `waymark` with the arguments to its end, in the package's directory.
    public static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        try run(program: try url(), arguments, environment: environment)
    }

    /// Runs any program (ffprobe, say) to its end, in the package's directory.
    public static func run(program: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = root
        // Errors go to a file, not a second pipe: reading one pipe to its end while the program
        // fills the other's buffer would leave both waiting for ever.
        let errorsFile = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-run-\(UUID().uuidString).err")
        guard FileManager.default.createFile(atPath: errorsFile.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        defer { try? FileManager.default.removeItem(at: errorsFile) }
        let errors = try FileHandle(forWritingTo: errorsFile)
        defer { try? errors.close() }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let err = (try? Data(contentsOf: errorsFile)) ?? Data()
        return Run(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), errors: String(decoding: err, as: UTF8.self))
    }
}
