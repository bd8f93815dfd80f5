import Foundation
import Testing
import WaymarkRules
import WaymarkSupport

@testable import WaymarkEngine

private let start = Date(timeIntervalSince1970: 1_767_225_600)

private func at(_ seconds: Double) -> Date { start + seconds }

private func tip(
    _ id: String, _ container: String = "home", trigger: String, dismissal: String? = nil, priority: Int = 0,
    group: String? = nil, order: Int = 0, policy: DisplayPolicy = DisplayPolicy()
) throws -> Tip {
    Tip(
        id: id, container: container, trigger: try Rule(parsing: trigger), dismissal: try dismissal.map { try Rule(parsing: $0) },
        priority: priority, group: group, order: order, policy: policy
    )
}

/// Commands as short strings: "show a", "hide a dismissed".
private func brief(_ commands: [RenderCommand]) -> [String] {
    commands.map { command in
        ["\(command.action.rawValue) \(command.tip)", command.reason?.rawValue].compactMap { $0 }.joined(separator: " ")
    }
}

struct EngineTests {
    @Test func showsByTriggerAndHidesByDismissal() throws {
        var engine = Engine(tips: [try tip("search", trigger: "activation", dismissal: "tap:search")])
        #expect(brief(engine.record("tap", target: "cart", at: at(0))) == [])
        #expect(brief(engine.record("activation", at: at(1))) == ["show search"])
        #expect(brief(engine.record("tap", target: "search", at: at(2))) == ["hide search dismissed"])
        #expect(engine.phase(of: "search") == .finished(.dismissed))
    }

    @Test func onePerContainerByPriorityThenCatalogOrder() throws {
        var engine = Engine(tips: [
            try tip("low", trigger: "go", dismissal: "done:low", priority: 1),
            try tip("high", trigger: "go", dismissal: "done:high", priority: 5),
            try tip("tie", trigger: "go", dismissal: "done:tie", priority: 1),
            try tip("elsewhere", "cart", trigger: "go"),
        ])
        #expect(brief(engine.record("go", at: at(0))) == ["show high", "show elsewhere"])
        #expect(brief(engine.record("done", target: "high", at: at(1))) == ["hide high dismissed", "show low"])
        #expect(brief(engine.record("done", target: "low", at: at(2))) == ["hide low dismissed", "show tie"])
    }

    @Test func hidingAContainerPausesAndShowingResumesTheSameTip() throws {
        var engine = Engine(tips: [
            try tip("first", trigger: "go", dismissal: "done", priority: 2),
            try tip("second", trigger: "later"),
        ])
        #expect(brief(engine.record("go", at: at(0))) == ["show first"])
        #expect(brief(engine.setContainer("home", visible: false, at: at(1))) == ["pause first"])
        // A tip that becomes eligible meanwhile does not take the hidden container.
        #expect(brief(engine.record("later", at: at(2))) == [])
        #expect(brief(engine.setContainer("home", visible: true, at: at(3))) == ["resume first"])
        #expect(engine.phase(of: "first") == .active)
        // Dismissed while paused: hidden for good, and the container goes to the next tip.
        _ = engine.setContainer("home", visible: false, at: at(4))
        #expect(brief(engine.record("done", at: at(5))) == ["hide first dismissed"])
        #expect(brief(engine.setContainer("home", visible: true, at: at(6))) == ["show second"])
    }

    @Test func aClosedTipNeverComesBack() throws {
        var engine = Engine(tips: [try tip("hint", trigger: "scroll within 5s")])
        #expect(brief(engine.record("scroll", at: at(0))) == ["show hint"])
        #expect(brief(engine.close(tip: "hint", at: at(1))) == ["hide hint closed"])
        #expect(brief(engine.record("scroll", at: at(2))) == [])
        let restored = Engine(tips: engine.tips, restoring: try roundTrip(engine.snapshot()))
        var again = restored
        #expect(brief(again.record("scroll", at: at(20))) == [])
        #expect(again.phase(of: "hint") == .finished(.closed))
    }

