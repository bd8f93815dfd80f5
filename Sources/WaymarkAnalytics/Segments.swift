import Foundation
import WaymarkAPI
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules
import WaymarkStore

/// Who is in an app's segments: each user's recorded events replayed through the segments'
/// rules (``WaymarkCatalog/Segment/boundedRule``), in time order, with their attributes (as the
/// server keeps them now) as `user.<name>`.
///
/// The events are read once, a page at a time, with one small ``Evaluator`` per user (copies of
/// one compiled graph), through the step ``Backtest`` takes (``TipWatch``). History reaches back
/// ``WaymarkCatalog/Segment/historyDays`` before the moment or period asked about, as far as any
/// of the rules reads.
public struct SegmentReplay: Sendable {
    /// When membership is decided.
    public enum Moment: Hashable, Sendable {
        /// At one moment (ms since 1970): the segment refresher's question. Every user with an
        /// event since the start of the UTC day ``WaymarkCatalog/Segment/historyDays`` before it,
        /// or with an attribute a segment reads, is asked. The live catalog's segments are read
        /// this way from the kept days (``Eligibility/segmentMembers(at:store:app:replaying:)``).
        case at(Int64)
        /// At any of the users' moments in the app during the period: the console's "matched in
        /// this period". The users asked are those with an event in the period; a segment counts
        /// for one at their events, and where time alone makes it hold (`NOT purchase within 7d`),
        /// at that moment on a day of their events, from the first of them that day on (on a day
        /// without any, at their next event, if it still holds then), as ``Backtest`` checks tips.
        /// The live catalog's segments are kept day by day this way (``Eligibility``).
        case during(Period)
    }

    public struct Outcome: Hashable, Sendable {
        /// The users asked.
        public var users = 0
        /// Per segment, in the order given: the users it held for.
        public var members: [Set<String>]

        public init(users: Int = 0, members: [Set<String>]) {
            self.users = users
            self.members = members
        }
    }

    let watch: TipWatch
    var segments: [Segment] { watch.segments }

    public init(segments: [Segment]) {
        watch = TipWatch(tips: [], countingFrom: [], segments: segments)
    }

    /// Who was in each segment during the period (``Moment/during(_:)``), in the order given:
    /// those `kept` keeps (the live catalog's, by the same rule) read from its kept days when
    /// they are, the others replayed together from `store`. `users` is the replay's count of
    /// users asked, nil when nothing was replayed.
    public static func members(
        of segments: [Segment], store: any AnalyticsStore & UserStore, app: String, period: Period,
        kept: (eligibility: Eligibility, store: any Store)?
    ) async throws -> (members: [Set<String>], users: Int?) {
        var read: [String: Set<String>] = [:]
        if let kept, segments.contains(where: kept.eligibility.keeps),
            let members = try await kept.eligibility.segmentMembers(store: kept.store, app: app, period: period)
        {
            for segment in segments where kept.eligibility.keeps(segment) { read[segment.name] = members[segment.name] }
        }
        let replayed = segments.filter { read[$0.name] == nil }
        guard !replayed.isEmpty else { return (segments.map { read[$0.name]! }, nil) }
        let outcome = try await SegmentReplay(segments: replayed).run(store: store, app: app, .during(period))
        var members = outcome.members.makeIterator()
        return (segments.map { read[$0.name] ?? members.next()! }, outcome.users)
    }

    /// Where the history read for a moment starts: the start of the UTC day
    /// ``WaymarkCatalog/Segment/historyDays`` before it. The users asked at a moment are those
    /// with an event since then.
    static func historyStart(_ moment: Int64) -> Int64 {
        Period.startOfDay(moment - Int64(Segment.historyDays) * Period.day)
    }

    /// The attribute names a rule compares (`user.<name>`), added to `names`.
    static func attributes(in rule: Rule, into names: inout Set<String>) {
        switch rule {
        case .constant, .sequence, .count: break
        case .not(let operand): attributes(in: operand, into: &names)
        case .and(let operands), .or(let operands): for operand in operands { attributes(in: operand, into: &names) }
        case .compare(let path, _, _), .oneOf(let path, _): if isAttribute(path) { names.insert(path.components[1]) }
        }
    }

