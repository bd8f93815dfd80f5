import Foundation
import Logging
import Testing
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkRules
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// The eligible counts kept day by day answer as a replay of each user's whole history does: two
/// apps get the same random events; one's days are folded and kept, the other's never are (its
/// counts replay every day from the first), and every period must count the same users, by
/// platform and version and by first day, after folding, late events, an erasure and folding
/// again. Over the whole history both must also agree with the backtest's single replay. The
/// segments' members kept with them must be those a ``SegmentReplay`` of each period finds.
@Suite(.timeLimit(.minutes(5))) struct EligibilityTests {
    static let day0 = RollupTests.day0

    static let catalog = """
        segments:
          - { name: buyers, rule: "count(purchase) >= 2 within 2d" }
          - { name: idle, rule: "screen AND NOT tap within 6h" }
          - { name: gold, rule: 'user.plan == "gold" OR tap:cart' }
          - { name: calm, rule: "NOT purchase within 30d" }
        tips:
          - { id: search, container: home, trigger: "tap:search", dismissal: "tap:cart", content: { title: a } }
          - { id: busy, container: home, trigger: "count(screen) >= 3 within 1d", dismissal: "purchase", content: { title: a } }
          - { id: quiet, container: banner, trigger: "NOT tap within 2h", content: { title: a } }
          - { id: journey, container: home, trigger: "activation THEN tap:search", dismissal: "count(purchase) >= 2", content: { title: a } }
          - { id: android, container: cart, trigger: "tap:cart", targeting: 'device.platform == "android"', content: { title: a } }
          - { id: recent, container: cart, trigger: "screen:cart AND app.version >= v1.2", content: { title: a } }
          - { id: half, container: cart, trigger: "screen", rollout: 50, content: { title: a } }
          - { id: late, container: home, trigger: "tap:search OR screen:home", dismissal: "count(purchase) >= 3 within 6h", content: { title: a } }
          - { id: buyers, container: banner, trigger: "screen", targeting: "segment:buyers AND NOT segment:gold", content: { title: a } }
        """

    static func tips() throws -> [CatalogTip] { try CatalogDocument.parse(catalog, file: "eligibility.yaml").tips }
    static func segments() throws -> [Segment] { try CatalogDocument.parse(catalog, file: "eligibility.yaml").segments }

    /// `late` was published at noon on day 2: counted from then.
    static func published(_ tips: [CatalogTip]) -> [Int64?] { tips.map { $0.id == "late" ? day0 + 2 * Period.day + 43_200_000 : nil } }

    /// Each user's states kept whole over the last two days kept.
    static func eligibility() throws -> Eligibility {
        let tips = try tips()
        return Eligibility(tips: tips, segments: try segments(), countingFrom: published(tips), window: 2)
    }

    /// `count` events of users u0 to u11 over `span` from `from`, numbered from `first`, for both apps.
    static func events(_ random: inout RollupTests.Random, count: Int, from: Int64, span: Int64, first: Int) -> [StoredEvent] {
        let batch = (0..<count).map { index in
            let time = from + Int64(random.below(Int(span)))
            let platform = random.chance(10) ? nil : random.pick(["ios", "android", "web"])
            let version = random.chance(20) ? nil : random.pick(["1.0", "1.2", "2.0"])
            var members: [String] = []
            if let platform { members.append("\"platform\":\"\(platform)\"") }
            if let version { members.append("\"appVersion\":\"\(version)\"") }
            return (
                time: time, user: "u\(random.below(12))", name: random.pick(["tap", "screen", "activation", "purchase", "tap", "screen"]),
                target: random.pick([nil, "search", "cart", "home"]), json: "{" + members.joined(separator: ",") + "}", platform: platform,
                version: version, number: first + index
            )
        }
        return ["kept", "replayed"].flatMap { app in
            batch.map {
                StoredEvent(
                    app: app, id: EventID.make(milliseconds: 0, number: $0.number), user: $0.user, name: $0.name, target: $0.target,
                    timestamp: $0.time, receivedAt: $0.time, clamped: false, propertiesJSON: $0.json, platform: $0.platform,
                    appVersion: $0.version)
            }
        }
    }

    /// Whole days, from one to the whole history.
    static let periods: [Period] = [
        Period(from: day0, to: day0 + 8 * Period.day), Period(from: day0 + 2 * Period.day, to: day0 + 5 * Period.day),
        Period(from: day0 + 4 * Period.day, to: day0 + 5 * Period.day), Period(from: day0 + 5 * Period.day, to: day0 + 8 * Period.day),
        Period(from: day0 + Period.day, to: day0 + 2 * Period.day),
    ]

    static func expectSameCounts(_ eligibility: Eligibility, _ store: any Store, _ comment: Comment) async throws {
        for period in periods {
            let kept = try await eligibility.counts(store: store, app: "kept", period: period)
            let replayed = try await eligibility.counts(store: store, app: "replayed", period: period)
            #expect(kept == replayed, "\(comment): \(period)")
            #expect(kept.contains { $0.users > 0 }, "\(comment): \(period) counts someone")
            // The segments' members, from the kept days and from a replay of the period.
            let members = try await eligibility.segmentMembers(store: store, app: "kept", period: period, replaying: 100)
            let segments = try Self.segments()
            let replay = try await SegmentReplay(segments: segments).run(store: store, app: "replayed", .during(period))
            #expect(members == Dictionary(uniqueKeysWithValues: zip(segments.map(\.name), replay.members)), "\(comment): \(period)")
            #expect(replay.members.contains { !$0.isEmpty }, "\(comment): \(period) finds members")
        }
        // The segments' members at a moment (the refresher's), from the kept states and from a
        // replay of the history: in a kept day, in a day not kept, after the last event, and
        // 95 days on, when only the users of the last three days are asked.
        let segments = try Self.segments()
        for moment in [4 * Period.day + 3_600_000, 6 * Period.day + 5 * 3_600_000, 8 * Period.day + 60_000, 95 * Period.day + 7_200_000] {
            let time = Self.day0 + moment
            let members = try await eligibility.segmentMembers(at: time, store: store, app: "kept", replaying: 100)
            let replay = try await SegmentReplay(segments: segments).run(store: store, app: "replayed", .at(time))
            #expect(members == Dictionary(uniqueKeysWithValues: zip(segments.map(\.name), replay.members)), "\(comment): at \(moment)")
            #expect(replay.members.contains { !$0.isEmpty }, "\(comment): at \(moment) finds members")
            #expect(members?["calm"]?.contains("u30") == (moment < 90 * Period.day), "\(comment): at \(moment)")
        }
    }

    /// The app whose days are kept and its twin whose days are replayed.
    static func createApps(_ store: any Store) async throws {
        for app in ["kept", "replayed"] {
            try await store.createApp(
                AppRecord(id: app, name: app, identitySecret: "secret-\(app)", createdAt: Date(millisecondsSince1970: Self.day0)))
            // u20 has an attribute and no event: asked at a moment, never in a period.
            for user in ["u1", "u4", "u7", "u20"] {
                _ = try await store.updateAttributes(
                    app: app, user: user, ["plan": .string(user == "u4" ? "silver" : "gold")], at: Date(millisecondsSince1970: Self.day0),
                    limit: 50)
            }
        }
    }

    static func erase(_ user: String, _ store: any Store) async throws {
        for app in ["kept", "replayed"] {
            _ = try await store.eraseUser(
                app: app, user: user,
                audit: { _ in
                    AuditEntry(app: app, actor: .cli, at: Date(), action: .userErase, object: user, before: nil, after: nil)
                }, notice: { _ in nil })
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func keptDaysCountAsTheWholeHistoryReplayed(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.createApps(store)
            let eligibility = try Self.eligibility()
            var random = RollupTests.Random(state: 20_261_203)
            _ = try await store.insertEvents(Self.events(&random, count: 700, from: Self.day0, span: 8 * Period.day, first: 0))
            // u30 comes once, on day 0: asked at a moment up to 90 days after, not later.
            _ = try await store.insertEvents(
                ["kept", "replayed"].map {
                    StoredEvent(
                        app: $0, id: EventID.make(milliseconds: 0, number: 999), user: "u30", name: "screen", target: nil,
                        timestamp: Self.day0 + 3_600_000, receivedAt: Self.day0, clamped: false, propertiesJSON: "{}", platform: nil,
                        appVersion: nil)
                })

            // Over the whole history, the days replayed one after the other count as the backtest's
            // one replay (whose targeting reads a segment's members over the period, not at each
            // moment: the tip targeting one is left out).
            let whole = Self.periods[0]
            let tips = try Self.tips().filter { $0.id != "buyers" }
            let backtest = try await Backtest(tips: tips, countingFrom: Self.published(tips))
                .run(store: store, app: "replayed", period: whole)
            let counted = try await eligibility.counts(store: store, app: "replayed", period: whole).dropLast()
            #expect(counted.map(\.users) == backtest.map(\.users))
            #expect(counted.map(\.byPlatform) == backtest.map(\.byPlatform))
            #expect(counted.map(\.byDay) == backtest.map(\.byDay))
            #expect(
                counted.map(\.users).allSatisfy { $0 > 0 }, "every tip reaches someone: \(counted.map(\.users)) \(backtest.map(\.users))")
            try await Self.expectSameCounts(eligibility, store, "nothing kept")

            // Days 0 to 5 fold into rollups; the kept days follow, two then the rest.
            #expect(try await store.rollUp(app: "kept", before: Self.day0 + 6 * Period.day, limit: 10) == 6)
            #expect(try await eligibility.fold(store: store, app: "kept", limit: 2) == 2)
            try await Self.expectSameCounts(eligibility, store, "two days kept")
            #expect(try await eligibility.fold(store: store, app: "kept", limit: 10) == 4)
            #expect(try await eligibility.fold(store: store, app: "kept", limit: 10) == 0)
            var progress = try await store.eligibilityProgress(app: "kept", ruleset: eligibility.ruleset, through: .max)
            #expect(progress.kept == (0..<6).map { Self.day0 + $0 * Period.day })
            #expect(progress.pending == Self.day0 + 6 * Period.day)
            try await Self.expectSameCounts(eligibility, store, "six days kept")
            // A period of kept days needs no replay; with days 6 and 7 left, at most one replayed day is too few.
            let kept = Period(from: Self.day0, to: Self.day0 + 6 * Period.day)
            #expect(try await eligibility.segmentMembers(store: store, app: "kept", period: kept, replaying: 0) != nil)
            #expect(try await eligibility.segmentMembers(store: store, app: "kept", period: whole, replaying: 1) == nil)
            #expect(try await eligibility.segmentMembers(store: store, app: "kept", period: whole, replaying: 2) != nil)
            // At a moment, the days after the last kept one and the moment's own are replayed.
            let noon = { Self.day0 + $0 * Period.day + Period.day / 2 }
            #expect(try await eligibility.segmentMembers(at: noon(5), store: store, app: "kept", replaying: 1) != nil)
            #expect(try await eligibility.segmentMembers(at: noon(8), store: store, app: "kept", replaying: 2) == nil)
            #expect(try await eligibility.segmentMembers(at: noon(8), store: store, app: "kept", replaying: 3) != nil)

            // Late events in days 4 and 5 take the kept days from day 4 on; folding again keeps them.
            _ = try await store.insertEvents(
                Self.events(&random, count: 40, from: Self.day0 + 4 * Period.day, span: 2 * Period.day, first: 700))
            progress = try await store.eligibilityProgress(app: "kept", ruleset: eligibility.ruleset, through: .max)
            #expect(progress.kept == (0..<4).map { Self.day0 + $0 * Period.day })
            try await Self.expectSameCounts(eligibility, store, "late events")
            #expect(try await store.rollUp(app: "kept", before: Self.day0 + 6 * Period.day, limit: 10) == 2)
            #expect(try await eligibility.fold(store: store, app: "kept", limit: 10) == 2)
            try await Self.expectSameCounts(eligibility, store, "kept again")

            // States are whole over the last two days kept (4 and 5): a late event in day 1, before
            // them, takes every kept day, and all are kept again from the first.
            _ = try await store.insertEvents(Self.events(&random, count: 1, from: Self.day0 + Period.day, span: 1000, first: 800))
            progress = try await store.eligibilityProgress(app: "kept", ruleset: eligibility.ruleset, through: .max)
            #expect(progress.kept.isEmpty)
            try await Self.expectSameCounts(eligibility, store, "a late event before the window")
            #expect(try await store.rollUp(app: "kept", before: Self.day0 + 6 * Period.day, limit: 10) == 1)
            #expect(try await eligibility.fold(store: store, app: "kept", limit: 10) == 6)
            try await Self.expectSameCounts(eligibility, store, "all kept again")

            // An erased user leaves the kept sets and states.
            try await Self.erase("u3", store)
            try await Self.expectSameCounts(eligibility, store, "u3 erased")
            #expect(
                try await store.eligibilityStarts(app: "kept", ruleset: eligibility.ruleset, period: whole).allSatisfy { $0.user != "u3" })

            // Other rules keep their own days, and replace the kept ones on their first fold.
            let other = Eligibility(tips: Array(try Self.tips().prefix(2)), segments: [], countingFrom: [])
            #expect(other.ruleset != eligibility.ruleset)
            #expect(try await other.fold(store: store, app: "kept", limit: 1) == 1)
            progress = try await store.eligibilityProgress(app: "kept", ruleset: eligibility.ruleset, through: .max)
            #expect(progress.kept.isEmpty)
            try await Self.expectSameCounts(eligibility, store, "other rules kept")
        }
    }

    /// A fold saves a day only under the epoch it read: an event stored meanwhile in a folded day
    /// (which unfolds it) makes it keep nothing.
    @Test(arguments: StoreUnderTest.available)
    func aLateEventDuringAFoldKeepsItFromSaving(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.createApps(store)
            let eligibility = try Self.eligibility()
            var random = RollupTests.Random(state: 5)
            _ = try await store.insertEvents(Self.events(&random, count: 100, from: Self.day0, span: 2 * Period.day, first: 0))
            #expect(try await store.rollUp(app: "kept", before: Self.day0 + 2 * Period.day, limit: 10) == 2)
            let progress = try await store.eligibilityProgress(app: "kept", ruleset: eligibility.ruleset, through: .max)
            #expect(progress.due == [Self.day0, Self.day0 + Period.day])
            let day = EligibilityDay(day: Self.day0, states: [("u1", Data("{}".utf8))], sets: [], window: 7)
            _ = try await store.insertEvents(Self.events(&random, count: 1, from: Self.day0 + Period.day, span: 1000, first: 100))
            #expect(try await !store.keepEligibility(app: "kept", ruleset: eligibility.ruleset, day, epoch: progress.epoch))
            let now = try await store.eligibilityProgress(app: "kept", ruleset: eligibility.ruleset, through: .max)
            #expect(now.epoch != progress.epoch)
            #expect(now.kept.isEmpty)
            #expect(now.due == [Self.day0])
            // Under the epoch read now, it keeps the day, once.
            #expect(try await store.keepEligibility(app: "kept", ruleset: eligibility.ruleset, day, epoch: now.epoch))
            #expect(try await !store.keepEligibility(app: "kept", ruleset: eligibility.ruleset, day, epoch: now.epoch))
        }
    }

    /// The rollup folder keeps the live tips' eligible counts once it has folded their days: the
    /// console then reads them, counting the same as a replay of every day.
    @Test(arguments: StoreUnderTest.available)
    func theFolderKeepsTheLiveTipsDays(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.createApps(store)
            _ = try await store.publish(
                app: "kept", document: Self.catalog, at: Date(millisecondsSince1970: Self.day0), note: "tips", audit: { _ in [] })
            var random = RollupTests.Random(state: 11)
            _ = try await store.insertEvents(Self.events(&random, count: 300, from: Self.day0, span: 4 * Period.day, first: 0))
            let clock = Date(millisecondsSince1970: Self.day0 + 3 * Period.day + 2 * 3_600_000)
            let folder = RollupFolder(store: store, logger: Logger(label: "test"), batch: 2, now: { clock })
            #expect(try await folder.fold(app: "kept") == 2)
            #expect(try await folder.fold(app: "kept") == 1)
            #expect(try await folder.foldEligibility(app: "kept") == 2)
            #expect(try await folder.foldEligibility(app: "kept") == 1)
            #expect(try await folder.foldEligibility(app: "kept") == 0)
            #expect(try await folder.foldEligibility(app: "replayed") == 0, "nothing is live")
            let live = try #require(try await Eligibility.live(app: "kept", store: store))
            let progress = try await store.eligibilityProgress(app: "kept", ruleset: live.ruleset, through: .max)
            #expect(progress.kept == (0..<3).map { Self.day0 + $0 * Period.day })
            let period = Period(from: Self.day0, to: Self.day0 + 4 * Period.day)
            let kept = try await live.counts(store: store, app: "kept", period: period)
            #expect(kept == (try await live.counts(store: store, app: "replayed", period: period)))
            #expect(kept.contains { $0.users > 0 })
        }
    }
}
