/// What an ``Engine`` knows, as plain data to persist: the evaluator's term states, every tip's
/// state, hidden containers and the time of the last tip shown. Never the event history.
public struct EngineSnapshot: Hashable, Sendable, Codable {
    /// The evaluator's term states and context.
    public var evaluator: EvaluatorSnapshot
    /// By tip id, including tips no longer in the catalog (a closed tip stays closed).
    public var tips: [String: TipState]
    /// The containers the host has said are hidden.
    public var hiddenContainers: [String]
    /// When the last tip appeared, in milliseconds since 1970.
    public var lastShow: Int64?
}

extension Engine {
    /// The engine's state, to persist (see ``EngineStore``) and restore with ``init(tips:configuration:restoring:)``.
    public func snapshot() -> EngineSnapshot {
        EngineSnapshot(
            evaluator: evaluator.snapshot(),
            tips: tipStates,
            hiddenContainers: hidden.sorted(),
            lastShow: lastShow == noTime ? nil : lastShow
        )
    }

    /// Every tip's state by id, including tips no longer in the catalog.
    var tipStates: [String: TipState] {
        var tipStates = retired
        for (position, tip) in tips.enumerated() { tipStates[tip.id] = states[position] }
        return tipStates
    }

    mutating func restore(_ snapshot: EngineSnapshot) {
        hidden = Set(snapshot.hiddenContainers)
        lastShow = snapshot.lastShow ?? noTime
        var remaining = snapshot.tips
        for (position, tip) in tips.enumerated() {
            guard let state = remaining.removeValue(forKey: tip.id) else { continue }
            // A tip that was removed and came back starts again; any other ending is for good.
            states[position] = state.phase == .finished(.removed) ? TipState() : state
            if state.phase == .active || state.phase == .paused {
                occupant[containerOfTip[position]] = position
            }
        }
        retired = remaining
    }
}

extension TipState: Codable {
    private enum Key: String, CodingKey { case phase, displayCount, displayedMillis, activeSince }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        phase = try container.decode(TipPhase.self, forKey: .phase)
        displayCount = try container.decodeIfPresent(Int.self, forKey: .displayCount) ?? 0
        displayedMillis = try container.decodeIfPresent(Int64.self, forKey: .displayedMillis) ?? 0
        activeSince = try container.decodeIfPresent(Int64.self, forKey: .activeSince) ?? noTime
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(phase, forKey: .phase)
        try container.encode(displayCount, forKey: .displayCount)
        try container.encode(displayedMillis, forKey: .displayedMillis)
        if activeSince != noTime { try container.encode(activeSince, forKey: .activeSince) }
    }
}

extension TipPhase: Codable, CustomStringConvertible {
    /// `waiting`, `active`, `paused`, or `finished:` and the reason (`finished:closed`).
    public var description: String {
        switch self {
        case .waiting: "waiting"
        case .active: "active"
        case .paused: "paused"
        case .finished(let reason): "finished:\(reason.rawValue)"
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        switch text {
        case "waiting": self = .waiting
        case "active": self = .active
        case "paused": self = .paused
        default:
            guard text.hasPrefix("finished:"), let reason = FinishReason(rawValue: String(text.dropFirst(9))) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown tip phase \"\(text)\"")
            }
            self = .finished(reason)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
