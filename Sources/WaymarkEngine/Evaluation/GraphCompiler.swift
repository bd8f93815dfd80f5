import WaymarkRules

/// Turns rules into the evaluator's graph: one node per distinct sub-rule, one term per distinct
/// leaf, and the channels each term listens on.
struct GraphCompiler {
    var nodes: ContiguousArray<Evaluator.Node> = []
    var nodeRules: [Rule] = []
    var parentLists: [[Int32]] = []
    var terms: ContiguousArray<Term> = []
    var poolSize = 0
    var comparisons: [ComparisonSpec] = []
    var stageRefs: ContiguousArray<StageRef> = []
    var names: [String: NameEntry] = [:]
    /// Per channel, how many terms can listen on it at once: each plain listener, and each chain
    /// with a stage on it.
    var channelRoom: [Int32] = []
    var contextListeners: [String: [Int32]] = [:]
    var listenerPlan: [(channel: Int32, listener: Listener)] = []
    /// Every chain stage's channel, chain after chain.
    var chainChannels: ContiguousArray<Int32> = []
    /// Every chain stage's filter (see `Term.filter`), beside `chainChannels`.
    var chainFilters: ContiguousArray<Int32> = []
    /// The distinct conditions on events' properties that patterns have.
    var filters: [[PropertyTest]] = []
    private var filterIndex: [[PropertyTest]: Int32] = [:]
    private var memo: [Rule: Int32] = [:]

    /// The node for a rule, made once per distinct rule.
    mutating func node(for rule: Rule) -> Int32 {
        if let existing = memo[rule] { return existing }
        let node: Int32
        switch rule {
        case .constant(let value):
            node = addNode(Evaluator.Node(kind: .constant, value: value), rule: rule)
        case .not(let operand):
            let child = self.node(for: operand)
            node = addNode(Evaluator.Node(kind: .not, childCount: 1), rule: rule)
            parentLists[Int(child)].append(node)
        case .and(let operands), .or(let operands):
            let children = operands.map { self.node(for: $0) }
            let kind: Evaluator.NodeKind = if case .and = rule { .and } else { .or }
            node = addNode(Evaluator.Node(kind: kind, childCount: Int32(children.count)), rule: rule)
            for child in children { parentLists[Int(child)].append(node) }
        case .sequence, .count, .compare, .oneOf:
            node = addNode(Evaluator.Node(kind: .term), rule: rule)
            nodes[Int(node)].term = addTerm(for: rule, node: node)
        }
        memo[rule] = node
        return node
    }

    private mutating func addNode(_ node: Evaluator.Node, rule: Rule) -> Int32 {
        nodes.append(node)
        nodeRules.append(rule)
        parentLists.append([])
        return Int32(nodes.count - 1)
    }

    private mutating func addTerm(for rule: Rule, node: Int32) -> Int32 {
        let index = Int32(terms.count)
        var term: Term
        switch rule {
        case .sequence(let events, let window) where events.count == 1:
            term = Term(kind: window == nil ? .occurrence : .windowedOccurrence, node: node)
            term.window = window?.milliseconds ?? -1
            term.filter = filter(of: events[0])
            listen(index, to: events[0])
        case .sequence(let events, nil):
            term = Term(kind: .chain, node: node)
            term.count = Int32(events.count)
            term.poolStart = Int32(poolSize)
            term.poolCapacity = Int32(events.count - 1)
            poolSize += events.count - 1
            term.chainStart = Int32(chainChannels.count)
            for event in events {
                chainChannels.append(channel(of: event))
                chainFilters.append(filter(of: event))
            }
            for channel in Set(chainChannels[Int(term.chainStart)...]) { channelRoom[Int(channel)] += 1 }
        case .sequence(let events, let window?):
            term = Term(kind: .sequence, node: node)
            term.window = window.milliseconds
            term.count = Int32(events.count)
            term.poolStart = Int32(poolSize)
            term.poolCapacity = Int32(events.count - 1)
            poolSize += events.count - 1
            // One listener per distinct event name, with that name's stages, last first.
            var stagesByName: [String: [StageRef]] = [:]
            var nameOrder: [String] = []
            for (stage, event) in events.enumerated().reversed() {
                let channel = event.target.map { targetChannel(name: event.name, target: $0) } ?? -1
                if stagesByName[event.name] == nil { nameOrder.append(event.name) }
                stagesByName[event.name, default: []].append(
                    StageRef(stage: Int32(stage), targetChannel: channel, filter: filter(of: event))
                )
            }
            for name in nameOrder {
                let refs = stagesByName[name]!
                let listener = Listener(
                    term: index, stageStart: Int32(stageRefs.count), stageCount: Int32(refs.count)
                )
                stageRefs.append(contentsOf: refs)
                plan(listener, on: anyChannel(name: name))
            }
        case .count(let event, let comparator, let threshold, let window):
            term = Term(kind: window == nil ? .count : .windowedCount, comparator: comparator, node: node)
            term.threshold = Int32(threshold)
            term.filter = filter(of: event)
            if let window {
                term.window = window.milliseconds
                term.poolStart = Int32(poolSize)
                term.poolCapacity = Int32(threshold + 1)
                poolSize += threshold + 1
            }
            listen(index, to: event)
        case .compare(let path, let comparator, let literal):
            term = comparisonTerm(index, node: node, ComparisonSpec(path: path.description, comparator: comparator, literals: [literal]))
        case .oneOf(let path, let literals):
            term = comparisonTerm(index, node: node, ComparisonSpec(path: path.description, comparator: .equal, literals: literals))
        case .constant, .not, .and, .or:
            preconditionFailure("not a leaf: \(rule)")
        }
        terms.append(term)
        return index
    }

    private mutating func comparisonTerm(_ index: Int32, node: Int32, _ spec: ComparisonSpec) -> Term {
        var term = Term(kind: .comparison, node: node)
        term.poolStart = Int32(comparisons.count)
        comparisons.append(spec)
        contextListeners[spec.path, default: []].append(index)
        return term
    }

    private mutating func listen(_ term: Int32, to event: EventPattern) {
        plan(Listener(term: term), on: channel(of: event))
    }

    /// The index of the pattern's conditions among `filters`, or -1 when it has none.
    private mutating func filter(of event: EventPattern) -> Int32 {
        guard !event.conditions.isEmpty else { return -1 }
        if let index = filterIndex[event.conditions] { return index }
        filters.append(event.conditions)
        filterIndex[event.conditions] = Int32(filters.count - 1)
        return Int32(filters.count - 1)
    }

    private mutating func plan(_ listener: Listener, on channel: Int32) {
        listenerPlan.append((channel, listener))
        channelRoom[Int(channel)] += 1
    }

    /// The channel on which exactly the events matching a pattern arrive.
    private mutating func channel(of event: EventPattern) -> Int32 {
        event.target.map { targetChannel(name: event.name, target: $0) } ?? anyChannel(name: event.name)
    }

    private mutating func anyChannel(name: String) -> Int32 {
        if let entry = names[name] { return entry.anyChannel }
        let channel = Int32(channelRoom.count)
        channelRoom.append(0)
        names[name] = NameEntry(anyChannel: channel)
        return channel
    }

    private mutating func targetChannel(name: String, target: String) -> Int32 {
        _ = anyChannel(name: name)
        if let channel = names[name]!.targets[target] { return channel }
        let channel = Int32(channelRoom.count)
        channelRoom.append(0)
        names[name]!.targets[target] = channel
        return channel
    }
}
