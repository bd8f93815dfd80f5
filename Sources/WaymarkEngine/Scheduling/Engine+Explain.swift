import Foundation
import WaymarkRules
import WaymarkSupport

/// Why a rule has its value: the rule's tree, each node with its value and, for terms, what the
/// engine knows (`2 in the last 7d, needs >= 3`).
public struct RuleExplanation: Hashable, Sendable {
    /// The rule or sub-rule as written.
    public var rule: String
    /// Its value now.
    public var value: Bool
    /// For a term, what the engine knows of it: `2 in the last 7d, needs >= 3`.
    public var detail: String?
    /// The operands of AND, OR and NOT.
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
    /// One condition for showing the tip, such as its container being visible.
    public struct Condition: Hashable, Sendable {
        /// What the condition is: `container home visible`.
        public var label: String
        /// Whether it holds now.
        public var satisfied: Bool
        /// Why it holds or not, for people.
        public var detail: String
    }

    /// The tip's id.
    public var tip: String
    /// Where the tip is in its lifecycle.
    public var phase: TipPhase
    /// Every condition for showing it, in the order the engine checks them.
    public var conditions: [Condition]
    /// Why the trigger has its value.
    public var trigger: RuleExplanation
    /// Why the dismissal has its value, if the tip has one.
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
            return "\(spec.path) is \(value.literal)"
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
                open
                    ? "\(configuration.frequency.rawValue): a tip may appear" : "next tip may appear at \(Timestamp.format(lastShow + gap))"
            )
        }
        return TipExplanation(
            tip: id, phase: state.phase, conditions: conditions,
            trigger: evaluator.explain(rule: tip * 2),
            dismissal: definition.dismissal == nil ? nil : evaluator.explain(rule: tip * 2 + 1)
        )
    }
}
