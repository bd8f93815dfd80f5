import Foundation
import Testing
import WaymarkCatalog
import WaymarkEngine

@Suite struct CatalogWriterTests {
    static let shop = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../examples/shop.yaml").standardizedFileURL.path

    @Test func theShopReadsBackAsItself() throws {
        let catalog = try CatalogDocument.load(path: Self.shop)
        let written = CatalogDocument.yaml(catalog)
        let reread = try CatalogDocument.parse(written, file: "written")
        #expect(reread == catalog)
        #expect(CatalogDocument.yaml(reread) == written)
    }

    /// A page's reading time and the catalog's reading check read, write back, and are refused
    /// where they are wrong.
    @Test func readingRulesForCreditsReadBackAndAreChecked() throws {
        let text = """
            tips: []
            tours:
              - id: t
                pages:
                  - { id: a, content: { title: A }, reward: 2, minReadingSeconds: 20 }
                  - { id: b, content: { title: B } }
            rewards: { maxCreditsPerUser: 50, requireReading: false }
            """
        let catalog = try CatalogDocument.parse(text, file: "test")
        #expect(catalog.tours[0].pages.map(\.minReadingSeconds) == [20, nil])
        #expect(catalog.rewards == RewardPolicy(maxCreditsPerUser: 50, requireReading: false))
        #expect(try CatalogDocument.parse(CatalogDocument.yaml(catalog), file: "written") == catalog)
        #expect(try CatalogDocument.parse("tips: []", file: "default").rewards.requireReading, "checked unless turned off")
        func problems(_ page: String, rewards: String = "{}") -> [String] {
            ActionTests.problems("tips: []\ntours:\n  - id: t\n    pages:\n      - \(page)\nrewards: \(rewards)\n")
        }
        #expect(
            problems("{ id: a, content: { title: A }, minReadingSeconds: 5 }") == [
                "5:60 minReadingSeconds is for a page's credit: the page has no reward"
            ])
        #expect(
            problems("{ id: a, content: { title: A }, reward: 1, minReadingSeconds: 0 }") == [
                "5:71 minReadingSeconds must be from 1 to 3600"
            ])
        #expect(
            problems("{ id: a, content: { title: A }, reward: 1 }", rewards: "{ requireReading: maybe }") == [
                "6:28 requireReading must be true or false"
            ])
    }

    /// The locales whose users hear every tip by default read back, and a wrong one is named.
    /// A web tip may point at its element by a CSS selector: read back, delivered, and refused in
    /// words where it is no selector or the tip also names an anchor.
    @Test func selectorAnchorsReadBackAndAreChecked() throws {
        func tip(_ pointing: String) -> String {
            "tips:\n  - id: pay\n    container: checkout\n    \(pointing)\n    trigger: screen:checkout\n    content: { title: Pay here }\n"
        }
        let catalog = try CatalogDocument.parse(tip(##"selector: "#checkout button.pay""##), file: "test")
        #expect(catalog.tips[0].selector == "#checkout button.pay" && catalog.tips[0].tip.anchor == nil)
        #expect(try CatalogDocument.parse(CatalogDocument.yaml(catalog), file: "written") == catalog)
        #expect(
            ActionTests.problems(tip(#"selector: "button::after""#)) == [
                "4:15 selector \"button::after\" is not a CSS selector: a pseudo-element (::after) is no element to point at"
            ])
        #expect(
            ActionTests.problems(tip("anchor: pay-button\n    selector: \".pay\"")) == [
                "5:15 a tip points at one element: by its anchor or by a selector, not both"
            ])
        #expect(
            ActionTests.problems(tip("renderer: hotspot")) == ["4:15 a hotspot marks an element: it needs an anchor or a selector"])
        #expect(ActionTests.problems(tip("renderer: hotspot\n    selector: \".pay\"")).isEmpty)
    }

    @Test func listeningLocalesReadBackAndAreChecked() throws {
        let catalog = try CatalogDocument.parse("listen: [hi, ta-IN]\ntips: []", file: "test")
        #expect(catalog.listen == ["hi", "ta-IN"])
        #expect(try CatalogDocument.parse(CatalogDocument.yaml(catalog), file: "written") == catalog)
        #expect(ActionTests.problems("listen: [hi, नहीं]\ntips: []\n") == ["1:14 \"नहीं\" is not a locale"])
        #expect(ActionTests.problems("listen: hi\ntips: []\n") == ["1:9 listen must be a list of locales"])
    }

    @Test(arguments: [
        "100", "yes", "null", "~", "- a", "# not a comment", "key: value", "'single'", "\"double\"", " leading",
        "trailing ", "two\nlines", "ends with newline\n", "{flow}", "[list]", "*star", "&anchor", "!tag", "@at",
        "`tick`", "%percent", "| bar", "> fold", "खोजें", "tab\tinside", "", "0x1F", "1e3", "- [ ] task",
    ])
    func awkwardTextReadsBack(_ value: String) throws {
        let tip = "tips: [{ id: t, container: c, trigger: scroll, content: { title: x, body: x } }]"
        var catalog = try CatalogDocument.parse(tip, file: "t")
        catalog.tips[0].content = Localized(
            Content(title: value, markdown: value, audio: nil), locales: ["hi": Content(title: value, html: "<b>\(value)</b>")])
        // Text that is no anchor (a space, brackets) is refused when read; the rest must read back.
        catalog.tips[0].tip.anchor = Anchor(value) == nil ? nil : value
        let reread = try CatalogDocument.parse(CatalogDocument.yaml(catalog), file: "written")
        #expect(reread == catalog)
    }
}
