import Foundation
import WaymarkAPI
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules
import WaymarkStore

/// Who is in an app's segments: each user's recorded events replayed through the segments'
/// rules, in time order, with their attributes (as the server keeps them now) as `user.<name>`.
///
/// The events are read once, a page at a time, with one small ``Evaluator`` per user (copies of
/// one compiled graph), as ``Backtest`` reads them. History reaches back
/// ``WaymarkCatalog/Segment/historyDays`` before the moment or period asked about.
public struct SegmentReplay: Sendable {
    /// When membership is decided.
    public enum Moment: Hashable, Sendable {
        /// At one moment (ms since 1970): the segment refresher's question. Every user with an
        /// event in the history before it, or with an attribute a segment reads, is asked.
        case at(Int64)
        /// At any moment of the period: the console's "matched in this period". The users asked
        /// are those with an event in the period.
        case during(Period)
    }

    public struct Outcome: Hashable, Sendable {
        /// The users asked.
        public var users = 0
        /// Per segment, in the order given: the users it held for.
        public var members: [Set<String>]
    }

    let segments: [Segment]
    let compiled: Evaluator
    let attributeNames: [String]

    public init(segments: [Segment]) {
        self.segments = segments
        compiled = Evaluator(rules: segments.map(\.rule))
        var names: Set<String> = []
        for segment in segments { Self.attributes(in: segment.rule, into: &names) }
        attributeNames = names.sorted()
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

    private struct UserState {
        var evaluator: Evaluator
        var active = false
        var matched: [Bool]
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
        let history = Period(from: readsHistory ? checkFrom - Int64(Segment.historyDays) * Period.day : checkFrom, to: end)
        var attributes = try await store.attributes(app: app, named: attributeNames)
        if let only { attributes = attributes.filter { $0.key == only } }
        var positions: [String: Int] = [:]
        var users: [UserState] = []
        var names: [String] = []
        func newState(_ user: String, at time: Int64) -> UserState {
            var evaluator = compiled
            for (name, value) in attributes[user] ?? [:] {
                evaluator.setContext("user." + name, to: value, at: Date(millisecondsSince1970: time))
            }
            return UserState(evaluator: evaluator, matched: Array(repeating: false, count: segments.count))
        }
        func check(_ state: inout UserState) {
            for index in segments.indices where !state.matched[index] && state.evaluator.value(ofRule: index) {
                state.matched[index] = true
            }
        }
        var contexts = ContextCache()
        let testsProperties = compiled.testsProperties
        try await store.forEachPage(app: app, period: history, user: only) { page in
            for event in page {
                let position: Int
                if let known = positions[event.user] {
                    position = known
                } else {
                    position = users.count
                    positions[event.user] = position
                    names.append(event.user)
                    users.append(newState(event.user, at: event.timestamp))
                }
                // Rules that time alone changes (`NOT purchase within 7d`) count at the moment they flip.
                while let next = users[position].evaluator.nextChange, next.millisecondsSince1970 <= event.timestamp {
                    users[position].evaluator.advance(to: next)
                    if next.millisecondsSince1970 >= checkFrom { check(&users[position]) }
                }
                let properties = testsProperties ? contexts.context(event.properties).typed : [:]
                users[position].evaluator.record(
                    event.name, target: event.target, properties: properties, at: Date(millisecondsSince1970: event.timestamp))
                if event.timestamp >= checkFrom {
                    users[position].active = true
                    check(&users[position])
                }
            }
        }
        var outcome = Outcome(members: Array(repeating: [], count: segments.count))
        for index in users.indices {
            switch moment {
            case .at:
                // Only the moment counts: what held earlier and no longer does is not membership.
                users[index].evaluator.advance(to: Date(millisecondsSince1970: end))
                users[index].matched = segments.indices.map { users[index].evaluator.value(ofRule: $0) }
            case .during:
                guard users[index].active else { continue }
                while let next = users[index].evaluator.nextChange, next.millisecondsSince1970 < end {
                    users[index].evaluator.advance(to: next)
                    check(&users[index])
                }
            }
            outcome.users += 1
            for segment in segments.indices where users[index].matched[segment] { outcome.members[segment].insert(names[index]) }
        }
        if case .at = moment {
            // Users with attributes and no recent events are asked too, with no history.
            for (user, _) in attributes where positions[user] == nil {
                var state = newState(user, at: end)
                state.evaluator.advance(to: Date(millisecondsSince1970: end))
                outcome.users += 1
                for segment in segments.indices where state.evaluator.value(ofRule: segment) { outcome.members[segment].insert(user) }
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

    /// The user's `user.<name>` attributes and `segment.<name>` flags, as ``WaymarkAPI/ClientContext/values`` has them.
    func values(of user: String) -> [String: ContextValue] {
        var values: [String: ContextValue] = [:]
        for (name, value) in attributes[user] ?? [:] { values["user." + name] = value }
        for name in segments[user] ?? [] { values["segment." + name] = .bool(true) }
        return values
    }
}
