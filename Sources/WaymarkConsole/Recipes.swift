import Foundation
import WaymarkRules

/// A rule said in plain words: the console's trigger and dismissal fields offer these, and each
/// writes the rule it means into the field, where it stays visible and editable.
public struct RuleRecipe: Sendable, Equatable {
    /// What the recipe says, each with the words the form shows.
    public enum Kind: String, CaseIterable, Sendable {
        /// "after the Nth visit to screen S": `count(screen:S) >= N`, or `screen:S` for N = 1.
        case visits
        /// "on the first visit to screen S": true during that visit only, `count(screen:S) == 1`.
        case firstVisit = "first-visit"
        /// "after tapping E (N times)": `tap:E`, or `count(tap:E) >= N`.
        case tap
        /// "when idle on screen S for N seconds": S was visited, and neither a screen change, a
        /// tap, a scroll nor a keystroke happened for N seconds. The tip's screen area decides
        /// which screen it shows on.
        case idle
        /// "after N times the event E": `count(E) >= N`, or `E` for N = 1.
        case event

        /// The words of the form's choice.
        public var words: String {
            switch self {
            case .visits: "after the Nth visit to a screen"
            case .firstVisit: "on the first visit to a screen"
            case .tap: "after tapping an element (N times)"
            case .idle: "when idle on a screen for N seconds"
            case .event: "after N times an event"
            }
        }

        /// What the name field asks for.
        var subject: String {
            switch self {
            case .visits, .firstVisit, .idle: "the screen's name"
            case .tap: "the element's name"
            case .event: "the event's name"
            }
        }
    }

    /// A recipe that could not be written, in words for the author.
    public struct Problem: Error, Equatable, Sendable {
        public var message: String

        public init(message: String) { self.message = message }
    }

    public var kind: Kind
    /// The screen, element or event.
    public var subject: String
    /// Visits, taps, times or seconds; 1 where the recipe has no number.
    public var number: Int

    public init(kind: Kind, subject: String, number: Int = 1) {
        self.kind = kind
        self.subject = subject
        self.number = number
    }

    /// Reads the form's text: the kind's raw value, a name, and a number that may be blank
    /// (1, or 30 seconds when idle).
    public init(kind: String, subject: String, number: String) throws(Problem) {
        guard let chosen = Kind(rawValue: kind) else { throw Problem(message: "choose what the rule should say") }
        let name = subject.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw Problem(message: "write \(chosen.subject), as the app sends it") }
        let digits = number.trimmingCharacters(in: .whitespacesAndNewlines)
        let count: Int
        if digits.isEmpty {
            count = chosen == .idle ? 30 : 1
        } else {
            let range = chosen == .idle ? 1...86_400 : 1...10_000
            guard let value = Int(digits), range.contains(value) else {
                throw Problem(message: "the number is a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            count = value
        }
        self.init(kind: chosen, subject: name, number: count)
    }

    /// The rule, checked by the parser: a name the language cannot hold is refused in words.
    public func rule() throws(Problem) -> Rule {
        let parts = subject.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.allSatisfy(Self.isName), parts.count <= (kind == .event ? 2 : 1) else {
            let example = kind == .event ? "add_to_cart or tap:search" : "cart-link"
            throw Problem(
                message: "\"\(subject)\" is not \(kind.subject) as rules write it: letters, digits, _ and -, for example \(example)")
        }
        do { return try Rule(parsing: text) } catch { throw Problem(message: error.description) }
    }

    /// The rule's text, before it is checked.
    var text: String {
        let n = number
        switch kind {
        case .visits: return n == 1 ? "screen:\(subject)" : "count(screen:\(subject)) >= \(n)"
        case .firstVisit: return "count(screen:\(subject)) == 1"
        case .tap: return n == 1 ? "tap:\(subject)" : "count(tap:\(subject)) >= \(n)"
        case .idle:
            let quiet = ["screen", "tap", "scroll", "keystroke"].map { "NOT \($0) within \(n)s" }.joined(separator: " AND ")
            return "screen:\(subject) AND \(quiet)"
        case .event: return n == 1 ? subject : "count(\(subject)) >= \(n)"
        }
    }

    private static func isName(_ name: Substring) -> Bool {
        !name.isEmpty
            && name.unicodeScalars.allSatisfy {
                ("0"..."9").contains($0) || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || $0 == "_" || $0 == "-"
            }
    }
}

/// The recipe rows of a form, one under each rule field that offers them: what was chosen, and
/// whether the last "Write the rule" wrote that field.
struct RecipeFields {
    struct Row { var kind = RuleRecipe.Kind.visits.rawValue, subject = "", number = "" }

    private var rows: [String: Row] = [:]
    private var written: Set<String> = []

    init() {}

    init(form: Form) {
        for field in ["trigger", "dismissal"] where form["recipe.\(field).kind"] != nil {
            rows[field] = Row(
                kind: form["recipe.\(field).kind"] ?? "", subject: form["recipe.\(field).subject"] ?? "",
                number: form["recipe.\(field).number"] ?? "")
        }
    }

    /// Writes `field`'s recipe into `values[field]`, or answers its problem as a form error
    /// under `recipe_FIELD`.
    mutating func write(into values: inout [String: String], field: String) -> [String: [String: String]] {
        guard let row = rows[field] else { return ["recipe_\(field)": ["message": "choose a recipe first"]] }
        do {
            values[field] = try RuleRecipe(kind: row.kind, subject: row.subject, number: row.number).rule().description
            written.insert(field)
            return [:]
        } catch {
            return ["recipe_\(field)": ["message": error.message]]
        }
    }

    /// The template's `recipe_FIELD` values: the choices with the chosen one selected, the name
    /// and number typed, the problem, and whether it was written.
    func values(fields: [String], errors: [String: [String: String]]) -> [String: Any] {
        var values: [String: Any] = [:]
        for field in fields {
            let chosen = rows[field] ?? Row()
            let error = errors["recipe_\(field)"]?["message"]
            var row: [String: Any] = [
                "field": field, "subject": chosen.subject, "number": chosen.number,
                "label": field == "dismissal" ? "Done for good" : "Show it",
                "kinds": RuleRecipe.Kind.allCases.map {
                    ["value": $0.rawValue, "words": $0.words, "selected": $0.rawValue == chosen.kind] as [String: Any]
                },
                "wrote": written.contains(field), "open": error != nil || written.contains(field),
            ]
            if let error { row["error"] = error }
            values["recipe_\(field)"] = row
        }
        return values
    }

    /// The names a recipe may be written with, from the events seen: each screen, element and
    /// event (`screen:cart` gives `cart`, and `screen:cart` itself for the event recipe).
    static func names(_ eventNames: [String]) -> [String] {
        var names = Set(eventNames)
        for name in eventNames {
            if let colon = name.firstIndex(of: ":") { names.insert(String(name[name.index(after: colon)...])) }
        }
        return names.sorted()
    }
}