    @Test func groupStepsWaitForTheirPredecessors() throws {
        var engine = Engine(tips: [
            try tip("step2", "b", trigger: "go", group: "tour", order: 2),
            try tip("step1", "a", trigger: "go", dismissal: "next", group: "tour", order: 1),
        ])
        #expect(brief(engine.record("go", at: at(0))) == ["show step1"])
        #expect(brief(engine.record("next", at: at(1))) == ["hide step1 dismissed", "show step2"])
    }

    @Test func displayFrequencySpacesTipsOut() throws {
        var engine = Engine(
            tips: [try tip("a", "x", trigger: "go", priority: 1), try tip("b", "y", trigger: "go")],
            configuration: .init(frequency: .hourly)
        )
        #expect(brief(engine.record("go", at: at(0))) == ["show a"])
        #expect(engine.nextChange == at(3600))
        #expect(brief(engine.advance(to: at(3599))) == [])
        let commands = engine.advance(to: at(7200))
        #expect(brief(commands) == ["show b"])
        #expect(commands.first?.time == at(3600), "played at the moment the gap ended")
    }

    @Test func maxDisplayDurationCountsVisibleTimeOnly() throws {
        var engine = Engine(tips: [try tip("t", trigger: "go", policy: DisplayPolicy(maxDisplayDuration: 10))])
        _ = engine.record("go", at: at(0))
        _ = engine.setContainer("home", visible: false, at: at(4))
        _ = engine.setContainer("home", visible: true, at: at(100))
        let commands = engine.advance(to: at(200))
        #expect(brief(commands) == ["hide t maxDisplayDuration"])
        #expect(commands.first?.time == at(106))
    }

    @Test func withSightReportedDisplayTimeStartsWhenTheTipIsSeen() throws {
        var engine = Engine(
            tips: [try tip("t", trigger: "go", policy: DisplayPolicy(maxDisplayDuration: 10))],
            configuration: .init(sightReported: true))
        #expect(brief(engine.record("go", at: at(0))) == ["show t"])
        #expect(engine.advance(to: at(500)).isEmpty, "never seen: no display time")
        _ = engine.setTip("t", visible: true, at: at(500))
        _ = engine.setContainer("home", visible: false, at: at(504))
        _ = engine.setContainer("home", visible: true, at: at(600))
        #expect(engine.advance(to: at(700)).isEmpty, "resumed out of sight until seen again")
        _ = engine.setTip("t", visible: true, at: at(700))
        #expect(engine.progress["t"]?.displayedMillis == 4000)
        let commands = engine.advance(to: at(800))
        #expect(brief(commands) == ["hide t maxDisplayDuration"])
        #expect(commands.first?.time == at(706))
    }

    @Test func maxDisplayCountFinishesInsteadOfPausing() throws {
        var engine = Engine(tips: [try tip("t", trigger: "go", policy: DisplayPolicy(maxDisplayCount: 2))])
        _ = engine.record("go", at: at(0))
        #expect(brief(engine.setContainer("home", visible: false, at: at(1))) == ["pause t"])
        #expect(brief(engine.setContainer("home", visible: true, at: at(2))) == ["resume t"])
        #expect(brief(engine.setContainer("home", visible: false, at: at(3))) == ["hide t maxDisplayCount"])
    }

    @Test func expiredTipsFinishAtTheirDate() throws {
        var engine = Engine(tips: [
            try tip("old", trigger: "go", policy: DisplayPolicy(expiresAt: at(50))),
            try tip("never", "other", trigger: "go", policy: DisplayPolicy(expiresAt: at(5))),
        ])
        #expect(brief(engine.record("go", at: at(10))) == ["show old"])
        #expect(brief(engine.advance(to: at(60))) == ["hide old expired"])
        #expect(engine.phase(of: "never") == .finished(.expired))
    }

