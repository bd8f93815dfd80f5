import WaymarkRules

/// Milliseconds since 1970-01-01T00:00:00Z: the engine's unit of time (as JavaScript's `Date`).
typealias Millis = Int64

/// "No time": an empty slot in a ring or a sequence stage that was never reached.
let noTime = Millis.min

/// The state of one leaf of the rules (an occurrence, a count, a sequence or a comparison), shared
/// by every rule that mentions it. Plain data, so that it mutates in place inside an array.
///
/// Memory is bounded per term, never by the number of events: a windowed `count(e) op k` keeps at
/// most the k+1 latest timestamps (in the evaluator's pool), a sequence one start time per stage.
struct Term {
    enum Kind: UInt8 {
        /// `e`: true once an event matched.
        case occurrence
        /// `e within w`: true while the latest match is at most `w` old.
        case windowedOccurrence
        /// `count(e) op k`: a counter that saturates at k+1.
        case count
        /// `count(e) op k within w`: a ring of the latest k+1 timestamps in the window.
        case windowedCount
        /// `a THEN b ... within w`: the latest start time that reached each stage. Every stage listens,
        /// since a later start can be the one that fits the window.
        case sequence
        /// `a THEN b ...` without a window: the first match of each stage in turn is as good as any,
        /// so the term listens only for the stage it waits for.
        case chain
        /// `path op literal` or `path in [...]`: recomputed when the context changes.
        case comparison
    }

    var kind: Kind
    var comparator: Comparator = .equal
    /// Whether the term still listens to events. A fired occurrence, a saturated plain count and a
    /// completed sequence cannot change again, so they stop costing anything.
    var listening = true
    /// The term's value, as its node in the graph has it: an unchanged value costs no look at the
    /// graph.
    var value = false
    /// The term's leaf node in the evaluator's graph.
    var node: Int32
    /// The window in milliseconds, or -1 for none.
    var window: Millis = -1
    var threshold: Int32 = 0
    /// Occurrence: 0 or 1. Count: the count, saturated at k+1. Windowed count: entries in the ring.
    /// Sequence and chain: the number of stages (at least 2).
    var count: Int32 = 0
    /// Windowed occurrence: the latest match. Chain: the serial number of the event that last moved
    /// it on (one event never counts for two stages).
    var last: Millis = noTime
    /// Windowed count: the ring's slots. Sequence and chain: one time per stage but the last.
    /// Comparison: the index of its specification.
    var poolStart: Int32 = 0
    var poolCapacity: Int32 = 0
    /// Windowed count: the oldest entry's slot. Chain: the stage it waits for.
    var head: Int32 = 0
    /// Chain: where its stages' channels start in the evaluator's `chainChannels`.
    var chainStart: Int32 = 0
    /// The deadline this term has in the heap, or `Millis.max`.
    var scheduled: Millis = .max
    /// Occurrence and count: the conditions on the event's properties (an index into the
    /// evaluator's `filters`), or -1 for none. (A sequence's stages have theirs in `StageRef`, a
    /// chain's in `chainFilters`.) Kept here rather than in the listener, which stays 12 bytes: the
    /// term is read for every event anyway.
    var filter: Int32 = -1
}

/// A term's spot in a channel's listener list. A sequence lists the stages this channel's event name
/// can advance, last stage first, so that one event never counts for two stages.
struct Listener {
    var term: Int32
    var stageStart: Int32 = 0
    var stageCount: Int32 = 0
}

/// One stage of a sequence that an event name can advance, with the target it needs (a target
/// channel) or -1 for any target.
struct StageRef {
    var stage: Int32
    var targetChannel: Int32
    /// The stage's conditions on the event's properties (see `Term.filter`), or -1.
    var filter: Int32 = -1
}

/// Where an event name's listeners are: the channel for every event of that name, and one channel
/// per target that some rule names (`tap:search`).
struct NameEntry {
    var anyChannel: Int32
    var targets: [String: Int32] = [:]
}

/// A comparison term's question to the context.
struct ComparisonSpec {
    var path: String
    var comparator: Comparator
    var literals: [Literal]

    /// A comparison has one literal; `in [...]` is `==` against each of its literals.
    func evaluate(_ value: ContextValue?) -> Bool {
        literals.contains { $0.compared(with: value, by: comparator) }
    }
}

extension Comparator {
    /// The comparator applied to a count and a threshold, without generic dispatch.
    @inline(__always)
    func test(_ count: Int32, _ threshold: Int32) -> Bool {
        switch self {
        case .equal: count == threshold
        case .notEqual: count != threshold
        case .greaterOrEqual: count >= threshold
        case .lessOrEqual: count <= threshold
        case .greater: count > threshold
        case .less: count < threshold
        }
    }
}
