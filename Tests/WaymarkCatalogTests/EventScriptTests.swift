import Foundation
import Testing
import WaymarkEngine
import WaymarkRules

@testable import WaymarkCatalog

/// The replay files of `simulate`, `eval` and `explain`: every kind of line, every kind of bad line,
/// and a file read in chunks that cut lines anywhere.
@Suite struct EventScriptTests {
    static let time = Date(timeIntervalSince1970: 1_767_261_600)

    static func lines(_ text: String) throws(DiagnosticsError) -> [EventScript.Input] {
        try EventScript.lines(text: text, file: "events.jsonl").map(\.input)
    }

    @Test func readsEveryKindOfLine() throws {
        let inputs = try Self.lines(
            #"""
            {"t":"2026-01-01T10:00:00Z","event":"tap","target":"search"}
            {"event":"purchase","t":"2026-01-01T10:00:01Z","properties":{"amount":799.5,"cod":true,"city":"Indore"}}

            {"t":"2026-01-01T10:00:05Z"}
            {"t":"2026-01-01T10:00:06Z","context":{"app.version":"1.3.0","cart.items":2,"user.new":false,"user.plan":null}}
            {"t":"2026-01-01T10:00:07Z","container":"home","visible":false}
            {"t":"2026-01-01T10:00:08Z","close":"search-tip"}
            {"t":"2026-01-01T10:00:09Z","tip":"search-tip","visible":false}
            {"t":"2026-01-01T10:00:09Z","event":"tap\u0021","properties":{}}
            {"t":"2026-01-01T10:00:10Z","context":{"user.firstOrderAt":{"time":"2025-06-01T10:30:00+05:30"},"user.appBuild":{"version":"5.2.1"}}}
            """#)
        #expect(
            inputs == [
                .event(name: "tap", target: "search", properties: [:]),
                .event(name: "purchase", target: nil, properties: ["amount": 799.5, "cod": true, "city": "Indore"]),
                .tick,
                .context(["app.version": "1.3.0", "cart.items": 2, "user.new": false, "user.plan": ContextValue?.none]),
                .container("home", visible: false),
                .close(tip: "search-tip"),
                .tip("search-tip", visible: false),
                .event(name: "tap!", target: nil, properties: [:]),
                .context([
                    "user.firstOrderAt": .time(milliseconds: RuleTime.parse("2025-06-01T05:00:00Z")!),
                    "user.appBuild": .version(Version([5, 2, 1])),
                ]),
            ])
        let lines = try EventScript.lines(text: "\n{\"t\":\"2026-01-01T10:00:00.250+05:30\"}\r\n", file: "f")
        #expect(lines.map(\.number) == [2])
        #expect(lines.first?.time == Date(timeIntervalSince1970: 1_767_241_800.25))
    }

    @Test(arguments: [
        ("not json", "invalid JSON"),
        (#"{"t":"2026-01-01T10:00:00Z"} x"#, "invalid JSON"),
        (#"[1]"#, "a line must be a JSON object"),
        (#"{"event":"tap"}"#, #"the line has no time "t""#),
        (#"{"t":5,"event":"tap"}"#, #"the line has no time "t""#),
        (#"{"t":"yesterday"}"#, #""yesterday" is not an RFC 3339 time such as 2026-01-01T10:00:00Z"#),
        (#"{"t":"2026-01-01T10:00:00Z","event":""}"#, #""event" must be a non-empty string"#),
        (#"{"t":"2026-01-01T10:00:00Z","event":"tap","target":7}"#, #""target" must be a non-empty string"#),
        (
            #"{"t":"2026-01-01T10:00:00Z","event":"buy","properties":{"amount":null}}"#,
            #""properties" must be an object of strings, finite numbers and booleans"#
        ),
        (
            #"{"t":"2026-01-01T10:00:00Z","event":"buy","properties":{"amount":1e999}}"#,
            #""properties" must be an object of strings, finite numbers and booleans"#
        ),
        (
            #"{"t":"2026-01-01T10:00:00Z","context":[1]}"#,
            #""context" must be an object of strings, finite numbers, booleans, {"time": …}, {"version": …} or null"#
        ),
        (
            #"{"t":"2026-01-01T10:00:00Z","context":{"user.at":{"time":"2026-02-30"}}}"#,
            #""context" must be an object of strings, finite numbers, booleans, {"time": …}, {"version": …} or null"#
        ),
        (
            #"{"t":"2026-01-01T10:00:00Z","context":{"user.at":{"time":1}}}"#,
            #""context" must be an object of strings, finite numbers, booleans, {"time": …}, {"version": …} or null"#
        ),
        (
            #"{"t":"2026-01-01T10:00:00Z","context":{"user.b":{"version":"5.2","time":"2026-01-01"}}}"#,
            #""context" must be an object of strings, finite numbers, booleans, {"time": …}, {"version": …} or null"#
        ),
        (
            #"{"t":"2026-01-01T10:00:00Z","context":{"user.b":{}}}"#,
            #""context" must be an object of strings, finite numbers, booleans, {"time": …}, {"version": …} or null"#
        ),
        (
            #"{"t":"2026-01-01T10:00:00Z","event":"buy","properties":{"at":{"time":"2026-01-01"}}}"#,
            #""properties" must be an object of strings, finite numbers and booleans"#
        ),
        (#"{"t":"2026-01-01T10:00:00Z","container":"home","visible":"no"}"#, #""visible" must be true or false"#),
        (#"{"t":"2026-01-01T10:00:00Z","close":""}"#, #""close" must be a non-empty string"#),
        (#"{"t":"2026-01-01T10:00:00Z","tip":"a","visible":1}"#, #""visible" must be true or false"#),
        (
            #"{"t":"2026-01-01T10:00:00Z","tip":"a"}"#,
            "unexpected keys tip; a line is an event, a tick, context, a container, a close or a tip"
        ),
        (
            #"{"t":"2026-01-01T10:00:00Z","event":"tap","close":"x","colour":1}"#,
            "unexpected keys close, colour, event; a line is an event, a tick, context, a container, a close or a tip"
        ),
    ])
    func namesWhatIsWrongWithALine(_ line: String, _ message: String) {
        #expect(throws: DiagnosticsError.self) { try Self.lines(line) }
        do throws(DiagnosticsError) {
            _ = try Self.lines(#"{"t":"2026-01-01T10:00:00Z"}"# + "\n" + line)
        } catch {
            #expect(error.diagnostics.map(\.message) == [message])
            #expect(error.diagnostics.map(\.line) == [2])
        }
    }

    /// At the first bad line the reader stops giving lines, so the output so far is right, but
    /// it names every bad line (up to a limit) to the end of the file.
    @Test func aBadLineStopsTheReplayButEveryBadLineIsNamed() throws {
        let good = #"{"t":"2026-01-01T10:00:00Z","event":"tap"}"#
        let text = ([good, good, "bad"] + Array(repeating: good, count: 3) + Array(repeating: "bad", count: 150)).joined(
            separator: "\n")
        var given: [Int] = []
        do {
            try EventScript.read(text: text, file: "f") { given.append($0.number) }
            Issue.record("bad lines must throw")
        } catch {
            #expect(error.diagnostics.count == EventScript.maximumDiagnostics + 1)
            #expect(error.diagnostics.first?.line == 3)
            #expect(error.diagnostics.last?.message == "51 more bad lines not shown (151 in all)")
        }
        #expect(given == [1, 2])
        // A reader may refuse a line too: it is named as a bad one.
        do {
            try EventScript.read(text: [good, good, good].joined(separator: "\n"), file: "f") { line throws(EventScript.LineRefused) in
                if line.number == 2 { throw EventScript.LineRefused("not here") }
            }
            Issue.record("a refused line must throw")
        } catch {
            #expect(error.diagnostics.map(\.message) == ["not here"])
        }
    }

    /// Chunks of a file cut lines anywhere, even inside a character; a line that does not end
    /// before the file does is read too, and one too long to keep is named and skipped.
    @Test func chunksCutLinesAnywhere() throws {
        let text = (0..<50).map { #"{"t":"2026-01-01T10:00:\#(String(format: "%02d", $0))Z","event":"अ\#($0)"}"# }.joined(
            separator: "\n")
        let whole = try EventScript.lines(text: text, file: "f")
        #expect(whole.count == 50)
        let bytes = Array(text.utf8)
        for size in [1, 2, 7, 64, 1000] {
            var reader = EventScript.LineReader(file: "f")
            var lines: [EventScript.Line] = []
            for start in stride(from: 0, to: bytes.count, by: size) {
                reader.add(Data(bytes[start..<min(start + size, bytes.count)])) { lines.append($0) }
            }
            reader.finish { lines.append($0) }
            try reader.check()
            #expect(lines == whole, "chunks of \(size) bytes")
        }
        var reader = EventScript.LineReader(file: "f")
        var lines: [Int] = []
        let long = Data(
            #"{"t":"2026-01-01T10:00:00Z","event":""#.utf8 + Array(repeating: UInt8(ascii: "a"), count: EventScript.maximumLineBytes))
        reader.add(Data(#"{"t":"2026-01-01T10:00:00Z"}"#.utf8 + [UInt8(ascii: "\n")])) { lines.append($0.number) }
        reader.add(long) { lines.append($0.number) }
        reader.add(Data(#""}"#.utf8 + [UInt8(ascii: "\n")] + #"{"t":"2026-01-01T10:00:01Z"}"#.utf8)) { lines.append($0.number) }
        reader.finish { lines.append($0.number) }
        #expect(lines == [1])
        #expect(throws: DiagnosticsError.self) { try reader.check() }
    }
}
