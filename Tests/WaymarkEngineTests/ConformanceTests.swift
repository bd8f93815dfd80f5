import Foundation
import Testing
import WaymarkRules
import WaymarkSupport

@testable import WaymarkEngine

/// Runs every case in `conformance/`, the language's shared truth for every SDK: both evaluators
/// must give the expected value after each step, and bad rules must fail at the expected place.
struct ConformanceTests {
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        struct Step: Decodable, Sendable {
            var t: String
            var event: String?
            var target: String?
            var properties: [String: ContextValue]?
            var context: [String: ContextValue?]?
            var expect: Bool
        }

        struct ExpectedError: Decodable, Sendable {
            var line: Int
            var column: Int
            var code: String
        }

        var file: String = ""
        var name: String
        var rule: String
        var steps: [Step]?
        var error: ExpectedError?

        var testDescription: String { "\(file): \(name)" }

        private enum CodingKeys: String, CodingKey { case name, rule, steps, error }
    }

    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("conformance")

    static let cases: [Case] = {
        struct File: Decodable { var cases: [Case] }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".json") }.sorted().flatMap { name -> [Case] in
            guard let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path),
                let file = try? JSONDecoder().decode(File.self, from: data)
            else { return [Case(file: name, name: "the file cannot be read", rule: "", steps: nil, error: nil)] }
            return file.cases.map {
                var item = $0
                item.file = name
                return item
            }
        }
    }()

    @Test func thereAreAtLeast300Cases() {
        #expect(Self.cases.count >= 300)
    }

    @Test(arguments: cases)
    func conformance(_ item: Case) throws {
        if let expected = item.error {
            #expect(throws: RuleError.self) { try RuleParser().parse(item.rule) }
            do {
                _ = try RuleParser().parse(item.rule)
            } catch {
                #expect(error.line == expected.line && error.column == expected.column, "\(error)")
                #expect(error.code.description == expected.code, "\(error)")
            }
            return
        }
        let rule = try RuleParser().parse(item.rule)
        // Printing and the JSON form both give the same rule back.
        #expect(try RuleParser().parse(rule.description) == rule, "printed as \(rule)")
        let json = try JSONEncoder().encode(rule)
        #expect(try JSONDecoder().decode(Rule.self, from: json) == rule, "\(String(decoding: json, as: UTF8.self))")

        var evaluator = Evaluator(rules: [rule])
        var reference = ReferenceEvaluator()
        for (index, step) in try #require(item.steps).enumerated() {
            let time = try #require(Timestamp.date(step.t), "bad time \(step.t)")
            if let name = step.event {
                evaluator.record(name, target: step.target, properties: step.properties ?? [:], at: time)
                reference.record(name, target: step.target, properties: step.properties ?? [:], at: time)
            } else if let context = step.context {
                for (path, value) in context.sorted(by: { $0.key < $1.key }) {
                    evaluator.setContext(path, to: value, at: time)
                    reference.setContext(path, to: value, at: time)
                }
            } else {
                evaluator.advance(to: time)
                reference.advance(to: time)
            }
            #expect(evaluator.value(ofRule: 0) == step.expect, "step \(index + 1): incremental evaluator")
            #expect(reference.value(of: rule) == step.expect, "step \(index + 1): reference evaluator")
        }
    }
}
