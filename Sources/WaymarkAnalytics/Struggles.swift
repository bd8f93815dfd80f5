import Foundation
import WaymarkCatalog
import WaymarkStore

/// How visits went from one screen to the next ("" `to`: the visit ended there), counted once per
/// visit: what ``StruggleSignal/stopped`` is learned from.
public struct ScreenStep: Hashable, Sendable {
    public var from: String
    public var to: String

    public init(from: String, to: String) {
        self.from = from
        self.to = to
    }
}

/// Finds the signs of struggle in events, user by user, in one pass in time order (as
/// ``WaymarkStore/AnalyticsStore/forEachPage(app:period:user:pageSize:_:)`` reads them): the
/// state kept per user is a few fields, so memory grows with users, not events. Pure: it reads
/// no store and no clock, so the same events always give the same signs.
public struct StruggleDetector: Sendable {
    public let thresholds: StruggleThresholds
    /// What was found so far, in the order found.
    public private(set) var occurrences: [StruggleOccurrence] = []
    /// Screen to screen steps, per visit, counted when a visit ends.
    public private(set) var steps: [ScreenStep: Int] = [:]

    private var users: [String: UserState] = [:]
    /// The visits that ended, by their last screen: ``finish()`` makes the stopped signs of those
    /// whose screen turns out to be a stop.
    private var ends: [String: [VisitEnd]] = [:]
    private var contexts = ContextCache()

    private struct VisitEnd: Sendable {
        var user: String
        var visit: Int64
        var at: Int64
        var properties: String?
    }

    private struct UserState: Sendable {
        var visit: Int64
        var lastAt: Int64
        var properties: String?
        /// The screen now, since when, and the one before it.
        var screen = ""
        var screenSince: Int64 = 0
        /// The longest time without an event on this screen so far, in ms.
        var longestGap: Int64 = 0
        var previous = ""
        /// The visit's screens in order (a repeat of the same one is not a step).
        var path: [String] = []
        /// Taps of one element in a row: which, since when, how many; whether reported.
        var burst: (target: String, since: Int64, count: Int, reported: Bool)?
        /// A tap waiting to see whether anything follows it.
        var waiting: (target: String, at: Int64, screen: String, properties: String?)?
        /// Returns to a screen from another in this visit, by "screen\tother".
        var returns: [String: Int] = [:]
    }

    public init(thresholds: StruggleThresholds = StruggleThresholds()) {
        self.thresholds = thresholds
    }

    /// Takes the next event (events of all users, each user's in time order).
    public mutating func add(_ event: StoredEvent) {
        let time = event.timestamp
        var state: UserState
        if var known = users[event.user] {
            let gap = Double(time - known.lastAt) / 1000
            if gap > thresholds.visitGapSeconds {
                endVisit(&known, user: event.user)
                state = UserState(visit: time, lastAt: time, properties: event.properties)
            } else {
                state = known
            }
        } else {
            state = UserState(visit: time, lastAt: time, properties: event.properties)
        }
        settle(&state, before: time, user: event.user, by: event)
        state.longestGap = max(state.longestGap, time - state.lastAt)
        switch event.name {
        case "tap": if let target = event.target, !target.isEmpty { tapped(target, &state, event) }
        case "screen": if let target = event.target, !target.isEmpty { arrived(at: target, &state, event) }
        default: break
        }
        if let properties = event.properties, properties.contains("\"results\"") { searched(properties, &state, event) }
        state.lastAt = time
        state.properties = event.properties
        users[event.user] = state
    }

    /// Ends every visit still open and makes the stopped signs: call once after the last event.
    public mutating func finish() {
        for (user, var state) in users {
            settle(&state, before: .max, user: user, by: nil)
            endVisit(&state, user: user)
        }
        users.removeAll()
        for (screen, next) in Self.stops(steps, thresholds) {
            for end in ends[screen] ?? [] {
                report(.stopped, screen: screen, element: next, user: end.user, visit: end.visit, at: end.at, properties: end.properties)
            }
        }
        ends.removeAll()
    }

    /// The screens where visits stop short, each with the step most visits take from there: at
    /// least ``StruggleThresholds/stopVisits`` visits, of which at least `stopNextShare` go on to
    /// one screen and at least `stopShare` end there.
    public static func stops(_ steps: [ScreenStep: Int], _ thresholds: StruggleThresholds) -> [(screen: String, next: String)] {
        var byScreen: [String: [(to: String, visits: Int)]] = [:]
        for (step, visits) in steps { byScreen[step.from, default: []].append((step.to, visits)) }
        return byScreen.compactMap { screen, nexts in
            let total = nexts.reduce(0) { $0 + $1.visits }
            let ended = nexts.first { $0.to.isEmpty }?.visits ?? 0
            guard total >= thresholds.stopVisits,
                let usual = nexts.filter({ !$0.to.isEmpty }).max(by: { ($0.visits, $1.to) < ($1.visits, $0.to) })
            else { return nil }
            let usualShare = Double(usual.visits) / Double(total)
            let endShare = Double(ended) / Double(total)
            return usualShare >= thresholds.stopNextShare && endShare >= thresholds.stopShare ? (screen, usual.to) : nil
        }.sorted { $0.screen < $1.screen }
    }

