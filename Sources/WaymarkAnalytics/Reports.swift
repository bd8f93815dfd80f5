import Foundation
import WaymarkCatalog
import WaymarkRules
import WaymarkStore

/// How many users reached each step of a tip: could have seen it, saw it, did what it teaches
/// (its dismissal rule became true), closed it; and beside those, how many listened to its
/// narration and to the end of it.
public struct TipFunnel: Hashable, Sendable {
    /// From a replay of the events through the tip's rules (see ``Backtest``); nil for tips the
    /// catalog no longer has.
    public var eligible: Int?
    public var shown: Int
    public var acted: Int
    public var closed: Int
    /// Users who started its narration (`narration_played`).
    public var listened: Int
    /// Users who heard its narration to the end (`narration_completed`).
    public var heardToTheEnd: Int
    /// For a hotspot, users who tapped its marker open (`hotspot_opened`); `shown` is then the
    /// users who saw the marker.
    public var opened: Int

    public init(
        eligible: Int? = nil, shown: Int = 0, acted: Int = 0, closed: Int = 0, listened: Int = 0, heardToTheEnd: Int = 0, opened: Int = 0
    ) {
        self.eligible = eligible
        self.shown = shown
        self.acted = acted
        self.closed = closed
        self.listened = listened
        self.heardToTheEnd = heardToTheEnd
        self.opened = opened
    }

    /// Opened among those who saw the marker.
    public var openRate: Proportion { Proportion(opened, of: shown) }

    /// Listened among those shown.
    public var listenRate: Proportion { Proportion(listened, of: shown) }

    /// Acted among those shown.
    public var conversion: Proportion { Proportion(acted, of: shown) }
}

/// A platform and app version, as the SDKs report them; nil where an event had none.
public struct PlatformVersion: Hashable, Sendable, Comparable {
    public var platform: String?
    public var appVersion: String?

    public init(platform: String?, appVersion: String?) {
        self.platform = platform
        self.appVersion = appVersion
    }

    /// By platform, then app version in numeric order (1.10 after 1.9), text that is not a version
    /// after the versions.
    public static func < (a: PlatformVersion, b: PlatformVersion) -> Bool {
        if a.platform != b.platform { return (a.platform ?? "") < (b.platform ?? "") }
        switch (a.appVersion.flatMap(Version.init(reading:)), b.appVersion.flatMap(Version.init(reading:))) {
        case (let x?, let y?) where x != y: return x < y
        case (.some, nil): return true
        case (nil, .some): return false
        default: return (a.appVersion ?? "") < (b.appVersion ?? "")
        }
    }
}

public struct TipReport: Hashable, Sendable {
    public struct Part: Hashable, Sendable {
        public var platformVersion: PlatformVersion
        public var funnel: TipFunnel
    }

    public var tip: String
    public var total: TipFunnel
    /// By platform and app version, in ``PlatformVersion`` order.
    public var byPlatform: [Part]
}

/// One page of a tour's funnel.
public struct TourPageReport: Hashable, Sendable {
    public var page: String
    public var viewed: Int
    public var readToBottom: Int
    public var videoPlays: Int
    public var credits: Int

    /// Read to the bottom among those who saw it.
    public var readRate: Proportion { Proportion(readToBottom, of: viewed) }
}

public struct TourReport: Hashable, Sendable {
    public var tour: String
    public var pages: [TourPageReport]

    /// Share of the first page's viewers who reached each page.
    public func reached(_ index: Int) -> Proportion { Proportion(pages[index].viewed, of: pages.first?.viewed ?? 0) }
}

/// Engagement of one platform on one day (or over the whole period).
public struct Engagement: Hashable, Sendable {
    public var platform: String?
    /// Midnight UTC in ms since 1970; nil for the whole period.
    public var day: Int64?
    public var users: Int
    /// App activations.
    public var sessions: Int
    public var events: Int

    public init(platform: String?, day: Int64?, users: Int, sessions: Int, events: Int) {
        self.platform = platform
        self.day = day
        self.users = users
        self.sessions = sessions
        self.events = events
    }

    public var eventsPerUser: Double { users > 0 ? Double(events) / Double(users) : 0 }
    public var sessionsPerUser: Double { users > 0 ? Double(sessions) / Double(users) : 0 }
}

public struct EngagementReport: Hashable, Sendable {
    /// Per platform over the whole period, most active users first.
    public var platforms: [Engagement]
    /// Per day and platform, by day then platform.
    public var days: [Engagement]

    /// A platform's events per user divided by the highest platform's: 1 for the most engaged.
    public func ratio(_ engagement: Engagement) -> Double {
        let best = platforms.map(\.eventsPerUser).max() ?? 0
        return best > 0 ? engagement.eventsPerUser / best : 0
    }
}

