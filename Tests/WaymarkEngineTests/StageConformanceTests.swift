import Foundation
import Testing
import WaymarkEngine

/// Plays `conformance/stage/cases.json`, which the web SDK and the Java core play too: which
/// surfaces show, from their kinds, priorities, order and rectangles.
struct StageConformanceTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        var name: String
        var surfaces: [Stage.Surface]
        var shown: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("conformance/stage/cases.json")
        struct File: Decodable { var cases: [Case] }
        guard let data = FileManager.default.contents(atPath: file.path) else { return [] }
        return (try? JSONDecoder().decode(File.self, from: data).cases) ?? []
    }()

    @Test func thereAreStageCases() {
        #expect(Self.cases.count >= 15)
    }

    @Test(arguments: cases)
    func scenario(_ item: Case) {
        #expect(Stage.arrange(item.surfaces).sorted() == item.shown)
    }
}
