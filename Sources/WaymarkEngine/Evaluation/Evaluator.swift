import Foundation
import WaymarkRules

/// Evaluates a set of rules incrementally as events arrive, time passes and the context changes.
///
/// The evaluator is a pure state machine: no clock, no I/O. Every call says what time it is, and
/// time never moves backwards (an event dated before the latest time seen counts at that time).
///
/// Cost: an event costs work only for the terms that mention its name, and a rule is looked at only
/// when one of its terms changes value. Rules share terms and sub-rules, which form a graph where
/// each AND and OR node counts its true children, so a change walks up only as far as it changes
/// something. Terms that can no longer change (a fired occurrence, a plain count past its threshold,
/// a completed sequence) stop listening. Memory is bounded per term, never by the number of events.
///
/// ```swift
/// var evaluator = Evaluator(rules: [try Rule(parsing: "count(tap) >= 2 within 10s")])
/// evaluator.record("tap", at: start)
/// evaluator.record("tap", at: start + 3)
/// evaluator.value(ofRule: 0)            // true
/// evaluator.nextChange                  // start + 10.001: the first tap leaves the window
/// ```
public struct Evaluator: Sendable {
    enum NodeKind: UInt8 { case term, not, and, or, constant }

    struct Node {
        var kind: NodeKind
        var value = false
        var isRoot = false
        /// Set while the node is listed in `flippedRoots`.
        var flagged = false
        var childCount: Int32 = 0
        var trueCount: Int32 = 0
        var term: Int32 = -1
    }

    /// Terms, nodes, the pool, listeners and channel lengths: what changes on every event.
    private var storage: EvaluatorStorage

    // The compiled graph.
    var nodes: FixedBuffer<Node> { storage.nodes }
    var parentStart: ContiguousArray<Int32> = []
    var parents: ContiguousArray<Int32> = []
    /// The node of each rule, in the order given.
    let ruleNodes: [Int32]
    /// The rule of each node, for explanations and snapshots.
    let nodeRules: [Rule]

    // Terms and what they listen to.
    var terms: FixedBuffer<Term> { storage.terms }
    var pool: FixedBuffer<Millis> { storage.pool }
    /// Every channel's listeners, one channel after the other: channel `c` holds the
    /// `channelLength[c]` listeners from `channelStart[c]`, and has room up to `channelStart[c + 1]`
    /// for every term that can listen on it (a chain comes and goes); those that stop listening
    /// move past the end of their channel.
    var listeners: FixedBuffer<Listener> { storage.listeners }
    var channelLength: FixedBuffer<Int32> { storage.channelLength }
    var channelStart: ContiguousArray<Int32> = []
    var stageRefs: ContiguousArray<StageRef> = []
    /// The channel of each chain's stages (see `Term.chainStart`).
    var chainChannels: ContiguousArray<Int32> = []
    /// The filter of each chain's stages, beside `chainChannels`.
    var chainFilters: ContiguousArray<Int32> = []
    /// Conditions on events' properties, which a term, a stage or a chain's stage names by index.
    var filters: [[PropertyTest]] = []
    /// The number of events dispatched so far: a chain remembers the one that last moved it on.
    var serial: Int64 = 0
    var channels: ChannelTable
    var comparisons: [ComparisonSpec] = []
    var contextListeners: [String: [Int32]] = [:]
    var context: [String: ContextValue] = [:]
    var heap = DeadlineHeap()
    /// Which term listens on which channel while it listens: attached anew when a snapshot is
    /// restored into a copy (``restoring(_:)``).
    let listenerPlan: [(channel: Int32, listener: Listener)]

    /// The nodes of rules whose value changed since the owner last looked (see `takeFlippedRoots`).
    var flippedRoots: [Int32] = []

    /// The latest time seen, in milliseconds, or `noTime` before the first call.
    var now: Millis = noTime

