import WaymarkRules

/// A problem in a file, at a place: what `waymark lint` prints, one per problem.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public var message: String
    public var expected: String?
    /// The line of the file the problem is on, for the caret excerpt.
    public var lineText: String?
    /// Whether it is a warning: the file is usable, but something in it is likely a mistake.
    public var isWarning = false

    public init(file: String, line: Int, column: Int, message: String, expected: String? = nil, lineText: String? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.expected = expected
        self.lineText = lineText
    }

    /// `error: message` (or `warning: message`) and `--> file:line:column`, then the caret excerpt
    /// when the line is known.
    public var description: String {
        let origin = "\(file):\(line):\(column)"
        let text =
            lineText.map { RuleError.excerpt(message: message, expected: expected, origin: origin, lineText: $0, column: column) }
            ?? "error: \(message)\(expected.map { ", expected \($0)" } ?? "")\n --> \(origin)"
        return isWarning ? "warning" + text.dropFirst("error".count) : text
    }
}

/// Diagnostics that stopped a file from being used.
public struct DiagnosticsError: Error, Hashable, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]

    public init(_ diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n\n")
    }
}
