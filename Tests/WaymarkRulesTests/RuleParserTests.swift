import Foundation
import Testing

@testable import WaymarkRules

struct RuleParserTests {
    @Test func parsesTheExampleRules() throws {
        #expect(
            try Rule(parsing: "(tap:search AND activation) OR scroll")
                == .or([
                    .and([
                        .sequence([EventPattern(name: "tap", target: "search")], within: nil),
                        .sequence([EventPattern(name: "activation")], within: nil),
                    ]),
                    .sequence([EventPattern(name: "scroll")], within: nil),
                ])
        )
        #expect(
            try Rule(parsing: "count(add_to_cart) >= 3 within 7d")
                == .count(EventPattern(name: "add_to_cart"), .greaterOrEqual, 3, within: Window(7, .days)))
        #expect(
            try Rule(parsing: "screen:product THEN tap:size_chart within 30s")
                == .sequence(
                    [EventPattern(name: "screen", target: "product"), EventPattern(name: "tap", target: "size_chart")],
                    within: Window(30, .seconds))
        )
        #expect(
            try Rule(parsing: #"device.platform in ["ios","android"] AND app.version >= v1.3"#).description
                == #"device.platform in ["ios", "android"] AND app.version >= v1.3"#)
    }

    @Test func errorsCarryPositionAndCaret() {
        do {
            _ = try Rule(parsing: "(tap AND scroll))")
            Issue.record("should not parse")
        } catch {
            #expect(error.description == #"unexpected ")" at 1:17, expected AND, OR or the end of the rule"#)
            #expect(
                error.excerpt(source: "(tap AND scroll))") == """
                    error: unexpected ")"
                     --> rule:1:17
                      | (tap AND scroll))
                      |                 ^ expected AND, OR or the end of the rule
                    """)
        }
    }

    /// What an author writes for "viewed 3 products" is refused with the rule they meant, at the
    /// same place (the conformance cases' column) as any other unexpected comparator.
    @Test(arguments: [
        ("screen:product >= 3", "count(screen:product) >= 3", 16),
        ("tap:search > 2 within 7d", "count(tap:search) > 2", 12),
        ("purchase where amount >= 500 > 2", "count(purchase where amount >= 500) > 2", 30),
        ("tap <", "count(tap) < 3", 5),
    ])
    func anEventComparedAsANumberIsShownAsACount(text: String, meant: String, column: Int) {
        do {
            _ = try Rule(parsing: text)
            Issue.record("should not parse")
        } catch {
            #expect(error.code == .syntax && error.line == 1 && error.column == column)
            #expect(error.message == "an event is not a number: to count it, write \(meant)")
        }
        #expect(throws: Never.self) { try Rule(parsing: meant) }
    }

    @Test(arguments: [
        "NOT (a AND b) OR c", "a AND (b OR c)", "(a AND b) AND c", "(a OR b) OR c", "NOT NOT a",
        #"user.s == "q\"uo\\te""#, "user.n == 0.000001", "user.n == 123456789012345678", "user.n == -2.5",
        "app.version != v1.2.3", "count(x:y) != 0 within 3650d", "a THEN b THEN a within 2w", "true AND false",
        #"count(purchase where amount >= 500 AND category in ["phones", "tv"]) >= 2 within 30d"#,
        "tap:buy where qty > 1 AND n == 2 AND scroll", "(a where x == 1 OR b) AND c where y != true",
        "a where v >= v1.2 THEN b where s < \"z\" within 5s", "user.t < 2026-01-15",
        "user.t >= 2026-01-15T10:30:00+05:30", "user.t == 1969-12-31T23:59:59.999Z", "user.t in [0000-01-01, 9999-12-31]",
        "user.t != 2026-01-15T00:00:00.5Z AND user.b >= v5.2.1",
    ])
    func printingGivesTheSameRuleBack(text: String) throws {
        let rule = try Rule(parsing: text)
        #expect(try Rule(parsing: rule.description) == rule, "\(rule)")
        let decoded = try JSONDecoder().decode(Rule.self, from: JSONEncoder().encode(rule))
        #expect(decoded == rule)
    }

    @Test(arguments: [
        #"{"and":[{"const":true}]}"#, #"{"seq":[]}"#, #"{"seq":[{"name":"and"}]}"#, #"{"seq":[{"name":"a b"}]}"#,
        #"{"count":{"name":"x"},"cmp":">=","value":10001}"#, #"{"path":"user","cmp":"==","value":1}"#,
        #"{"path":"user.b","cmp":"<","value":true}"#, #"{"const":true,"extra":1}"#, #"{"seq":[{"name":"a"}],"within":"5x"}"#,
        #"{"path":"a.b","in":[]}"#, #"[]"#, #"{"not":{"not":"x"}}"#, #"{"path":"a.b","cmp":"==","value":{"version":"1.x"}}"#,
        #"{"seq":[{"name":"a","where":[]}]}"#, #"{"seq":[{"name":"a","where":[{"prop":"x.y","cmp":"==","value":1}]}]}"#,
        #"{"seq":[{"name":"a","where":[{"prop":"x","cmp":"<","value":true}]}]}"#,
        #"{"seq":[{"name":"a","where":[{"prop":"and","cmp":"==","value":1}]}]}"#,
        #"{"seq":[{"name":"a","where":[{"prop":"x","in":[1],"cmp":"=="}]}]}"#,
        #"{"seq":[{"name":"a","where":[{"prop":"x","in":[]}]}]}"#, #"{"seq":[{"name":"a","extra":1}]}"#,
        #"{"path":"a.b","cmp":"<","value":{"time":"2026-02-30"}}"#, #"{"path":"a.b","cmp":"<","value":{"time":1}}"#,
        #"{"path":"a.b","cmp":"<","value":{"time":"2026-01-15","version":"1"}}"#, #"{"path":"a.b","cmp":"<","value":{}}"#,
        #"{"path":"a.b","cmp":"<","value":{"time":"2026-01-15","extra":1}}"#, #"{"path":"a.b","cmp":"<","value":{"date":"2026-01-15"}}"#,
    ])
    func theJSONDecoderRejectsWhatTheParserWould(json: String) {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Rule.self, from: Data(json.utf8)) }
    }

    @Test func timesPrintInUTCAndReadBack() throws {
        #expect(RuleTime.parse("2026-01-15") == 1_768_435_200_000)
        #expect(RuleTime.parse("2026-01-15T05:30:00+05:30") == 1_768_435_200_000)
        #expect(RuleTime.parse("1970-01-01T00:00:00Z") == 0)
        #expect(RuleTime.parse("1969-12-31T23:59:59.9999Z") == -1)
        #expect(RuleTime.format(1_768_435_200_000) == "2026-01-15")
        #expect(RuleTime.format(1_768_435_200_250) == "2026-01-15T00:00:00.250Z")
        #expect(RuleTime.format(-1) == "1969-12-31T23:59:59.999Z")
        #expect(RuleTime.format(RuleTime.earliest) == "0000-01-01")
        #expect(RuleTime.format(RuleTime.latest) == "9999-12-31T23:59:59.999Z")
        for text in ["2026-1-15", "2026-01-15T10:30Z", "2026-01-15T10:30:00", "2026-01-15 10:30:00Z", "2100-02-29", "2026-01-15T24:00:00Z"]
        {
            #expect(RuleTime.parse(text) == nil, "\(text)")
        }
        // Every day of four centuries, leap days included, prints and reads back.
        var day = RuleTime.parse("1900-01-01")!
        while day < RuleTime.parse("2300-01-01")! {
            #expect(RuleTime.parse(RuleTime.format(day)) == day)
            day += 86_400_000 + 3_723_004
            #expect(RuleTime.parse(RuleTime.format(day)) == day)
            day -= 3_723_004
        }
        let value = try JSONDecoder().decode(ContextValue.self, from: Data(#"{"time":"2026-01-15T05:30:00+05:30"}"#.utf8))
        #expect(value == .time(milliseconds: 1_768_435_200_000))
        #expect(String(decoding: try JSONEncoder().encode(value), as: UTF8.self) == #"{"time":"2026-01-15"}"#)
        #expect(try JSONDecoder().decode(ContextValue.self, from: Data(#"{"version":"5.2.1"}"#.utf8)) == .version(Version([5, 2, 1])))
    }

    @Test func plainDecimalsHaveNoExponent() {
        #expect(plainDecimal(1e16) == "10000000000000000")
        #expect(plainDecimal(1.5e-7) == "0.00000015")
        #expect(plainDecimal(-0.0) == "0")
        #expect(plainDecimal(12.25) == "12.25")
    }

    /// Random bytes and mutations of valid rules never crash the parser, and what parses prints back.
    @Test func randomTextNeverCrashesTheParser() throws {
        var generator = SystemRandomNumberGenerator()
        let pieces = [
            "tap", ":", "x", " AND ", " OR ", "NOT ", "(", ")", " THEN ", " within ", "5s", "count(", ") >= ",
            "3", "user.n", " == ", "\"s\"", "v1.2", " in [", ", ", "]", "é", "\\", "\"", "-", ".", "\n", "true",
            "2026-01-15", "T10:30:00", "Z", "+05:30", ":",
        ]
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            if let rule = try? Rule(parsing: text) {
                #expect(try Rule(parsing: rule.description) == rule, "\(text) printed as \(rule)")
            }
        }
    }
}
