import WaymarkSupport

/// The JSON form of rules, which servers ship to devices.
///
/// Each node is an object with one discriminating key:
/// ```json
/// {"or": [{"and": [{"seq": [{"name": "tap", "target": "search"}]}, {"seq": [{"name": "activation"}]}]},
///         {"seq": [{"name": "scroll"}], "within": "30s"}]}
/// {"count": {"name": "add_to_cart"}, "cmp": ">=", "value": 3, "within": "7d"}
/// {"path": "app.version", "cmp": ">=", "value": {"version": "1.3"}}
/// {"path": "device.platform", "in": ["ios", "android"]}
/// {"not": {"const": true}}
/// {"count": {"name": "purchase", "where": [{"prop": "amount", "cmp": ">=", "value": 500},
///                                          {"prop": "category", "in": ["mobiles", "tv"]}]},
///  "cmp": ">=", "value": 2}
/// ```
/// Decoding accepts exactly the rules the parser could produce: a decoded rule is printed and parsed
/// again, so names, limits and operators are checked by the one parser, and unknown keys are errors.
extension Rule: Codable {
    private enum Key: String, CodingKey, CaseIterable {
        case const, not, and, or, seq, count, cmp, value, within, path, `in`
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .constant(let value):
            try container.encode(value, forKey: .const)
        case .not(let operand):
            try container.encode(operand, forKey: .not)
        case .and(let operands):
            try container.encode(operands, forKey: .and)
        case .or(let operands):
            try container.encode(operands, forKey: .or)
        case .sequence(let events, let window):
            try container.encode(events, forKey: .seq)
            try container.encodeIfPresent(window, forKey: .within)
        case .count(let event, let comparator, let threshold, let window):
            try container.encode(event, forKey: .count)
            try container.encode(comparator, forKey: .cmp)
            try container.encode(threshold, forKey: .value)
            try container.encodeIfPresent(window, forKey: .within)
        case .compare(let path, let comparator, let literal):
            try container.encode(path.description, forKey: .path)
            try container.encode(comparator, forKey: .cmp)
            try container.encode(literal, forKey: .value)
        case .oneOf(let path, let literals):
            try container.encode(path.description, forKey: .path)
            try container.encode(literals, forKey: .in)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let keys = Set(container.allKeys)
        func only(_ allowed: Set<Key>) throws {
            try decoder.rejectUnknownKeys(allowed: Set(allowed.map(\.rawValue)), in: "a rule")
        }
        let decoded: Rule
        if keys.contains(.const) {
            try only([.const])
            decoded = .constant(try container.decode(Bool.self, forKey: .const))
        } else if keys.contains(.not) {
            try only([.not])
            decoded = .not(try container.decode(Rule.self, forKey: .not))
        } else if keys.contains(.and) {
            try only([.and])
            decoded = .and(try container.decode([Rule].self, forKey: .and))
        } else if keys.contains(.or) {
            try only([.or])
            decoded = .or(try container.decode([Rule].self, forKey: .or))
        } else if keys.contains(.seq) {
            try only([.seq, .within])
            decoded = .sequence(
                try container.decode([EventPattern].self, forKey: .seq),
                within: try container.decodeIfPresent(Window.self, forKey: .within)
            )
        } else if keys.contains(.count) {
            try only([.count, .cmp, .value, .within])
            decoded = .count(
                try container.decode(EventPattern.self, forKey: .count),
                try container.decode(Comparator.self, forKey: .cmp),
                try container.decode(Int.self, forKey: .value),
                within: try container.decodeIfPresent(Window.self, forKey: .within)
            )
        } else if keys.contains(.path) {
            let path = ContextPath(
                try container.decode(String.self, forKey: .path).split(separator: ".", omittingEmptySubsequences: false)
                    .map(String.init)
            )
            if keys.contains(.in) {
                try only([.path, .in])
                decoded = .oneOf(path, try container.decode([Literal].self, forKey: .in))
            } else {
                try only([.path, .cmp, .value])
                decoded = .compare(
                    path,
                    try container.decode(Comparator.self, forKey: .cmp),
                    try container.decode(Literal.self, forKey: .value)
                )
            }
        } else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "a rule needs one of the keys const, not, and, or, seq, count or path"
                )
            )
        }
        try decoded.checkShape(codingPath: decoder.codingPath)
        self = decoded
    }

    /// Checks what the parser would check, by printing the rule and parsing it back.
    private func checkShape(codingPath: [any CodingKey]) throws {
        func fail(_ reason: String) -> DecodingError {
            .dataCorrupted(.init(codingPath: codingPath, debugDescription: "invalid rule: \(reason)"))
        }
        switch self {
        case .and(let operands), .or(let operands):
            guard operands.count >= 2 else { throw fail("AND and OR need at least two operands") }
        case .sequence(let events, _):
            guard !events.isEmpty else { throw fail("a sequence needs at least one event") }
        case .oneOf(_, let literals):
            guard !literals.isEmpty else { throw fail("in [...] needs at least one literal") }
        default:
            break
        }
        let text = description
        do {
            let reparsed = try RuleParser().parse(text)
            guard reparsed == self else { throw fail("\(text) does not read back as the same rule") }
        } catch let error as RuleError {
            throw fail("\(error) in \(text)")
        }
    }
}

