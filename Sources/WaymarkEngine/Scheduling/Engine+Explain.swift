import Foundation
import WaymarkRules
import WaymarkSupport

/// Why a rule has its value: the rule's tree, each node with its value and, for terms, what the
/// engine knows (`2 in the last 7d, needs >= 3`).
public struct RuleExplanation: Hashable, Sendable {
    public var rule: String
    public var value: Bool
    public var detail: String?
    public var children: [RuleExplanation]

    /// The tree as indented lines.
    public func lines(indent: Int = 0) -> [String] {
        let pad = String(repeating: "  ", count: indent)
        var line = "\(pad)\(value ? "true " : "false") \(rule)"
        if let detail { line += "  -- \(detail)" }
        return [line] + children.flatMap { $0.lines(indent: indent + 1) }
    }
}

/// Why a tip is or is not showing: its phase, each condition for showing it, and its rules.
public struct TipExplanation: Hashable, Sendable, CustomStringConvertible {
    public struct Condition: Hashable, Sendable {
        public var label: String
        public var satisfied: Bool
        public var detail: String
    }

    public var tip: String
    public var phase: TipPhase
    public var conditions: [Condition]
    public var trigger: RuleExplanation
    public var dismissal: RuleExplanation?

    /// The explanation as text for people.
    public var description: String {
        var lines = ["tip \(tip): \(phase)"]
        for condition in conditions {
            lines.append("  [\(condition.satisfied ? "x" : " ")] \(condition.label): \(condition.detail)")
        }
        lines.append("  trigger:")
        lines += trigger.lines(indent: 2)
        if let dismissal {
            lines.append("  dismissal:")
            lines += dismissal.lines(indent: 2)
        }
        return lines.joined(separator: "\n")
    }
}

extension Evaluator {
    /// The rule at `index`, node by node.
    public func explain(rule index: Int) -> RuleExplanation {
        explain(node: Int(ruleNodes[index]), nodeOf: Dictionary(nodeRules.enumerated().map { ($1, $0) }) { a, _ in a })
    }

    private func explain(node: Int, nodeOf: [Rule: Int]) -> RuleExplanation {
        let rule = nodeRules[node]
        var children: [Rule] = []
        switch rule {
        case .not(let operand): children = [operand]
        case .and(let operands), .or(let operands): children = operands
        default: break
        }
        return RuleExplanation(
            rule: rule.description,
            value: nodes[node].value,
            detail: nodes[node].kind == .term ? termDetail(Int(nodes[node].term)) : nil,
            children: children.map { explain(node: nodeOf[$0]!, nodeOf: nodeOf) }
        )
    }

    private func termDetail(_ index: Int) -> String {
        let term = terms[index]
        switch term.kind {
        case .occurrence:
            return term.count > 0 ? "happened" : "no matching event yet"
        case .windowedOccurrence:
            guard term.last != noTime else { return "no matching event yet" }
            return "last matched at \(Timestamp.format(term.last))"
        case .count:
            let shown = term.count > term.threshold ? "more than \(term.threshold)" : "\(term.count)"
            return "counted \(shown), needs \(term.comparator.rawValue) \(term.threshold)"
        case .windowedCount:
            let shown = term.count > term.threshold ? "more than \(term.threshold)" : "\(term.count)"
            return "\(shown) in the window, needs \(term.comparator.rawValue) \(term.threshold)"
        case .sequence, .chain:
            if !term.listening { return "completed" }
            let reached = (0..<Int(term.poolCapacity)).last { pool[Int(term.poolStart) + $0] != noTime }
            return reached.map { "reached step \($0 + 1) of \(term.count)" } ?? "not started"
        case .comparison:
            let spec = comparisons[Int(term.poolStart)]
            guard let value = context[spec.path] else { return "\(spec.path) is not set" }
            switch value {
            case .string(let text): return "\(spec.path) is \"\(text)\""
            case .number(let number): return "\(spec.path) is \(Literal.number(number))"
            case .bool(let flag): return "\(spec.path) is \(flag)"
            }
        }
    }
}

extension Engine {
    /// Why a tip is or is not showing now, term by term.
    public func explain(tip id: String) -> TipExplanation? {
        guard let tip = tipIndex[id] else { return nil }
        let definition = tips[tip]
        let state = states[tip]
        let container = containerOfTip[tip]
        let now = evaluator.now
        var conditions: [TipExplanation.Condition] = []
        func check(_ label: String, _ satisfied: Bool, _ detail: String) {
            conditions.append(.init(label: label, satisfied: satisfied, detail: detail))
        }
        check("waiting", state.phase == .waiting, "the tip is \(state.phase)")
        check("trigger", evaluator.value(ofRule: tip * 2), "the trigger is \(evaluator.value(ofRule: tip * 2))")
        check("dismissal", !evaluator.value(ofRule: tip * 2 + 1), "the dismissal is \(evaluator.value(ofRule: tip * 2 + 1))")
        let visible = !hidden.contains(definition.container)
        check("container visible", visible, "\(definition.container) is \(visible ? "visible" : "hidden")")
        let holder = occupant[container]
        check(
            "container free", holder < 0 || holder == tip,
            holder < 0 ? "nothing shows in \(definition.container)" : "\(tips[holder].id) is \(states[holder].phase) there"
        )
        let blocking = predecessors[tip].filter { !states[$0].phase.isFinished }.map { tips[$0].id }
        check(
            "group order", blocking.isEmpty,
            blocking.isEmpty ? "no earlier step waits" : "waiting for \(blocking.joined(separator: ", ")) to finish"
        )
        if let limit = definition.policy.maxDisplayCount {
            check("display count", state.displayCount < limit, "shown \(state.displayCount) of at most \(limit) times")
        }
        if let expiry = definition.policy.expiresAt {
            check("not expired", now < expiry.millis, "expires at \(Timestamp.format(expiry.millis))")
        }
        let gap = configuration.frequency.milliseconds
        if gap > 0 {
            let open = lastShow == noTime || now >= lastShow + gap
            check(
                "display frequency", open,
                open ? "\(configuration.frequency.rawValue): a tip may appear" : "next tip may appear at \(Timestamp.format(lastShow + gap))"
            )
        }
        return TipExplanation(
            tip: id, phase: state.phase, conditions: conditions,
            trigger: evaluator.explain(rule: tip * 2),
            dismissal: definition.dismissal == nil ? nil : evaluator.explain(rule: tip * 2 + 1)
        )
    }
}
