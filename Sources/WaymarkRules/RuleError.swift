/// An error in a rule's text: where it is, what is wrong, and what was expected there.
///
/// Errors are values: the parser never traps on any input. `description` gives the one-line form
/// (`unexpected ")" at 1:17, expected AND, OR or the end of the rule`) and ``excerpt(source:origin:)``
/// the multi-line form with a caret under the place:
/// ```
/// error: unexpected ")"
///  --> rule:1:17
///   | (tap AND scroll))
///   |                 ^ expected AND, OR or the end of the rule
/// ```
public struct RuleError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of error, stable for programs to test; new kinds may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case syntax, tooLong, tooDeep, outOfRange, invalidComparison, reservedWord
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The text does not follow the grammar.
        public static let syntax = Code(.syntax)
        /// The rule is longer than ``RuleParser/Limits/maxLength`` characters.
        public static let tooLong = Code(.tooLong)
        /// Parentheses and NOTs nest deeper than ``RuleParser/Limits/maxDepth``.
        public static let tooDeep = Code(.tooDeep)
        /// A number, count threshold or window is outside what the language allows.
        public static let outOfRange = Code(.outOfRange)
        /// An operator that does not apply to its literal, such as `<` with a boolean.
        public static let invalidComparison = Code(.invalidComparison)
        /// A keyword used where a name is expected.
        public static let reservedWord = Code(.reservedWord)

        public var description: String { base.rawValue }
    }

    /// The kind of error.
    public var code: Code
    /// What is wrong, as a short sentence fragment: `unexpected ")"`.
    public var message: String
    /// What the parser expected at this place, if it can say: `AND, OR or the end of the rule`.
    public var expected: String?
    /// The 1-based line of the error in the rule's text.
    public var line: Int
    /// The 1-based column, counted in Unicode scalars.
    public var column: Int
    /// The 0-based offset from the start of the text, in Unicode scalars.
    public var offset: Int

    /// An error of the kind `code` at `line`:`column` (`offset` from the start), with what was expected there.
    public init(code: Code, message: String, expected: String? = nil, line: Int, column: Int, offset: Int) {
        self.code = code
        self.message = message
        self.expected = expected
        self.line = line
        self.column = column
        self.offset = offset
    }

    /// `unexpected ")" at 1:17, expected AND, OR or the end of the rule`.
    public var description: String {
        var text = "\(message) at \(line):\(column)"
        if let expected { text += ", expected \(expected)" }
        return text
    }

    /// The error with the line of the rule it points into and a caret under the place.
    ///
    /// - Parameters:
    ///   - source: the rule's text, as parsed.
    ///   - origin: where the rule came from, shown after the arrow: `rule`, or `catalog.yaml:12:14`
    ///     when the caller has translated the position into a file's.
    public func excerpt(source: String, origin: String? = nil) -> String {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false)
        let lineText = line - 1 < lines.count ? String(lines[line - 1]) : ""
        return Self.excerpt(
            message: message, expected: expected, origin: origin ?? "rule:\(line):\(column)", lineText: lineText,
            column: column
        )
    }

    /// The shared shape of every diagnostic with a caret, for rules and for the files they are in.
    public static func excerpt(message: String, expected: String?, origin: String, lineText: String, column: Int) -> String {
        let shown = String(String.UnicodeScalarView(lineText.unicodeScalars.map { $0 == "\t" ? " " : $0 }))
        let caretPad = String(repeating: " ", count: max(0, column - 1))
        var text = "error: \(message)\n --> \(origin)\n  | \(shown)\n  | \(caretPad)^"
        if let expected { text += " expected \(expected)" }
        return text
    }
}
