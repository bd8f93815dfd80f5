import Foundation
import WaymarkAPI
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules
import WaymarkStore

/// The live tips' eligible counts: who could have been shown each tip, replayed over each user's
/// whole history (not only the period's) and kept day by day (``WaymarkStore/EligibilityStore``),
/// so that a day's replay starts from the states kept at the end of each user's day before it.
///
/// A user counts as eligible on a day when, at one of their checks that day (their events, and
/// the moments time alone flips a rule on a day they used the app, as in ``Backtest``), the tip
/// had shown or would have and its dismissal had not yet held: the tip was waiting for them. Over
/// a period, a user counts once, by the platform and app version of their first such day in it.
/// The counts are by whole UTC days: a period is widened to the days it touches.
///
/// The catalog's segments are watched in the same replay, and each day keeps who was in each
/// (at one of their moments in the app that day, as ``SegmentReplay/Moment/during(_:)`` has it):
/// a breakdown by a segment of the live catalog reads its members from the kept days
/// (``segmentMembers(store:app:period:replaying:)``).
///
/// Days are folded once their rollups are (``RollupFolder``); a report reads the kept days of its
/// period and replays the days after the last one kept, from the kept states, without keeping
/// them. Targeting and the segments read the attributes as they are when a day is replayed, and
/// targeting reads whether the user was in a segment at the moment of each check.
public struct Eligibility: Sendable {
    let watch: TipWatch
    /// Names the rules the kept days are of: the tips' ids, rules, targeting and first
    /// publication, and the segments, as a digest.
    public let ruleset: String

    /// The name a segment's members go by among a kept day's sets, beside the tips' ids.
    static func setName(_ segment: Segment) -> String { "segment:" + segment.name }

    /// Days over which each user's kept states are whole: a late event up to that far back
    /// refolds the days from its own; an older one, every kept day.
    let window: Int

    /// The eligible counts of these tips (the catalog's `segments` for their targeting), each
    /// counted from when it was first published (`countingFrom`, ms since 1970). Each user's
    /// states are kept whole over the last `window` days kept (a week: longer than phones hold
    /// events offline, mostly), and before them only the latest.
    public init(tips: [CatalogTip], segments: [Segment], countingFrom: [Int64?], window: Int = 7) {
        watch = TipWatch(tips: tips, countingFrom: countingFrom, segments: segments)
        self.window = window
        var text = "eligibility 2\n"
        for (tip, from) in zip(tips, watch.from) {
            text += "tip \(tip.id)\n\(tip.tip.trigger)\n\(tip.tip.dismissal?.description ?? "-")\n"
            text += "\(tip.targeting.rule?.description ?? "-")\n\(tip.targeting.rollout)\n\(from)\n"
        }
        for segment in segments { text += "segment \(segment.name)\n\(segment.rule)\n" }
        ruleset = Self.digest(text)
    }

    /// The app's live tips, each counted from its first publication; nil when nothing is live.
    public static func live(app: String, store: any Store) async throws -> Eligibility? {
        guard let version = try await store.liveVersion(app: app),
            let catalog = try? CatalogDocument.parse(version.document, file: "version \(version.number)")
        else { return nil }
        let published = try await firstPublished(app: app, store: store)
        return Eligibility(tips: catalog.tips, segments: catalog.segments, countingFrom: catalog.tips.map { published[$0.id] })
    }

    /// When each tip of the app's published versions was first published, in ms since 1970: a
    /// live tip is eligible only from then, not over the days before it existed. Each version's
    /// tips are parsed once in the process's life (``PublishedTips``).
    public static func firstPublished(app: String, store: any Store) async throws -> [String: Int64] {
        var first: [String: Int64] = [:]
        for summary in try await store.versions(app: app).reversed() {
            guard let version = try await store.version(app: app, number: summary.number) else { continue }
            for id in await PublishedTips.shared.ids(in: version.document, file: "version \(version.number)") where first[id] == nil {
                first[id] = version.publishedAt.millisecondsSince1970
            }
        }
        return first
    }

