import Foundation
import Testing
import WaymarkConsole
import WaymarkEngine
import WaymarkRules

/// Recipes in plain words write the rule they say, and refuse in words what a rule cannot hold.
@Suite struct RecipeTests {
    @Test(arguments: [
        ("visits", "product", "3", "count(screen:product) >= 3"),
        ("visits", "product", "", "screen:product"),
        ("first-visit", "cart", "", "count(screen:cart) == 1"),
        ("tap", "cart-link", "", "tap:cart-link"),
        ("tap", "size_chart", "2", "count(tap:size_chart) >= 2"),
        ("event", "add_to_cart", "3", "count(add_to_cart) >= 3"),
        ("event", "tap:search", "", "tap:search"),
        (
            "idle", "checkout", "20",
            "screen:checkout AND NOT screen within 20s AND NOT tap within 20s AND NOT scroll within 20s AND NOT keystroke within 20s"
        ),
    ])
    func eachRecipeWritesTheRuleItSays(_ kind: String, _ subject: String, _ number: String, _ expected: String) throws {
        let rule = try RuleRecipe(kind: kind, subject: " \(subject) ", number: number).rule()
        #expect(rule.description == expected)
        #expect(try Rule(parsing: expected) == rule)
    }

    @Test func whatARuleCannotHoldIsRefusedInWords() {
        #expect(throws: RuleRecipe.Problem(message: "write the screen's name, as the app sends it")) {
            try RuleRecipe(kind: "visits", subject: "  ", number: "3")
        }
        #expect(throws: RuleRecipe.Problem(message: "the number is a whole number from 1 to 10000")) {
            try RuleRecipe(kind: "visits", subject: "product", number: "three")
        }
        #expect(throws: RuleRecipe.Problem(message: "choose what the rule should say")) {
            try RuleRecipe(kind: "sometimes", subject: "product", number: "")
        }
        let spaced = #expect(throws: RuleRecipe.Problem.self) { try RuleRecipe(kind: "tap", subject: "cart link", number: "").rule() }
        #expect(spaced?.message.contains("\"cart link\" is not the element's name as rules write it") == true)
        // A screen recipe takes the screen's name, not the event.
        #expect(throws: RuleRecipe.Problem.self) { try RuleRecipe(kind: "visits", subject: "screen:product", number: "").rule() }
    }

    /// The idle recipe shows its tip once the screen has been quiet for the time it says, and
    /// every tap, scroll or screen change starts the wait again.
    @Test func theIdleRecipeWaitsForQuietOnTheScreen() throws {
        let rule = try RuleRecipe(kind: .idle, subject: "checkout", number: 20).rule()
        var engine = Engine(tips: [Tip(id: "stuck", container: "checkout", trigger: rule)])
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        #expect(engine.record("screen", target: "checkout", at: start).isEmpty)
        #expect(engine.record("tap", target: "coupon", at: start + 15).isEmpty)
        #expect(engine.advance(to: start + 34).isEmpty, "20 s after the screen, but only 19 s after the tap")
        // A window includes its boundary: the tap stops counting a millisecond after 20 s.
        let next = try #require(engine.nextChange)
        #expect(abs(next.timeIntervalSince(start + 35.001)) < 0.0005)
        #expect(engine.advance(to: next).map(\.tip) == ["stuck"])
    }
}
