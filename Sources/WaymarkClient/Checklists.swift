import Foundation
import WaymarkAPI
import WaymarkEngine
import WaymarkRules
import WaymarkSupport

/// The catalog's checklists as the client runs them: each checklist's trigger and its items'
/// rules in one evaluator, and what is latched of them (items done for good, checklists offered
/// and completed). The app draws ``WaymarkClient/checklists``; the client sends the events.
struct ChecklistRun: Sendable {
    /// What a step of the rules did, for the client to send.
    enum Change: Equatable, Sendable {
        case itemDone(checklist: String, item: String)
        /// `seconds`: since it was offered on this device, when known.
        case completed(checklist: String, seconds: Int?)
    }

    private(set) var checklists: [DeliveredChecklist]
    /// Per checklist: the index of its trigger's rule, then its items' rules.
    private var rules: [(trigger: Int, items: [Int])]
    private var evaluator: Evaluator
    private(set) var progress: [String: ChecklistProgress]
    private(set) var offered: Set<String>
    /// When each checklist was first offered on this device: its time to complete starts there.
    private(set) var offeredAt: [String: Date]

    init(
        _ checklists: [DeliveredChecklist], progress: [String: ChecklistProgress], offered: Set<String>,
        offeredAt: [String: Date] = [:], restoring snapshot: EvaluatorSnapshot? = nil
    ) {
        var rules: [Rule] = []
        var indices: [(Int, [Int])] = []
        for checklist in checklists {
            let trigger = rules.count
            rules.append(checklist.trigger ?? .constant(true))
            indices.append(
                (
                    trigger,
                    checklist.items.map { item in
                        rules.append(item.done)
                        return rules.count - 1
                    }
                ))
        }
        self.checklists = checklists
        self.rules = indices
        // A snapshot of other rules (the catalog changed) is not restored: the rules start anew.
        self.evaluator = Evaluator(rules: rules, restoring: snapshot)
        self.progress = progress
        self.offered = offered
        self.offeredAt = offeredAt
    }

    /// What the rules have seen, to keep across restarts.
    var snapshot: EvaluatorSnapshot { evaluator.snapshot() }

    /// What is kept on disk.
    var kept: KeptChecklists { KeptChecklists(progress: progress, offered: offered, offeredAt: offeredAt, rules: snapshot) }

    /// The checklists with the user's progress, for the app to draw.
    var statuses: [ChecklistStatus] {
        checklists.map { checklist in
            let state = progress[checklist.id] ?? ChecklistProgress()
            return ChecklistStatus(
                checklist: checklist, done: state.done, completed: state.completed, offered: offered.contains(checklist.id))
        }
    }

    mutating func record(_ name: String, target: String?, properties: [String: ContextValue], at time: Date) -> [Change] {
        evaluator.record(name, target: target, properties: properties, at: time)
        return latch(at: time)
    }

    mutating func setContext(_ values: [String: ContextValue?], at time: Date) -> [Change] {
        for (path, value) in values { evaluator.setContext(path, to: value, at: time) }
        return latch(at: time)
    }

    /// Progress from the user's other devices: the union of the items done.
    mutating func merge(_ shared: [String: ChecklistProgress]) {
        progress.merge(shared) { $0.merged(with: $1) }
    }

    /// Latches what the rules say now: checklists offered, items done, checklists completed.
    private mutating func latch(at time: Date) -> [Change] {
        var changes: [Change] = []
        for (checklist, indices) in zip(checklists, rules) {
            if evaluator.value(ofRule: indices.trigger), offered.insert(checklist.id).inserted { offeredAt[checklist.id] = time }
            var state = progress[checklist.id] ?? ChecklistProgress()
            for (item, rule) in zip(checklist.items, indices.items) where !state.done.contains(item.id) && evaluator.value(ofRule: rule) {
                state.done.insert(item.id)
                changes.append(.itemDone(checklist: checklist.id, item: item.id))
            }
            if !state.completed && checklist.items.allSatisfy({ state.done.contains($0.id) }) {
                state.completed = true
                let seconds = offeredAt[checklist.id].map { max(0, Int(time.timeIntervalSince($0).rounded())) }
                changes.append(.completed(checklist: checklist.id, seconds: seconds))
            }
            progress[checklist.id] = state
        }
        return changes
    }
}

/// One checklist as the app draws it: the delivered checklist and the user's progress with it.
public struct ChecklistStatus: Hashable, Sendable {
    /// The checklist, its items in order.
    public var checklist: DeliveredChecklist
    /// The ids of the items done (here or, once shared, on the user's other devices).
    public var done: Set<String>
    /// Whether every item is done.
    public var completed: Bool
    /// Whether its trigger has held (a checklist without one is offered from the start).
    public var offered: Bool

    /// Items done, of all its items.
    public var fraction: (done: Int, of: Int) { (checklist.items.count { done.contains($0.id) }, checklist.items.count) }
}

/// The user's checklist progress, which checklists were offered and when, and what their rules
/// have seen, as kept on disk.
struct KeptChecklists: Codable, Sendable {
    var progress: [String: ChecklistProgress] = [:]
    var offered: Set<String> = []
    var offeredAt: [String: Date] = [:]
    var rules: EvaluatorSnapshot?
}
