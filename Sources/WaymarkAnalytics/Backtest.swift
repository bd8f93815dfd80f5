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
/// This is the console's backtest of a draft tip. It reads the events once, in time order, a page
/// at a time, with one small ``Evaluator`` per user, so memory grows with users, not events. Each
/// user's rules start empty at the period's start: history from before it is not replayed. A
/// user's rules are checked at each of their events and, when time alone changes a rule
/// (`NOT tap within 1h`), at the moment it flips on a day of the user's events (from their first
/// event that day to its end), as a device in use would show the tip then; a flip on a day the
/// user did not open the app counts at their next event. Rules that compare what the device
/// reports (`app.version >= v1.3`, `device.platform == "android"`, `device.model`,
/// `user.locale`) read it from each event's recorded context, as the device's engine read it
/// then. The scheduler's own limits (one tip per container, the display frequency) are not
/// applied: this counts who could have seen a tip, not who was shown it. A live tip's eligible
/// counts are the same replay over each user's whole history, kept day by day (``Eligibility``).
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

    let watch: TipWatch
    /// The catalog's segments, which the tips' targeting may name.
    let segments: [Segment]

    /// A replay of these tips (the catalog's `segments` for their targeting). `countingFrom`, per
    /// tip, is when it was first published: a user counts as able to see a live tip only from
    /// then, at their first event after it if its trigger still holds, as their device would have
    /// shown it once it had the catalog; nil (or none given) replays the whole period, as the
    /// backtest of a draft does.
    public init(tips: [CatalogTip], segments: [Segment] = [], countingFrom: [Int64?] = []) {
        watch = TipWatch(tips: tips, countingFrom: countingFrom)
        self.segments = segments
    }

    public func run(store: any AnalyticsStore & UserStore, app: String, period: Period) async throws -> [Outcome] {
        let tips = watch.tips
        // Each user's state lives in one array, found by one dictionary lookup per event; events
        // are read in place from the page (a copy of each would retain its seven strings).
        var positions: [String: Int] = [:]
        var users: [TipWatch.User] = []
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
                        users.append(watch.newUser(user))
                    }
                    // Mutated in place: a copy out of the array would copy the evaluator's storage.
                    watch.play(events[index], &users[position], &contexts, targeted)
                }
            }
        }
        for index in users.indices { watch.settle(&users[index], before: period.to, &contexts, targeted) }
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
}

/// Tips' rules over one user's events at a time, as the user's device would have evaluated them:
/// the step the backtest of a period, the eligible counts kept day by day and the replay of
/// segments share.
///
/// Segments given to it are watched beside the tips, by their ``WaymarkCatalog/Segment/boundedRule``
/// (their attributes set at each user's first event of a day, as the server keeps them then): each
/// user's latest check at which each held. Tips' targeting then reads `segment.<name>` from them
/// at that moment, as delivery reads the members the server refreshed.
struct TipWatch: Sendable {
    let tips: [CatalogTip]
    let segments: [Segment]
    /// The segments' rules follow the tips' (a trigger and a dismissal each) from this index.
    let segmentRules: Int
    /// The attributes (`user.<name>`) the segments compare.
    let attributeNames: [String]
    /// The tips' rules compiled once: each user's evaluator is a copy, sharing the compiled graph
    /// and copying only the state it changes.
    let compiled: Evaluator
    /// The reported context the rules compare (`app.version`...), by path and property; empty
    /// when they compare none, and the replay reads no context.
    let reported: [(path: String, key: String)]
    /// Per tip, the moment from which a user may count as having seen it (ms since 1970).
    let from: [Int64]
    /// The compiled evaluator's term keys, and each one's position: a kept state names a term
    /// by its position.
    let termKeys: [String]
    let termIndex: [String: Int]