    /// - Parameter user: only this user's events and attributes; everyone's when nil.
    public func run(store: any AnalyticsStore & UserStore, app: String, _ moment: Moment, user only: String? = nil) async throws
        -> Outcome
    {
        let end: Int64
        let checkFrom: Int64
        switch moment {
        case .at(let time): (checkFrom, end) = (time, time)
        case .during(let period): (checkFrom, end) = (period.from, period.to)
        }
        let readsHistory = segments.contains(where: \.readsHistory)
        let history = Period(from: readsHistory ? Self.historyStart(checkFrom) : checkFrom, to: end)
        let targeted = try await TargetedUsers(
            rules: segments.map(\.rule), segments: [], store: store, app: app, period: history, user: only)
        var positions: [String: Int] = [:]
        var users: [TipWatch.User] = []
        var active: [Bool] = []
        var contexts = ContextCache()
        let watch = self.watch
        try await store.forEachPage(app: app, period: history, user: only) { page in
            for event in page {
                let position: Int
                if let known = positions[event.user] {
                    position = known
                } else {
                    position = users.count
                    positions[event.user] = position
                    users.append(watch.newUser(event.user))
                    active.append(false)
                }
                watch.play(event, &users[position], &contexts, targeted)
                if event.timestamp >= checkFrom { active[position] = true }
            }
        }
        var outcome = Outcome(members: Array(repeating: [], count: segments.count))
        for index in users.indices {
            let held: [Bool]
            switch moment {
            // Only the moment counts: what held earlier and no longer does is not membership.
            case .at: held = watch.segmentsHold(&users[index], at: end, targeted)
            case .during:
                guard active[index] else { continue }
                watch.settle(&users[index], before: end, &contexts, targeted)
                held = users[index].segmentHeldAt.map { ($0 ?? .min) >= checkFrom }
            }
            outcome.users += 1
            for segment in segments.indices where held[segment] { outcome.members[segment].insert(users[index].user) }
        }
        if case .at = moment {
            // Users with attributes and no recent events are asked too, with no history.
            for user in targeted.attributed where positions[user] == nil {
                var state = watch.newUser(user)
                let held = watch.segmentsHold(&state, at: end, targeted)
                outcome.users += 1
                for segment in segments.indices where held[segment] { outcome.members[segment].insert(user) }
            }
        }
        return outcome
    }
}

/// What targeting reads of the users in a replay of a period: the attributes it names, as the
/// server keeps them now, and, for the segments it names, whether each user was in them at some
/// moment of the period. Replays that apply targeting (the backtest, the eligible counts, the
/// eligibility debugger) see what delivery would have seen.
struct TargetedUsers {
    private var attributes: [String: [String: ContextValue]] = [:]
    private var segments: [String: [String]] = [:]

    init(
        rules: [Rule], segments catalogSegments: [Segment], store: any AnalyticsStore & UserStore, app: String, period: Period,
        user: String? = nil
    ) async throws {
        var names: Set<String> = []
        for rule in rules { SegmentReplay.attributes(in: rule, into: &names) }
        names.subtract(AttributeLimits.reservedNames)
        if !names.isEmpty {
            attributes = try await store.attributes(app: app, named: names.sorted())
            if let user { attributes = attributes.filter { $0.key == user } }
        }
        let named = Set(rules.flatMap { segmentNames(in: $0) })
        let segments = catalogSegments.filter { named.contains($0.name) }
        guard !segments.isEmpty else { return }
        let outcome = try await SegmentReplay(segments: segments).run(store: store, app: app, .during(period), user: user)
        for (segment, members) in zip(segments, outcome.members) {
            for member in members { self.segments[member, default: []].append(segment.name) }
        }
    }

    /// The users with any of the attributes read.
    var attributed: Dictionary<String, [String: ContextValue]>.Keys { attributes.keys }

    /// The user's attribute `name`, if they have it and it was read.
    func attribute(_ name: String, of user: String) -> ContextValue? { attributes[user]?[name] }

    /// The user's `user.<name>` attributes and `segment.<name>` flags, as ``WaymarkAPI/ClientContext/values`` has them.
    func values(of user: String) -> [String: ContextValue] {
        var values: [String: ContextValue] = [:]
        for (name, value) in attributes[user] ?? [:] { values["user." + name] = value }
        for name in segments[user] ?? [] { values["segment." + name] = .bool(true) }
        return values
    }
}
