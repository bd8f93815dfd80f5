/// A value the host app sets in the context (`app.version`, `device.model`, `user.plan`...) for
/// comparisons to read.
public enum ContextValue: Hashable, Sendable {
    /// Text, such as a locale or a plan's name.
    case string(String)
    /// A number; integers and decimals alike.
    case number(Double)
    /// A flag.
    case bool(Bool)
}

extension Literal {
    /// Compares a context value with this literal, by the rules of the language:
    ///
    /// - a missing value, or a value of another type than the literal, is `false`, also for `!=`;
    /// - numbers compare with numbers, strings with strings in UTF-8 byte order;
    /// - booleans only with `==` and `!=` (the parser rejects the other operators);
    /// - a version literal compares with a context string that reads as a version ("1.10.2"),
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
    /// A context value in JSON is a string, a number or a boolean.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "a context value is a string, a number or a boolean"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }
}
