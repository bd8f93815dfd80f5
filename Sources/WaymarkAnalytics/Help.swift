import WaymarkCatalog
import WaymarkStore

/// The help launcher in a period: how often it was opened, what people searched for (and what
/// they looked for and did not find), and which articles they read.
public struct HelpReport: Hashable, Sendable {
    /// A query people typed: how often, by how many users.
    public struct Search: Hashable, Sendable {
        public var query: String
        public var searches: Int
        public var users: Int
    }

    /// An article: how many users opened it, how often.
    public struct ArticleOpens: Hashable, Sendable {
        public var article: String
        public var users: Int
        public var opens: Int
    }

    /// Users who opened the launcher, and how often it was opened.
    public var openedUsers: Int
    public var opened: Int
    /// Searches, and the users who searched.
    public var searches: Int
    public var searchers: Int
    /// The searches that found nothing, most frequent first (at most 50).
    public var unanswered: [Search]
    /// Every article of the catalog in its order, then articles since removed that were opened.
    public var articles: [ArticleOpens]
}

extension Analytics {
    /// How the help launcher was used in the period.
    public func help(app: String, catalog: Catalog, period: Period) async throws -> HelpReport {
        async let totals = store.tally(
            app: app, TallyQuery(period: period, names: ["help_opened", "help_searched"], by: []))
        async let queries = store.tally(
            app: app, TallyQuery(period: period, names: ["help_searched"], by: [.property("query"), .property("results")]))
        async let opens = store.tally(app: app, TallyQuery(period: period, names: ["article_opened"], by: [.target]))
        var report = HelpReport(openedUsers: 0, opened: 0, searches: 0, searchers: 0, unanswered: [], articles: [])
        for row in try await totals {
            if row.name == "help_opened" {
                (report.openedUsers, report.opened) = (row.users, row.events)
            } else {
                (report.searches, report.searchers) = (row.events, row.users)
            }
        }
        var unanswered: [String: HelpReport.Search] = [:]
        for row in try await queries {
            // The SDKs send the number found as a number; "0" and "0.0" both say none.
            guard let query = row.keys[0], let results = row.keys[1].flatMap(Double.init), results == 0 else { continue }
            unanswered[query, default: HelpReport.Search(query: query, searches: 0, users: 0)].searches += row.events
            unanswered[query]!.users += row.users
        }
        report.unanswered = Array(
            unanswered.values.sorted { ($1.searches, $0.query) < ($0.searches, $1.query) }.prefix(50))
        var byArticle: [String: HelpReport.ArticleOpens] = [:]
        for row in try await opens {
            guard let article = row.keys[0] else { continue }
            byArticle[article] = HelpReport.ArticleOpens(article: article, users: row.users, opens: row.events)
        }
        report.articles =
            catalog.articles.map { byArticle.removeValue(forKey: $0.id) ?? HelpReport.ArticleOpens(article: $0.id, users: 0, opens: 0) }
            + byArticle.values.sorted { $0.article < $1.article }
        return report
    }
}
