import Foundation
import WaymarkEngine
import WaymarkRules
import WaymarkSupport

/// A JSON Lines file of timed inputs, as `waymark eval`, `simulate` and `explain` read them:
///
/// ```
/// {"t":"2026-01-01T10:00:00Z","event":"tap","target":"search"}   an event (target optional)
/// {"t":"2026-01-01T10:00:01Z","event":"purchase","properties":{"amount":799,"cod":true}}
/// {"t":"2026-01-01T10:00:05Z"}                                   a clock tick
/// {"t":"2026-01-01T10:00:06Z","context":{"app.version":"1.3.0"}} context values (null removes;
///                                                                user attributes may be {"time": …}
///                                                                or {"version": …})
/// {"t":"2026-01-01T10:00:07Z","container":"home","visible":false} a container hidden or shown
/// {"t":"2026-01-01T10:00:08Z","close":"search-tip"}              the user closed a tip
/// {"t":"2026-01-01T10:00:09Z","tip":"search-tip","visible":false} a showing tip out of sight or
///                                                                back in it
/// ```
/// Blank lines are skipped. Times are RFC 3339.
///
/// A file is read a chunk at a time and each line handed on as soon as it is read, so memory stays
/// the same for any length of file; lines are read from their bytes by a ``JSONScanner``.
public enum EventScript {
    /// What one line says happened.
    public enum Input: Hashable, Sendable {
        /// An event, with its target and properties, if any.
        case event(name: String, target: String?, properties: [String: ContextValue])
        /// Time passed.
        case tick
        /// Context values changed; `nil` removes one.
        case context([String: ContextValue?])
        /// A container of the app's screen showed or hid.
        case container(String, visible: Bool)
        /// The user closed a tip.
        case close(tip: String)
        /// A showing tip went out of the user's sight or came back into it.
        case tip(String, visible: Bool)
    }

    /// One line of a script.
    public struct Line: Hashable, Sendable {
        /// The 1-based line in the file.
        public var number: Int
        /// When it happened.
        public var time: Date
        /// What happened.
        public var input: Input

        /// A line with this number, time and input.
        public init(number: Int, time: Date, input: Input) {
            self.number = number
            self.time = time
            self.input = input
        }
    }

    /// The most diagnostics a reading keeps; past them it only counts.
    public static let maximumDiagnostics = 100
    /// The longest line read; a longer one is an error, and memory stays bounded.
    public static let maximumLineBytes = 1 << 20

    /// What a reader of lines throws to refuse one: the line is named with the message as if it
    /// were bad, and no more lines are given.
    public struct LineRefused: Error {
        /// Why, as the diagnostic says it.
        public var message: String

        /// A refusal saying why.
        public init(_ message: String) { self.message = message }
    }

