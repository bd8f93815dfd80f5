import Foundation
import Testing
import WaymarkRules
import WaymarkSupport

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
            let fresh = evaluator
            var reference = ReferenceEvaluator()
            // From step 10, a copy of the fresh evaluator restored from a snapshot taken then
            // (as a replay keeping each user's state restores it) goes on beside the original.
            var restored: Evaluator?
            var time = Date(timeIntervalSince1970: 1_700_000_000)
            for stepIndex in 0..<40 {
                // Time moves by 0 to 4 seconds, sometimes by exact seconds to hit window edges.
                let milliseconds =
                    Bool.random(using: &random.rng)
                    ? Double(Int.random(in: 0...4, using: &random.rng)) * 1000
                    : Double(Int.random(in: 0...4000, using: &random.rng))
                time += milliseconds / 1000
                let step = random.step()
                apply(step, to: &evaluator, and: &reference, at: time)
                try expectAgreement(evaluator, reference, rules, "seed \(batch * 100 + seed), step \(stepIndex)")
                if var copy = restored {
                    var unused = ReferenceEvaluator()
                    apply(step, to: &copy, and: &unused, at: time)
                    restored = copy
                    try expectAgreement(copy, reference, rules, "seed \(batch * 100 + seed), restored, step \(stepIndex)")
                }
                if stepIndex == 10 {
                    let snapshot = try JSONDecoder().decode(EvaluatorSnapshot.self, from: JSONEncoder().encode(evaluator.snapshot()))
                    restored = fresh.restoring(snapshot)
                    try expectAgreement(restored!, reference, rules, "seed \(batch * 100 + seed), restored")
                }
                if stepIndex == 20 {
                    // A copy goes its own way: what it records never shows in the original, which the
                    // steps after this one check (the evaluator copies its storage on write).
                    var fork = evaluator
                    var forkReference = reference
                    var forkRandom = RandomRules(rng: SplitMix64(seed: UInt64(1_000_000 + batch * 100 + seed)))
                    for forkStep in 0..<10 {
                        let forkTime = time + Double(forkStep)
                        apply(forkRandom.step(), to: &fork, and: &forkReference, at: forkTime)
                        try expectAgreement(fork, forkReference, rules, "seed \(batch * 100 + seed), fork step \(forkStep)")
                    }
                }
            }
        }
    }

    private func apply(_ step: RandomRules.Step, to evaluator: inout Evaluator, and reference: inout ReferenceEvaluator, at time: Date) {
        switch step {
        case .event(let name, let target, let properties):
            evaluator.record(name, target: target, properties: properties, at: time)
            reference.record(name, target: target, properties: properties, at: time)
        case .tick:
            evaluator.advance(to: time)
            reference.advance(to: time)
        case .context(let path, let value):
            evaluator.setContext(path, to: value, at: time)
            reference.setContext(path, to: value, at: time)
        }
    }

    private func expectAgreement(_ evaluator: Evaluator, _ reference: ReferenceEvaluator, _ rules: [Rule], _ label: String) throws {
        for (index, rule) in rules.enumerated() {
            let expected = reference.value(of: rule)
            try #require(evaluator.value(ofRule: index) == expected, "\(label): \(rule) should be \(expected)")
        }
    }
}