/// An A/B test: the variants of one tip, each with its conversion, compared with the first.
public struct Experiment: Hashable, Sendable {
    public struct Arm: Hashable, Sendable {
        public var variant: String
        public var conversion: Proportion
        /// Against the first variant; nil for the first and when there is not enough data.
        public var pValue: Double?
    }

    public var tip: String
    public var arms: [Arm]

    /// At least 5 conversions and 5 non-conversions in every variant.
    public var enoughData: Bool { Statistics.enoughForTest(arms.map(\.conversion)) }
}

/// The analytics of one app, from its stored events: every figure is a count of distinct users
/// unless it says events.
public struct Analytics: Sendable {
    let store: any AnalyticsStore & UserStore

    public init(store: any AnalyticsStore & UserStore) {
        self.store = store
    }

    static let tipEvents = ["tip_shown", "tip_dismissed", "tip_closed", "narration_played", "narration_completed", "hotspot_opened"]

    /// Where a tips report's eligible counts come from.
    public enum EligibleCounts: Sendable {
        /// Replay the period's events through the catalog's tips now (seconds for a million events).
        case replay
        /// Counted already: one outcome per tip of the catalog, in its order (``Backtest/run(store:app:period:)``).
        case counted([Backtest.Outcome])
        /// Not known (yet): the reports' eligible counts stay nil.
        case unknown
    }

