import Foundation
import Testing
import WaymarkRules
import WaymarkSupport

@testable import WaymarkEngine

/// Plays `conformance/engine/tours.json`, which the JavaScript and Java SDKs play too: after every
/// step, the tour the gate opens (and at which page), and the progress it then shares.
struct TourConformanceTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        struct TourSpec: Decodable, Sendable {
            var id: String
            var trigger: String?
            var pages: Int
        }

        struct Step: Decodable, Sendable {
            var t: String
            var event: String?
            var target: String?
            var context: [String: ContextValue?]?
            var open: String?
            var reached: String?
            var end: String?
            var ending: TourEnding?
            var press: String?
            var kind: String?
            var to: String?
            var page: Int?
            var left: Bool?
            var merge: [String: TourProgress]?
            var restart: Bool?
        }

        var name: String
        var tours: [TourSpec]
        var steps: [Step]
        var expect: [Opened]
        var progress: [String: TourProgress]

        var testDescription: String { name }
    }

    struct Opened: Codable, Equatable, Sendable {
        var t: String
        var open: String
        var page: Int
    }

    static let cases: [Case] = conformanceCases("engine/tours.json")

    @Test func thereAreCasesForEveryWayATourEnds() {
        #expect(Self.cases.count >= 20)
    }

    @Test(arguments: cases)
    func scenario(_ item: Case) throws {
        let tours = try item.tours.map { TourGate.Tour(id: $0.id, trigger: try $0.trigger.map { try Rule(parsing: $0) }, pages: $0.pages) }
        var gate = TourGate(tours: tours)
        var opened: [Opened] = []
        for step in item.steps {
            let time = try #require(Timestamp.date(step.t))
            if let name = step.event {
                gate.record(name, target: step.target, properties: [:], at: time)
            } else if let values = step.context {
                gate.setContext(values, at: time)
            } else if let tour = step.open {
                gate.opened(tour)
            } else if let tour = step.reached {
                gate.reached(tour, page: step.page ?? 0)
            } else if let tour = step.end, let ending = step.ending {
                gate.ended(tour, page: step.page ?? 0, ending)
            } else if let tour = step.press, let kind = step.kind {
                gate.pressed(tour, page: step.page ?? 0, kind: kind, to: step.to)
            } else if step.left == true {
                gate.left()
            } else if let progress = step.merge {
                gate.merge(progress)
            } else if step.restart == true {
                gate = TourGate(tours: tours, progress: gate.progress, restoring: gate.snapshot)
            }
            if let opening = gate.openDue() { opened.append(Opened(t: step.t, open: opening.tour, page: opening.page)) }
        }
        #expect(opened == item.expect)
        #expect(gate.progress == item.progress)
    }
}
