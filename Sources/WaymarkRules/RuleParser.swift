/// Parses the text of a rule into a ``Rule``, or explains with a ``RuleError`` where and why it
/// cannot.
///
/// The grammar (keywords are case-insensitive and reserved; names are case-sensitive):
/// ```
/// rule       = or
/// or         = and { "OR" and }
/// and        = not { "AND" not }
/// not        = "NOT" not | atom
/// atom       = "(" rule ")" | "true" | "false" | sequence | count | comparison
/// sequence   = event { "THEN" event } [ window ]
/// count      = "count" "(" event ")" cmp integer [ window ]
/// comparison = path cmp literal | path "in" "[" literal { "," literal } "]"
/// window     = "within" duration          ; 30s, 5m, 2h, 7d, 1w
/// event      = name [ ":" name ] [ "where" test { "AND" test } ]   ; name = [A-Za-z0-9_-]+
/// test       = name cmp literal | name "in" "[" literal { "," literal } "]"
/// path       = name "." name { "." name }
/// cmp        = "==" | "!=" | ">=" | "<=" | ">" | "<"
/// literal    = number | string | "true" | "false" | version | time
/// version    = "v" digits { "." digits }                       ; v1.3, v5.2.1
/// time       = date [ "T" hh ":" mm ":" ss [ "." digits ] ( "Z" | ("+" | "-") hh ":" mm ) ]
/// date       = yyyy "-" mm "-" dd                              ; 2026-01-15 is midnight UTC
/// ```
public struct RuleParser: Sendable {
    /// The limits a rule must respect, so that a rule from anywhere costs bounded work.
    public struct Limits: Sendable, Hashable {
        /// The longest rule, in Unicode scalars.
        public var maxLength = 4_096
        /// The deepest nesting: each parenthesis or NOT is one level.
        public var maxDepth = 32
        /// The largest threshold of `count(...)`.
        public var maxCount = 10_000
        /// The longest window, in days.
        public var maxWindowDays = 3_650

        /// The limits every rule from the server respects.
        public init() {}
    }

    /// The keywords of the language, reserved as names.
    public static let keywords: Set<String> = [
        "and", "or", "not", "then", "within", "count", "in", "true", "false", "where",
    ]

    /// The limits this parser enforces.
    public var limits: Limits

    /// A parser that refuses rules past `limits`.
    ///
    /// ```swift
    /// let rule = try RuleParser().parse("count(add_to_cart) >= 3 within 7d")
    /// ```
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Parses a whole rule.
    public func parse(_ text: String) throws(RuleError) -> Rule {
        var state = ParserState(text: text, limits: limits)
        if state.scalars.count > limits.maxLength {
            throw state.error(
                .tooLong, "the rule is longer than \(limits.maxLength.grouped) characters", at: limits.maxLength
            )
        }
        let rule = try state.parseOr()
        state.skipSpace()
        if !state.atEnd {
            throw state.unexpected(expected: "AND, OR or the end of the rule")
        }
        return rule
    }
}

extension Rule {
    /// Parses a rule's text with the default limits.
    ///
    /// ```swift
    /// let rule = try Rule(parsing: "(tap:search AND activation) OR scroll")
    /// ```
    public init(parsing text: String) throws(RuleError) {
        self = try RuleParser().parse(text)
    }
}

private let atomExpectation = "an event, a comparison, count(...), true, false, NOT or ("
private let literalExpectation =
    "a literal: a number, a \"string\", true, false, a version such as v1.3 or a time such as 2026-01-15"
private let comparatorExpectation = "a comparison operator: ==, !=, >=, <=, > or <"

/// The parser's position in the text; every function leaves `position` after what it consumed.
private struct ParserState {
    let scalars: [Unicode.Scalar]
    let limits: RuleParser.Limits
    var position = 0
    var depth = 0

    init(text: String, limits: RuleParser.Limits) {
        self.scalars = Array(text.unicodeScalars)
        self.limits = limits
    }

    var atEnd: Bool { position >= scalars.count }

    var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

    // MARK: Grammar

