/// A parsed rule: the abstract syntax tree of the Waymark rule language.
///
/// Rules are written as text (`(tap:search AND activation) OR scroll`), parsed with
/// ``Rule/init(parsing:)``, shipped to devices in their JSON form (`Codable`), and printed back
/// as text with `description`. Parsing the printed text gives an equal `Rule`.
///
/// ```swift
/// let rule = try Rule(parsing: "count(add_to_cart) >= 3 within 7d")
/// print(rule)   // count(add_to_cart) >= 3 within 7d
/// ```
public indirect enum Rule: Hashable, Sendable {
    /// `true` or `false`.
    case constant(Bool)
    /// `NOT rule`.
    case not(Rule)
    /// `a AND b AND ...`, two or more operands.
    case and([Rule])
    /// `a OR b OR ...`, two or more operands.
    case or([Rule])
    /// `a THEN b THEN c [within w]`. One event alone is an occurrence: `tap:search`, `scroll within 30s`.
    case sequence([EventPattern], within: Window?)
    /// `count(event) >= 3 [within w]`.
    case count(EventPattern, Comparator, Int, within: Window?)
    /// `app.version >= v1.3`: a context value compared with a literal.
    case compare(ContextPath, Comparator, Literal)
    /// `device.platform in ["ios", "android"]`.
    case oneOf(ContextPath, [Literal])
}

/// An event that a rule mentions: a name, optionally a target (`tap:search`), and optionally
/// tests of its properties (`purchase where amount >= 500 AND category == "phones"`).
///
/// A pattern without a target matches every event of that name whatever its target; one without
/// conditions, whatever its properties.
public struct EventPattern: Hashable, Sendable {
    /// The event's name, such as `tap`.
    public var name: String
    /// The target the event must have, such as `search`; `nil` matches any target.
    public var target: String?
    /// What the event's properties must hold, all of them; empty for any properties.
    public var conditions: [PropertyTest]

    /// A pattern for events named `name`, on `target` only when one is given, whose properties
    /// pass every one of `conditions`.
    public init(name: String, target: String? = nil, conditions: [PropertyTest] = []) {
        self.name = name
        self.target = target
        self.conditions = conditions
    }

    /// Whether an event with this name and target matches the pattern, its properties aside.
    @inlinable
    public func matches(name: String, target: String?) -> Bool {
        name == self.name && (self.target == nil || self.target == target)
    }

    /// Whether an event with this name, target and properties matches the pattern.
    public func matches(name: String, target: String?, properties: [String: ContextValue]) -> Bool {
        matches(name: name, target: target) && conditions.allSatisfy { $0.holds(for: properties) }
    }
}

/// A test of one property of an event: `amount >= 500`, `category in ["mobiles", "tv"]`.
///
/// Properties compare as context values do (``Literal/compared(with:by:)``): a missing property,
/// or one of another type than the literal, fails the test, `!=` included.
public struct PropertyTest: Hashable, Sendable {
    /// What a property is tested against.
    public enum Test: Hashable, Sendable {
        /// `property op literal`.
        case compare(Comparator, Literal)
        /// `property in [a, b, ...]`: equal to one of the literals.
        case oneOf([Literal])
    }

    /// The property's name, such as `amount`: a name of the language, without dots.
    public var property: String
    /// The test its value must pass.
    public var test: Test

    /// A test of `property`.
    public init(_ property: String, _ test: Test) {
        self.property = property
        self.test = test
    }

    /// Whether the value passes the test (`nil`: the event has no such property).
    @inlinable
    public func holds(_ value: ContextValue?) -> Bool {
        switch test {
        case .compare(let comparator, let literal): literal.compared(with: value, by: comparator)
        case .oneOf(let literals): literals.contains { $0.matches(value) }
        }
    }

    /// Whether the property of that name, among `properties`, passes the test.
    @inlinable
    public func holds(for properties: [String: ContextValue]) -> Bool {
        holds(properties[property])
    }
}

/// A dotted path to a context value set by the host app: `app.version`, `device.model`, `user.plan`.
public struct ContextPath: Hashable, Sendable, CustomStringConvertible {
    /// The dot-separated components, at least two.
    public var components: [String]

    /// A path of these components, as `["app", "version"]` for `app.version`.
    public init(_ components: [String]) {
        self.components = components
    }

    /// The path as written: `app.version`.
    public var description: String { components.joined(separator: ".") }
}

/// A comparison operator: `==`, `!=`, `>=`, `<=`, `>`, `<`.
public enum Comparator: String, Hashable, Sendable, CaseIterable, Codable {
    /// `==`: the same value.
    case equal = "=="
    /// `!=`: another value (false when the value is missing or of another type).
    case notEqual = "!="
    /// `>=`: at least.
    case greaterOrEqual = ">="
    /// `<=`: at most.
    case lessOrEqual = "<="
    /// `>`: more than.
    case greater = ">"
    /// `<`: less than.
    case less = "<"

