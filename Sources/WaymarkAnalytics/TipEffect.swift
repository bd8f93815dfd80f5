import Foundation
import WaymarkCatalog
import WaymarkDelivery
import WaymarkStore

/// Whether a published tip helped with a problem: the share of users on the problem's screen who
/// showed its sign, in the days before the tip was published and after, and, after, among users
/// the tip's rollout includes against those it holds out (an honest comparison: the two groups
/// differ only by chance), or, with a full rollout, among users shown the tip against the others
/// (who differ in more than the tip, which the page says).
public struct TipEffect: Hashable, Sendable {
    public var tip: String
    /// When it was first published (ms since 1970), and the days compared on each side.
    public var published: Int64
    public var days: Int
    public var before: Proportion
    public var after: Proportion
    /// After publication: users with the tip (its rollout's, or shown it) and without.
    public var with: Proportion
    public var without: Proportion
    /// Whether `with` and `without` are the rollout's users and its holdout.
    public var holdout: Bool
    /// For a tip with A/B variants: the users of `with` by the variant they are assigned, in the
    /// catalog's order (which words helped more); empty for a tip with one content.
    public var variants: [Variant]

    /// The users with one variant of the tip, and how many of them showed the sign.
    public struct Variant: Hashable, Sendable {
        public var id: String
        public var share: Proportion

        public init(id: String, share: Proportion) {
            self.id = id
            self.share = share
        }
    }
    /// The two-sided p-value of the difference between `with` and `without`.
    public var pValue: Double? { Statistics.twoProportionPValue(with, without) }

    /// The effect of `tip`, first published at `published`, on `problem`, over `days` days on each
    /// side of it (the later side ends at `now`): read from the kept signs and the events' tallies.
    public static func measure(
        _ problem: Problem, tip: CatalogTip, published: Int64, now: Int64, days: Int = 14,
        store: any StruggleStore & AnalyticsStore, app: String
    ) async throws -> TipEffect {
        let span = Int64(days) * Period.day
        let before = Period(from: published - span, to: published)
        let after = Period(from: published, to: min(now, published + span))
        func visitors(_ period: Period) async throws -> Set<String> {
            let rows = try await store.tally(app: app, TallyQuery(period: period, names: ["screen"], by: [.target, .user]))
            return Set(rows.compactMap { $0.keys[0] == problem.screen ? $0.keys[1] : nil })
        }
        func signed(_ period: Period) async throws -> Set<String> {
            try await store.struggleUsers(
                app: app, signal: problem.signal, screen: problem.screen, element: problem.element, period: period)
        }
        let (seenBefore, signBefore) = (try await visitors(before), try await signed(before))
        let (seenAfter, signAfter) = (try await visitors(after), try await signed(after))
        let holdout = tip.targeting.rollout < 100
        let got: Set<String>
        if holdout {
            let rollout = Targeting(rollout: tip.targeting.rollout)
            got = seenAfter.filter { Resolver.admits(rollout, id: tip.id, context: [:], user: $0) }
        } else {
            let shown = try await store.tally(app: app, TallyQuery(period: after, names: ["tip_shown"], by: [.target, .user]))
            got = Set(shown.compactMap { $0.keys[0] == tip.id ? $0.keys[1] : nil }).intersection(seenAfter)
        }
        let rest = seenAfter.subtracting(got)
        var byVariant: [String: Set<String>] = [:]
        if tip.variants.count > 1 {
            for user in got { byVariant[Resolver.assign(tip.variants, id: tip.id, user: user)?.id ?? "", default: []].insert(user) }
        }
        let variants = tip.variants.count > 1 ? tip.variants.map(\.id) : []
        return TipEffect(
            tip: tip.id, published: published, days: days,
            before: Proportion(signBefore.intersection(seenBefore).count, of: seenBefore.count),
            after: Proportion(signAfter.intersection(seenAfter).count, of: seenAfter.count),
            with: Proportion(signAfter.intersection(got).count, of: got.count),
            without: Proportion(signAfter.intersection(rest).count, of: rest.count), holdout: holdout,
            variants: variants.map { id in
                let users = byVariant[id] ?? []
                return Variant(id: id, share: Proportion(signAfter.intersection(users).count, of: users.count))
            })
    }
}
