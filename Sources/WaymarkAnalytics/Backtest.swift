import Foundation
import WaymarkAPI
import WaymarkCatalog
import WaymarkDelivery
import WaymarkEngine
import WaymarkRules
import WaymarkStore

/// Plays the recorded events of a period through tips' rules, user by user, as each user's device
/// would have: who would have seen each tip (its targeting admits the user and its trigger held
/// before its dismissal), when, and who then did what it teaches (its dismissal became true).
///
/// This is both the console's backtest of a draft tip and the "eligible" count of a live one. It
/// reads the events once, in time order, a page at a time, with one small ``Evaluator`` per user,
/// so memory grows with users, not events. Each user's rules start empty at the period's start:
/// history from before it is not replayed. Rules that compare what the device reports
/// (`app.version >= v1.3`, `device.platform == "android"`, `device.model`, `user.locale`) read it
/// from each event's recorded context, as the device's engine read it then. The scheduler's own
/// limits (one tip per container, the display frequency) are not applied: this counts who could
/// have seen a tip, not who was shown it.
public struct Backtest: Sendable {
    public struct Outcome: Hashable, Sendable {
        /// Users with at least one event in the period.
        public var activeUsers = 0
        /// Users who would have seen the tip.
        public var users = 0
        /// Of them, per platform and app version at that moment.
        public var byPlatform: [PlatformVersion: Int] = [:]
        /// Of them, per UTC day (ms since 1970) of the first moment they could have seen it.
        public var byDay: [Int64: Int] = [:]
        /// Of them, those who then did what the tip teaches.
        public var acted = 0
        /// Users who did it before the tip would have shown: it would never have shown to them.
        public var alreadyDid = 0
        /// Median time from seeing the tip to doing it, in seconds.
        public var medianSecondsToAct: Double?

        public init() {}
    }

    let tips: [CatalogTip]
    /// The catalog's segments, which the tips' targeting may name.
    let segments: [Segment]
    /// The tips' rules compiled once: each user's evaluator is a copy, sharing the compiled graph
    /// and copying only the state it changes.
    let compiled: Evaluator
    /// The reported context the rules compare (`app.version`...), by path and property; empty
    /// when they compare none, and the replay reads no context.
    let reported: [(path: String, key: String)]
    /// Per tip, the moment from which a user may count as having seen it (ms since 1970).
    let from: [Int64]

    /// A replay of these tips (the catalog's `segments` for their targeting). `countingFrom`, per
    /// tip, is when it was first published: a user counts as able to see a live tip only from
    /// then, at their first event after it if its trigger still holds, as their device would have
    /// shown it once it had the catalog; nil (or none given) replays the whole period, as the
    /// backtest of a draft does.
    public init(tips: [CatalogTip], segments: [Segment] = [], countingFrom: [Int64?] = []) {
        self.tips = tips
        self.segments = segments
        from = tips.indices.map { $0 < countingFrom.count ? countingFrom[$0] ?? .min : .min }
        let rules = tips.flatMap { [$0.tip.trigger, $0.tip.dismissal ?? .constant(false)] }
        compiled = Evaluator(rules: rules)
        let compared = rules.reduce(into: Set<String>()) { $0.formUnion(Self.comparedPaths($1)) }
        reported = ReportedContext.paths.filter { compared.contains($0.0) }.map { (path: $0.0, key: $0.1) }
    }

    /// The context paths a rule compares.
    static func comparedPaths(_ rule: Rule) -> Set<String> {
        switch rule {
        case .constant, .sequence, .count: []
        case .not(let operand): comparedPaths(operand)
        case .and(let operands), .or(let operands): operands.reduce(into: []) { $0.formUnion(comparedPaths($1)) }
        case .compare(let path, _, _), .oneOf(let path, _): [path.description]
        }
    }

    private struct UserState {
        var evaluator: Evaluator
        var user: String
        /// The properties of the user's latest event, parsed only when a tip's targeting needs
        /// them (most events change no tip), and where the user was then (the stored columns).
        var properties: String?
        var platformVersion = PlatformVersion(platform: nil, appVersion: nil)
        /// Per tip: when it would have shown and where the user was then, whether it is decided
        /// (its dismissal held), and when the user did what it teaches.
        var seen: [(at: Int64, platformVersion: PlatformVersion)?]
        var done: [Bool]
        var actedAt: [Int64?]
        /// The reported context the evaluator has, in the order of ``Backtest/reported``.
        var context: [String?] = []
    }

