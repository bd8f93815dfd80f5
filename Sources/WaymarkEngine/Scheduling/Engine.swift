import Foundation
import WaymarkRules

/// Decides, on every event, which tip shows in which container: the on-device engine.
///
/// A pure state machine like ``Evaluator``, which it drives: every call says what time it is and
/// returns the render commands it caused. Time-driven changes (a window expiring, a tip's maximum
/// display duration, an expiry date, the display frequency) happen at their exact moment: each call
/// first plays every deadline up to its time, in order, as a host with perfect timers would.
///
/// A tip shows when it is waiting, its trigger is true, its dismissal is false, its container is
/// visible and free, every earlier tip of its group has finished, and its policy and the display
/// frequency allow. Among tips wanting one container, the highest priority wins, then catalog order.
///
/// ```swift
/// var engine = Engine(tips: [Tip(id: "search-tip", container: "home",
///                                trigger: try Rule(parsing: "activation"),
///                                dismissal: try Rule(parsing: "tap:search"))])
/// engine.record("activation", at: now)          // [show search-tip in home]
/// engine.record("tap", target: "search", at: now) // [hide search-tip, reason dismissed]
/// ```
public struct Engine: Sendable {
    /// How the engine schedules across all tips.
    public struct Configuration: Hashable, Sendable {
        /// The least time between two tips appearing.
        public var frequency: DisplayFrequency
        /// Whether the renderer says when a showing tip comes into sight (``Engine/setTip(_:visible:at:)``):
        /// then a tip shows (and resumes) out of sight and its display time starts when it is seen.
        /// When `false`, a tip is in sight from when it shows until said otherwise.
        public var sightReported: Bool

        /// A configuration in which tips may appear `frequency` apart at the least.
        public init(frequency: DisplayFrequency = .immediate, sightReported: Bool = false) {
            self.frequency = frequency
            self.sightReported = sightReported
        }
    }

    /// The tips the engine schedules, in the catalog's order.
    public let tips: [Tip]
    /// How the engine schedules across all tips.
    public let configuration: Configuration

    var evaluator: Evaluator
    /// Per tip, in catalog order.
    var states: [TipState]
    /// States of tips that are no longer in the catalog, so that a closed tip stays closed if it
    /// comes back.
    var retired: [String: TipState] = [:]
    let tipIndex: [String: Int]
    /// For each evaluator node, the tip rules it is the root of: tip * 2 (trigger) or tip * 2 + 1 (dismissal).
    let rolesByNode: [[Int32]]
    let containers: [String]
    let containerIndex: [String: Int]
    let containerOfTip: [Int]
    /// Per container, its tips by priority (highest first), then catalog order.
    let tipsByContainer: [[Int]]
    /// Per tip, the tips of its group with a lower order, which must finish first.
    let predecessors: [[Int]]
    /// Per tip, the tips of its group with a higher order, which may be unblocked when it finishes.
    let successors: [[Int]]

    var hidden: Set<String> = []
    /// Per container, the active or paused tip, or -1.
    var occupant: [Int]
    var dirty: [Bool]
    var anyDirty = false
    var needsFullPass = true
    var lastShow: Millis = noTime
    var gateDeadline: Millis = .max
    /// Tip deadlines (expiry, end of display duration) and the frequency gate (owner -1).
    var deadlines = DeadlineHeap()
    var flipped: [Int32] = []
    var output: [RenderCommand] = []