extension EventPattern: Codable {
    private enum Key: String, CodingKey { case name, target, `where` }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: ["name", "target", "where"], in: "an event")
        let container = try decoder.container(keyedBy: Key.self)
        let conditions = try container.decodeIfPresent([PropertyTest].self, forKey: .where)
        if conditions?.isEmpty == true {
            throw DecodingError.dataCorruptedError(
                forKey: .where, in: container, debugDescription: "where needs at least one test; leave it out for none"
            )
        }
        self.init(
            name: try container.decode(String.self, forKey: .name),
            target: try container.decodeIfPresent(String.self, forKey: .target), conditions: conditions ?? []
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(target, forKey: .target)
        if !conditions.isEmpty { try container.encode(conditions, forKey: .where) }
    }
}

extension PropertyTest: Codable {
    private enum Key: String, CodingKey { case prop, cmp, value, `in` }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let property = try container.decode(String.self, forKey: .prop)
        if container.contains(.in) {
            try decoder.rejectUnknownKeys(allowed: ["prop", "in"], in: "a property test")
            self.init(property, .oneOf(try container.decode([Literal].self, forKey: .in)))
        } else {
            try decoder.rejectUnknownKeys(allowed: ["prop", "cmp", "value"], in: "a property test")
            self.init(
                property,
                .compare(try container.decode(Comparator.self, forKey: .cmp), try container.decode(Literal.self, forKey: .value))
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(property, forKey: .prop)
        switch test {
        case .compare(let comparator, let literal):
            try container.encode(comparator, forKey: .cmp)
            try container.encode(literal, forKey: .value)
        case .oneOf(let literals):
            try container.encode(literals, forKey: .in)
        }
    }
}

extension Window: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard text.count >= 2, let unit = Unit(rawValue: String(text.last!)),
            text.dropLast().allSatisfy({ $0.isASCII && $0.isNumber }), let amount = Int(text.dropLast())
        else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "invalid duration \"\(text)\", expected such as 30s, 5m, 2h, 7d or 1w"
            )
        }
        self.init(amount, unit)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Literal: Codable {
    /// A literal is written as the context value it compares with: `12.5`, `"pro"`, `true`,
    /// `{"version": "1.3"}`, `{"time": "2026-01-15"}`.
    public init(from decoder: any Decoder) throws {
        switch try ContextValue(from: decoder) {
        case .bool(let value): self = .bool(value)
        case .number(let value): self = .number(value)
        case .string(let value): self = .string(value)
        case .time(let millis): self = .time(milliseconds: millis)
        case .version(let version): self = .version(version)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try value.encode(to: encoder)
    }

    /// The context value equal to this literal.
    var value: ContextValue {
        switch self {
        case .number(let value): .number(value)
        case .string(let value): .string(value)
        case .bool(let value): .bool(value)
        case .time(let millis): .time(milliseconds: millis)
        case .version(let version): .version(version)
        }
    }
}