    /// Every tip of the catalog, and every other tip with events in the period, in catalog order.
    public func tips(app: String, catalog: Catalog, period: Period, eligible source: EligibleCounts = .replay) async throws -> [TipReport] {
        async let totals = store.tally(app: app, TallyQuery(period: period, names: Self.tipEvents, by: [.target]))
        async let split = store.tally(app: app, TallyQuery(period: period, names: Self.tipEvents, by: [.target, .platform, .appVersion]))
        async let replayed = outcomes(source, app: app, catalog: catalog, period: period)
        let eligible = try await replayed
        var reports: [String: TipReport] = [:]
        for row in try await totals {
            guard let tip = row.keys[0] else { continue }
            reports[tip, default: TipReport(tip: tip, total: TipFunnel(), byPlatform: [])].total.add(row)
        }
        var byPlatform: [String: [PlatformVersion: TipFunnel]] = [:]
        for row in try await split {
            guard let tip = row.keys[0] else { continue }
            byPlatform[tip, default: [:]][PlatformVersion(platform: row.keys[1], appVersion: row.keys[2]), default: TipFunnel()].add(row)
        }
        for (index, tip) in catalog.tips.enumerated() {
            var report = reports[tip.id] ?? TipReport(tip: tip.id, total: TipFunnel(), byPlatform: [])
            if let eligible {
                report.total.eligible = eligible[index].users
                for (platformVersion, users) in eligible[index].byPlatform {
                    byPlatform[tip.id, default: [:]][platformVersion, default: TipFunnel()].eligible = users
                }
            }
            reports[tip.id] = report
        }
        let order = Dictionary(catalog.tips.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        // A tour page's narration events name the page: not a tip unless it was ever shown as one.
        return reports.values.filter { order[$0.tip] != nil || $0.total.shown + $0.total.acted + $0.total.closed > 0 }.map { report in
            var report = report
            report.byPlatform = (byPlatform[report.tip] ?? [:]).sorted { $0.key < $1.key }.map {
                TipReport.Part(platformVersion: $0.key, funnel: $0.value)
            }
            if order[report.tip] != nil && eligible != nil {
                for index in report.byPlatform.indices where report.byPlatform[index].funnel.eligible == nil {
                    report.byPlatform[index].funnel.eligible = 0
                }
            }
            return report
        }.sorted { (order[$0.tip] ?? .max, $0.tip) < (order[$1.tip] ?? .max, $1.tip) }
    }

    private func outcomes(_ source: EligibleCounts, app: String, catalog: Catalog, period: Period) async throws -> [Backtest.Outcome]? {
        switch source {
        case .replay: try await Backtest(tips: catalog.tips, segments: catalog.segments).run(store: store, app: app, period: period)
        case .counted(let outcomes): outcomes.count == catalog.tips.count ? outcomes : nil
        case .unknown: nil
        }
    }

    static let tourEvents = ["page_viewed", "page_read_to_bottom", "video_played"]

    /// The catalog's tours, page by page in their order.
    public func tours(app: String, catalog: Catalog, period: Period) async throws -> [TourReport] {
        async let rows = store.tally(
            app: app, TallyQuery(period: period, names: Self.tourEvents, by: [.property("tour"), .property("page")]))
        async let grants = store.grantTotals(app: app, period: period)
        var counts: [String: [String: TourPageReport]] = [:]
        for row in try await rows {
            guard let tour = row.keys[0], let page = row.keys[1] else { continue }
            counts[tour, default: [:]][page, default: TourPageReport(page: page)].add(row)
        }
        for grant in try await grants {
            counts[grant.tour, default: [:]][
                grant.page, default: TourPageReport(page: grant.page)
            ]
            .credits = grant.credits
        }
        return catalog.tours.map { tour in
            TourReport(
                tour: tour.id,
                pages: tour.pages.map {
                    counts[tour.id]?[$0.id] ?? TourPageReport(page: $0.id)
                }
            )
        }
    }

    /// Active users, sessions and events per platform, per day and over the period.
    public func engagement(app: String, period: Period) async throws -> EngagementReport {
        // A user counts once a day however many events they send: the tallies are not by name.
        async let daily = store.tally(app: app, TallyQuery(period: period, byName: false, by: [.day, .platform]))
        async let dailySessions = store.tally(app: app, TallyQuery(period: period, names: ["activation"], by: [.day, .platform]))
        async let whole = store.tally(app: app, TallyQuery(period: period, byName: false, by: [.platform]))
        async let wholeSessions = store.tally(app: app, TallyQuery(period: period, names: ["activation"], by: [.platform]))
        func join(_ activity: [TallyRow], _ sessions: [TallyRow], days: Bool) -> [Engagement] {
            let sessionCounts = Dictionary(sessions.map { ($0.keys, $0.events) }, uniquingKeysWith: +)
            return activity.map { row in
                Engagement(
                    platform: row.keys.last ?? nil, day: days ? row.keys[0].flatMap { Int64($0) } : nil, users: row.users,
                    sessions: sessionCounts[row.keys] ?? 0, events: row.events
                )
            }
        }
        return EngagementReport(
            platforms: join(try await whole, try await wholeSessions, days: false).sorted {
                ($1.users, $0.platform ?? "") < ($0.users, $1.platform ?? "")
            },
            days: join(try await daily, try await dailySessions, days: true).sorted {
                ($0.day ?? 0, $0.platform ?? "") < ($1.day ?? 0, $1.platform ?? "")
            }
        )
    }

    /// The tips with variants: per variant, the users shown and those who then did what it teaches.
    public func experiments(app: String, catalog: Catalog, period: Period) async throws -> [Experiment] {
        let tips = catalog.tips.filter { !$0.variants.isEmpty }
        guard !tips.isEmpty else { return [] }
        let rows = try await store.tally(
            app: app, TallyQuery(period: period, names: ["tip_shown", "tip_dismissed"], by: [.target, .property("variant")])
        )
        var counts: [String: [String: (shown: Int, acted: Int)]] = [:]
        for row in rows {
            guard let tip = row.keys[0], let variant = row.keys[1] else { continue }
            if row.name == "tip_shown" { counts[tip, default: [:]][variant, default: (0, 0)].shown = row.users }
            if row.name == "tip_dismissed" { counts[tip, default: [:]][variant, default: (0, 0)].acted = row.users }
        }
        return tips.map { tip in
            let conversions = tip.variants.map { variant in
                let count = counts[tip.id]?[variant.id] ?? (0, 0)
                return Proportion(count.acted, of: count.shown)
            }
            let enough = Statistics.enoughForTest(conversions)
            return Experiment(
                tip: tip.id,
                arms: zip(tip.variants, conversions).enumerated().map { index, pair in
                    Experiment.Arm(
                        variant: pair.0.id, conversion: pair.1,
                        pValue: index > 0 && enough ? Statistics.twoProportionPValue(conversions[0], pair.1) : nil
                    )
                }
            )
        }
    }
}

extension TourPageReport {
    init(page: String) { self.init(page: page, viewed: 0, readToBottom: 0, videoPlays: 0, credits: 0) }

    /// Takes a tally row of the page's events: users who viewed it or read it to the bottom,
    /// video plays as events.
    mutating func add(_ row: TallyRow) {
        switch row.name ?? "" {
        case "page_viewed": viewed = row.users
        case "page_read_to_bottom": readToBottom = row.users
        default: videoPlays = row.events
        }
    }
}

extension TipFunnel {
    mutating func add(_ row: TallyRow) {
        switch row.name ?? "" {
        case "tip_shown": shown = row.users
        case "tip_dismissed": acted = row.users
        case "tip_closed": closed = row.users
        case "narration_played": listened = row.users
        case "narration_completed": heardToTheEnd = row.users
        case "hotspot_opened": opened = row.users
        default: break
        }
    }
}
