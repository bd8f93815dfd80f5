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

    static let cases: [Case] = conformanceCases("stage/cases.json")

    @Test func thereAreStageCases() {
        #expect(Self.cases.count >= 15)
    }

    @Test(arguments: cases)
    func scenario(_ item: Case) {
        #expect(Stage.arrange(item.surfaces).sorted() == item.shown)
    }
}