    public func run(store: any AnalyticsStore & UserStore, app: String, period: Period) async throws -> [Outcome] {
        // Each user's state lives in one array, found by one dictionary lookup per event; events
        // are read in place from the page (a copy of each would retain its seven strings).
        var positions: [String: Int] = [:]
        var users: [UserState] = []
        var contexts = ContextCache()
        let targeted = try await TargetedUsers(
            rules: tips.compactMap(\.targeting.rule), segments: segments, store: store, app: app, period: period)
        try await store.forEachPage(app: app, period: period) { page in
            page.withUnsafeBufferPointer { events in
                for index in events.indices {
                    let user = events[index].user
                    let position: Int
                    if let known = positions[user] {
                        position = known
                    } else {
                        position = users.count
                        positions[user] = position
                        users.append(newState(user))
                    }
                    // Mutated in place: a copy out of the array would copy the evaluator's storage.
                    play(events[index], &users[position], &contexts, targeted)
                }
            }
        }
        return tips.indices.map { tip in
            var outcome = Outcome()
            outcome.activeUsers = users.count
            var delays: [Double] = []
            for state in users {
                if let seen = state.seen[tip] {
                    outcome.users += 1
                    outcome.byPlatform[seen.platformVersion, default: 0] += 1
                    outcome.byDay[Period.startOfDay(seen.at), default: 0] += 1
                    if let acted = state.actedAt[tip] {
                        outcome.acted += 1
                        delays.append(Double(acted - seen.at) / 1000)
                    }
                } else if state.done[tip] {
                    outcome.alreadyDid += 1
                }
            }
            delays.sort()
            if !delays.isEmpty { outcome.medianSecondsToAct = delays[delays.count / 2] }
            return outcome
        }
    }

    private func newState(_ user: String) -> UserState {
        UserState(
            evaluator: compiled, user: user,
            seen: Array(repeating: nil, count: tips.count), done: Array(repeating: false, count: tips.count),
            actedAt: Array(repeating: nil, count: tips.count)
        )
    }

    private func play(_ event: StoredEvent, _ state: inout UserState, _ contexts: inout ContextCache, _ targeted: TargetedUsers) {
        // Rules that time alone makes true (`NOT tap within 1h`) count at the moment they flip.
        while let next = state.evaluator.nextChange, next.millisecondsSince1970 <= event.timestamp {
            state.evaluator.advance(to: next)
            check(&state, at: next.millisecondsSince1970, &contexts, targeted)
        }
        state.properties = event.properties
        state.platformVersion = PlatformVersion(platform: event.platform, appVersion: event.appVersion)
        if !reported.isEmpty { setContext(event, &state, &contexts) }
        // Properties are parsed only for catalogs whose rules test them.
        let properties = compiled.testsProperties ? contexts.context(event.properties).typed : [:]
        state.evaluator.record(
            event.name, target: event.target, properties: properties, at: Date(millisecondsSince1970: event.timestamp))
        check(&state, at: event.timestamp, &contexts, targeted)
    }

    /// Gives the evaluator the context the event reports where it changed (a device updated, a
    /// user who changed the phone's language), at the event's moment, before the event.
    private func setContext(_ event: StoredEvent, _ state: inout UserState, _ contexts: inout ContextCache) {
        let properties = contexts.context(event.properties).properties
        if state.context.isEmpty { state.context = Array(repeating: nil, count: reported.count) }
        for (index, (path, key)) in reported.enumerated() where properties[key] != state.context[index] {
            state.context[index] = properties[key]
            state.evaluator.setContext(
                path, to: properties[key].map(ContextValue.string), at: Date(millisecondsSince1970: event.timestamp))
        }
    }

    private func check(_ state: inout UserState, at time: Int64, _ contexts: inout ContextCache, _ targeted: TargetedUsers) {
        for tip in tips.indices where !state.done[tip] {
            let dismissed = state.evaluator.value(ofRule: tip * 2 + 1)
            if state.seen[tip] == nil {
                if dismissed {
                    state.done[tip] = true
                } else if time >= from[tip], state.evaluator.value(ofRule: tip * 2), admits(tips[tip], state, &contexts, targeted) {
                    state.seen[tip] = (time, state.platformVersion)
                }
            } else if dismissed {
                state.done[tip] = true
                state.actedAt[tip] = time
            }
        }
    }

    private func admits(_ tip: CatalogTip, _ state: UserState, _ contexts: inout ContextCache, _ targeted: TargetedUsers) -> Bool {
        // Only a targeting rule reads the context; a rollout needs the user alone.
        let context =
            tip.targeting.rule == nil
            ? [:]
            : contexts.context(state.properties).values(user: state.user).merging(targeted.values(of: state.user)) { reported, _ in
                reported
            }
        return Resolver.admits(tip.targeting, id: tip.id, context: context, user: state.user)
    }
}