    /// Builds an engine for a catalog of tips.
    ///
    /// - Parameters:
    ///   - tips: the tips to schedule, in the catalog's order.
    ///   - configuration: how the engine schedules across tips.
    ///   - snapshot: the state of an earlier engine (``snapshot()``), which may have had a
    ///     different catalog: tips keep their states by id, rules their terms by text.
    public init(tips: [Tip], configuration: Configuration = Configuration(), restoring snapshot: EngineSnapshot? = nil) {
        self.tips = tips
        self.configuration = configuration
        var rules: [Rule] = []
        rules.reserveCapacity(tips.count * 2)
        for tip in tips {
            rules.append(tip.trigger)
            rules.append(tip.dismissal ?? .constant(false))
        }
        evaluator = Evaluator(rules: rules, restoring: snapshot?.evaluator)
        var roles = [[Int32]](repeating: [], count: evaluator.nodes.count)
        for (rule, node) in evaluator.ruleNodes.enumerated() { roles[Int(node)].append(Int32(rule)) }
        rolesByNode = roles

        var index: [String: Int] = [:]
        for (position, tip) in tips.enumerated() where index[tip.id] == nil { index[tip.id] = position }
        tipIndex = index

        var containers: [String] = []
        var containerIndex: [String: Int] = [:]
        var containerOfTip: [Int] = []
        for tip in tips {
            if containerIndex[tip.container] == nil {
                containerIndex[tip.container] = containers.count
                containers.append(tip.container)
            }
            containerOfTip.append(containerIndex[tip.container]!)
        }
        self.containers = containers
        self.containerIndex = containerIndex
        self.containerOfTip = containerOfTip
        var byContainer = [[Int]](repeating: [], count: containers.count)
        for position in tips.indices { byContainer[containerOfTip[position]].append(position) }
        tipsByContainer = byContainer.map { list in
            list.sorted { (tips[$0].priority, -$0) > (tips[$1].priority, -$1) }
        }
        var predecessors = [[Int]](repeating: [], count: tips.count)
        var successors = [[Int]](repeating: [], count: tips.count)
        let groups = Dictionary(grouping: tips.indices.filter { tips[$0].group != nil }) { tips[$0].group! }
        for members in groups.values {
            for first in members {
                for second in members where tips[first].order < tips[second].order {
                    predecessors[second].append(first)
                    successors[first].append(second)
                }
            }
        }
        self.predecessors = predecessors
        self.successors = successors

        states = Array(repeating: TipState(), count: tips.count)
        occupant = Array(repeating: -1, count: containers.count)
        dirty = Array(repeating: false, count: containers.count)
        flipped.reserveCapacity(evaluator.nodes.count)
        if let snapshot { restore(snapshot) }
        for (position, tip) in tips.enumerated() {
            if let expiry = tip.policy.expiresAt, !states[position].phase.isFinished {
                deadlines.push(expiry.millis, owner: Int32(position))
            }
            scheduleDisplayEnd(position)
        }
    }

    // MARK: Input

    /// Records an event: the user tapped, scrolled, opened a screen, bought something; its
    /// `properties` are what patterns with conditions (`purchase where amount >= 500`) test.
    @discardableResult
    public mutating func record(
        _ name: String, target: String? = nil, properties: [String: ContextValue] = [:], at time: Date
    ) -> [RenderCommand] {
        perform(at: time) { $0.evaluator.dispatch(name: name, target: target, properties: properties) }
    }

    /// Lets time pass; call it at ``nextChange``.
    @discardableResult
    public mutating func advance(to time: Date) -> [RenderCommand] {
        perform(at: time) { _ in }
    }

    /// Sets context values for comparisons (`app.version`, `user.plan`); `nil` removes one.
    @discardableResult
    public mutating func setContext(_ values: [String: ContextValue?], at time: Date) -> [RenderCommand] {
        perform(at: time) { engine in
            for (path, value) in values.sorted(by: { $0.key < $1.key }) {
                engine.evaluator.updateContext(path, to: value)
            }
        }
    }

    /// Shows or hides a container. Hiding pauses its tip; showing resumes the same tip.
    /// Containers are visible until said otherwise.
    @discardableResult
    public mutating func setContainer(_ container: String, visible: Bool, at time: Date) -> [RenderCommand] {
        perform(at: time) { $0.changeVisibility(container, visible: visible) }
    }

    /// Says whether a tip that shows is where the user can see it: a renderer that measures
    /// visibility says `false` when the tip is drawn off the screen, parked or waiting for room,
    /// and `true` once it is seen. Display time (``DisplayPolicy/maxDisplayDuration``) counts only
    /// while a showing tip is visible; a tip shows visible until said otherwise.
    @discardableResult
    public mutating func setTip(_ id: String, visible: Bool, at time: Date) -> [RenderCommand] {
        perform(at: time) { engine in
            guard let tip = engine.tipIndex[id], engine.states[tip].phase == .active else { return }
            let counting = engine.states[tip].activeSince != noTime
            if visible, !counting {
                engine.states[tip].activeSince = engine.evaluator.now
                engine.scheduleDisplayEnd(tip)
            } else if !visible, counting {
                engine.states[tip].settle(at: engine.evaluator.now)
                engine.states[tip].activeSince = noTime
            }
        }
    }

