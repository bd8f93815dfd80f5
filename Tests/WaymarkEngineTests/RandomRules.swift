import Foundation
import WaymarkRules
import WaymarkSupport

/// Random rules over a small vocabulary, so that random histories make them change often.
struct RandomRules {
    static let names = ["a", "b", "c"]
    static let targets: [String?] = [nil, "x", "y"]
    static let paths = ["user.n", "user.s", "app.version", "user.flag", "user.t", "user.build"]

    var rng: SplitMix64

    /// Event properties the rules test: `p` a number, `q` text, `r` a flag.
    static let properties = ["p", "q", "r"]

    mutating func event() -> EventPattern {
        let name = Self.names.randomElement(using: &rng)!
        let target = Self.targets.randomElement(using: &rng)!
        // A third of the patterns test the event's properties.
        guard Int.random(in: 0..<3, using: &rng) == 0 else { return EventPattern(name: name, target: target) }
        let conditions = (0..<Int.random(in: 1...2, using: &rng)).map { _ in propertyTest() }
        return EventPattern(name: name, target: target, conditions: conditions)
    }

    mutating func propertyTest() -> PropertyTest {
        let property = Self.properties.randomElement(using: &rng)!
        if Int.random(in: 0..<4, using: &rng) == 0 {
            let count = Int.random(in: 1...2, using: &rng)
            return PropertyTest(property, .oneOf((0..<count).map { _ in literal(forProperty: property) }))
        }
        let value = literal(forProperty: property)
        var comparator = Comparator.allCases.randomElement(using: &rng)!
        if case .bool = value, !comparator.isEquality { comparator = .equal }
        return PropertyTest(property, .compare(comparator, value))
    }

    mutating func literal(forProperty property: String) -> Literal {
        switch property {
        case "p": .number(Double(Int.random(in: 0...3, using: &rng)))
        case "q": .string(["a", "b"].randomElement(using: &rng)!)
        default: .bool(Bool.random(using: &rng))
        }
    }

    /// Random properties for an event: some of `p`, `q` and `r`, sometimes of another type.
    mutating func properties() -> [String: ContextValue] {
        var properties: [String: ContextValue] = [:]
        if Bool.random(using: &rng) { properties["p"] = .number(Double(Int.random(in: 0...3, using: &rng))) }
        if Bool.random(using: &rng) { properties["q"] = .string(["a", "b", "c"].randomElement(using: &rng)!) }
        if Bool.random(using: &rng) { properties["r"] = .bool(Bool.random(using: &rng)) }
        if Int.random(in: 0..<8, using: &rng) == 0 { properties["p"] = .string("1") }
        return properties
    }

    mutating func window() -> Window? {
        Bool.random(using: &rng) ? nil : Window(Int.random(in: 0...8, using: &rng), .seconds)
    }

    mutating func literal(for path: String) -> Literal {
        switch path {
        case "user.n": .number(Double(Int.random(in: -2...3, using: &rng)))
        case "user.s": .string(["", "a", "b", "ab"].randomElement(using: &rng)!)
        case "app.version", "user.build": .version(Version([1, Int.random(in: 0...3, using: &rng)]))
        case "user.t": .time(milliseconds: Int64(Int.random(in: -1...2, using: &rng)) * 86_400_000)
        default: .bool(Bool.random(using: &rng))
        }
    }

    mutating func leaf() -> Rule {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<3:
            return .sequence([event()], within: window())
        case 3..<6:
            return .count(
                event(), Comparator.allCases.randomElement(using: &rng)!, Int.random(in: 0...3, using: &rng),
                within: window()
            )
        case 6..<8:
            let length = Int.random(in: 2...3, using: &rng)
            return .sequence((0..<length).map { _ in event() }, within: window())
        case 8:
            let path = Self.paths.randomElement(using: &rng)!
            let literal = literal(for: path)
            var comparator = Comparator.allCases.randomElement(using: &rng)!
            if case .bool = literal, !comparator.isEquality { comparator = .equal }
            return .compare(ContextPath(path.split(separator: ".").map(String.init)), comparator, literal)
        default:
            let path = Self.paths.randomElement(using: &rng)!
            return .oneOf(
                ContextPath(path.split(separator: ".").map(String.init)),
                (0..<Int.random(in: 1...2, using: &rng)).map { _ in literal(for: path) }
            )
        }
    }

    mutating func rule(depth: Int = 0) -> Rule {
        if depth >= 3 || Int.random(in: 0..<3, using: &rng) == 0 { return leaf() }
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: return .not(rule(depth: depth + 1))
        case 1, 2: return .and((0..<Int.random(in: 2...3, using: &rng)).map { _ in rule(depth: depth + 1) })
        case 3: return .or((0..<Int.random(in: 2...3, using: &rng)).map { _ in rule(depth: depth + 1) })
        default: return Int.random(in: 0..<8, using: &rng) == 0 ? .constant(Bool.random(using: &rng)) : leaf()
        }
    }

    /// A random input step: an event, a clock tick, or a context change.
    enum Step {
        case event(String, String?, [String: ContextValue])
        case tick
        case context(String, ContextValue?)
    }

    mutating func step() -> Step {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0..<7:
            return .event(
                Self.names.randomElement(using: &rng)!, ["x", "y", "z", nil].randomElement(using: &rng)!, properties()
            )
        case 7, 8:
            return .tick
        default:
            let path = Self.paths.randomElement(using: &rng)!
            let value: ContextValue? =
                switch Int.random(in: 0..<8, using: &rng) {
                case 0: nil
                case 6: .time(milliseconds: Int64(Int.random(in: -1...2, using: &rng)) * 86_400_000)
                case 7: .version(Version([1, Int.random(in: 0...3, using: &rng)]))
                case 1: .number(Double(Int.random(in: -2...3, using: &rng)))
                case 2: .string(["", "a", "b", "ab", "1.2"].randomElement(using: &rng)!)
                case 3: .string(["1.0", "1.2.0", "1.3", "0.9", "1.10"].randomElement(using: &rng)!)
                default: .bool(Bool.random(using: &rng))
                }
            return .context(path, value)
        }
    }
}
