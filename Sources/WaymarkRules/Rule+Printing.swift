extension Rule: CustomStringConvertible {
    /// The rule as text that parses back to an equal `Rule`, with parentheses only where needed.
    public var description: String {
        var text = ""
        write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self {
        case .constant(let value):
            text += value ? "true" : "false"
        case .not(let operand):
            text += "NOT "
            operand.write(to: &text, parenthesized: operand.isBinary)
        case .and(let operands):
            for (index, operand) in operands.enumerated() {
                if index > 0 { text += " AND " }
                operand.write(to: &text, parenthesized: operand.isBinary)
            }
        case .or(let operands):
            for (index, operand) in operands.enumerated() {
                if index > 0 { text += " OR " }
                // An AND binds tighter than OR, but an OR inside an OR came from parentheses.
                if case .or = operand { operand.write(to: &text, parenthesized: true) } else { operand.write(to: &text) }
            }
        case .sequence(let events, let window):
            text += events.map(\.description).joined(separator: " THEN ")
            if let window { text += " within \(window)" }
        case .count(let event, let comparator, let threshold, let window):
            text += "count(\(event)) \(comparator.rawValue) \(threshold)"
            if let window { text += " within \(window)" }
        case .compare(let path, let comparator, let literal):
            text += "\(path) \(comparator.rawValue) \(literal)"
        case .oneOf(let path, let literals):
            text += "\(path) in [\(literals.map(\.description).joined(separator: ", "))]"
        }
    }

    private func write(to text: inout String, parenthesized: Bool) {
        if parenthesized { text += "(" }
        write(to: &text)
        if parenthesized { text += ")" }
    }

    private var isBinary: Bool {
        switch self {
        case .and, .or: true
        default: false
        }
    }
}

extension EventPattern: CustomStringConvertible {
    /// `tap:search`, `scroll` without a target, `purchase where amount >= 500 AND paid == true`
    /// with conditions.
    public var description: String {
        var text = target.map { "\(name):\($0)" } ?? name
        if !conditions.isEmpty { text += " where " + conditions.map(\.description).joined(separator: " AND ") }
        return text
    }
}

extension PropertyTest: CustomStringConvertible {
    /// `amount >= 500`, `category in ["mobiles", "tv"]`.
    public var description: String {
        switch test {
        case .compare(let comparator, let literal): "\(property) \(comparator.rawValue) \(literal)"
        case .oneOf(let literals): "\(property) in [\(literals.map(\.description).joined(separator: ", "))]"
        }
    }
}

extension Literal: CustomStringConvertible {
    /// The literal as written in a rule: `12.5`, `"pro"`, `true`, `v1.3`, `2026-01-15`.
    public var description: String {
        switch self {
        case .number(let value): plainDecimal(value)
        case .string(let value): quoted(value)
        case .bool(let value): value ? "true" : "false"
        case .version(let version): "v\(version)"
        case .time(let millis): RuleTime.format(millis)
        }
    }
}

/// A string in double quotes, with `"` and `\` escaped as the language reads them.
func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        if scalar == "\"" || scalar == "\\" { result.unicodeScalars.append("\\") }
        result.unicodeScalars.append(scalar)
    }
    return result + "\""
}

/// A finite number in plain decimal notation (the language has no exponents): `1e+16` prints as
/// `10000000000000000`, `1.5e-07` as `0.00000015`.
func plainDecimal(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 {
        return String(Int64(value))
    }
    let shortest = "\(value)"
    guard let exponentIndex = shortest.firstIndex(where: { $0 == "e" || $0 == "E" }) else { return shortest }
    let exponent = Int(shortest[shortest.index(after: exponentIndex)...])!
    var mantissa = String(shortest[..<exponentIndex])
    let negative = mantissa.hasPrefix("-")
    if negative { mantissa.removeFirst() }
    let pointIndex =
        mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) }
        ?? mantissa.count
    var digits = mantissa.filter { $0 != "." }
    let point = pointIndex + exponent
    if point <= 0 {
        digits = "0." + String(repeating: "0", count: -point) + digits
    } else if point >= digits.count {
        digits += String(repeating: "0", count: point - digits.count)
    } else {
        digits.insert(".", at: digits.index(digits.startIndex, offsetBy: point))
    }
    while digits.contains("."), digits.hasSuffix("0") { digits.removeLast() }
    if digits.hasSuffix(".") { digits.removeLast() }
    return (negative ? "-" : "") + digits
}
