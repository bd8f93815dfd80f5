import Foundation
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules
import WaymarkStore

/// A place where people get lost, over a period: one sign on one screen (and element), with how
/// many it touched, whether it grows, where it is worst, and whether a live tip is there already.
public struct Problem: Hashable, Sendable {
    /// Users of one locale or platform.
    public struct Share: Hashable, Sendable {
        public var name: String
        public var users: Int
    }

    public var signal: StruggleSignal
    public var screen: String
    public var element: String
    public var occurrences: Int
    public var users: Int
    public var visits: Int
    /// Occurrences in the period's last 7 days and in the 7 before them (in its two halves when it
    /// is shorter than 14 days): the trend.
    public var earlier: Int
    public var later: Int
    /// Users by locale and by platform, most first.
    public var locales: [Share]
    public var platforms: [Share]
    /// The live tips that point at the element, or show on the screen, already.
    public var addressedBy: [String]

    public init(
        signal: StruggleSignal, screen: String, element: String, occurrences: Int, users: Int, visits: Int, earlier: Int, later: Int,
        locales: [Share], platforms: [Share], addressedBy: [String]
    ) {
        self.signal = signal
        self.screen = screen
        self.element = element
        self.occurrences = occurrences
        self.users = users
        self.visits = visits
        self.earlier = earlier
        self.later = later
        self.locales = locales
        self.platforms = platforms
        self.addressedBy = addressedBy
    }

    /// Whether the sign is about the screen as a whole (no element of its own to point at).
    public var isAboutTheScreen: Bool { [.backAndForth, .uTurn, .idle, .stopped].contains(signal) }
}

/// Of a segment's members, how many showed a problem's sign.
public struct SegmentShare: Hashable, Sendable {
    public var segment: String
    public var users: Int
    public var members: Int

    public init(segment: String, users: Int, members: Int) {
        self.segment = segment
        self.users = users
        self.members = members
    }
}

/// The problems of an app, read from the signs the ``StruggleRefresher`` kept: a page reads these,
/// never events.
public struct Problems: Sendable {
    let store: any StruggleStore

    public init(store: any StruggleStore) {
        self.store = store
    }

    /// Every problem of the period with at least one sign, most users first; `catalog` (the live
    /// one) says which a tip addresses already.
    public func list(app: String, catalog: Catalog?, period: Period) async throws -> [Problem] {
        async let totals = store.struggleTally(app: app, period: period, by: [])
        async let byDay = store.struggleTally(app: app, period: period, by: [.day])
        async let byPlace = store.struggleTally(app: app, period: period, by: [.locale])
        async let byPlatform = store.struggleTally(app: app, period: period, by: [.platform])
        struct Key: Hashable {
            var signal: StruggleSignal
            var screen: String
            var element: String
        }
        func key(_ row: StruggleTallyRow) -> Key { Key(signal: row.signal, screen: row.screen, element: row.element) }
        let week = 7 * Period.day
        let (start, middle) =
            period.to - period.from >= 2 * week ? (period.to - 2 * week, period.to - week) : (period.from, period.from / 2 + period.to / 2)
        var halves: [Key: (Int, Int)] = [:]
        for row in try await byDay {
            let day = Int64(row.keys[0]) ?? 0
            guard day >= start else { continue }
            var half = halves[key(row)] ?? (0, 0)
            if day < middle { half.0 += row.occurrences } else { half.1 += row.occurrences }
            halves[key(row)] = half
        }
        func spread(_ rows: [StruggleTallyRow]) -> [Key: [Problem.Share]] {
            var spread: [Key: [Problem.Share]] = [:]
            for row in rows {
                spread[key(row), default: []].append(Problem.Share(name: row.keys[0].isEmpty ? "unknown" : row.keys[0], users: row.users))
            }
            return spread.mapValues { $0.sorted { ($0.users, $1.name) > ($1.users, $0.name) } }
        }
        let locales = spread(try await byPlace)
        let platforms = spread(try await byPlatform)
        return try await totals.map { row in
            var problem = Problem(
                signal: row.signal, screen: row.screen, element: row.element, occurrences: row.occurrences, users: row.users,
                visits: row.visits, earlier: halves[key(row)]?.0 ?? 0, later: halves[key(row)]?.1 ?? 0,
                locales: locales[key(row)] ?? [], platforms: platforms[key(row)] ?? [], addressedBy: [])
            problem.addressedBy = Self.tips(addressing: problem, in: catalog)
            return problem
        }
    }

    /// The problem with this sign at this place among the period's, with the screen people
    /// usually go to next from there (what its proposal's dismissal names); nil when the period
    /// has no such sign.
    public func one(
        app: String, catalog: Catalog?, period: Period, signal: StruggleSignal, screen: String, element: String
    ) async throws -> (problem: Problem, next: String?)? {
        let problems = try await list(app: app, catalog: catalog, period: period)
        guard let problem = problems.first(where: { $0.signal == signal && $0.screen == screen && $0.element == element }) else {
            return nil
        }
        return (problem, Self.next(after: screen, among: problems))
    }

    /// The screen people usually go to next from `screen`, as the stops found there say.
    public static func next(after screen: String, among problems: [Problem]) -> String? {
        problems.first { $0.signal == .stopped && $0.screen == screen }?.element
    }

    /// The users with a problem's sign over the period by the app's segments: for each, how many
    /// of its members had the sign. Members are as the segment refresher last found them (for a
    /// segment that reads history) or as the users' attributes are now (for one of attributes
    /// alone): nothing is replayed.
    public static func segments(
        of problem: Problem, segments: [Segment], store: any StruggleStore & UserStore & AnalyticsStore, app: String, period: Period,
        now: Int64
    ) async throws -> [SegmentShare] {
        guard !segments.isEmpty else { return [] }
        let users = try await store.struggleUsers(
            app: app, signal: problem.signal, screen: problem.screen, element: problem.element, period: period)
        var members = try await store.segmentMembers(app: app)
        let attributeSegments = segments.filter { !$0.readsHistory }
        if !attributeSegments.isEmpty {
            let outcome = try await SegmentReplay(segments: attributeSegments).run(store: store, app: app, .at(now))
            for (segment, found) in zip(attributeSegments, outcome.members) { members[segment.name] = found }
        }
        return segments.map { segment in
            let found = members[segment.name] ?? []
            return SegmentShare(segment: segment.name, users: users.intersection(found).count, members: found.count)
        }.sorted { ($0.users, $1.segment) > ($1.users, $0.segment) }
    }

    /// The catalog's tips that are there for a problem already: one that points at its element
    /// (by anchor, or a selector naming it), or, for a sign about the whole screen, one that
    /// shows on that screen (its area, or a trigger that names it).
    public static func tips(addressing problem: Problem, in catalog: Catalog?) -> [String] {
        guard let catalog else { return [] }
        return catalog.tips.filter { tip in
            if !problem.element.isEmpty, !problem.isAboutTheScreen, problem.signal != .failedSearch {
                if tip.tip.anchor == problem.element { return true }
                if let selector = tip.selector, selector.contains("#\(problem.element)") || selector.contains("\"\(problem.element)\"") {
                    return true
                }
            }
            guard problem.isAboutTheScreen || problem.signal == .failedSearch else { return false }
            return tip.tip.container == problem.screen || tip.tip.trigger.description.contains("screen:\(problem.screen)")
        }.map(\.id)
    }
}