    /// The user closed a tip: it finishes and never comes back.
    @discardableResult
    public mutating func close(tip id: String, at time: Date) -> [RenderCommand] {
        perform(at: time) { engine in
            if let tip = engine.tipIndex[id] { engine.finish(tip, .closed) }
        }
    }

    /// Replaces the catalog. Tips keep their states by id, rules their history by term; a tip that
    /// is gone finishes as `removed` (and is hidden if it showed).
    @discardableResult
    public mutating func update(tips newTips: [Tip], at time: Date) -> [RenderCommand] {
        var commands = advance(to: time)
        let kept = Dictionary(newTips.map { ($0.id, $0.container) }, uniquingKeysWith: { first, _ in first })
        for (position, tip) in tips.enumerated() {
            let phase = states[position].phase
            guard phase == .active || phase == .paused else { continue }
            if kept[tip.id] == nil {
                finish(position, .removed)
            } else if kept[tip.id] != tip.container {
                // The tip moved: take it down here; it may show again in its new container.
                finish(position, .removed)
                states[position] = TipState()
            }
        }
        for (position, tip) in tips.enumerated() where kept[tip.id] == nil && !states[position].phase.isFinished {
            states[position].phase = .finished(.removed)
        }
        commands += takeOutput()
        self = Engine(tips: newTips, configuration: configuration, restoring: snapshot())
        return commands + advance(to: time)
    }

    // MARK: Reading

    /// Where a tip is in its lifecycle, or `nil` for an unknown id.
    public func phase(of id: String) -> TipPhase? {
        tipIndex[id].map { states[$0].phase } ?? retired[id]?.phase
    }

    /// No later than the next moment something can change without an event. `nil`: nothing will.
    public var nextChange: Date? {
        let evaluatorDeadline = evaluator.heap.top?.deadline ?? .max
        let tipDeadline = deadlines.top?.deadline ?? .max
        let next = min(evaluatorDeadline, tipDeadline)
        return next == .max ? nil : Date(millis: next)
    }

    /// The time of the latest call, or `nil` before the first.
    public var currentTime: Date? { evaluator.currentTime }

    /// A `show` for every active tip: what a renderer must draw after the app restarts.
    public var activeTips: [RenderCommand] {
        let time = evaluator.currentTime ?? Date(timeIntervalSince1970: 0)
        return tips.indices.filter { states[$0].phase == .active }.map { tip in
            RenderCommand(
                action: .show, tip: tips[tip].id, container: tips[tip].container, anchor: tips[tip].anchor, time: time
            )
        }
    }

    /// A `show` for the tip that shows in `container` now (paused, if the container is hidden), or
    /// `nil`: what a renderer that takes over a container must draw.
    public func occupant(of container: String) -> RenderCommand? {
        guard let index = containerIndex[container], occupant[index] >= 0 else { return nil }
        let tip = occupant[index]
        return RenderCommand(
            action: .show, tip: tips[tip].id, container: tips[tip].container, anchor: tips[tip].anchor,
            time: evaluator.currentTime ?? Date(timeIntervalSince1970: 0))
    }

    // MARK: The step

    mutating func perform(at time: Date, _ change: (inout Engine) -> Void) -> [RenderCommand] {
        let millis = time.millis
        // The engine's time begins at its first call: deadlines before it (an expiry date already
        // past) are settled at that call, not played at moments the engine never lived.
        if evaluator.now != noTime { playDeadlines(upTo: millis) }
        evaluator.advance(toMillis: millis)
        change(&self)
        settle()
        return takeOutput()
    }

