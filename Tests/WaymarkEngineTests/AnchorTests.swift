import Foundation
import Testing

@testable import WaymarkEngine

/// Anchors read as every SDK reads them: the shared cases in `conformance/anchors/cases.json`,
/// which the web SDK's tests read too.
struct AnchorTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        var anchor: String
        var valid: Bool?
        var name: String?
        var pick: String?
        var key: String?
        var index: Int?
        var testDescription: String { "\"\(anchor)\"" }

        var expected: Anchor? {
            guard valid != false, let name else { return nil }
            let picked: Anchor.Pick? =
                switch pick {
                case "first": .first
                case "key": key.map { .key($0) }
                case "visible": .firstVisible
                case "index": index.map { .index($0) }
                default: nil
                }
            return picked.map { Anchor(name: name, pick: $0) }
        }
    }

    static let cases: [Case] = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("conformance/anchors/cases.json")
        struct File: Decodable { var cases: [Case] }
        guard let data = try? Data(contentsOf: file), let read = try? JSONDecoder().decode(File.self, from: data) else { return [] }
        return read.cases
    }()

    @Test func theSharedCasesAreThere() {
        #expect(Self.cases.count >= 25)
        #expect(Self.cases.contains { $0.valid == false } && Self.cases.contains { $0.valid != false })
    }

    @Test(arguments: cases) func anAnchorReadsAsTheCaseSays(_ test: Case) {
        if test.valid == false {
            #expect(Anchor(test.anchor) == nil)
        } else {
            #expect(test.expected != nil, "the case names a pick: \(test.pick ?? "none")")
            #expect(Anchor(test.anchor) == test.expected)
            #expect(Anchor(test.anchor)?.description == test.anchor, "it is written back as it was read")
        }
    }

    @Test func aRenderCommandSaysWhichElementItPointsAt() {
        let command = RenderCommand(action: .show, tip: "offer", container: "list", anchor: "product[sku-42]", time: Date())
        #expect(command.target == Anchor(name: "product", pick: .key("sku-42")))
        #expect(RenderCommand(action: .show, tip: "banner", container: "home", time: Date()).target == nil)
    }
}
