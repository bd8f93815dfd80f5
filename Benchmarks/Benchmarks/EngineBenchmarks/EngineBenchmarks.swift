import Benchmark
import Foundation
import WaymarkEngine
import WaymarkRules

/// 1,000 tips over 200 event names with mixed rules (plain, count, windowed, THEN, NOT,
/// comparisons), fed 10 million events: the engine's cost per event on the device.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        timeUnits: .nanoseconds,
        maxDuration: .seconds(60),
        maxIterations: 5
    )

    Benchmark("Engine: 10M events, 1,000 tips, 200 names", configuration: .init(scalingFactor: .mega)) { benchmark in
        let workload = Workload()
        var engine = Engine(tips: workload.tips)
        engine.setContext(["app.version": .string("1.4.0"), "device.platform": .string("ios")], at: workload.start)
        benchmark.startMeasurement()
        let shown = workload.feed(&engine, events: 10_000_000)
        benchmark.stopMeasurement()
        blackHole(shown)
    }

    Benchmark(
        "Engine with properties and attributes: 10M events, 1,000 tips, 200 names", configuration: .init(scalingFactor: .mega)
    ) { benchmark in
        let workload = Workload(properties: true)
        var engine = Engine(tips: workload.tips)
        engine.setContext(
            [
                "app.version": .string("1.4.0"), "device.platform": .string("ios"), "user.plan": .string("plus"),
                "user.cityTier": .number(2), "user.codUser": .bool(true),
            ], at: workload.start)
        benchmark.startMeasurement()
        let shown = workload.feed(&engine, events: 10_000_000)
        benchmark.stopMeasurement()
        blackHole(shown)
    }

    Benchmark("Evaluator only: 10M events, 2,000 rules", configuration: .init(scalingFactor: .mega)) { benchmark in
        let workload = Workload()
        var evaluator = Evaluator(rules: workload.tips.flatMap { [$0.trigger, $0.dismissal ?? .constant(false)] })
        benchmark.startMeasurement()
        var time = workload.start
        var state: UInt64 = 42
        for _ in 0..<10_000_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let index = Int(state >> 33) % workload.events.count
            time += 0.05
            evaluator.record(workload.events[index].name, target: workload.events[index].target, at: time)
        }
        benchmark.stopMeasurement()
        blackHole(evaluator.value(ofRule: 0))
    }
}

struct Workload {
    let start = Date(timeIntervalSince1970: 1_767_225_600)
    var tips: [Tip] = []
    /// The events users send: 200 names, a quarter of them with one of four targets; with
    /// properties, a fifth carry an amount and a flag (made here, as an app's events come made).
    var events: [(name: String, target: String?, properties: [String: ContextValue])] = []

    /// With `properties`, a fifth of the event patterns test properties (`e3 where amount >= 500`)
    /// and a fifth of the terms compare user attributes (`user.cityTier <= 2`).
    init(properties: Bool = false) {
        var state: UInt64 = 7
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33) % bound
        }
        func name() -> String { "e\(next(200))" }
        func event() -> String {
            let pattern = next(4) == 0 ? "\(name()):t\(next(4))" : name()
            guard properties, next(5) == 0 else { return pattern }
            return next(2) == 0
                ? "\(pattern) where amount >= \(100 * next(20))" : "\(pattern) where cod == true AND amount in [100, 200, 500]"
        }
        func attribute() -> String {
            switch next(3) {
            case 0: "user.cityTier <= \(1 + next(3))"
            case 1: "user.plan in [\"plus\", \"gold\"]"
            default: "user.codUser == true"
            }
        }
        func term() -> String {
            if properties, next(5) == 0 { return attribute() }
            return switch next(8) {
            case 0: event()
            case 1: "count(\(event())) >= \(2 + next(20))"
            case 2: "count(\(event())) >= \(2 + next(5)) within \(1 + next(10))m"
            case 3: "\(event()) within \(10 + next(50))s"
            case 4: "\(event()) THEN \(event()) within \(1 + next(30))m"
            case 5: "NOT \(event())"
            case 6: "app.version >= v1.\(next(6))"
            default: "device.platform in [\"ios\", \"android\"]"
            }
        }
        for index in 0..<1_000 {
            let trigger = try! Rule(parsing: "(\(term()) AND \(term())) OR \(term())")
            let dismissal = try! Rule(
                parsing: next(2) == 0 ? "count(\(event())) >= \(50 + next(200))" : "\(event()) THEN \(event()) THEN \(event())")
            tips.append(Tip(id: "tip\(index)", container: "c\(next(40))", trigger: trigger, dismissal: dismissal, priority: next(5)))
        }
        for _ in 0..<1_000 {
            let event = next(4) == 0 ? (name(), "t\(next(4))") : (name(), nil)
            let values: [String: ContextValue] =
                properties && next(5) == 0 ? ["amount": .number(Double(100 * next(20))), "cod": .bool(next(2) == 0)] : [:]
            events.append((event.0, event.1, values))
        }
    }

    /// Records `events` events, 50 ms apart; returns how many render commands came out.
    func feed(_ engine: inout Engine, events count: Int) -> Int {
        var time = start
        var state: UInt64 = 42
        var commands = 0
        for _ in 0..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let index = Int(state >> 33) % events.count
            time += 0.05
            commands +=
                engine.record(events[index].name, target: events[index].target, properties: events[index].properties, at: time)
                .count
        }
        return commands
    }
}