    /// 64-bit FNV-1a, as hex: a name for a text, not a secret.
    static func digest(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    // MARK: Folding

    /// Folds the app's due days (their rollups folded, the days before them kept), oldest first,
    /// at most `limit`; answers how many it kept. A day whose events changed meanwhile is not kept.
    @discardableResult
    public func fold(store: any Store, app: String, limit: Int) async throws -> Int {
        let progress = try await store.eligibilityProgress(app: app, ruleset: ruleset, through: .max)
        var kept = 0
        for day in progress.due.prefix(limit) {
            let replayed = try await replay(Period(from: day, to: day + Period.day), store: store, app: app, before: [:])
            let states = replayed.users.map { (user: $0.key, state: KeptState(of: $0.value).encoded(terms: watch.termIndex)) }
            let sets = replayed.sets(day: day, watch: watch)
            guard
                try await store.keepEligibility(
                    app: app, ruleset: ruleset, EligibilityDay(day: day, states: states, sets: sets, window: window), epoch: progress.epoch)
            else { break }
            kept += 1
        }
        return kept
    }

    /// One day's replay: each user's state at its end, and who could have been shown each tip.
    struct Day {
        var users: [String: TipWatch.User] = [:]
        var numbers: [String: UInt32] = [:]

        /// Per user with a number, per tip where they were, and per segment: the day's sets.
        func sets(day: Int64, watch: TipWatch) -> [EligibleSet] {
            var groups: [Int: [PlatformVersion: [UInt32]]] = [:]
            var members: [[UInt32]] = Array(repeating: [], count: watch.segments.count)
            for (user, state) in users {
                guard let number = numbers[user] else { continue }
                for (tip, place) in state.eligibleToday.enumerated() {
                    if let place { groups[tip, default: [:]][place, default: []].append(number) }
                }
                for segment in watch.segments.indices where Self.held(state, segment, on: day) { members[segment].append(number) }
            }
            func set(_ numbers: [UInt32]) -> Data { Data(UserSet.encode(numbers.sorted().map { (number: $0, events: 1) })) }
            let tips = groups.sorted { $0.key < $1.key }.flatMap { tip, places in
                places.sorted { $0.key < $1.key }.map { place, numbers in
                    EligibleSet(
                        day: day, tip: watch.tips[tip].id, platform: place.platform, appVersion: place.appVersion, users: set(numbers))
                }
            }
            return tips
                + zip(watch.segments, members).filter { !$1.isEmpty }.map { segment, numbers in
                    EligibleSet(day: day, tip: Eligibility.setName(segment), platform: nil, appVersion: nil, users: set(numbers))
                }
        }

        /// Whether the segment held for the user at one of their checks of the day.
        static func held(_ user: TipWatch.User, _ segment: Int, on day: Int64) -> Bool {
            (user.segmentHeldAt[segment] ?? .min) >= day
        }
    }

    /// Replays the events of `period` (within one day) from each user's state before it: the one
    /// in `before` (days replayed just now), else the latest kept.
    func replay(_ period: Period, store: any Store, app: String, before: [String: TipWatch.User]) async throws -> Day {
        let starts = try await store.eligibilityStarts(app: app, ruleset: ruleset, period: period)
        var day = Day()
        guard !starts.isEmpty else { return day }
        var positions: [String: Int] = [:]
        var users: [TipWatch.User] = []
        users.reserveCapacity(starts.count)
        for start in starts {
            var user: TipWatch.User
            if let known = before[start.user] {
                user = known
            } else if let state = start.state {
                user = try KeptState(decoding: state, terms: watch.termKeys).user(start.user, in: watch)
            } else {
                user = watch.newUser(start.user, markingDays: true)
            }
            user.eligibleToday = Array(repeating: nil, count: watch.tips.count)
            positions[start.user] = users.count
            users.append(user)
            if let number = start.number { day.numbers[start.user] = number }
        }
        var contexts = ContextCache()
        // The segments are watched with the tips: only the attributes are read.
        let targeted = try await TargetedUsers(
            rules: watch.tips.compactMap(\.targeting.rule) + watch.segments.map(\.rule), segments: [], store: store, app: app,
            period: period)
        let watch = self.watch
        try await store.forEachPage(app: app, period: period) { page in
            for event in page {
                // A user whose first event came after the starts were read waits for the day's fold.
                guard let position = positions[event.user] else { continue }
                watch.play(event, &users[position], &contexts, targeted)
            }
        }
        for index in users.indices {
            watch.settle(&users[index], before: period.to, &contexts, targeted)
            day.users[users[index].user] = users[index]
        }
        return day
    }

    // MARK: Counting

    /// The eligible counts of the days the period touches, one outcome per tip (users, by
    /// platform and version, by first day): the kept days read, the days after them replayed.
    public func counts(store: any Store, app: String, period: Period) async throws -> [Backtest.Outcome] {
        var tally = Tally(tips: watch.tips)
        try await walk(store: store, app: app, period: period, replayingFrom: .min) {
            try tally.add($0)
        } replayed: {
            tally.add($0, day: $1)
        }
        return tally.outcomes
    }

    /// Who was in each segment of the ruleset at one of their moments in the app on the days the
    /// period touches (``SegmentReplay/Moment/during(_:)``), by segment name, read from the kept
    /// days; nil when more than `replaying` days of the period's would need a replay (the
    /// catalog was just published, the days are being kept): a ``SegmentReplay`` of the period
    /// is then quicker.
    public func segmentMembers(store: any Store, app: String, period: Period, replaying: Int = 2) async throws -> [String: Set<String>]? {
        let names = Dictionary(watch.segments.enumerated().map { (Self.setName($1), $0) }, uniquingKeysWith: { first, _ in first })
        var numbers: [Set<UInt32>] = Array(repeating: [], count: watch.segments.count)
        var members: [Set<String>] = Array(repeating: [], count: watch.segments.count)
        let days = Self.days(period)
        let walked = try await walk(store: store, app: app, period: period, replayingFrom: days.to - Int64(replaying) * Period.day) {
            set in
            guard let segment = names[set.tip] else { return }
            for (number, _) in try UserSet.decode(set.users) { numbers[segment].insert(number) }
        } replayed: { replayed, day in
            for (user, state) in replayed.users {
                for segment in members.indices where Day.held(state, segment, on: day) { members[segment].insert(user) }
            }
        }
        guard walked else { return nil }
        let ids = try await store.users(app: app, numbered: Array(Set(numbers.joined())))
        var result: [String: Set<String>] = [:]
        for (index, segment) in watch.segments.enumerated() {
            result[segment.name] = members[index].union(numbers[index].compactMap { ids[$0] })
        }
        return result
    }

    /// Who is in each segment of the ruleset at `time` (``SegmentReplay/Moment/at(_:)``), by
    /// segment name: each user's state kept at the end of their latest day before the days
    /// replayed, those days (after the last one kept, and the moment's own) replayed from them,
    /// and every user then asked at the moment. Nil when more than `replaying` days would need a
    /// replay: a ``SegmentReplay`` is then quicker.
    public func segmentMembers(
        at time: Int64, store: any Store, app: String, replaying: Int = 3
    ) async throws -> [String: Set<String>]? {
        let today = Period.startOfDay(time)
        let progress = try await store.eligibilityProgress(app: app, ruleset: ruleset, through: time)
        let replayFrom = min(progress.due.first ?? progress.pending ?? today, today)
        guard (today - replayFrom) / Period.day < Int64(replaying) else { return nil }
        let history = SegmentReplay.historyStart(time)
        var users: [String: TipWatch.User] = [:]
        for (user, state) in try await store.latestEligibilityStates(
            app: app, ruleset: ruleset, period: Period(from: history, to: replayFrom))
        {
            users[user] = try KeptState(decoding: state, terms: watch.termKeys).user(user, in: watch)
        }
        var day = max(replayFrom, history)
        while day <= today {
            let replayed = try await replay(Period(from: day, to: min(day + Period.day, time)), store: store, app: app, before: users)
            users.merge(replayed.users) { $1 }
            day += Period.day
        }
        let targeted = try await TargetedUsers(
            rules: watch.segments.map(\.rule), segments: [], store: store, app: app, period: Period(from: history, to: time))
        for user in targeted.attributed where users[user] == nil { users[user] = watch.newUser(user) }
        var members: [Set<String>] = Array(repeating: [], count: watch.segments.count)
        for (user, var state) in users {
            for (segment, holds) in watch.segmentsHold(&state, at: time, targeted).enumerated() where holds {
                members[segment].insert(user)
            }
        }
        return Dictionary(zip(watch.segments.map(\.name), members), uniquingKeysWith: { first, _ in first })
    }

    /// Whether the segment is one of the ruleset's, by its name and rule.
    public func keeps(_ segment: Segment) -> Bool {
        watch.segments.contains { $0.name == segment.name && $0.rule == segment.rule }
    }

    /// The whole UTC days a period touches: the kept days are whole.
    static func days(_ period: Period) -> Period {
        Period(from: Period.startOfDay(period.from), to: Period.startOfDay(period.to - 1) + Period.day)
    }

    /// Reads the kept sets of the days the period touches, then replays the days after the last
    /// one kept, each from the states of the day before (the replays of days before the period
    /// only carry the states on); answers false, having read nothing, when that replay would
    /// start before `replayingFrom`.
    @discardableResult
    private func walk(
        store: any Store, app: String, period: Period, replayingFrom: Int64, kept: (EligibleSet) throws -> Void,
        replayed: (Day, Int64) -> Void
    ) async throws -> Bool {
        let days = Self.days(period)
        let progress = try await store.eligibilityProgress(app: app, ruleset: ruleset, through: days.to)
        let first = progress.due.first ?? progress.pending
        if let first, first < replayingFrom { return false }
        for set in try await store.eligibleSets(app: app, ruleset: ruleset, period: days) { try kept(set) }
        guard let first else { return true }
        var before: [String: TipWatch.User] = [:]
        var day = first
        while day < days.to {
            let replay = try await replay(Period(from: day, to: day + Period.day), store: store, app: app, before: before)
            if day >= days.from { replayed(replay, day) }
            before.merge(replay.users) { $1 }
            day += Period.day
        }
        return true
    }

    /// Users counted once a tip over the days, in order, by the first day each was eligible.
    struct Tally {
        let index: [String: Int]
        var outcomes: [Backtest.Outcome]
        var counted: [DistinctUsers]

        init(tips: [CatalogTip]) {
            index = Dictionary(tips.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
            outcomes = Array(repeating: Backtest.Outcome(), count: tips.count)
            counted = Array(repeating: DistinctUsers(), count: tips.count)
        }

        mutating func add(_ set: EligibleSet) throws {
            guard let tip = index[set.tip] else { return }
            let place = PlatformVersion(platform: set.platform, appVersion: set.appVersion)
            for (number, _) in try UserSet.decode(set.users) {
                count(tip, place, day: set.day) { $0.insert(number) }
            }
        }

        mutating func add(_ replayed: Day, day: Int64) {
            for (user, state) in replayed.users {
                for (tip, place) in state.eligibleToday.enumerated() {
                    guard let place else { continue }
                    count(tip, place, day: day) { users in
                        if let number = replayed.numbers[user] { users.insert(number) } else { users.insert(id: user) }
                    }
                }
            }
        }

        private mutating func count(_ tip: Int, _ place: PlatformVersion, day: Int64, _ insert: (inout DistinctUsers) -> Void) {
            let before = counted[tip].count
            insert(&counted[tip])
            guard counted[tip].count > before else { return }
            outcomes[tip].users += 1
            outcomes[tip].byPlatform[place, default: 0] += 1
            outcomes[tip].byDay[day, default: 0] += 1
        }
    }
}
