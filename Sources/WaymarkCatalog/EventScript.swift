import Foundation
import WaymarkEngine
import WaymarkRules
import WaymarkSupport

/// A JSON Lines file of timed inputs, as `waymark eval`, `simulate` and `explain` read them:
///
/// ```
/// {"t":"2026-01-01T10:00:00Z","event":"tap","target":"search"}   an event (target optional)
/// {"t":"2026-01-01T10:00:05Z"}                                   a clock tick
/// {"t":"2026-01-01T10:00:06Z","context":{"app.version":"1.3.0"}} context values (null removes)
/// {"t":"2026-01-01T10:00:07Z","container":"home","visible":false} a container hidden or shown
/// {"t":"2026-01-01T10:00:08Z","close":"search-tip"}              the user closed a tip
/// ```
/// Blank lines are skipped. Times are RFC 3339.
public struct EventScript: Hashable, Sendable {
    public enum Input: Hashable, Sendable {
        case event(name: String, target: String?)
        case tick
        case context([String: ContextValue?])
        case container(String, visible: Bool)
        case close(tip: String)
    }

    public struct Line: Hashable, Sendable {
        /// The 1-based line in the file.
        public var number: Int
        public var time: Date
        public var input: Input

        public init(number: Int, time: Date, input: Input) {
            self.number = number
            self.time = time
            self.input = input
        }
    }

    public var lines: [Line]

    public init(lines: [Line]) {
        self.lines = lines
    }

    /// Parses a script; throws ``DiagnosticsError`` naming each bad line.
    public static func parse(_ text: String, file: String) throws(DiagnosticsError) -> EventScript {
        var lines: [Line] = []
        var diagnostics: [Diagnostic] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            do {
                lines.append(try parseLine(trimmed, number: index + 1))
            } catch {
                diagnostics.append(
                    Diagnostic(file: file, line: index + 1, column: 1, message: error.message, lineText: String(raw))
                )
            }
        }
        if !diagnostics.isEmpty { throw DiagnosticsError(diagnostics) }
        return EventScript(lines: lines)
    }

    /// Reads and parses a script file.
    public static func load(path: String) throws(DiagnosticsError) -> EventScript {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw DiagnosticsError([Diagnostic(file: path, line: 1, column: 1, message: "cannot read the file as UTF-8 text")])
        }
        return try parse(text, file: path)
    }

    private struct LineError: Error {
        var message: String
    }

    private static func parseLine(_ source: String, number: Int) throws(LineError) -> Line {
        guard let decoded = try? JSONDecoder().decode(JSONValue.self, from: Data(source.utf8)) else {
            throw LineError(message: "invalid JSON")
        }
        guard case .object(let object) = decoded else { throw LineError(message: "a line must be a JSON object") }
        guard case .string(let timeText)? = object["t"] else { throw LineError(message: "the line has no time \"t\"") }
        guard let time = Timestamp.date(timeText) else {
            throw LineError(message: "\"\(timeText)\" is not an RFC 3339 time such as 2026-01-01T10:00:00Z")
        }
        let keys = Set(object.keys).subtracting(["t"])
        func text(_ key: String) throws(LineError) -> String {
            guard case .string(let value)? = object[key], !value.isEmpty else {
                throw LineError(message: "\"\(key)\" must be a non-empty string")
            }
            return value
        }
        let input: Input
        switch keys {
        case []:
            input = .tick
        case ["event"], ["event", "target"]:
            input = .event(name: try text("event"), target: keys.contains("target") ? try text("target") : nil)
        case ["context"]:
            guard case .object(let values)? = object["context"] else {
                throw LineError(message: "\"context\" must be an object of values")
            }
            var context: [String: ContextValue?] = [:]
            for (path, value) in values {
                switch value {
                case .null: context[path] = .some(nil)
                case .bool(let flag): context[path] = .bool(flag)
                case .number(let number): context[path] = .number(number)
                case .string(let string): context[path] = .string(string)
                case .array, .object:
                    throw LineError(message: "context value \"\(path)\" must be a string, a number, a boolean or null")
                }
            }
            input = .context(context)
        case ["container", "visible"]:
            guard case .bool(let visible)? = object["visible"] else {
                throw LineError(message: "\"visible\" must be true or false")
            }
            input = .container(try text("container"), visible: visible)
        case ["close"]:
            input = .close(tip: try text("close"))
        default:
            throw LineError(
                message:
                    "unexpected keys \(keys.sorted().joined(separator: ", ")); a line is an event, a tick, context, a container or a close"
            )
        }
        return Line(number: number, time: time, input: input)
    }
}