    /// Compiles rules for evaluation. Equal terms and sub-rules are shared.
    ///
    /// - Parameters:
    ///   - rules: the rules to evaluate; their values are asked for by their index here.
    ///   - snapshot: the state of an earlier evaluator (``snapshot()``); the terms these rules share
    ///     with it carry on where they were, new terms start empty.
    public init(rules: [Rule], restoring snapshot: EvaluatorSnapshot? = nil) {
        var compiler = GraphCompiler()
        ruleNodes = rules.map { compiler.node(for: $0) }
        nodeRules = compiler.nodeRules
        listenerPlan = compiler.listenerPlan
        channelStart.reserveCapacity(compiler.channelRoom.count + 1)
        var room: Int32 = 0
        for channelRoom in compiler.channelRoom {
            channelStart.append(room)
            room += channelRoom
        }
        channelStart.append(room)
        storage = EvaluatorStorage(
            terms: compiler.terms, nodes: compiler.nodes, poolSize: compiler.poolSize,
            listenerRoom: Int(room), channelCount: compiler.channelRoom.count
        )
        comparisons = compiler.comparisons
        stageRefs = compiler.stageRefs
        chainChannels = compiler.chainChannels
        chainFilters = compiler.chainFilters
        filters = compiler.filters
        channels = ChannelTable(compiler.names)
        contextListeners = compiler.contextListeners
        parentStart.reserveCapacity(compiler.nodes.count + 1)
        for list in compiler.parentLists {
            parentStart.append(Int32(parents.count))
            parents.append(contentsOf: list)
        }
        parentStart.append(Int32(parents.count))
        for node in ruleNodes { nodes[Int(node)].isRoot = true }
        flippedRoots.reserveCapacity(nodes.count)
        if let snapshot { restore(snapshot) }
        attachListeners(compiler.listenerPlan)
        recomputeAllNodes()
    }

    /// The number of rules.
    public var ruleCount: Int { ruleNodes.count }

    /// Whether a rule tests events' properties (`purchase where amount >= 500`): a host that must
    /// read them from storage can skip that when none does.
    public var testsProperties: Bool { !filters.isEmpty }

    /// The value of the rule at `index`, in the order the rules were given, at the latest time seen.
    public func value(ofRule index: Int) -> Bool {
        nodes[Int(ruleNodes[index])].value
    }

    /// The latest time seen, or `nil` before the first call.
    public var currentTime: Date? {
        now == noTime ? nil : Date(millis: now)
    }

    /// No later than the next moment a value can change without an event (a window expiring), or
    /// `nil` when no value can change by itself. A host sets a timer for it and calls ``advance(to:)``.
    public var nextChange: Date? {
        heap.top.map { Date(millis: $0.deadline) }
    }

    // MARK: Input

    /// Records an event at a time. Events are matched by name and, for patterns with them, target
    /// and conditions on `properties`.
    public mutating func record(
        _ name: String, target: String? = nil, properties: [String: ContextValue] = [:], at time: Date
    ) {
        advance(toMillis: time.millis)
        dispatch(name: name, target: target, properties: properties)
    }

    /// Lets time pass: windows expire.
    public mutating func advance(to time: Date) {
        advance(toMillis: time.millis)
    }

    /// Sets a context value (`nil` removes it) for comparisons to read.
    public mutating func setContext(_ path: String, to value: ContextValue?, at time: Date) {
        advance(toMillis: time.millis)
        updateContext(path, to: value)
    }

    // MARK: Internals the engine drives step by step

    /// Copies the storage if another evaluator value shares it: every call that changes state
    /// starts here, so that the writes after it need no check of their own.
    @inline(__always)
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    mutating func advance(toMillis time: Millis) {
        makeUnique()
        while let deadline = heap.top?.deadline, deadline <= time {
            expire(at: deadline)
        }
        if time > now { now = time }
    }