    // MARK: Each kind of event

    /// Decides a waiting tap: dead when nothing but taps on it came for `deadSeconds` and the visit
    /// goes on (`event` is in it), unless `event` is another screen soon enough; alive when
    /// something else came in time.
    private mutating func settle(_ state: inout UserState, before time: Int64, user: String, by event: StoredEvent?) {
        guard let waiting = state.waiting else { return }
        let elapsed = Double(time - waiting.at) / 1000
        let answered = event?.name == "screen" && event?.target != waiting.screen && elapsed <= thresholds.slowScreenSeconds
        if elapsed > thresholds.deadSeconds && !answered {
            if event != nil, time != .max {
                report(
                    .deadTap, screen: waiting.screen, element: waiting.target, user: user, visit: state.visit, at: waiting.at,
                    properties: waiting.properties)
            }
            state.waiting = nil
        } else if let event, !(event.name == "tap" && event.target == waiting.target) {
            state.waiting = nil
        }
    }

    private mutating func tapped(_ target: String, _ state: inout UserState, _ event: StoredEvent) {
        let time = event.timestamp
        if var burst = state.burst, burst.target == target, Double(time - burst.since) / 1000 <= thresholds.rageSeconds {
            burst.count += 1
            if burst.count >= thresholds.rageTaps && !burst.reported {
                burst.reported = true
                report(
                    .rageTaps, screen: state.screen, element: target, user: event.user, visit: state.visit, at: time,
                    properties: event.properties)
            }
            state.burst = burst
        } else {
            state.burst = (target, time, 1, false)
        }
        state.waiting = (target, time, state.screen, event.properties)
    }

    private mutating func arrived(at screen: String, _ state: inout UserState, _ event: StoredEvent) {
        guard screen != state.screen else { return }
        let time = event.timestamp
        let left = state.screen
        if !left.isEmpty {
            let stayed = Double(time - state.screenSince) / 1000
            if Double(state.longestGap) / 1000 >= thresholds.idleSeconds {
                report(.idle, screen: left, element: "", user: event.user, visit: state.visit, at: time, properties: event.properties)
            }
            if screen == state.previous {
                if stayed <= thresholds.uTurnSeconds {
                    report(
                        .uTurn, screen: left, element: screen, user: event.user, visit: state.visit, at: time, properties: event.properties)
                }
                if stayed <= thresholds.backAndForthSeconds {
                    let returns = state.returns[screen + "\t" + left, default: 0] + 1
                    state.returns[screen + "\t" + left] = returns
                    // Once a pair, either way round: A, B, A, B, A, B has come back to both.
                    if returns == thresholds.backAndForthReturns, state.returns[left + "\t" + screen, default: 0] < returns {
                        report(
                            .backAndForth, screen: screen, element: left, user: event.user, visit: state.visit, at: time,
                            properties: event.properties)
                    }
                }
            }
        }
        state.previous = left
        state.screen = screen
        state.screenSince = time
        state.longestGap = 0
        state.path.append(screen)
        state.burst = nil
    }

    private mutating func searched(_ properties: String, _ state: inout UserState, _ event: StoredEvent) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(properties.utf8)) as? [String: Any],
            let query = (object["query"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines), !query.isEmpty
        else { return }
        let results = (object["results"] as? NSNumber)?.doubleValue ?? (object["results"] as? String).flatMap(Double.init)
        guard results == 0 else { return }
        let screen = (object["screen"] as? String) ?? state.screen
        report(
            .failedSearch, screen: screen, element: event.name, user: event.user, visit: state.visit, at: event.timestamp,
            properties: properties, query: String(query.prefix(100)))
    }

    private mutating func endVisit(_ state: inout UserState, user: String) {
        guard !state.path.isEmpty else { return }
        var counted = Set<ScreenStep>()
        for (index, screen) in state.path.enumerated() {
            counted.insert(ScreenStep(from: screen, to: index + 1 < state.path.count ? state.path[index + 1] : ""))
        }
        for step in counted { steps[step, default: 0] += 1 }
        ends[state.path.last!, default: []].append(VisitEnd(user: user, visit: state.visit, at: state.lastAt, properties: state.properties))
        state.path.removeAll()
    }

    private mutating func report(
        _ signal: StruggleSignal, screen: String, element: String, user: String, visit: Int64, at time: Int64, properties: String?,
        query: String? = nil
    ) {
        let context = contexts.context(properties).properties
        occurrences.append(
            StruggleOccurrence(
                signal: signal, screen: screen, element: element, user: user, visit: visit, at: time, platform: context["platform"] ?? "",
                locale: context["locale"] ?? "", query: query))
    }
}
