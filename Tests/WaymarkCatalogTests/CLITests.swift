import Foundation
import Testing

/// Runs the real `waymark` binary, as a user would.
struct CLITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    func waymark(_ arguments: String...) throws -> Run {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [binary, binary.deletingLastPathComponent()].map { $0.appendingPathComponent("waymark") }
        let process = Process()
        process.executableURL = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) })
        process.arguments = arguments
        process.currentDirectoryURL = Self.root
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), errors: String(decoding: err, as: UTF8.self))
    }

    func temporaryFile(_ text: String, _ suffix: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-\(UUID().uuidString)\(suffix)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func simulateReplaysTheExample() throws {
        let run = try waymark("simulate", "examples/shop.yaml", "examples/session.jsonl")
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.output.split(separator: "\n")
        #expect(lines.first == #"{"t":"2026-01-01T10:00:01Z","show":"welcome","container":"banner"}"#)
        #expect(lines.contains(#"{"t":"2026-01-01T10:00:09Z","hide":"search-tip","container":"home","anchor":"search-button","reason":"dismissed"}"#))
        #expect(lines.contains(#"{"t":"2026-01-01T10:00:40Z","pause":"cart-tip","container":"product","anchor":"add-to-cart"}"#))
        #expect(lines.contains(#"{"t":"2026-01-01T10:01:10Z","resume":"cart-tip","container":"product","anchor":"add-to-cart"}"#))
        #expect(try waymark("simulate", "examples/shop.yaml", "examples/session.jsonl").output == run.output, "deterministic")
    }

    @Test func lintPointsIntoTheFile() throws {
        let path = try temporaryFile("tips:\n  - id: a\n    container: home\n    trigger: (tap AND scroll))\n", ".yaml")
        let run = try waymark("lint", path)
        #expect(run.status == 1)
        #expect(run.errors.contains("\(path):4:30"), "\(run.errors)")
        #expect(run.errors.contains("^ expected AND, OR or the end of the rule"))
        #expect(try waymark("lint", "examples/shop.yaml").status == 0)
    }

    @Test func lintReadsJSONToo() throws {
        let path = try temporaryFile(#"{"tips": [{"id": "a", "container": "home", "trigger": "tap within 5x"}]}"#, ".json")
        let run = try waymark("lint", path)
        #expect(run.status == 1)
        #expect(run.errors.contains("\(path):1:67"), "\(run.errors)")
    }

    @Test func evalPrintsTheValueAfterEachLine() throws {
        let events = try temporaryFile("""
            {"t":"2026-01-01T10:00:00Z","event":"tap"}
            {"t":"2026-01-01T10:00:03Z","event":"tap","target":"x"}
            {"t":"2026-01-01T10:00:10.001Z"}
            {"t":"2026-01-01T10:00:11Z","context":{"app.version":"1.3.0"}}
            """, ".jsonl")
        let run = try waymark("eval", "count(tap) >= 2 within 10s OR app.version >= v1.3", events)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == """
            {"t":"2026-01-01T10:00:00Z","value":false}
            {"t":"2026-01-01T10:00:03Z","value":true}
            {"t":"2026-01-01T10:00:10.001Z","value":false}
            {"t":"2026-01-01T10:00:11Z","value":true}

            """)
        let bad = try waymark("eval", "(tap AND scroll))", events)
        #expect(bad.status == 1)
        #expect(bad.errors.contains("rule:1:17"))
    }

    @Test func badEventLinesAreNamed() throws {
        let events = try temporaryFile("{\"t\":\"2026-01-01T10:00:00Z\",\"event\":\"tap\"}\nnot json\n{\"t\":\"yesterday\"}\n", ".jsonl")
        let run = try waymark("simulate", "examples/shop.yaml", events)
        #expect(run.status == 1)
        #expect(run.errors.contains("\(events):2:1") && run.errors.contains("\(events):3:1"), "\(run.errors)")
    }

    @Test func explainSaysWhy() throws {
        let run = try waymark("explain", "examples/shop.yaml", "examples/session.jsonl", "cart-tip")
        #expect(run.status == 0)
        #expect(run.output.contains("tip cart-tip: finished:dismissed"), "\(run.output)")
        #expect(try waymark("explain", "examples/shop.yaml", "examples/session.jsonl", "nope").status == 1)
    }
}