    /// Applies every deadline due at `deadline` (which must be the heap's earliest).
    mutating func expire(at deadline: Millis) {
        makeUnique()
        if deadline > now { now = deadline }
        while let entry = heap.top, entry.deadline <= deadline {
            let index = Int(entry.owner)
            guard terms[index].scheduled == entry.deadline else {
                heap.pop()
                continue
            }
            // The term's next deadline, when it has one, takes this entry's place.
            if let next = refreshByTime(index) {
                terms[index].scheduled = next
                heap.replaceTop(next)
            } else {
                terms[index].scheduled = .max
                heap.pop()
            }
        }
    }

    mutating func dispatch(name: String, target: String?, properties: [String: ContextValue]) {
        makeUnique()
        guard let (anyChannel, targetChannel) = channels.channels(name: name, target: target) else { return }
        serial += 1
        if targetChannel >= 0 {
            dispatch(channel: Int(targetChannel), targetChannel: targetChannel, properties: properties)
        }
        dispatch(channel: Int(anyChannel), targetChannel: targetChannel, properties: properties)
    }

    mutating func updateContext(_ path: String, to value: ContextValue?) {
        makeUnique()
        context[path] = value
        guard let listeners = contextListeners[path] else { return }
        for term in listeners {
            let spec = comparisons[Int(terms[Int(term)].poolStart)]
            setValue(ofTerm: Int(term), to: spec.evaluate(value))
        }
    }

    // MARK: Term updates

    private mutating func dispatch(channel: Int, targetChannel: Int32, properties: [String: ContextValue]) {
        let start = Int(channelStart[channel])
        var position = start
        var end = start + Int(channelLength[channel])
        while position < end {
            if update(listeners[position], channel: Int32(channel), targetChannel: targetChannel, properties: properties) {
                position += 1
            } else {
                end -= 1
                listeners.swapAt(position, end)
            }
        }
        channelLength[channel] = Int32(end - start)
    }

    /// Applies an event arriving on `channel` to a term; returns whether the term keeps listening
    /// on that channel.
    private mutating func update(
        _ listener: Listener, channel: Int32, targetChannel: Int32, properties: [String: ContextValue]
    ) -> Bool {
        let index = Int(listener.term)
        guard terms[index].listening else { return false }
        // An event whose properties fail the pattern's conditions is, for this term, no event.
        let filter = terms[index].filter
        if filter >= 0 && !passes(filter, properties) { return true }
        switch terms[index].kind {
        case .occurrence:
            terms[index].count = 1
            terms[index].listening = false
            setValue(ofTerm: index, to: true)
            return false
        case .windowedOccurrence:
            terms[index].last = now
            setValue(ofTerm: index, to: true)
            schedule(index, at: now + terms[index].window + 1)
            return true
        case .count:
            let threshold = terms[index].threshold
            let count = min(terms[index].count + 1, threshold + 1)
            terms[index].count = count
            setValue(ofTerm: index, to: terms[index].comparator.test(count, threshold))
            if count > threshold {
                terms[index].listening = false
                return false
            }
            return true
        case .windowedCount:
            var term = terms[index]
            expireRing(&term)
            pushRing(&term, now)
            terms[index] = term
            setValue(ofTerm: index, to: term.comparator.test(term.count, term.threshold))
            // A newer timestamp never brings the next change forward: a deadline already set stays
            // the earliest, and is recomputed when it comes.
            if term.scheduled == .max, let deadline = windowedCountDeadline(term) { schedule(index, at: deadline) }
            return true
        case .sequence:
            if advanceSequence(index, listener: listener, targetChannel: targetChannel, properties: properties) {
                terms[index].listening = false
                setValue(ofTerm: index, to: true)
                return false
            }
            return true
        case .chain:
            return advanceChain(index, listener: listener, channel: channel, properties: properties)
        case .comparison:
            return true
        }
    }

