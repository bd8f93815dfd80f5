import Foundation
import WaymarkCatalog
import WaymarkRules
import WaymarkStore

/// What a report can be broken down by besides platform and app version: the value of one of the
/// users' attributes, or whether they were in a segment.
public enum UserBreakdown: Hashable, Sendable {
    /// By `user.<name>` as the server keeps it now; users without it form a group of their own.
    case attribute(String)
    /// In the segment at some moment of the period, or not (``SegmentReplay/Moment/during(_:)``).
    case segment(Segment)

    /// `user.plan`, `segment:cod-users`: how the console names it.
    public var label: String {
        switch self {
        case .attribute(let name): "user." + name
        case .segment(let segment): "segment:" + segment.name
        }
    }
}

/// Every user's group under a breakdown for a period, decided once for all the reports of a page.
public struct UserGroups: Sendable {
    public let breakdown: UserBreakdown
    let groups: [String: String]
    /// The group of users the map does not name.
    let others: String

    /// The group a user without the attribute is in.
    public static let noValue = "(none)"

    public func group(of user: String) -> String { groups[user] ?? others }

    /// The groups of the period's users. A segment's members are read from the days `kept` keeps
    /// (the live catalog's, ``Eligibility/segmentMembers(store:app:period:replaying:)``) when the
    /// segment is one of its own, by the same rule, and those days are kept; else it is replayed.
    public init(
        _ breakdown: UserBreakdown, store: any AnalyticsStore & UserStore, app: String, period: Period,
        kept: (eligibility: Eligibility, store: any Store)? = nil
    ) async throws {
        self.breakdown = breakdown
        switch breakdown {
        case .attribute(let name):
            groups = try await store.attributes(app: app, named: [name]).compactMapValues { $0[name]?.plainText }
            others = Self.noValue
        case .segment(let segment):
            let members = try await SegmentReplay.members(of: [segment], store: store, app: app, period: period, kept: kept).members[0]
            groups = Dictionary(uniqueKeysWithValues: members.map { ($0, "in " + breakdown.label) })
            others = "not in " + breakdown.label
        }
    }

    /// The groups as the store splits a tally by them.
    var grouping: UserGrouping { UserGrouping(groups, others: others) }

    /// The groups by their count of users, most first, ties by name.
    static func order(_ users: [String: Int]) -> [String] {
        users.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map(\.key)
    }
}

extension Analytics {
    /// A tip's funnel per group (eligible is not counted per group: nil), groups with the most
    /// users shown first.
    public func tip(_ id: String, app: String, period: Period, by groups: UserGroups) async throws -> [(group: String, funnel: TipFunnel)] {
        let rows = try await store.tally(
            app: app, TallyQuery(period: period, names: Self.tipEvents, by: [.target]), grouping: groups.grouping)
        var funnels: [String: TipFunnel] = [:]
        for row in rows where row.keys[0] == id {
            funnels[row.keys[1] ?? "", default: TipFunnel()].add(row)
        }
        return UserGroups.order(funnels.mapValues { max($0.shown, $0.acted, $0.closed) }).map { ($0, funnels[$0]!) }
    }

    /// A tour's pages per group, groups with the most users on the first page first. Credits are
    /// not split by group.
    public func tour(_ tour: Tour, app: String, period: Period, by groups: UserGroups) async throws -> [(
        group: String, report: TourReport
    )] {
        let rows = try await store.tally(
            app: app, TallyQuery(period: period, names: Self.tourEvents, by: [.property("tour"), .property("page")]),
            grouping: groups.grouping)
        var pages: [String: [String: TourPageReport]] = [:]
        for row in rows where row.keys[0] == tour.id {
            guard let page = row.keys[1], let group = row.keys[2] else { continue }
            pages[group, default: [:]][page, default: TourPageReport(page: page)].add(row)
        }
        let first = tour.pages.first?.id ?? ""
        return UserGroups.order(pages.mapValues { $0[first]?.viewed ?? 0 }).map { group in
            let report = TourReport(
                tour: tour.id,
                pages: tour.pages.map {
                    pages[group]?[$0.id] ?? TourPageReport(page: $0.id)
                })
            return (group, report)
        }
    }

    /// A survey's answers per group, groups with the most answers first.
    public func survey(_ tip: CatalogTip, app: String, period: Period, by groups: UserGroups) async throws -> [(
        group: String, score: SurveyScore
    )] {
        guard let survey = tip.survey else { return [] }
        let rows = try await store.tally(
            app: app, TallyQuery(period: period, names: [Survey.answerEvent], by: [.target, .property("score")]),
            grouping: groups.grouping)
        var scores: [String: SurveyScore] = [:]
        for row in rows where row.keys[0] == tip.id {
            guard let score = row.keys[1].flatMap({ Int($0) }), survey.scale.scores.contains(score), let group = row.keys[2] else {
                continue
            }
            scores[group, default: SurveyScore(scale: survey.scale)].add(score: score, answers: row.events)
        }
        return UserGroups.order(scores.mapValues(\.answers)).map { ($0, scores[$0]!) }
    }
}
