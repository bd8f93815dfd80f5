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
