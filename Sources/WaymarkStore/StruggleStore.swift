import Foundation

/// Where people get lost: the signs of struggle Waymark finds in the events the SDKs already send,
/// each tied to a screen and, where there is one, an element.
public enum StruggleSignal: String, CaseIterable, Hashable, Sendable, Codable {
    /// The same element tapped again and again within moments: it did not do what was hoped.
    case rageTaps = "rage_taps"
    /// A tap on an element after which nothing happened: no other screen, no other event.
    case deadTap = "dead_tap"
    /// Two screens visited in turn, again and again: looking for something between them.
    case backAndForth = "back_and_forth"
    /// A screen left at once for the one before it: not what was expected there.
    case uTurn = "u_turn"
    /// A search that found nothing (the app's own, or the help launcher's).
    case failedSearch = "failed_search"
    /// A long wait on a screen before leaving it.
    case idle
    /// A visit that ended on a screen from which most people go on to one next step.
    case stopped
}

/// One sign of struggle: which, where, whose, when.
public struct StruggleOccurrence: Hashable, Sendable {
    public var signal: StruggleSignal
    /// The screen it happened on ("" before the visit's first screen).
    public var screen: String
    /// The element (a tap's target), the other screen (back and forth, U-turn, stopped: the
    /// screen people came from or usually go to next), or the search event's name; "" for none.
    public var element: String
    public var user: String
    /// The visit: when it began (ms since 1970).
    public var visit: Int64
    /// When it happened (ms since 1970).
    public var at: Int64
    public var platform: String
    public var locale: String
    /// What was searched for (a failed search); nil otherwise.
    public var query: String?

    public init(
        signal: StruggleSignal, screen: String, element: String, user: String, visit: Int64, at: Int64, platform: String, locale: String,
        query: String? = nil
    ) {
        self.signal = signal
        self.screen = screen
        self.element = element
        self.user = user
        self.visit = visit
        self.at = at
        self.platform = platform
        self.locale = locale
        self.query = query
    }
}

/// An aggregate of signs over a period: one (signal, screen, element), with the keys asked for
/// (``StruggleStore/struggleTally(app:period:by:)``).
public struct StruggleTallyRow: Hashable, Sendable {
    public var signal: StruggleSignal
    public var screen: String
    public var element: String
    /// The value of each dimension asked for, in order (a day as its start, in ms, as text).
    public var keys: [String]
    public var occurrences: Int
    public var users: Int
    public var visits: Int

    public init(signal: StruggleSignal, screen: String, element: String, keys: [String], occurrences: Int, users: Int, visits: Int) {
        self.signal = signal
        self.screen = screen
        self.element = element
        self.keys = keys
        self.occurrences = occurrences
        self.users = users
        self.visits = visits
    }
}

/// What a tally of signs is broken down by, besides signal, screen and element.
public enum StruggleDimension: String, Hashable, Sendable {
    case day, platform, locale
}

/// Where people get lost: the signs of struggle found in each app's events, day by day, kept so
/// that a page reads them without reading events. They are derived (found again from the
/// events whenever asked), so a database copy leaves them out. Part of every ``Store``.
public protocol StruggleStore: Sendable {
    /// Replaces the signs found on one UTC day (`day`: its start, in ms) with `occurrences`, and
    /// notes that the day was looked at `at`.
    func replaceStruggles(app: String, day: Int64, _ occurrences: [StruggleOccurrence], at time: Date) async throws(StoreError)
    /// The days looked at, with when (ms since 1970), by their start.
    func struggleDays(app: String) async throws(StoreError) -> [Int64: Int64]
    /// The signs whose time is in the period, by signal, screen, element and `dimensions`: how
    /// many, in how many users and visits; most users first.
    func struggleTally(app: String, period: Period, by dimensions: [StruggleDimension]) async throws(StoreError) -> [StruggleTallyRow]
    /// Signs of one signal, screen and element in the period, newest first, at most `limit`.
    func struggleExamples(
        app: String, signal: StruggleSignal, screen: String, element: String, period: Period, limit: Int
    ) async throws(StoreError) -> [StruggleOccurrence]
    /// The users with a sign of this signal, screen and element in the period.
    func struggleUsers(app: String, signal: StruggleSignal, screen: String, element: String, period: Period) async throws(StoreError)
        -> Set<String>
    /// Removes the signs (and the days looked at) before `day`, as the events' retention does.
    func deleteStruggles(app: String, before day: Int64) async throws(StoreError)
}
