import Foundation
import WaymarkSupport

/// What a user has seen and done with one tip, as their devices share it: how often it appeared,
/// how long it was visible, and how it finished.
///
/// Progress merges as a join: counts take the larger value and a finished tip stays finished (of
/// two endings the stronger wins: closed, dismissed, maxDisplayCount, maxDisplayDuration, expired).
/// So merges may come in any order, late, or more than once, and always agree.
public struct TipProgress: Hashable, Sendable, Codable {
    /// How many times the tip appeared (shows and resumes).
    public var shown: Int
    /// How long it was visible, in milliseconds (read from an engine, a stretch still under way
    /// counts up to the engine's time).
    public var displayedMillis: Int64
    /// How it finished, if it did. `removed` is never shared: a tip taken out of a catalog is not
    /// something the user did.
    public var finished: FinishReason?

    /// Progress with these counts and ending.
    public init(shown: Int = 0, displayedMillis: Int64 = 0, finished: FinishReason? = nil) {
        self.shown = shown
        self.displayedMillis = displayedMillis
        self.finished = finished == .removed ? nil : finished
    }

    /// What a tip's state has to share, or nil when it never appeared and did not finish.
    public init?(_ state: TipState) {
        var reason: FinishReason?
        if case .finished(let ending) = state.phase, ending != .removed { reason = ending }
        guard state.displayCount > 0 || state.displayedMillis > 0 || reason != nil else { return nil }
        self.init(shown: state.displayCount, displayedMillis: state.displayedMillis, finished: reason)
    }

    /// The join of both: the larger counts, the stronger ending.
    public func merged(with other: TipProgress) -> TipProgress {
        TipProgress(
            shown: max(shown, other.shown), displayedMillis: max(displayedMillis, other.displayedMillis),
            finished: FinishReason.stronger(finished, other.finished)
        )
    }

    private enum Key: String, CodingKey { case shown, displayedMillis, finished }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: ["shown", "displayedMillis", "finished"], in: "a tip's progress")
        let container = try decoder.container(keyedBy: Key.self)
        let shown = try container.decodeIfPresent(Int.self, forKey: .shown) ?? 0
        let displayed = try container.decodeIfPresent(Int64.self, forKey: .displayedMillis) ?? 0
        guard shown >= 0, displayed >= 0 else {
            throw DecodingError.dataCorruptedError(
                forKey: shown < 0 ? .shown : .displayedMillis, in: container, debugDescription: "must not be negative")
        }
        self.init(shown: shown, displayedMillis: displayed, finished: try container.decodeIfPresent(FinishReason.self, forKey: .finished))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(shown, forKey: .shown)
        try container.encode(displayedMillis, forKey: .displayedMillis)
        try container.encodeIfPresent(finished, forKey: .finished)
    }
}

/// How far a user got in one tour: the furthest page they reached (0 is the first) and how it
/// ended, if it did. Merges like ``TipProgress``: the further page, an ending stays.
public struct TourProgress: Hashable, Sendable, Codable {
    /// The furthest page reached, counted from 0.
    public var page: Int
    /// Whether the user finished the tour (read it to the end, or followed a button where it leads).
    public var finished: Bool
    /// Whether the user dismissed the tour (its close button, Esc, a `dismiss` button).
    public var dismissed: Bool

    /// Progress at `page`, ended or not.
    public init(page: Int = 0, finished: Bool = false, dismissed: Bool = false) {
        self.page = page
        self.finished = finished
        self.dismissed = dismissed
    }

    /// Whether the tour ended, either way: it does not open by its trigger again.
    public var ended: Bool { finished || dismissed }

    /// The join of both: the further page, each ending either has.
    public func merged(with other: TourProgress) -> TourProgress {
        TourProgress(page: max(page, other.page), finished: finished || other.finished, dismissed: dismissed || other.dismissed)
    }

    private enum Key: String, CodingKey { case page, finished, dismissed }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: ["page", "finished", "dismissed"], in: "a tour's progress")
        let container = try decoder.container(keyedBy: Key.self)
        page = try container.decodeIfPresent(Int.self, forKey: .page) ?? 0
        finished = try container.decodeIfPresent(Bool.self, forKey: .finished) ?? false
        dismissed = try container.decodeIfPresent(Bool.self, forKey: .dismissed) ?? false
        guard page >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .page, in: container, debugDescription: "must not be negative")
        }
    }

    /// `dismissed` only when it is true, so what older SDKs kept reads the same.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(page, forKey: .page)
        try container.encode(finished, forKey: .finished)
        if dismissed { try container.encode(true, forKey: .dismissed) }
    }
}

