import Testing

@testable import WaymarkAnalytics

/// A published catalog's tips are parsed once: asked again, the same text answers from memory;
/// another text (one character apart) is parsed; a text that does not parse has no tips.
@Suite struct PublishedTipsTests {
    @Test func eachTextIsParsedOnce() async {
        let memo = PublishedTips()
        let tip = { (id: String) in "{ id: \(id), container: c, trigger: tap, content: { title: \(id) } }" }
        let first = "tips: [\(tip("a")), \(tip("b"))]"
        #expect(await memo.ids(in: first, file: "v1") == ["a", "b"])
        #expect(await memo.ids(in: first, file: "v1 again") == ["a", "b"])
        #expect(await memo.parses == 1)
        #expect(await memo.ids(in: "tips: [\(tip("a")), \(tip("c"))]", file: "v2") == ["a", "c"])
        #expect(await memo.ids(in: "tips: [ { id: broken", file: "v3") == [])
        #expect(await memo.ids(in: "tips: [ { id: broken", file: "v3") == [])
        #expect(await memo.parses == 3)
    }
}