    /// Moves a chain to its next stage, and to that stage's channel; returns whether it stays on
    /// `channel`.
    private mutating func advanceChain(
        _ index: Int, listener: Listener, channel: Int32, properties: [String: ContextValue]
    ) -> Bool {
        let term = terms[index]
        // It came to this channel from the target channel of the same event.
        guard term.last != serial else { return true }
        let stage = term.head
        let filter = chainFilters[Int(term.chainStart + stage)]
        if filter >= 0 && !passes(filter, properties) { return true }
        if stage == term.count - 1 {
            terms[index].listening = false
            setValue(ofTerm: index, to: true)
            return false
        }
        pool[Int(term.poolStart + stage)] = now
        terms[index].head = stage + 1
        terms[index].last = serial
        let next = chainChannels[Int(term.chainStart + stage + 1)]
        if next == channel { return true }
        listen(listener, on: Int(next))
        return false
    }

    /// Moves a sequence's stages for the current event, last stage first; returns whether it completed.
    private mutating func advanceSequence(
        _ index: Int, listener: Listener, targetChannel: Int32, properties: [String: ContextValue]
    ) -> Bool {
        let term = terms[index]
        let base = Int(term.poolStart)
        let lastStage = term.count - 1
        for refIndex in Int(listener.stageStart)..<Int(listener.stageStart + listener.stageCount) {
            let ref = stageRefs[refIndex]
            guard ref.targetChannel < 0 || ref.targetChannel == targetChannel else { continue }
            if ref.filter >= 0 && !passes(ref.filter, properties) { continue }
            let stage = Int(ref.stage)
            if stage == 0 {
                pool[base] = now
                continue
            }
            let start = pool[base + stage - 1]
            guard start != noTime, term.window < 0 || now - start <= term.window else { continue }
            if ref.stage == lastStage { return true }
            pool[base + stage] = max(pool[base + stage], start)
        }
        return false
    }

    /// Whether the properties pass every condition of a filter.
    private func passes(_ filter: Int32, _ properties: [String: ContextValue]) -> Bool {
        for condition in filters[Int(filter)] where !condition.holds(properties[condition.property]) { return false }
        return true
    }

    /// Re-reads a term whose deadline came (a window moved on); returns its next deadline, if any.
    private mutating func refreshByTime(_ index: Int) -> Millis? {
        switch terms[index].kind {
        case .windowedOccurrence:
            let term = terms[index]
            let inWindow = term.last != noTime && now - term.last <= term.window
            setValue(ofTerm: index, to: inWindow)
            return inWindow ? term.last + term.window + 1 : nil
        case .windowedCount:
            var term = terms[index]
            expireRing(&term)
            terms[index] = term
            setValue(ofTerm: index, to: term.comparator.test(term.count, term.threshold))
            return windowedCountDeadline(term)
        default:
            return nil
        }
    }

    // A windowed count's ring works on a copy of its term, written back once by the caller.

    /// Drops the timestamps that left the window.
    func expireRing(_ term: inout Term) {
        let oldest = now - term.window
        let base = Int(term.poolStart)
        while term.count > 0 && pool[base + Int(term.head)] < oldest {
            term.head += 1
            if term.head == term.poolCapacity { term.head = 0 }
            term.count -= 1
        }
    }

    /// Adds a timestamp, dropping the oldest when the ring is full.
    mutating func pushRing(_ term: inout Term, _ time: Millis) {
        if term.count == term.poolCapacity {
            term.head += 1
            if term.head == term.poolCapacity { term.head = 0 }
            term.count -= 1
        }
        var slot = term.head + term.count
        if slot >= term.poolCapacity { slot -= term.poolCapacity }
        pool[Int(term.poolStart + slot)] = time
        term.count += 1
    }

    /// When expiring entries would change a windowed count's value, if they can.
    func windowedCountDeadline(_ term: Term) -> Millis? {
        let size = term.count
        let threshold = term.threshold
        let value = term.comparator.test(size, threshold)
        // The value only changes where the count crosses k or k+1; find the largest smaller count
        // with another value, and the entry whose expiry brings the count down to it.
        var target: Int32 = -1
        if size >= threshold + 1 && term.comparator.test(threshold, threshold) != value {
            target = threshold
        } else if size >= threshold && threshold >= 1 && term.comparator.test(threshold - 1, threshold) != value {
            target = threshold - 1
        }
        guard target >= 0 else { return nil }
        var slot = term.head + (size - target - 1)
        if slot >= term.poolCapacity { slot -= term.poolCapacity }
        return pool[Int(term.poolStart + slot)] + term.window + 1
    }