    /// Plays each deadline up to `time` at its own moment, settling after each.
    private mutating func playDeadlines(upTo time: Millis) {
        while true {
            let evaluatorDeadline = evaluator.heap.top?.deadline ?? .max
            let tipDeadline = deadlines.top?.deadline ?? .max
            let next = min(evaluatorDeadline, tipDeadline)
            guard next <= time else { return }
            if evaluatorDeadline == next {
                evaluator.expire(at: next)
            } else {
                evaluator.advance(toMillis: next)
            }
            while let entry = deadlines.top, entry.deadline <= next {
                deadlines.pop()
                if entry.owner >= 0 { checkTimeLimits(Int(entry.owner)) } else { gateDeadline = .max }
            }
            settle()
        }
    }

    private mutating func takeOutput() -> [RenderCommand] {
        guard !output.isEmpty else { return [] }
        defer { output = [] }
        return output
    }

    /// Acts on rules that changed, then gives free containers their best eligible tip.
    private mutating func settle() {
        if needsFullPass {
            needsFullPass = false
            for tip in tips.indices where !states[tip].phase.isFinished {
                checkTimeLimits(tip)
                if evaluator.value(ofRule: tip * 2 + 1) { finish(tip, .dismissed) }
            }
            for container in containers.indices { markDirty(container) }
        }
        if !evaluator.flippedRoots.isEmpty {
            evaluator.drainFlippedRoots(into: &flipped)
            for node in flipped {
                let value = evaluator.nodes[Int(node)].value
                guard value else { continue }
                for role in rolesByNode[Int(node)] {
                    let tip = Int(role / 2)
                    if role % 2 == 1 {
                        finish(tip, .dismissed)
                    } else if states[tip].phase == .waiting {
                        markDirty(containerOfTip[tip])
                    }
                }
            }
            flipped.removeAll(keepingCapacity: true)
        }
        if anyDirty { fillContainers() }
    }

    private mutating func fillContainers() {
        let now = evaluator.now
        let gap = configuration.frequency.milliseconds
        if gap > 0 && lastShow != noTime && now < lastShow + gap {
            if gateDeadline == .max {
                gateDeadline = lastShow + gap
                deadlines.push(gateDeadline, owner: -1)
            }
            return
        }
        var candidates: [Int] = []
        for container in containers.indices where dirty[container] {
            dirty[container] = false
            guard occupant[container] < 0, !hidden.contains(containers[container]) else { continue }
            if let best = tipsByContainer[container].first(where: isEligible) { candidates.append(best) }
        }
        anyDirty = false
        candidates.sort { (tips[$0].priority, -$0) > (tips[$1].priority, -$1) }
        for (position, tip) in candidates.enumerated() {
            if position > 0 && gap > 0 {
                // The frequency allows one tip now; the others wait for the gate.
                for other in candidates[position...] { markDirty(containerOfTip[other]) }
                gateDeadline = now + gap
                deadlines.push(gateDeadline, owner: -1)
                break
            }
            show(tip)
        }
    }

    private func isEligible(_ tip: Int) -> Bool {
        guard states[tip].phase == .waiting,
            evaluator.value(ofRule: tip * 2), !evaluator.value(ofRule: tip * 2 + 1)
        else { return false }
        if let expiry = tips[tip].policy.expiresAt, evaluator.now >= expiry.millis { return false }
        return predecessors[tip].allSatisfy { states[$0].phase.isFinished }
    }

    private mutating func markDirty(_ container: Int) {
        dirty[container] = true
        anyDirty = true
    }

    // MARK: Transitions

    private mutating func show(_ tip: Int) {
        let now = evaluator.now
        states[tip].phase = .active
        states[tip].displayCount += 1
        states[tip].activeSince = configuration.sightReported ? noTime : now
        occupant[containerOfTip[tip]] = tip
        lastShow = now
        emit(.show, tip)
        scheduleDisplayEnd(tip)
    }

    private mutating func pause(_ tip: Int) {
        states[tip].settle(at: evaluator.now)
        states[tip].phase = .paused
        emit(.pause, tip)
    }

    private mutating func resume(_ tip: Int) {
        states[tip].phase = .active
        states[tip].displayCount += 1
        states[tip].activeSince = configuration.sightReported ? noTime : evaluator.now
        emit(.resume, tip)
        scheduleDisplayEnd(tip)
    }