    @Test func catalogUpdatesKeepHistoryAndStates() throws {
        var engine = Engine(tips: [try tip("a", trigger: "count(tap) >= 3"), try tip("b", "x", trigger: "go")])
        _ = engine.record("tap", at: at(0))
        _ = engine.record("tap", at: at(1))
        #expect(brief(engine.record("go", at: at(2))) == ["show b"])
        _ = engine.close(tip: "b", at: at(3))
        // b is removed, and a new tip shares a's term: the two taps are remembered.
        let update = engine.update(
            tips: [try tip("a", trigger: "count(tap) >= 3"), try tip("c", "y", trigger: "count(tap) >= 3")], at: at(4))
        #expect(brief(update) == [])
        #expect(brief(engine.record("tap", at: at(5))) == ["show a", "show c"])
        // Taken out while showing: hidden as removed. Put back: b stays closed.
        #expect(
            brief(engine.update(tips: [try tip("a", trigger: "count(tap) >= 3"), try tip("b", "x", trigger: "go")], at: at(6)))
                == ["hide c removed"])
        #expect(engine.phase(of: "b") == .finished(.closed))
    }

    @Test func aDismissalTrueFromTheStartFinishesTheTip() throws {
        var engine = Engine(tips: [try tip("t", trigger: "go", dismissal: "NOT user.new == true")])
        _ = engine.setContext(["user.new": .bool(true)], at: at(0))
        #expect(brief(engine.record("go", at: at(1))) == ["show t"])
        #expect(brief(engine.setContext(["user.new": .bool(false)], at: at(2))) == ["hide t dismissed"])
    }

    @Test func explainsWhyATipDoesNotShow() throws {
        var engine = Engine(tips: [try tip("t", trigger: "count(tap) >= 3 within 1m AND app.version >= v1.3")])
        _ = engine.record("tap", at: at(0))
        let explanation = try #require(engine.explain(tip: "t"))
        let text = explanation.description
        #expect(text.contains("1 in the window, needs >= 3"), "\(text)")
        #expect(text.contains("app.version is not set"), "\(text)")
        #expect(explanation.conditions.first { $0.label == "trigger" }?.satisfied == false)
    }

    /// A restarted engine (snapshot, JSON, restore) makes the same decisions as one that never stopped.
    @Test(arguments: 0..<20)
    func restartsDecideLikeAnEngineThatNeverStopped(batch: Int) throws {
        for seed in 0..<25 {
            var random = RandomRules(rng: SplitMix64(seed: UInt64(10_000 + batch * 25 + seed)))
            let tips = (0..<6).map { index in
                Tip(
                    id: "t\(index)", container: ["a", "b"].randomElement(using: &random.rng)!, trigger: random.rule(),
                    dismissal: Bool.random(using: &random.rng) ? random.rule() : nil,
                    priority: Int.random(in: 0...2, using: &random.rng),
                    group: index < 2 ? "g" : nil, order: index,
                    policy: DisplayPolicy(
                        maxDisplayCount: Bool.random(using: &random.rng) ? 2 : nil,
                        maxDisplayDuration: Bool.random(using: &random.rng) ? 5 : nil
                    )
                )
            }
            let frequency: DisplayFrequency = Bool.random(using: &random.rng) ? .immediate : .hourly
            var continuous = Engine(tips: tips, configuration: .init(frequency: frequency))
            var restarted = continuous
            var time = start
            for step in 0..<60 {
                time += Double(Int.random(in: 0...3000, using: &random.rng)) / 1000
                if step % 15 == 14 {
                    restarted = Engine(
                        tips: tips, configuration: .init(frequency: frequency), restoring: try roundTrip(restarted.snapshot()))
                }
                let input = Int.random(in: 0..<12, using: &random.rng)
                func apply(_ engine: inout Engine) -> [RenderCommand] {
                    switch input {
                    case 0: engine.setContainer(["a", "b"][step % 2], visible: step % 4 < 2, at: time)
                    case 1: engine.close(tip: "t\(step % 6)", at: time)
                    default:
                        switch random.step() {
                        case .event(let name, let target, let properties):
                            engine.record(name, target: target, properties: properties, at: time)
                        case .tick: engine.advance(to: time)
                        case .context(let path, let value): engine.setContext([path: value], at: time)
                        }
                    }
                }
                var stepRandom = random
                let expected = apply(&continuous)
                swap(&random, &stepRandom)
                let actual = apply(&restarted)
                #expect(actual == expected, "seed \(batch * 25 + seed), step \(step)")
                if actual != expected { return }
            }
        }
    }
}

private func roundTrip(_ snapshot: EngineSnapshot) throws -> EngineSnapshot {
    try JSONDecoder().decode(EngineSnapshot.self, from: JSONEncoder().encode(snapshot))
}
