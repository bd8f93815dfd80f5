import Foundation
import Testing
import WaymarkRules
import WaymarkSupport

@testable import WaymarkEngine

/// Plays the shared scheduling scenarios (`conformance/engine/cases.json`, and
/// `conformance/engine/progress.json` for progress merged from the user's other devices), which the
/// JavaScript engine plays too: every render command, at its moment, in order, and the progress the
/// engine then has to share.
struct SchedulingConformanceTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        struct TipSpec: Decodable, Sendable {
            struct Policy: Decodable, Sendable {
                var maxDisplayCount: Int?
                var maxDisplayDuration: Double?
                var expiresAt: String?
            }
            var id: String
            var container: String
            var anchor: String?
            var trigger: String
            var dismissal: String?
            var priority: Int?
            var group: String?
            var order: Int?
            var policy: Policy?
        }

        struct Step: Decodable, Sendable {
            var t: String
            var event: String?
            var target: String?
            var context: [String: ContextValue?]?
            var container: String?
            var visible: Bool?
            var close: String?
            var tip: String?
            var merge: [String: TipProgress]?
        }

        var name: String
        var frequency: DisplayFrequency
        var tips: [TipSpec]
        var steps: [Step]
        var expect: [[String: String]]
        /// What the engine has to share at the end (progress.json only).
        var progress: [String: TipProgress]?

        var testDescription: String { name }
    }

    static let cases: [Case] = conformanceCases("engine/cases.json")
    static let progressCases: [Case] = conformanceCases("engine/progress.json")

    @Test func thereAreAtLeast200Scenarios() {
        #expect(Self.cases.count >= 200)
        #expect(Self.progressCases.count >= 15 && Self.progressCases.allSatisfy { $0.progress != nil })
    }

    @Test(arguments: cases + progressCases)
    func scenario(_ item: Case) throws {
        let tips = try item.tips.map { spec in
            Tip(
                id: spec.id, container: spec.container, anchor: spec.anchor, trigger: try Rule(parsing: spec.trigger),
                dismissal: try spec.dismissal.map { try Rule(parsing: $0) }, priority: spec.priority ?? 0,
                group: spec.group, order: spec.order ?? 0,
                policy: DisplayPolicy(
                    maxDisplayCount: spec.policy?.maxDisplayCount, maxDisplayDuration: spec.policy?.maxDisplayDuration,
                    expiresAt: spec.policy?.expiresAt.flatMap(Timestamp.date)
                )
            )
        }
        var engine = Engine(tips: tips, configuration: .init(frequency: item.frequency))
        var output: [[String: String]] = []
        for step in item.steps {
            let time = try #require(Timestamp.date(step.t))
            let commands: [RenderCommand]
            if let name = step.event {
                commands = engine.record(name, target: step.target, at: time)
            } else if let context = step.context {
                commands = engine.setContext(context, at: time)
            } else if let container = step.container {
                commands = engine.setContainer(container, visible: step.visible ?? true, at: time)
            } else if let tip = step.close {
                commands = engine.close(tip: tip, at: time)
            } else if let tip = step.tip {
                commands = engine.setTip(tip, visible: step.visible ?? true, at: time)
            } else if let progress = step.merge {
                commands = engine.merge(progress, at: time)
            } else {
                commands = engine.advance(to: time)
            }
            for command in commands {
                var line = ["t": Timestamp.format(command.time), command.action.rawValue: command.tip, "container": command.container]
                line["anchor"] = command.anchor
                line["reason"] = command.reason?.rawValue
                output.append(line)
            }
        }
        #expect(output == item.expect)
        if let progress = item.progress { #expect(engine.progress == progress) }
    }
}

/// The cases of a file of the shared `conformance/` folder (`engine/tours.json`), which every SDK
/// plays; none when it does not read (the tests that count them fail then).
func conformanceCases<Case: Decodable>(_ path: String) -> [Case] {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("conformance/\(path)")
    guard let data = FileManager.default.contents(atPath: file.path) else { return [] }
    return (try? JSONDecoder().decode(ConformanceFile<Case>.self, from: data).cases) ?? []
}

/// A file of conformance cases: `{"group": ..., "cases": [...]}`.
struct ConformanceFile<Case: Decodable>: Decodable {
    var cases: [Case]
}
