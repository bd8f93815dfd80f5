import WaymarkRules

/// What an ``Evaluator`` knows, as plain data to persist: per term a few numbers, never the history.
///
/// Terms are keyed by their text (`count(tap) >= 3 within 7d`), so a snapshot restores into an
/// evaluator built from a changed set of rules: shared terms carry on, new ones start empty.
public struct EvaluatorSnapshot: Hashable, Sendable, Codable {
    /// The state of one term.
    public struct TermState: Hashable, Sendable, Codable {
        /// Occurrence: 1 once it happened. Count: the count, saturated at the threshold + 1.
        public var count: Int32?
        /// Windowed occurrence: the latest match, in milliseconds since 1970.
        public var last: Int64?
        /// Windowed count: the kept timestamps, oldest first. Sequence: each stage's latest start.
        public var times: [Int64]?
        /// Sequence: completed.
        public var done: Bool?

        /// A term's state as a store kept it (nil where the term's kind keeps nothing of the kind).
        public init(count: Int32? = nil, last: Int64? = nil, times: [Int64]? = nil, done: Bool? = nil) {
            self.count = count
            self.last = last
            self.times = times
            self.done = done
        }
    }

    /// The latest time seen, in milliseconds since 1970.
    public var now: Int64?
    /// The context values set by the host, by path (`app.version`).
    public var context: [String: ContextValue]
    /// Each term's state, by the term's text.
    public var terms: [String: TermState]

    /// A snapshot as a store kept it, to restore with ``Evaluator/restoring(_:)``.
    public init(now: Int64?, context: [String: ContextValue], terms: [String: TermState]) {
        self.now = now
        self.context = context
        self.terms = terms
    }
}

extension Evaluator {
    /// The evaluator's state, to persist and restore with ``init(rules:restoring:)``.
    public func snapshot() -> EvaluatorSnapshot {
        var states: [String: EvaluatorSnapshot.TermState] = [:]
        for term in terms {
            var state = EvaluatorSnapshot.TermState()
            switch term.kind {
            case .occurrence, .count:
                guard term.count > 0 else { continue }
                state.count = term.count
            case .windowedOccurrence:
                guard term.last != noTime else { continue }
                state.last = term.last
            case .windowedCount:
                guard term.count > 0 else { continue }
                state.times = (0..<term.count).map { offset in
                    pool[Int(term.poolStart + (term.head + offset) % term.poolCapacity)]
                }
            case .sequence, .chain:
                if !term.listening {
                    state.done = true
                } else {
                    let stages = Array(pool[Int(term.poolStart)..<Int(term.poolStart + term.poolCapacity)])
                    guard stages.contains(where: { $0 != noTime }) else { continue }
                    state.times = stages
                }
            case .comparison:
                continue
            }
            states[nodeRules[Int(term.node)].description] = state
        }
        return EvaluatorSnapshot(now: now == noTime ? nil : now, context: context, terms: states)
    }

    /// The keys a snapshot of this evaluator gives its terms (``EvaluatorSnapshot/terms``), one a
    /// term, in the evaluator's order: a store of many snapshots of the same rules can keep a
    /// term's position instead of its text.
    public var termKeys: [String] { terms.map { nodeRules[Int($0.node)].description } }

    /// A copy of this evaluator holding a snapshot's state: what ``init(rules:restoring:)`` makes
    /// of the same rules, without compiling them again. A replay that keeps many users' states
    /// compiles its rules once and restores each user's into a copy. Call it on an evaluator that
    /// has seen no event, time or context (a fresh one).
    public func restoring(_ snapshot: EvaluatorSnapshot) -> Evaluator {
        var copy = self
        copy.makeUnique()
        copy.restore(snapshot)
        for channel in copy.channelLength.indices { copy.channelLength[channel] = 0 }
        copy.attachListeners(listenerPlan)
        copy.recomputeAllNodes()
        return copy
    }

    /// Loads term states before listeners are attached and node values computed.
    mutating func restore(_ snapshot: EvaluatorSnapshot) {
        now = snapshot.now ?? noTime
        context = snapshot.context
        for index in terms.indices {
            guard let state = snapshot.terms[nodeRules[Int(terms[index].node)].description] else { continue }
            let term = terms[index]
            switch term.kind {
            case .occurrence:
                terms[index].count = min(state.count ?? 0, 1)
                terms[index].listening = terms[index].count == 0
            case .count:
                terms[index].count = min(max(state.count ?? 0, 0), term.threshold + 1)
                terms[index].listening = terms[index].count <= term.threshold
            case .windowedOccurrence:
                terms[index].last = min(state.last ?? noTime, now)
                if terms[index].last != noTime && now - terms[index].last <= term.window {
                    schedule(index, at: terms[index].last + term.window + 1)
                }
            case .windowedCount:
                var ring = term
                for time in (state.times ?? []).sorted().suffix(Int(term.poolCapacity)) where time <= now {
                    pushRing(&ring, time)
                }
                expireRing(&ring)
                terms[index] = ring
                if let deadline = windowedCountDeadline(ring) { schedule(index, at: deadline) }
            case .sequence, .chain:
                if state.done == true {
                    terms[index].listening = false
                } else if let times = state.times, times.count == Int(term.poolCapacity) {
                    for (offset, time) in times.enumerated() { pool[Int(term.poolStart) + offset] = time }
                    if term.kind == .chain {
                        // The stages it reached are those with a time, first to last.
                        terms[index].head = Int32(times.firstIndex(of: noTime) ?? times.count)
                    }
                }
            case .comparison:
                break
            }
        }
    }
}
