import Foundation

/// What the live tips' eligible counts keep, day by day, so that each day's replay starts from the
/// day before instead of from the first event: for one set of rules (a *ruleset*, named by a
/// digest of the tips' rules), each user's state at the end of each day they had events, and per
/// day, tip, platform and app version the set of users who could have been shown the tip
/// (``UserSet``, by the numbers the rollups gave them). Part of every ``Store``.
///
/// Derived from the events like the rollups, and folded only on days the rollups folded. A day
/// unfolded by a late event takes with it that day and every later one of every ruleset (their
/// states start from it); an erased user leaves the states and the sets; retention removes the
/// days before its cut, and the states of users left with none after it. One ruleset is kept an
/// app: saving a day of another removes the one before.
///
/// A user's states are kept whole only over the last days kept (a day's ``EligibilityDay/window``):
/// once a day leaves that window, the states before it of the users it has a state for go, as no
/// day after it starts from them. A late event in a day that left the window (as far back as the
/// states were thinned) takes every kept day: they are all folded again, from the first.
public protocol EligibilityStore: Sendable {
    /// Where the ruleset's days stand, over the app's days with events that start before `through`.
    func eligibilityProgress(app: String, ruleset: String, through: Int64) async throws(StoreError) -> EligibilityProgress
    /// Each user with an event in the period, with their number (nil before the rollups number
    /// them) and their latest kept state of the ruleset from a day before the period's (nil: none).
    func eligibilityStarts(app: String, ruleset: String, period: Period) async throws(StoreError) -> [EligibilityStart]
    /// Each user's latest kept state of the ruleset from a day in the period (days wholly in it).
    func latestEligibilityStates(app: String, ruleset: String, period: Period) async throws(StoreError) -> [(user: String, state: Data)]
    /// The kept sets of the ruleset's days in the period (days wholly in it).
    func eligibleSets(app: String, ruleset: String, period: Period) async throws(StoreError) -> [EligibleSet]
    /// Keeps a folded day, unless the app's days changed since `progress` was read (its
    /// ``EligibilityProgress/epoch``), the day is no longer folded into rollups, or it is kept
    /// already: answers whether it kept it.
    func keepEligibility(app: String, ruleset: String, _ day: EligibilityDay, epoch: Int64) async throws(StoreError) -> Bool
    /// The ids of the users the rollups gave these numbers (a kept set's members), by number.
    func users(app: String, numbered numbers: [UInt32]) async throws(StoreError) -> [UInt32: String]
}

/// Where a ruleset's days stand (``EligibilityStore/eligibilityProgress(app:ruleset:through:)``).
public struct EligibilityProgress: Hashable, Sendable {
    /// The days with events whose sets are kept, oldest first: each from the first day with
    /// events on, with none missing between.
    public var kept: [Int64]
    /// The days right after them that can be folded now (their rollups are), oldest first.
    public var due: [Int64]
    /// The first day with events after those, whose rollups are not folded (yet): it and every
    /// day after it are replayed when asked.
    public var pending: Int64?
    /// Changes whenever the app's kept days might: a fold saves only under the epoch it read.
    public var epoch: Int64

    public init(kept: [Int64], due: [Int64], pending: Int64?, epoch: Int64) {
        self.kept = kept
        self.due = due
        self.pending = pending
        self.epoch = epoch
    }

    /// Walks the app's days with events in order: kept, then due (folded into rollups), up to
    /// the first that is neither.
    public init(days: [Int64], kept keptDays: Set<Int64>, rolled: Set<Int64>, epoch: Int64) {
        var kept: [Int64] = []
        var due: [Int64] = []
        var pending: Int64?
        for day in days {
            if due.isEmpty && keptDays.contains(day) {
                kept.append(day)
            } else if rolled.contains(day) {
                due.append(day)
            } else {
                pending = day
                break
            }
        }
        self.init(kept: kept, due: due, pending: pending, epoch: epoch)
    }
}

/// A user of a period with what a replay of it starts from.
public struct EligibilityStart: Hashable, Sendable {
    public var user: String
    public var number: UInt32?
    public var state: Data?

    public init(user: String, number: UInt32?, state: Data?) {
        self.user = user
        self.number = number
        self.state = state
    }
}

/// The users who could have been shown a tip on a day, where they were then (``UserSet``); or,
/// named `segment:<name>` with no platform or version, those who were in a segment that day.
public struct EligibleSet: Hashable, Sendable {
    public var day: Int64
    public var tip: String
    public var platform: String?
    public var appVersion: String?
    public var users: Data

    public init(day: Int64, tip: String, platform: String?, appVersion: String?, users: Data) {
        self.day = day
        self.tip = tip
        self.platform = platform
        self.appVersion = appVersion
        self.users = users
    }
}

/// A folded day of a ruleset: the state of each user with events that day at its end, and its sets.
public struct EligibilityDay: Sendable {
    public var day: Int64
    public var states: [(user: String, state: Data)]
    public var sets: [EligibleSet]
    /// Days (this one and those before it) over which users' states are kept whole: keeping this
    /// day thins the states before the day `window` days earlier.
    public var window: Int

    public init(day: Int64, states: [(user: String, state: Data)], sets: [EligibleSet], window: Int) {
        self.day = day
        self.states = states
        self.sets = sets
        self.window = window
    }

    /// The day whose users' earlier states go once this day is kept.
    public var edge: Int64 { day - Int64(window) * Period.day }
}

/// The days with events of an app, found by seeking the index by time once a day: `first` answers
/// the first event's time at or after a time.
public func daysWithEvents(before end: Int64, first: (Int64) throws -> Int64?) rethrows -> [Int64] {
    var days: [Int64] = []
    var from = Int64.min
    while let time = try first(from), time < end {
        let day = Period.startOfDay(time)
        days.append(day)
        from = day + Period.day
    }
    return days
}
