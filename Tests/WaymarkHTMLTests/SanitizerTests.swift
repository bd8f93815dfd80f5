import Foundation
import Testing
import WaymarkHTML

@Suite struct SanitizerTests {
    @Test(arguments: xssPayloads)
    func payloadComesOutHarmless(_ payload: String) {
        #expect(sanitizerFailure(Array(payload.utf8)) == nil)
        let output = HTMLSanitizer.sanitize(payload).lowercased()
        // (Text and attribute values may say anything, escaped: allowlistProblem checks the markup.)
        for marker in ["<script", "<svg", "<math", "<style", "<iframe", "<object", "<embed", "<form", "<input", "<img src=\"x"] {
            #expect(!output.contains(marker), "\(marker) in \(output)")
        }
    }

    @Test(arguments: [
        // What authors write comes through.
        ("<p>Tap <strong>Search</strong>, then <em>Go</em>.</p>", "<p>Tap <strong>Search</strong>, then <em>Go</em>.</p>"),
        ("<ul><li>one<li>two</ul>", "<ul><li>one</li><li>two</li></ul>"),
        (
            #"<a href="https://shop.example/help?a=1&amp;b=2">help</a>"#,
            #"<a href="https://shop.example/help?a=1&amp;b=2" rel="noopener noreferrer nofollow">help</a>"#
        ),
        (
            #"<img src="https://cdn.example/a.png" alt="A cart" width="120">"#,
            #"<img src="https://cdn.example/a.png" alt="A cart" width="120">"#
        ),
        (#"<p dir="RTL" lang="ur">سلام</p>"#, #"<p dir="rtl" lang="ur">سلام</p>"#),
        ("x &lt; y &amp;&amp; y &gt; z &copy; &#8377;5 &bogus; &", "x &lt; y &amp;&amp; y &gt; z © ₹5 &amp;bogus; &amp;"),
        ("a\r\nb\rc", "a\nb\nc"),
        // What they must not write goes, and the text around it stays.
        ("<p>before<script>alert(1)</script>after</p>", "<p>beforeafter</p>"),
        ("<b onclick=alert(1)>bold</b>", "<b>bold</b>"),
        (#"<a href="javascript:alert(1)">click</a>"#, "click"),
        (#"<a href=" https://ok.example ">ok</a>"#, #"<a href="https://ok.example" rel="noopener noreferrer nofollow">ok</a>"#),
        ("<font color=red>red</font>", "red"),
        ("<svg><g>drawn</g></svg>after", "after"),
        ("<svg/>after", "after"),
        ("<!-- note -->text", "text"),
        // Nesting is repaired the way the output reads back.
        ("<p>one<p>two", "<p>one</p><p>two</p>"),
        ("<b>bold<p>para</p>", "<b>bold</b><p>para</p>"),
        (
            #"<a href="https://a.example">a<a href="https://b.example">b</a>"#,
            #"<a href="https://a.example" rel="noopener noreferrer nofollow">a</a><a href="https://b.example" rel="noopener noreferrer nofollow">b</a>"#
        ),
        ("<li>orphan</li>", "orphan"),
        ("<pre>\n\ncode</pre>", "<pre>\n\ncode</pre>"),
        ("<pre>code</pre>", "<pre>\ncode</pre>"),
        ("<i>open", "<i>open</i>"),
        ("</b>stray</p>", "stray"),
        ("5 < 6 and 7 > 3", "5 &lt; 6 and 7 &gt; 3"),
    ])
    func sanitizes(_ input: String, _ expected: String) {
        #expect(HTMLSanitizer.sanitize(input) == expected)
    }

    @Test func deepNestingKeepsTheTextAndStopsTheTags() {
        let input = String(repeating: "<span>", count: 10_000) + "deep" + String(repeating: "</span>", count: 10_000)
        let output = HTMLSanitizer.sanitize(input)
        #expect(output == String(repeating: "<span>", count: 32) + "deep" + String(repeating: "</span>", count: 32))
    }

    @Test(arguments: [
        ("Tap the **magnifier** to search.", "<p>Tap the <strong>magnifier</strong> to search.</p>"),
        ("- one\n- two", "<ul><li>one</li><li>two</li></ul>"),
        ("[help](https://shop.example/help)", #"<p><a href="https://shop.example/help" rel="noopener noreferrer nofollow">help</a></p>"#),
        ("[click](javascript:alert(1))", "<p>click</p>"),
        ("[a [b] c](https://x.example)", #"<p><a href="https://x.example" rel="noopener noreferrer nofollow">a [b] c</a></p>"#),
        (String(repeating: "[", count: 200) + "x", "<p>" + String(repeating: "[", count: 200) + "x</p>"),
        ("![cart](https://cdn.example/cart.png)", #"<p><img src="https://cdn.example/cart.png" alt="cart"></p>"#),
        (
            "# Search\n\nTap *here*, then `Go`.  \nDone \\*not em\\*",
            "<h1>Search</h1><p>Tap <em>here</em>, then <code>Go</code>.<br>Done *not em*</p>"
        ),
        (
            "1. one\n2. two\n   - nested\n\n> quoted\n\n---",
            "<ol><li>one</li><li>two<ul><li>nested</li></ul></li></ol><blockquote><p>quoted</p></blockquote><hr>"
        ),
        ("3) three\n4) four", #"<ol start="3"><li>three</li><li>four</li></ol>"#),
        ("snake_case_name and __strong__", "<p>snake_case_name and <strong>strong</strong></p>"),
        ("* \n ", "<ul><li></li></ul>"),
        ("Hello <script>alert(1)</script> world", "<p>Hello &lt;script&gt;alert(1)&lt;/script&gt; world</p>"),
        ("```swift\nlet x = 1 < 2\n```", "<pre>\n<code class=\"language-swift\">let x = 1 &lt; 2\n</code></pre>"),
    ])
    func markdown(_ input: String, _ expected: String) {
        #expect(Markdown.html(input) == expected)
    }

    /// The fuzzer's corpus: every input that found new code, replayed through the same check.
    @Test func fuzzCorpus() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/corpus/html").standardizedFileURL
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
        #expect(files.count >= xssPayloads.count)
        for file in files {
            let failure = sanitizerFailure(Array(try Data(contentsOf: file)))
            #expect(failure == nil, "\(file.lastPathComponent): \(failure ?? "")")
        }
    }

    /// Random markup from a small alphabet of dangerous pieces, many times: the cheap fuzzer that
    /// runs with every test.
    @Test func randomMarkup() {
        let pieces = [
            "<", ">", "</", "/>", "<!--", "-->", "<p>", "</p>", "<a href=\"https://x.example\">", "</a>", "<b>", "</b>",
            "<li>", "<ul>", "</ul>", "<svg>", "</svg>", "<style>", "</style>", "<script>", "</script>", "<pre>", "\n",
            "\"", "'", "=", "&", "&amp;", "&#x3c;", "&lt", "onerror=alert(1)", "<img src=", "javascript:", " ", "x",
            "<math>", "<noscript>", "</noscript>", "<textarea>", "*", "[", "](", ")", "`", "#", "-",
        ]
        // A fixed linear congruential sequence, so that a failure can be replayed.
        var state: UInt64 = 7
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<3_000 {
            let input = (0..<next(24)).map { _ in pieces[next(pieces.count)] }.joined()
            let failure = sanitizerFailure(Array(input.utf8))
            #expect(failure == nil, "\(input): \(failure ?? "")")
            if failure != nil { return }
        }
    }
}
