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