    mutating func finish(_ tip: Int, _ reason: FinishReason) {
        let phase = states[tip].phase
        guard !phase.isFinished else { return }
        states[tip].settle(at: evaluator.now)
        if phase == .active || phase == .paused {
            emit(.hide, tip, reason: reason)
            occupant[containerOfTip[tip]] = -1
            markDirty(containerOfTip[tip])
        }
        states[tip].phase = .finished(reason)
        for successor in successors[tip] { markDirty(containerOfTip[successor]) }
    }

    private mutating func changeVisibility(_ name: String, visible: Bool) {
        if visible {
            guard hidden.remove(name) != nil, let container = containerIndex[name] else { return }
            let tip = occupant[container]
            if tip >= 0 && states[tip].phase == .paused { resume(tip) } else { markDirty(container) }
        } else {
            guard hidden.insert(name).inserted, let container = containerIndex[name] else { return }
            let tip = occupant[container]
            guard tip >= 0 && states[tip].phase == .active else { return }
            if let limit = tips[tip].policy.maxDisplayCount, states[tip].displayCount >= limit {
                finish(tip, .maxDisplayCount)
            } else {
                pause(tip)
            }
        }
    }

    /// Finishes a tip whose expiry date or display time is up.
    mutating func checkTimeLimits(_ tip: Int) {
        let now = evaluator.now
        let state = states[tip]
        guard !state.phase.isFinished else { return }
        if let expiry = tips[tip].policy.expiresAt, now >= expiry.millis {
            finish(tip, .expired)
        } else if let limit = tips[tip].policy.maxDisplayDuration, state.isCounting,
            state.visibleMillis(at: now) >= Millis(limit * 1000)
        {
            finish(tip, .maxDisplayDuration)
        }
    }

    mutating func scheduleDisplayEnd(_ tip: Int) {
        guard states[tip].isCounting, let limit = tips[tip].policy.maxDisplayDuration else { return }
        let remaining = max(0, Millis(limit * 1000) - states[tip].displayedMillis)
        deadlines.push(states[tip].activeSince + remaining, owner: Int32(tip))
    }

    private mutating func emit(_ action: RenderCommand.Action, _ tip: Int, reason: FinishReason? = nil) {
        output.append(
            RenderCommand(
                action: action, tip: tips[tip].id, container: tips[tip].container, anchor: tips[tip].anchor,
                reason: reason, time: Date(millis: evaluator.now)
            )
        )
    }
}

/// A tip's runtime state: its phase and what its display policy counts.
public struct TipState: Hashable, Sendable {
    /// Where the tip is in its lifecycle.
    public var phase: TipPhase = .waiting
    /// How many times it appeared (shows and resumes).
    public var displayCount = 0
    /// How long it was visible before the current stretch, in milliseconds.
    public var displayedMillis: Int64 = 0
    /// When the current visible stretch began, in milliseconds since 1970; none while the tip
    /// waits, is paused or finished, or shows where the user cannot see it.
    public var activeSince: Int64 = noTime

    /// The state of a tip that never showed.
    public init() {}

    /// Whether display time runs now: the tip shows and is visible.
    var isCounting: Bool { phase == .active && activeSince != noTime }

    /// How long the tip has been visible by `now`, the current stretch included.
    func visibleMillis(at now: Int64) -> Int64 {
        isCounting ? displayedMillis + now - activeSince : displayedMillis
    }

    /// Adds the current stretch to ``displayedMillis`` and starts a new one at `now`.
    mutating func settle(at now: Int64) {
        guard isCounting else { return }
        displayedMillis += now - activeSince
        activeSince = now
    }
}

extension TipPhase {
    /// Whether the tip finished: it never shows again.
    public var isFinished: Bool {
        if case .finished = self { return true }
        return false
    }
}

extension Evaluator {
    /// Hands over the roots that changed and clears their marks, without allocating.
    mutating func drainFlippedRoots(into buffer: inout [Int32]) {
        makeUnique()
        swap(&flippedRoots, &buffer)
        for node in buffer { nodes[Int(node)].flagged = false }
    }
}