    /// Reads the script file at `path`, giving each line to `body` in order. At the first bad line
    /// (or one `body` refuses) `body` is given no more lines, so what it made is right for the lines
    /// before; the rest of the file is still read so that every bad line is named, and then
    /// ``DiagnosticsError`` is thrown.
    public static func read(path: String, _ body: (Line) throws(LineRefused) -> Void) throws(DiagnosticsError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DiagnosticsError([Diagnostic(file: path, line: 1, column: 1, message: "cannot open the file")])
        }
        defer { try? handle.close() }
        var reader = LineReader(file: path)
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                reader.add(chunk, body)
            }
            reader.finish(body)
        } catch {
            reader.fail(line: reader.lineNumber + 1, "cannot read the file: \(error)", text: nil)
        }
        try reader.check()
    }

    /// Reads a script held in memory, as ``read(path:_:)`` reads a file; `file` names it in diagnostics.
    public static func read(text: String, file: String, _ body: (Line) throws(LineRefused) -> Void) throws(DiagnosticsError) {
        var reader = LineReader(file: file)
        reader.add(Data(text.utf8), body)
        reader.finish(body)
        try reader.check()
    }

    /// The lines of a script held in memory, for small scripts and tests.
    public static func lines(text: String, file: String) throws(DiagnosticsError) -> [Line] {
        var lines: [Line] = []
        try read(text: text, file: file) { lines.append($0) }
        return lines
    }

    /// Splits chunks of a file into lines, reads each, and keeps what was wrong.
    struct LineReader {
        let file: String
        /// Bytes of a line whose end has not been read yet.
        private var pending: [UInt8] = []
        /// Whether the rest of a line that was too long is being skipped.
        private var skipping = false
        private(set) var lineNumber = 0
        private var diagnostics: [Diagnostic] = []
        private var failures = 0

        init(file: String) { self.file = file }

        mutating func add(_ chunk: Data, _ body: (Line) throws(LineRefused) -> Void) {
            chunk.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                var start = 0
                while start < bytes.count {
                    let rest = UnsafeRawBufferPointer(rebasing: bytes[start...])
                    guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")) else {
                        keep(rest)
                        return
                    }
                    let end = start + newline
                    lineNumber += 1
                    if skipping {
                        skipping = false
                    } else if pending.isEmpty {
                        take(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), body)
                    } else {
                        pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                        let line = pending
                        line.withUnsafeBytes { take($0, body) }
                        pending.removeAll(keepingCapacity: true)
                    }
                    start = end + 1
                }
            }
        }

        /// Keeps the start of a line whose end is in a later chunk, unless it is already too long.
        private mutating func keep(_ bytes: UnsafeRawBufferPointer) {
            guard !skipping else { return }
            if pending.count + bytes.count > EventScript.maximumLineBytes {
                fail(line: lineNumber + 1, "the line is longer than \(EventScript.maximumLineBytes) bytes", text: nil)
                pending.removeAll()
                skipping = true
            } else {
                pending.append(contentsOf: bytes)
            }
        }

        /// The last line, when the file does not end with a line end.
        mutating func finish(_ body: (Line) throws(LineRefused) -> Void) {
            guard !pending.isEmpty, !skipping else { return }
            lineNumber += 1
            let line = pending
            line.withUnsafeBytes { take($0, body) }
            pending.removeAll()
        }

        private mutating func take(_ bytes: UnsafeRawBufferPointer, _ body: (Line) throws(LineRefused) -> Void) {
            var bytes = bytes
            if bytes.last == UInt8(ascii: "\r") { bytes = UnsafeRawBufferPointer(rebasing: bytes.dropLast()) }
            guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
            switch EventScript.parse(bytes, number: lineNumber) {
            case .success(let line):
                guard failures == 0 else { return }
                do throws(LineRefused) {
                    try body(line)
                } catch {
                    fail(line: lineNumber, error.message, text: String(decoding: bytes, as: UTF8.self))
                }
            case .failure(let error):
                fail(line: lineNumber, error.message, text: String(decoding: bytes, as: UTF8.self))
            }
        }

        /// Notes a bad line; `text` is the line, for the excerpt, when it was kept.
        mutating func fail(line: Int, _ message: String, text: String?) {
            failures += 1
            if diagnostics.count < EventScript.maximumDiagnostics {
                diagnostics.append(Diagnostic(file: file, line: line, column: 1, message: message, lineText: text))
            }
        }

        /// Throws what was wrong, if anything.
        func check() throws(DiagnosticsError) {
            guard failures > 0 else { return }
            var all = diagnostics
            if failures > diagnostics.count {
                all.append(
                    Diagnostic(
                        file: file, line: lineNumber, column: 1,
                        message: "\(failures - diagnostics.count) more bad lines not shown (\(failures) in all)"))
            }
            throw DiagnosticsError(all)
        }
    }

    struct LineError: Error {
        var message: String
    }

    /// The keys a line may have; a line's keys are kept as their bits.
    private enum Key: String, CaseIterable {
        case t, event, target, properties, context, container, visible, close, tip

        var bit: UInt16 {
            switch self {
            case .t: 1
            case .event: 2
            case .target: 4
            case .properties: 8
            case .context: 16
            case .container: 32
            case .visible: 64
            case .close: 128
            case .tip: 256
            }
        }

        static func names(_ keys: UInt16) -> [String] { allCases.filter { keys & $0.bit != 0 }.map(\.rawValue) }
    }

    /// A line's time, as read: milliseconds, or the text that is no RFC 3339 time.
    private enum TimeText {
        case millis(Int64)
        case bad(String)
    }

    /// One line of a script, from its bytes.
    static func parse(_ bytes: UnsafeRawBufferPointer, number: Int) -> Result<Line, LineError> {
        var scanner = JSONScanner(bytes)
        var keys: UInt16 = 0
        var unknown: [String] = []
        var time: TimeText?
        var name: String?
        var target: String?
        var container: String?
        var close: String?
        var tip: String?
        var visible: Bool?
        var properties: [String: ContextValue]?
        var context: [String: ContextValue?]?
        do throws(JSONScanner.SyntaxError) {
            scanner.skipSpace()
            guard scanner.next() == UInt8(ascii: "{") else {
                scanner.index -= 1
                try scanner.skipValue(depth: 0)
                try scanner.end()
                return .failure(LineError(message: "a line must be a JSON object"))
            }
            try scanner.readMembers { scanner, key throws(JSONScanner.SyntaxError) in
                guard let known = Key(rawValue: key) else {
                    unknown.append(key)
                    try scanner.skipValue(depth: 1)
                    return
                }
                keys |= known.bit
                switch known {
                case .t:
                    time = try scanner.readText(depth: 1) { bytes in
                        Timestamp.parse(utf8: bytes).map(TimeText.millis) ?? .bad(String(decoding: bytes, as: UTF8.self))
                    }
                case .event: name = try scanner.readText(depth: 1)
                case .target: target = try scanner.readText(depth: 1)
                case .container: container = try scanner.readText(depth: 1)
                case .close: close = try scanner.readText(depth: 1)
                case .tip: tip = try scanner.readText(depth: 1)
                case .visible:
                    if case .bool(let flag)? = try scanner.readScalar(depth: 1) { visible = flag } else { visible = nil }
                case .properties:
                    // Nothing removes a property: null is not one of its values.
                    properties = try readValues(&scanner, allowingNull: false)?.compactMapValues { $0 }
                case .context:
                    context = try readValues(&scanner, allowingNull: true)
                }
            }
            try scanner.end()
        } catch {
            return .failure(LineError(message: "invalid JSON"))
        }
        func failure(_ message: String) -> Result<Line, LineError> { .failure(LineError(message: message)) }
        let millis: Int64
        switch time {
        case nil: return failure("the line has no time \"t\"")
        case .bad(let text)?: return failure("\"\(text)\" is not an RFC 3339 time such as 2026-01-01T10:00:00Z")
        case .millis(let value)?: millis = value
        }
        /// A key's value when it is a non-empty string.
        func text(_ value: String?, _ key: String) -> Result<String, LineError> {
            guard let value, !value.isEmpty else { return .failure(LineError(message: "\"\(key)\" must be a non-empty string")) }
            return .success(value)
        }
        let shape = keys & ~Key.t.bit
        let event = Key.event.bit
        let input: Input
        do throws(LineError) {
            switch (unknown.isEmpty, shape) {
            case (true, 0):
                input = .tick
            case (true, event), (true, event | Key.target.bit), (true, event | Key.properties.bit),
                (true, event | Key.target.bit | Key.properties.bit):
                let eventTarget = shape & Key.target.bit == 0 ? nil : try text(target, "target").get()
                if shape & Key.properties.bit != 0, properties == nil {
                    throw LineError(message: "\"properties\" must be an object of strings, finite numbers and booleans")
                }
                input = .event(name: try text(name, "event").get(), target: eventTarget, properties: properties ?? [:])
            case (true, Key.context.bit):
                guard let context else {
                    throw LineError(
                        message:
                            "\"context\" must be an object of strings, finite numbers, booleans, {\"time\": …}, {\"version\": …} or null")
                }
                input = .context(context)
            case (true, Key.container.bit | Key.visible.bit):
                guard let visible else { throw LineError(message: "\"visible\" must be true or false") }
                input = .container(try text(container, "container").get(), visible: visible)
            case (true, Key.close.bit):
                input = .close(tip: try text(close, "close").get())
            case (true, Key.tip.bit | Key.visible.bit):
                guard let visible else { throw LineError(message: "\"visible\" must be true or false") }
                input = .tip(try text(tip, "tip").get(), visible: visible)
            default:
                let names = (Key.names(shape) + unknown).sorted().joined(separator: ", ")
                throw LineError(
                    message: "unexpected keys \(names); a line is an event, a tick, context, a container, a close or a tip")
            }
        } catch {
            return .failure(error)
        }
        return .success(Line(number: number, time: Date(timeIntervalSince1970: Double(millis) / 1000), input: input))
    }

    /// An object of values (`null` only where allowed, as nil), or nil (having skipped the value)
    /// when it is not one.
    private static func readValues(_ scanner: inout JSONScanner, allowingNull: Bool) throws(JSONScanner.SyntaxError)
        -> [String: ContextValue?]?
    {
        guard scanner.peek() == UInt8(ascii: "{") else {
            try scanner.skipValue(depth: 1)
            return nil
        }
        scanner.index += 1
        var values: [String: ContextValue?] = [:]
        var bad = false
        try scanner.readMembers { scanner, key throws(JSONScanner.SyntaxError) in
            if allowingNull, scanner.peekNull() {
                try scanner.literal("null")
                values[key] = .some(nil)
                return
            }
            // Context (a user's attributes) may hold times and versions: {"time": "…"}, {"version": "…"}.
            if allowingNull, scanner.peek() == UInt8(ascii: "{") {
                scanner.index += 1
                var typed: ContextValue?
                var members = 0
                try scanner.readMembers { scanner, kind throws(JSONScanner.SyntaxError) in
                    members += 1
                    let text = try scanner.readText(depth: 3)
                    switch kind {
                    case "time": typed = text.flatMap(RuleTime.parse).map { .time(milliseconds: $0) }
                    case "version": typed = text.flatMap(Version.init(reading:)).map { .version($0) }
                    default: typed = nil
                    }
                }
                if let typed, members == 1 { values[key] = typed } else { bad = true }
                return
            }
            switch try scanner.readScalar(depth: 2) {
            case .text(let text): values[key] = .string(text)
            case .bool(let flag): values[key] = .bool(flag)
            case .number(let literal):
                guard let number = Double(literal), number.isFinite else {
                    bad = true
                    return
                }
                values[key] = .number(number)
            case nil: bad = true
            }
        }
        return bad ? nil : values
    }
}