    mutating func parseOr() throws(RuleError) -> Rule {
        var operands = [try parseAnd()]
        while consumeKeyword("or") {
            operands.append(try parseAnd())
        }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    mutating func parseAnd() throws(RuleError) -> Rule {
        var operands = [try parseNot()]
        while consumeKeyword("and") {
            operands.append(try parseNot())
        }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    mutating func parseNot() throws(RuleError) -> Rule {
        skipSpace()
        let start = position
        if consumeKeyword("not") {
            try enterLevel(at: start)
            let operand = try parseNot()
            depth -= 1
            return .not(operand)
        }
        return try parseAtom()
    }

    mutating func parseAtom() throws(RuleError) -> Rule {
        skipSpace()
        let start = position
        guard let scalar = current else { throw unexpected(expected: atomExpectation) }
        if scalar == "(" {
            try enterLevel(at: start)
            position += 1
            let inner = try parseOr()
            skipSpace()
            guard current == ")" else { throw unexpected(expected: "AND, OR or )") }
            position += 1
            depth -= 1
            return inner
        }
        guard isNameScalar(scalar) else { throw unexpected(expected: atomExpectation) }
        let word = peekWord()
        switch word.lowercased() {
        case "true", "false":
            position += word.unicodeScalars.count
            return .constant(word.lowercased() == "true")
        case "count":
            position += word.unicodeScalars.count
            return try parseCount()
        case let keyword where RuleParser.keywords.contains(keyword):
            throw unexpected(expected: atomExpectation)
        default:
            break
        }
        let afterWord = position + word.unicodeScalars.count
        if afterWord < scalars.count && scalars[afterWord] == "." {
            return try parseComparison()
        }
        return try parseSequence()
    }

    mutating func parseSequence() throws(RuleError) -> Rule {
        let start = position
        var events = [try parseEvent()]
        while consumeKeyword("then") {
            skipSpace()
            events.append(try parseEvent())
        }
        let end = position
        let rule = Rule.sequence(events, within: try parseOptionalWindow())
        if events.count == 1 { try refuseComparedEvent(from: start, to: end) }
        return rule
    }

    /// An event compared as if it were a number (`screen:product >= 3`, what an author means by
    /// "viewed 3 products") is refused with the rule they meant: `count(screen:product) >= 3`.
    mutating func refuseComparedEvent(from start: Int, to end: Int) throws(RuleError) {
        skipSpace()
        let at = position
        var comparator = ""
        while let scalar = current, "<>=!".unicodeScalars.contains(scalar), comparator.count < 2 {
            comparator.unicodeScalars.append(scalar)
            position += 1
        }
        guard !comparator.isEmpty else { return }
        skipSpace()
        let threshold = readInteger().map(String.init) ?? "3"
        position = at
        var last = end
        while last > start, scalars[last - 1].properties.isWhitespace { last -= 1 }
        let event = String(String.UnicodeScalarView(scalars[start..<last]))
        let written = Comparator(rawValue: comparator).map(\.rawValue) ?? ">="
        throw error(
            .syntax, "an event is not a number: to count it, write count(\(event)) \(written) \(threshold)", at: at)
    }

    mutating func parseCount() throws(RuleError) -> Rule {
        skipSpace()
        guard current == "(" else { throw unexpected(expected: "( after count") }
        position += 1
        skipSpace()
        let event = try parseEvent()
        skipSpace()
        guard current == ")" else { throw unexpected(expected: ")") }
        position += 1
        let comparator = try parseComparator(expected: comparatorExpectation)
        skipSpace()
        let start = position
        guard let threshold = readInteger(), current != "." else {
            position = start
            throw unexpected(expected: "a whole number from 0 to \(limits.maxCount.grouped)")
        }
        guard threshold <= limits.maxCount else {
            throw error(.outOfRange, "count threshold \(threshold) is larger than \(limits.maxCount.grouped)", at: start)
        }
        return .count(event, comparator, threshold, within: try parseOptionalWindow())
    }

    mutating func parseComparison() throws(RuleError) -> Rule {
        var components = [try parseName()]
        while current == "." {
            position += 1
            components.append(try parseName())
        }
        let path = ContextPath(components)
        switch try parseTest() {
        case .compare(let comparator, let literal): return .compare(path, comparator, literal)
        case .oneOf(let literals): return .oneOf(path, literals)
        }
    }

    /// What follows a path or a property: `op literal` or `in [literal, ...]`.
    mutating func parseTest() throws(RuleError) -> PropertyTest.Test {
        if consumeKeyword("in") {
            skipSpace()
            guard current == "[" else { throw unexpected(expected: "[ after in") }
            position += 1
            var literals = [try parseLiteral()]
            while true {
                skipSpace()
                if current == "," {
                    position += 1
                    literals.append(try parseLiteral())
                } else if current == "]" {
                    position += 1
                    return .oneOf(literals)
                } else {
                    throw unexpected(expected: ", or ]")
                }
            }
        }
        skipSpace()
        let operatorStart = position
        let comparator = try parseComparator(expected: "\(comparatorExpectation), or in")
        let literal = try parseLiteral()
        if case .bool = literal, !comparator.isEquality {
            throw error(
                .invalidComparison, "operator \(comparator.rawValue) does not apply to booleans",
                expected: "== or !=", at: operatorStart
            )
        }
        return .compare(comparator, literal)
    }

    mutating func parseEvent() throws(RuleError) -> EventPattern {
        let name = try parseName()
        var target: String?
        if current == ":" {
            position += 1
            target = try parseName()
        }
        guard consumeKeyword("where") else { return EventPattern(name: name, target: target) }
        var conditions = [try parsePropertyTest()]
        // An AND goes on with the conditions only before another property test: what may follow
        // an event in a rule (an event, count, a dotted path, NOT, a parenthesis) never reads as one.
        while atPropertyTestAfterAnd() {
            _ = consumeKeyword("and")
            conditions.append(try parsePropertyTest())
        }
        return EventPattern(name: name, target: target, conditions: conditions)
    }

    mutating func parsePropertyTest() throws(RuleError) -> PropertyTest {
        skipSpace()
        guard let scalar = current, isNameScalar(scalar) else {
            throw unexpected(expected: "a property test such as amount >= 500 or category in [\"tv\"]")
        }
        let property = try parseName()
        if current == "." {
            throw error(
                .syntax, "a property's name has no dots", expected: "\(comparatorExpectation), or in", at: position
            )
        }
        return PropertyTest(property, try parseTest())
    }

    /// Whether `AND name op` or `AND name in` comes next, a name without dots.
    func atPropertyTestAfterAnd() -> Bool {
        var probe = self
        guard probe.consumeKeyword("and") else { return false }
        probe.skipSpace()
        guard let scalar = probe.current, isNameScalar(scalar) else { return false }
        let word = probe.peekWord()
        if RuleParser.keywords.contains(word.lowercased()) { return false }
        probe.position += word.unicodeScalars.count
        if probe.consumeKeyword("in") { return true }
        probe.skipSpace()
        guard let next = probe.current else { return false }
        return next == "=" || next == "!" || next == ">" || next == "<"
    }

    /// A name (`[A-Za-z0-9_-]+`) that is not a keyword, starting exactly at `position`.
    mutating func parseName() throws(RuleError) -> String {
        let start = position
        guard let scalar = current, isNameScalar(scalar) else { throw unexpected(expected: "a name") }
        let word = peekWord()
        if RuleParser.keywords.contains(word.lowercased()) {
            throw error(
                .reservedWord, "\"\(word)\" is a keyword and cannot be a name", at: start
            )
        }
        position += word.unicodeScalars.count
        return word
    }

    mutating func parseComparator(expected: String) throws(RuleError) -> Comparator {
        skipSpace()
        let next = position + 1 < scalars.count ? scalars[position + 1] : nil
        let comparator: Comparator
        switch (current, next) {
        case ("=", "="): comparator = .equal
        case ("!", "="): comparator = .notEqual
        case (">", "="): comparator = .greaterOrEqual
        case ("<", "="): comparator = .lessOrEqual
        case (">", _): comparator = .greater
        case ("<", _): comparator = .less
        default: throw unexpected(expected: expected)
        }
        position += comparator.rawValue.unicodeScalars.count
        return comparator
    }

    mutating func parseLiteral() throws(RuleError) -> Literal {
        skipSpace()
        let start = position
        guard let scalar = current else { throw unexpected(expected: literalExpectation) }
        if scalar == "\"" {
            return .string(try parseString())
        }
        if isTimeStart() {
            return try parseTime()
        }
        if scalar == "-" || isDigit(scalar) {
            return try parseNumber()
        }
        if scalar == "v" || scalar == "V", position + 1 < scalars.count, isDigit(scalars[position + 1]) {
            position += 1
            var components: [Int] = []
            repeat {
                if !components.isEmpty { position += 1 }
                let componentStart = position
                guard let value = readInteger() else {
                    position = start
                    let word = peekWordOrLiteral()
                    throw error(.syntax, "invalid version \"\(word)\"", expected: literalExpectation, at: start)
                }
                guard value <= Int(Int32.max) else {
                    throw error(.outOfRange, "version component is too large", at: componentStart)
                }
                components.append(value)
            } while current == "." && position + 1 < scalars.count && isDigit(scalars[position + 1])
            try expectLiteralEnd(start: start)
            return .version(Version(components))
        }
        if isNameScalar(scalar) {
            let word = peekWord()
            switch word.lowercased() {
            case "true":
                position += 4
                return .bool(true)
            case "false":
                position += 5
                return .bool(false)
            default:
                throw error(
                    .syntax, "unexpected \"\(word)\"",
                    expected: "a literal (strings are written in quotes: \"\(word)\")", at: start
                )
            }
        }
        throw unexpected(expected: literalExpectation)
    }

    mutating func parseString() throws(RuleError) -> String {
        let start = position
        position += 1
        var text = String.UnicodeScalarView()
        while let scalar = current {
            position += 1
            switch scalar {
            case "\"":
                return String(text)
            case "\\":
                guard let escaped = current, escaped == "\"" || escaped == "\\" else {
                    throw error(.syntax, "unknown escape in a string", expected: "\\\" or \\\\", at: position - 1)
                }
                text.append(escaped)
                position += 1
            default:
                text.append(scalar)
            }
        }
        throw error(.syntax, "unterminated string", expected: "a closing \"", at: start)
    }

    /// Four digits then `-`: a date, which no number can be.
    func isTimeStart() -> Bool {
        guard position + 4 < scalars.count else { return false }
        return (position..<(position + 4)).allSatisfy { isDigit(scalars[$0]) } && scalars[position + 4] == "-"
    }

    /// `2026-01-15`, `2026-01-15T10:30:00Z`, `2026-01-15T16:00:00.5+05:30`.
    mutating func parseTime() throws(RuleError) -> Literal {
        let start = position
        while let scalar = current, isNameScalar(scalar) || scalar == ":" || scalar == "." || scalar == "+" {
            position += 1
        }
        let text = String(String.UnicodeScalarView(scalars[start..<position]))
        guard let millis = RuleTime.parse(text) else {
            throw error(
                .syntax, "invalid time \"\(text)\"",
                expected: "a date such as 2026-01-15 or a time such as 2026-01-15T10:30:00Z or 2026-01-15T16:00:00+05:30",
                at: start
            )
        }
        return .time(milliseconds: millis)
    }

    mutating func parseNumber() throws(RuleError) -> Literal {
        let start = position
        if current == "-" { position += 1 }
        guard readDigits() > 0 else {
            position = start
            throw error(.syntax, "invalid number \"\(peekWordOrLiteral())\"", expected: literalExpectation, at: start)
        }
        if current == ".", position + 1 < scalars.count, isDigit(scalars[position + 1]) {
            position += 1
            _ = readDigits()
        }
        try expectLiteralEnd(start: start)
        let text = String(String.UnicodeScalarView(scalars[start..<position]))
        guard let value = Double(text), value.isFinite else {
            throw error(.outOfRange, "number \(text) is too large", at: start)
        }
        return .number(value)
    }

    /// A literal must not run into a name: `12abc` and `v1.2x` are errors, not two tokens.
    mutating func expectLiteralEnd(start: Int) throws(RuleError) {
        if let scalar = current, isNameScalar(scalar) || scalar == "." {
            position = start
            let word = peekWordOrLiteral()
            throw error(.syntax, "invalid literal \"\(word)\"", expected: literalExpectation, at: start)
        }
    }

    mutating func parseOptionalWindow() throws(RuleError) -> Window? {
        guard consumeKeyword("within") else { return nil }
        skipSpace()
        let start = position
        let word = current.map(isNameScalar) == true ? peekWord() : ""
        let expected = "a duration such as 30s, 5m, 2h, 7d or 1w"
        guard word.count >= 2,
            let unit = Window.Unit(rawValue: String(word.last!)),
            word.dropLast().allSatisfy({ $0.isASCII && $0.isNumber })
        else {
            if word.isEmpty { throw unexpected(expected: expected) }
            throw error(.syntax, "invalid duration \"\(word)\"", expected: expected, at: start)
        }
        let maxAmount = limits.maxWindowDays * 86_400 / Int(unit.milliseconds / 1000)
        guard let amount = Int(word.dropLast()), amount <= maxAmount else {
            throw error(
                .outOfRange, "window \(word) is longer than \(limits.maxWindowDays.grouped) days", at: start
            )
        }
        position += word.unicodeScalars.count
        return Window(amount, unit)
    }

    // MARK: Scanning

    mutating func skipSpace() {
        while let scalar = current, scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" {
            position += 1
        }
    }

    /// Consumes `keyword` (case-insensitively) if it is the next word, after spaces.
    mutating func consumeKeyword(_ keyword: String) -> Bool {
        let saved = position
        skipSpace()
        if let scalar = current, isNameScalar(scalar), peekWord().lowercased() == keyword {
            position += keyword.unicodeScalars.count
            return true
        }
        position = saved
        return false
    }

    /// The run of name scalars starting at `position`, without consuming it.
    func peekWord() -> String {
        var end = position
        while end < scalars.count && isNameScalar(scalars[end]) { end += 1 }
        return String(String.UnicodeScalarView(scalars[position..<end]))
    }

    /// The run of name scalars and dots at `position`, to quote a malformed literal whole.
    func peekWordOrLiteral() -> String {
        var end = position
        while end < scalars.count && (isNameScalar(scalars[end]) || scalars[end] == ".") { end += 1 }
        return String(String.UnicodeScalarView(scalars[position..<end]))
    }

    mutating func readDigits() -> Int {
        let start = position
        while let scalar = current, isDigit(scalar) { position += 1 }
        return position - start
    }

    /// Reads digits as a whole number, saturating at `Int.max` (callers check the range).
    mutating func readInteger() -> Int? {
        guard let scalar = current, isDigit(scalar) else { return nil }
        let start = position
        var value = 0
        while let scalar = current, isDigit(scalar) {
            let digit = Int(scalar.value - 48)
            value = value > (Int.max - digit) / 10 ? Int.max : value * 10 + digit
            position += 1
        }
        if let scalar = current, isNameScalar(scalar) {
            position = start
            return nil
        }
        return value
    }

    mutating func enterLevel(at start: Int) throws(RuleError) {
        depth += 1
        if depth > limits.maxDepth {
            throw error(.tooDeep, "the rule nests deeper than \(limits.maxDepth) levels", at: start)
        }
    }

    // MARK: Errors

    /// An error naming what stands at the current position.
    func unexpected(expected: String) -> RuleError {
        let found: String
        if let scalar = current {
            if isNameScalar(scalar) {
                found = "\"\(peekWord())\""
            } else if scalar == "\"" {
                found = "string"
            } else if scalar.properties.isWhitespace || scalar.value < 0x20 || scalar.value == 0x7F {
                found = "character U+\(String(scalar.value, radix: 16, uppercase: true))"
            } else {
                found = "\"\(scalar)\""
            }
        } else {
            return error(.syntax, "unexpected end of the rule", expected: expected, at: position)
        }
        return error(.syntax, "unexpected \(found)", expected: expected, at: position)
    }

    func error(_ code: RuleError.Code, _ message: String, expected: String? = nil, at offset: Int) -> RuleError {
        var line = 1
        var column = 1
        for scalar in scalars[..<min(offset, scalars.count)] {
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        if offset > scalars.count { column += offset - scalars.count }
        return RuleError(code: code, message: message, expected: expected, line: line, column: column, offset: offset)
    }
}

@inline(__always)
private func isDigit(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value >= 48 && scalar.value <= 57
}

/// `[A-Za-z0-9_-]`.
@inline(__always)
func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 48...57, 65...90, 97...122, 95, 45: true
    default: false
    }
}

extension EventPattern {
    /// Whether text is a name of the language (`[A-Za-z0-9_-]+`): what an event's name or target
    /// must be for rules to match it. Keywords are names here; only rules reserve them.
    public static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy(isNameScalar)
    }
}

extension Int {
    /// The number with thousands separators, as people read it: 10,000.
    var grouped: String {
        let digits = String(self.magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return self < 0 ? "-" + result : result
    }
}