/// How far a user got in one checklist: the items done and whether it is completed. Merges as a
/// join: the union of the items, completed if either is. Done items stay done.
public struct ChecklistProgress: Hashable, Sendable, Codable {
    /// The most items one checklist's progress names.
    public static let itemLimit = 64

    /// The ids of the items done.
    public var done: Set<String>
    /// Whether every item was done (and the completion sent).
    public var completed: Bool

    /// Progress with these items done.
    public init(done: Set<String> = [], completed: Bool = false) {
        self.done = done
        self.completed = completed
    }

    /// The join of both: every item either has done, completed if either is.
    public func merged(with other: ChecklistProgress) -> ChecklistProgress {
        ChecklistProgress(done: done.union(other.done), completed: completed || other.completed)
    }

    private enum Key: String, CodingKey { case done, completed }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: ["done", "completed"], in: "a checklist's progress")
        let container = try decoder.container(keyedBy: Key.self)
        let items = try container.decodeIfPresent([String].self, forKey: .done) ?? []
        guard items.count <= Self.itemLimit, items.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 256 }) else {
            throw DecodingError.dataCorruptedError(
                forKey: .done, in: container, debugDescription: "at most \(Self.itemLimit) item ids of 1 to 256 bytes")
        }
        done = Set(items)
        completed = try container.decodeIfPresent(Bool.self, forKey: .completed) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(done.sorted(), forKey: .done)
        try container.encode(completed, forKey: .completed)
    }
}

/// Everything a user's devices share of their progress: tips and tours by id, merged item by item
/// as a join, so that the progress of any number of devices comes together in any order.
public struct UserProgress: Hashable, Sendable, Codable {
    /// By tip id.
    public var tips: [String: TipProgress]
    /// By tour id.
    public var tours: [String: TourProgress]
    /// By checklist id.
    public var checklists: [String: ChecklistProgress]
    /// The user's latest choice of the listener's mode (every tip speaks as it appears), if they made one.
    public var listening: ListeningChoice?

    /// Progress of these tips, tours and checklists, and the listener's mode.
    public init(
        tips: [String: TipProgress] = [:], tours: [String: TourProgress] = [:], checklists: [String: ChecklistProgress] = [:],
        listening: ListeningChoice? = nil
    ) {
        self.tips = tips
        self.tours = tours
        self.checklists = checklists
        self.listening = listening
    }

    /// How many tips, tours and checklists it names.
    public var count: Int { tips.count + tours.count + checklists.count }

    /// Every id it names: tips', tours' and checklists'.
    public var ids: [String] { Array(tips.keys) + Array(tours.keys) + Array(checklists.keys) }

    /// The join of both, item by item; of two choices of the listener's mode, the later.
    public func merged(with other: UserProgress) -> UserProgress {
        UserProgress(
            tips: tips.merging(other.tips) { $0.merged(with: $1) },
            tours: tours.merging(other.tours) { $0.merged(with: $1) },
            checklists: checklists.merging(other.checklists) { $0.merged(with: $1) },
            listening: [listening, other.listening].compactMap { $0 }.max()
        )
    }

    private enum Key: String, CodingKey { case tips, tours, checklists, listening }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: ["tips", "tours", "checklists", "listening"], in: "progress")
        let container = try decoder.container(keyedBy: Key.self)
        tips = try container.decodeIfPresent([String: TipProgress].self, forKey: .tips) ?? [:]
        tours = try container.decodeIfPresent([String: TourProgress].self, forKey: .tours) ?? [:]
        checklists = try container.decodeIfPresent([String: ChecklistProgress].self, forKey: .checklists) ?? [:]
        listening = try container.decodeIfPresent(ListeningChoice.self, forKey: .listening)
    }

    /// Tips and tours always; checklists when there are any, the listener's mode when chosen.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(tips, forKey: .tips)
        try container.encode(tours, forKey: .tours)
        if !checklists.isEmpty { try container.encode(checklists, forKey: .checklists) }
        try container.encodeIfPresent(listening, forKey: .listening)
    }
}

/// A user's choice of the listener's mode, and when they made it: the latest of their devices'
/// choices holds everywhere (at the same moment, on before off, so that merging is a join).
public struct ListeningChoice: Hashable, Sendable, Codable, Comparable {
    /// Whether every tip speaks as it appears.
    public var on: Bool
    /// When the user chose, in milliseconds since 1970.
    public var at: Int64

