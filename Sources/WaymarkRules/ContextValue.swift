/// A value the host app sets in the context (`app.version`, `device.model`, `user.plan`...) or
/// that a user's attributes hold, for comparisons to read.
public enum ContextValue: Hashable, Sendable {
    /// Text, such as a locale or a plan's name.
    case string(String)
    /// A number; integers and decimals alike.
    case number(Double)
    /// A flag.
    case bool(Bool)
    /// A moment, as milliseconds since 1970-01-01T00:00:00Z: compared with time literals
    /// (`user.firstOrderAt < 2026-01-01`).
    case time(milliseconds: Int64)
    /// A version, compared component-wise with version literals (`user.appBuild >= v5.2`).
    case version(Version)
}

extension Literal {
    /// Compares a context value with this literal, by the rules of the language:
    ///
    /// - a missing value, or a value of another type than the literal, is `false`, also for `!=`;
    /// - numbers compare with numbers, strings with strings in UTF-8 byte order;
    /// - booleans only with `==` and `!=` (the parser rejects the other operators);
    /// - times compare with time literals, versions with version literals;
    /// - a version literal also compares with a context string that reads as a version ("1.10.2"),
    ///   component-wise; any other context value is `false`.
    public func compared(with value: ContextValue?, by comparator: Comparator) -> Bool {
        guard let value else { return false }
        switch (value, self) {
        case (.number(let left), .number(let right)):
            return comparator.holds(left, right)
        case (.string(let left), .string(let right)):
            return comparator.holds(ByteOrderedString(left), ByteOrderedString(right))
        case (.bool(let left), .bool(let right)):
            switch comparator {
            case .equal: return left == right
            case .notEqual: return left != right
            default: return false
            }
        case (.time(let left), .time(let right)):
            return comparator.holds(left, right)
        case (.version(let left), .version(let right)):
            return comparator.holds(left, right)
        case (.string(let text), .version(let right)):
            guard let left = Version(reading: text) else { return false }
            return comparator.holds(left, right)
        default:
            return false
        }
    }

    /// Whether a context value equals this literal (the test `in [...]` applies to each literal).
    public func matches(_ value: ContextValue?) -> Bool {
        compared(with: value, by: .equal)
    }
}

extension ContextValue {
    /// The value as plain text: text as it is, anything else as a rule writes it (`799.5`, `true`,
    /// `2026-01-15`, `5.2.1`).
    public var plainText: String {
        switch self {
        case .string(let text): text
        case .version(let version): version.description
        case .number, .bool, .time: literal.description
        }
    }

    /// The literal equal to this value, which prints it as a rule writes it: `"pro"`, `799`,
    /// `true`, `2026-01-15`, `v5.2.1`.
    public var literal: Literal {
        switch self {
        case .string(let value): .string(value)
        case .number(let value): .number(value)
        case .bool(let value): .bool(value)
        case .time(let millis): .time(milliseconds: millis)
        case .version(let version): .version(version)
        }
    }
}

/// A string compared by its UTF-8 bytes, as the rule language specifies (Swift's own `<` on
/// `String` uses Unicode canonical ordering, which other SDKs do not have).
struct ByteOrderedString: Comparable {
    let text: String

    init(_ text: String) { self.text = text }

    static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.text.utf8.lexicographicallyPrecedes(rhs.text.utf8)
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }
}

/// Literals make values: `["amount": 799, "category": "phones", "cod": true]`.
extension ContextValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral {
    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A number value.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// A number value.
    public init(floatLiteral value: Double) { self = .number(value) }
    /// A flag.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension ContextValue: Codable {
    private enum Key: String, CodingKey { case time, version }

    /// Any member's name: a keyed container of ``Key`` lists only the members it knows.
    private struct Member: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A context value in JSON is a string, a number, a boolean, `{"time": "2026-01-15T10:30:00Z"}`
    /// or `{"version": "5.2.1"}`: the JSON forms of the literals it compares with. A typed value
    /// with any other member, or with both, is refused.
    public init(from decoder: any Decoder) throws {
        if let members = try? decoder.container(keyedBy: Member.self) {
            guard members.allKeys.count == 1, let key = Key(rawValue: members.allKeys[0].stringValue) else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath,
                        debugDescription: "a typed value is {\"time\": ...} or {\"version\": ...}, with no other member")
                )
            }
            let keyed = try decoder.container(keyedBy: Key.self)
            let text = try keyed.decode(String.self, forKey: key)
            switch key {
            case .time:
                guard let millis = RuleTime.parse(text) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: key, in: keyed, debugDescription: "invalid time \"\(text)\", expected such as 2026-01-15T10:30:00Z"
                    )
                }
                self = .time(milliseconds: millis)
            case .version:
                guard let version = Version(reading: text) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: key, in: keyed, debugDescription: "invalid version \"\(text)\", expected digits and dots such as 5.2.1"
                    )
                }
                self = .version(version)
            }
            return
        }
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "a context value is a string, a number, a boolean, a time or a version"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .time(let millis):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(RuleTime.format(millis), forKey: .time)
        case .version(let version):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(version.description, forKey: .version)
        }
    }
}