    init(tips: [CatalogTip], countingFrom: [Int64?], segments: [Segment] = []) {
        self.tips = tips
        self.segments = segments
        from = tips.indices.map { $0 < countingFrom.count ? countingFrom[$0] ?? .min : .min }
        let rules = tips.flatMap { [$0.tip.trigger, $0.tip.dismissal ?? .constant(false)] }
        segmentRules = rules.count
        var names: Set<String> = []
        for segment in segments { SegmentReplay.attributes(in: segment.rule, into: &names) }
        attributeNames = names.sorted()
        compiled = Evaluator(rules: rules + segments.map(\.boundedRule))
        termKeys = compiled.termKeys
        termIndex = Dictionary(termKeys.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
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

    struct User {
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
        /// The reported context the evaluator has, in the order of ``TipWatch/reported``.
        var context: [String?] = []
        /// The UTC day of the user's latest event.
        var day: Int64?
        /// Kept only by a replay that marks days (``Eligibility``): per tip, where the user was
        /// the first moment of their current day at which the tip could have shown to them (it
        /// showed or would have, and was not yet done); empty otherwise.
        var eligibleToday: [PlatformVersion?] = []
        /// Per segment, the latest check (ms since 1970) at which it held; not kept, as each
        /// day's members are those whose latest is in that day.
        var segmentHeldAt: [Int64?] = []
    }

    func newUser(_ user: String, markingDays: Bool = false) -> User {
        User(
            evaluator: compiled, user: user,
            seen: Array(repeating: nil, count: tips.count), done: Array(repeating: false, count: tips.count),
            actedAt: Array(repeating: nil, count: tips.count),
            eligibleToday: markingDays ? Array(repeating: nil, count: tips.count) : [],
            segmentHeldAt: Array(repeating: nil, count: segments.count)
        )
    }

    /// Gives the evaluator the user's attributes the segments compare, as `targeted` has them.
    func setAttributes(_ state: inout User, at time: Int64, _ targeted: TargetedUsers) {
        for name in attributeNames {
            state.evaluator.setContext(
                "user." + name, to: targeted.attribute(name, of: state.user), at: Date(millisecondsSince1970: time))
        }
    }

    /// Whether each segment holds for the user at `time`, at or after their latest event, with
    /// their attributes as `targeted` has them.
    func segmentsHold(_ state: inout User, at time: Int64, _ targeted: TargetedUsers) -> [Bool] {
        setAttributes(&state, at: time, targeted)
        state.evaluator.advance(to: Date(millisecondsSince1970: time))
        return segments.indices.map { state.evaluator.value(ofRule: segmentRules + $0) }
    }

    func play(_ event: StoredEvent, _ state: inout User, _ contexts: inout ContextCache, _ targeted: TargetedUsers) {
        let day = Period.startOfDay(event.timestamp)
        if state.day != day {
            if let last = state.day { settle(&state, before: last + Period.day, &contexts, targeted) }
            state.day = day
            // What time alone changed since the user's last day counts from this event: nobody
            // had the app open to be shown a tip.
            state.evaluator.advance(to: Date(millisecondsSince1970: event.timestamp))
            setAttributes(&state, at: event.timestamp, targeted)
        }
        // Rules that time alone makes true (`NOT tap within 1h`) count at the moment they flip.
        while let next = state.evaluator.nextChange, next.millisecondsSince1970 <= event.timestamp {
            advance(&state, to: next, &contexts, targeted)
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

    /// Checks the rules at the moments time alone changes them after the user's latest event,
    /// before `end` (at most the end of that event's day).
    func settle(_ state: inout User, before end: Int64, _ contexts: inout ContextCache, _ targeted: TargetedUsers) {
        guard let day = state.day else { return }
        let end = min(end, day + Period.day)
        while let next = state.evaluator.nextChange, next.millisecondsSince1970 < end {
            advance(&state, to: next, &contexts, targeted)
        }
    }

    /// Lets time pass to a moment a window ends, and checks there the tips whose rules changed
    /// then: for the others the moment adds nothing (one published since the user's last check
    /// counts at their next event), so that what counts for a tip does not depend on the windows
    /// of the rules beside it.
    private func advance(_ state: inout User, to next: Date, _ contexts: inout ContextCache, _ targeted: TargetedUsers) {
        let before = (0..<segmentRules).map { state.evaluator.value(ofRule: $0) }
        state.evaluator.advance(to: next)
        check(&state, at: next.millisecondsSince1970, &contexts, targeted, before: before)
    }

    /// Gives the evaluator the context the event reports where it changed (a device updated, a
    /// user who changed the phone's language), at the event's moment, before the event.
    private func setContext(_ event: StoredEvent, _ state: inout User, _ contexts: inout ContextCache) {
        let properties = contexts.context(event.properties).properties
        if state.context.isEmpty { state.context = Array(repeating: nil, count: reported.count) }
        for (index, (path, key)) in reported.enumerated() where properties[key] != state.context[index] {
            state.context[index] = properties[key]
            state.evaluator.setContext(
                path, to: properties[key].map(ContextValue.string), at: Date(millisecondsSince1970: event.timestamp))
        }
    }

    /// Checks the tips and the segments; at a moment a window ended, only the tips one of whose
    /// rules differs from `before` (the tips' rules' values just before it, in the compiled order).
    private func check(
        _ state: inout User, at time: Int64, _ contexts: inout ContextCache, _ targeted: TargetedUsers, before: [Bool]? = nil
    ) {
        let marking = !state.eligibleToday.isEmpty
        for tip in tips.indices where !state.done[tip] {
            if let before, state.evaluator.value(ofRule: tip * 2) == before[tip * 2],
                state.evaluator.value(ofRule: tip * 2 + 1) == before[tip * 2 + 1]
            {
                continue
            }
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
            // Shown, or still showing until this moment: the user could have seen it today.
            if marking, state.seen[tip] != nil, state.eligibleToday[tip] == nil { state.eligibleToday[tip] = state.platformVersion }
        }
        for segment in segments.indices where state.evaluator.value(ofRule: segmentRules + segment) {
            state.segmentHeldAt[segment] = time
        }
    }

    private func admits(_ tip: CatalogTip, _ state: User, _ contexts: inout ContextCache, _ targeted: TargetedUsers) -> Bool {
        // Only a targeting rule reads the context; a rollout needs the user alone.
        guard tip.targeting.rule != nil else { return Resolver.admits(tip.targeting, id: tip.id, context: [:], user: state.user) }
        var context = contexts.context(state.properties).values(user: state.user).merging(targeted.values(of: state.user)) {
            reported, _ in reported
        }
        for (index, segment) in segments.enumerated() where state.evaluator.value(ofRule: segmentRules + index) {
            context["segment." + segment.name] = .bool(true)
        }
        return Resolver.admits(tip.targeting, id: tip.id, context: context, user: state.user)
    }
}
