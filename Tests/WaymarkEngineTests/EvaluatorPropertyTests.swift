import Foundation
import Testing
import WaymarkRules
@testable import WaymarkEngine

/// The incremental evaluator must agree with the plain reference evaluator, which recomputes every
/// rule from the whole history, on random rules and random histories.
struct EvaluatorPropertyTests {
    @Test(arguments: 0..<40)
    func agreesWithTheReference(batch: Int) throws {
        for seed in 0..<100 {
            var random = RandomRules(rng: SplitMix64(seed: UInt64(batch * 100 + seed)))
            let rules = (0..<8).map { _ in random.rule() }
            var evaluator = Evaluator(rules: rules)
            var reference = ReferenceEvaluator()
            var time = Date(timeIntervalSince1970: 1_700_000_000)
            for stepIndex in 0..<40 {
                // Time moves by 0 to 4 seconds, sometimes by exact seconds to hit window edges.
                let milliseconds = Bool.random(using: &random.rng)
                    ? Double(Int.random(in: 0...4, using: &random.rng)) * 1000
                    : Double(Int.random(in: 0...4000, using: &random.rng))
                time += milliseconds / 1000
                switch random.step() {
                case .event(let name, let target):
                    evaluator.record(name, target: target, at: time)
                    reference.record(name, target: target, at: time)
                case .tick:
                    evaluator.advance(to: time)
                    reference.advance(to: time)
                case .context(let path, let value):
                    evaluator.setContext(path, to: value, at: time)
                    reference.setContext(path, to: value, at: time)
                }
                for (index, rule) in rules.enumerated() {
                    let expected = reference.value(of: rule)
                    try #require(
                        evaluator.value(ofRule: index) == expected,
                        "seed \(batch * 100 + seed), step \(stepIndex): \(rule) should be \(expected)"
                    )
                }
            }
        }
    }
}