    /// Applies the operator to two comparable values.
    @inlinable
    public func holds<T: Comparable>(_ lhs: T, _ rhs: T) -> Bool {
        switch self {
        case .equal: lhs == rhs
        case .notEqual: lhs != rhs
        case .greaterOrEqual: lhs >= rhs
        case .lessOrEqual: lhs <= rhs
        case .greater: lhs > rhs
        case .less: lhs < rhs
        }
    }

    /// Whether the operator only tests equality (the only operators allowed with booleans).
    public var isEquality: Bool { self == .equal || self == .notEqual }
}

/// A time window: `30s`, `5m`, `2h`, `7d`, `1w`.
public struct Window: Hashable, Sendable, CustomStringConvertible {
    /// A unit of a window.
    public enum Unit: String, Hashable, Sendable, CaseIterable {
        /// `s`: seconds.
        case seconds = "s"
        /// `m`: minutes.
        case minutes = "m"
        /// `h`: hours.
        case hours = "h"
        /// `d`: days of 24 hours.
        case days = "d"
        /// `w`: weeks of 7 days.
        case weeks = "w"

        /// The length of one unit in milliseconds.
        public var milliseconds: Int64 {
            switch self {
            case .seconds: 1_000
            case .minutes: 60_000
            case .hours: 3_600_000
            case .days: 86_400_000
            case .weeks: 604_800_000
            }
        }
    }

    /// How many units long the window is.
    public var amount: Int
    /// The unit of ``amount``.
    public var unit: Unit

    /// A window of `amount` units: `Window(7, .days)` is `7d`.
    public init(_ amount: Int, _ unit: Unit) {
        self.amount = amount
        self.unit = unit
    }

    /// The window's length in milliseconds.
    public var milliseconds: Int64 { Int64(amount) * unit.milliseconds }

    /// The window as written: `7d`.
    public var description: String { "\(amount)\(unit.rawValue)" }
}

/// A literal on the right-hand side of a comparison.
public enum Literal: Hashable, Sendable {
    /// A number, compared with number values.
    case number(Double)
    /// A quoted string, compared with string values by their UTF-8 bytes.
    case string(String)
    /// `true` or `false`, compared with flags.
    case bool(Bool)
    /// `v1.3.0`: compared component-wise with version values and with context strings that read
    /// as versions.
    case version(Version)
    /// `2026-01-15` or `2026-01-15T10:30:00Z`: a moment (milliseconds since 1970, UTC), compared
    /// with time values.
    case time(milliseconds: Int64)
}

/// A dotted version number such as `1.10.2`, compared component-wise; missing components are 0,
/// so `1.3 == 1.3.0`.
public struct Version: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The numbers between the dots, most significant first.
    public var components: [Int]

    /// The version of these components: `Version([1, 10, 2])` is `1.10.2`.
    public init(_ components: [Int]) {
        self.components = components
    }

    /// Reads a version made only of digits and dots (`"1.10.2"`); anything else gives `nil`.
    public init?(reading text: String) {
        var components: [Int] = []
        var current = 0
        var digits = 0
        for byte in text.utf8 {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                let (times, overflow1) = current.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
                if overflow1 || overflow2 { return nil }
                current = sum
                digits += 1
            } else if byte == UInt8(ascii: ".") && digits > 0 {
                components.append(current)
                current = 0
                digits = 0
            } else {
                return nil
            }
        }
        guard digits > 0 else { return nil }
        components.append(current)
        self.components = components
    }

    public static func < (lhs: Version, rhs: Version) -> Bool {
        compare(lhs, rhs) < 0
    }

    public static func == (lhs: Version, rhs: Version) -> Bool {
        compare(lhs, rhs) == 0
    }

    public func hash(into hasher: inout Hasher) {
        // Trailing zeros do not change a version's value: 1.3 == 1.3.0.
        var end = components.count
        while end > 0 && components[end - 1] == 0 { end -= 1 }
        hasher.combine(components[..<end])
    }

    private static func compare(_ lhs: Version, _ rhs: Version) -> Int {
        for index in 0..<max(lhs.components.count, rhs.components.count) {
            let left = index < lhs.components.count ? lhs.components[index] : 0
            let right = index < rhs.components.count ? rhs.components[index] : 0
            if left != right { return left < right ? -1 : 1 }
        }
        return 0
    }

    /// The version as digits and dots: `1.10.2`.
    public var description: String { components.map(String.init).joined(separator: ".") }
}