    /// The choice `on`, made at `at` (milliseconds since 1970).
    public init(on: Bool, at: Int64) {
        self.on = on
        self.at = at
    }

    /// The earlier choice first; at the same moment, off before on.
    public static func < (lhs: ListeningChoice, rhs: ListeningChoice) -> Bool {
        (lhs.at, lhs.on ? 1 : 0) < (rhs.at, rhs.on ? 1 : 0)
    }

    private enum Key: String, CodingKey { case on, at }

    public init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: ["on", "at"], in: "the listener's mode")
        let container = try decoder.container(keyedBy: Key.self)
        on = try container.decode(Bool.self, forKey: .on)
        at = try container.decode(Int64.self, forKey: .at)
        guard at >= 0 else {
            throw DecodingError.dataCorruptedError(forKey: .at, in: container, debugDescription: "must not be negative")
        }
    }
}

extension FinishReason {
    /// How strongly an ending holds when two devices disagree: what the user did outranks what a
    /// policy decided.
    var strength: Int {
        switch self {
        case .closed: 5
        case .dismissed: 4
        case .maxDisplayCount: 3
        case .maxDisplayDuration: 2
        case .expired: 1
        case .removed: 0
        }
    }

    /// The stronger of two endings; nil only when neither is shared.
    static func stronger(_ first: FinishReason?, _ second: FinishReason?) -> FinishReason? {
        guard let first, first != .removed else { return second == .removed ? nil : second }
        guard let second, second != .removed else { return first }
        return second.strength > first.strength ? second : first
    }
}

extension Engine {
    /// What the user has seen and done with each tip, by id, including tips no longer in the
    /// catalog, a tip showing now with its time visible so far: what the user's other devices
    /// merge with ``merge(_:at:)``.
    public var progress: [String: TipProgress] {
        var result: [String: TipProgress] = [:]
        for (id, var state) in tipStates {
            state.displayedMillis = state.visibleMillis(at: evaluator.now)
            if let progress = TipProgress(state) { result[id] = progress }
        }
        return result
    }

    /// Takes in the user's progress from their other devices: counts rise to the larger, a tip
    /// finished elsewhere finishes here (hidden, with that reason, if it shows), and a tip that
    /// has now appeared or been visible as long as its policy allows finishes as it would have.
    /// The time a showing tip has been visible here so far counts as part of its total before the
    /// larger is taken, so what arrives at one moment comes to the same state in any order.
    /// Nothing is ever taken back, so merging the same progress again changes nothing.
    @discardableResult
    public mutating func merge(_ progress: [String: TipProgress], at time: Date) -> [RenderCommand] {
        perform(at: time) { engine in
            for (id, remote) in progress.sorted(by: { $0.key < $1.key }) {
                if let tip = engine.tipIndex[id] {
                    engine.merge(remote, into: tip)
                } else {
                    var state = engine.retired[id] ?? TipState()
                    state.merge(remote)
                    engine.retired[id] = state
                }
            }
        }
    }

    private mutating func merge(_ remote: TipProgress, into tip: Int) {
        let phase = states[tip].phase
        states[tip].settle(at: evaluator.now)
        // A finished tip only takes the counts and a stronger ending, as a retired one does.
        guard !phase.isFinished else { return states[tip].merge(remote) }
        states[tip].mergeCounts(remote)
        if let reason = remote.finished { return finish(tip, reason) }
        let policy = tips[tip].policy
        if phase != .active, let limit = policy.maxDisplayCount, states[tip].displayCount >= limit {
            finish(tip, .maxDisplayCount)
        } else if phase != .active, let limit = policy.maxDisplayDuration, states[tip].displayedMillis >= Millis(limit * 1000) {
            finish(tip, .maxDisplayDuration)
        } else if phase == .active {
            checkTimeLimits(tip)
            scheduleDisplayEnd(tip)
        }
    }
}

extension TipState {
    /// Counts rise to the larger.
    mutating func mergeCounts(_ remote: TipProgress) {
        displayCount = max(displayCount, remote.shown)
        displayedMillis = max(displayedMillis, remote.displayedMillis)
    }

    /// Merges progress into the state of a tip the engine does not schedule now, or that
    /// finished: the counts, and the stronger ending.
    mutating func merge(_ remote: TipProgress) {
        mergeCounts(remote)
        guard let reason = remote.finished else { return }
        if case .finished(let local) = phase, local.strength >= reason.strength { return }
        phase = .finished(reason)
    }
}
