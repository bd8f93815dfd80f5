import Testing
import WaymarkEngine
import WaymarkSupport

/// A web tip's selector anchor is read as browsers read CSS selectors; what is not one is refused
/// in words before it is published.
struct CSSSelectorTests {
    @Test(arguments: [
        "#checkout", ".pay", "button", "*", "#checkout button.pay", "header > nav a", "li + li", "h2 ~ p", "ul li:first-child",
        "a[href]", "a[href^=\"/cart\"]", "input[type='submit' i]", "[data-testid=buy-now]", "button:not(.done)",
        "li:nth-child(2n+1)", "tr:nth-child(2 of .row)", ".card:has(> img)", "a, button", "#\\31 23", ".a\\:b", "-x", "--y",
        "section:is(.a, .b) > p", "टैब", "  .padded  ",
    ])
    func selectorsBrowsersReadAreTaken(_ text: String) {
        #expect(CSSSelector.problem(text) == nil, "\(text)")
    }

    @Test(arguments: [
        ("", "a selector names at least one element"),
        ("#", "expected an id after # at 2, found the end"),
        (".pay,", "expected an element, #id, .class, [attribute] or :pseudo-class at 6, found the end"),
        ("a[href", "expected \"]\" or an operator such as = at 7, found the end"),
        ("a[href=\"x]", "a quoted value is not closed"),
        ("button::before", "a pseudo-element (::before) is no element to point at"),
        ("a { color: red }", "expected an element, #id, .class, [attribute] or :pseudo-class at 3, found \"{\""),
        ("li:nth-child()", "the pseudo-class :nth-child() needs an argument"),
        (":not(.a", "expected \")\" at 8, found the end"),
        ("a >", "expected an element, #id, .class, [attribute] or :pseudo-class at 4, found the end"),
        ("1abc", "expected an element, #id, .class, [attribute] or :pseudo-class at 1, found \"1\""),
    ])
    func whatIsNotASelectorIsRefusedInWords(_ text: String, _ message: String) {
        #expect(CSSSelector.problem(text) == message)
    }

    /// Whatever an author types, the check answers: a verdict, never a crash or a hang.
    @Test func anyTextGetsAVerdict() {
        var random = SplitMix64(seed: 20_261_127)
        let pieces = Array("ab-_#.[]()=~|^$*+>,:'\" \\1{}".unicodeScalars) + ["é", "\u{7F}", "\t"]
        for _ in 0..<20_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...24, using: &random) { text.append(pieces.randomElement(using: &random)!) }
            let verdict = CSSSelector.problem(String(text))
            #expect(verdict == nil || !verdict!.isEmpty)
        }
    }

    @Test func longOrControlledTextIsRefused() {
        #expect(CSSSelector.problem(String(repeating: "a", count: 513)) == "a selector is at most 512 bytes")
        #expect(CSSSelector.problem("a\u{7}") == "a selector has no control characters (U+7)")
    }
}