    mutating func schedule(_ index: Int, at deadline: Millis) {
        if deadline < terms[index].scheduled {
            terms[index].scheduled = deadline
            heap.push(deadline, owner: Int32(index))
        }
    }

    // MARK: Propagation

    @inline(__always)
    private mutating func setValue(ofTerm index: Int, to value: Bool) {
        guard terms[index].value != value else { return }
        terms[index].value = value
        let node = Int(terms[index].node)
        nodes[node].value = value
        noteFlip(node)
        propagate(from: node, value: value)
    }

    private mutating func propagate(from node: Int, value: Bool) {
        let delta: Int32 = value ? 1 : -1
        for position in Int(parentStart[node])..<Int(parentStart[node + 1]) {
            let parent = Int(parents[position])
            nodes[parent].trueCount += delta
            let newValue = nodes[parent].computedValue
            if newValue != nodes[parent].value {
                nodes[parent].value = newValue
                noteFlip(parent)
                propagate(from: parent, value: newValue)
            }
        }
    }

    @inline(__always)
    private mutating func noteFlip(_ node: Int) {
        if nodes[node].isRoot && !nodes[node].flagged {
            nodes[node].flagged = true
            flippedRoots.append(Int32(node))
        }
    }

    // MARK: Building

    /// Puts every listening term in the channels of the events it waits for (a chain in the channel
    /// of the stage it waits for).
    mutating func attachListeners(_ plan: [(channel: Int32, listener: Listener)]) {
        for (channel, listener) in plan where terms[Int(listener.term)].listening {
            listen(listener, on: Int(channel))
        }
        for index in terms.indices where terms[index].kind == .chain && terms[index].listening {
            let term = terms[index]
            listen(Listener(term: Int32(index)), on: Int(chainChannels[Int(term.chainStart + term.head)]))
        }
    }

    /// Adds a listener at the end of a channel, in the room the compiler counted for it.
    private func listen(_ listener: Listener, on channel: Int) {
        listeners[Int(channelStart[channel] + channelLength[channel])] = listener
        channelLength[channel] += 1
    }

    /// Sets every node's value from its terms, children first (children have smaller indices).
    mutating func recomputeAllNodes() {
        for index in nodes.indices {
            nodes[index].trueCount = 0
        }
        for index in nodes.indices {
            switch nodes[index].kind {
            case .term:
                let term = Int(nodes[index].term)
                terms[term].value = termValue(term)
                nodes[index].value = terms[term].value
            case .constant:
                break
            default:
                nodes[index].value = nodes[index].computedValue
            }
            if nodes[index].value {
                for position in Int(parentStart[index])..<Int(parentStart[index + 1]) {
                    nodes[Int(parents[position])].trueCount += 1
                }
            }
        }
    }

    /// A term's value from its state at the current time.
    func termValue(_ index: Int) -> Bool {
        let term = terms[index]
        switch term.kind {
        case .occurrence: return term.count > 0
        case .windowedOccurrence: return term.last != noTime && now - term.last <= term.window
        case .count, .windowedCount: return term.comparator.test(term.count, term.threshold)
        case .sequence, .chain: return !term.listening
        case .comparison:
            let spec = comparisons[Int(term.poolStart)]
            return spec.evaluate(context[spec.path])
        }
    }
}

extension Evaluator.Node {
    @inline(__always)
    var computedValue: Bool {
        switch kind {
        case .term, .constant: value
        case .not: trueCount == 0
        case .and: trueCount == childCount
        case .or: trueCount > 0
        }
    }
}

extension Date {
    /// Milliseconds since 1970, rounded down: the engine's clock.
    var millis: Millis {
        Millis((timeIntervalSince1970 * 1000).rounded(.down))
    }

    init(millis: Millis) {
        self.init(timeIntervalSince1970: Double(millis) / 1000)
    }
}
