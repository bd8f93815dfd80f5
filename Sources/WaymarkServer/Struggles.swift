import Foundation
import Hummingbird
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules
import WaymarkStore
import WaymarkSupport

extension WaymarkServer {
    /// `GET /v1/admin/struggles?from=&to=`: where the app's users got lost in [from, to) (RFC 3339;
    /// by default the last 30 days), most users first, as the background refresher found it
    /// (``WaymarkAnalytics/StruggleRefresher``): no event is read here.
    func listProblems(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let time = now().millisecondsSince1970
        let period = Period(
            from: try request.timeParameter("from", default: time - 30 * Period.day), to: try request.timeParameter("to", default: time))
        let live = try await publishedCatalog(app: key.app)?.catalog
        let draft = try await draftCatalog(app: key.app)?.catalog ?? live ?? Catalog(tips: [])
        let problems = try await Problems(store: store).list(app: key.app, catalog: live, period: period)
        return jsonResponse(
            ProblemList(
                from: Timestamp.format(Date(millisecondsSince1970: period.from)),
                to: Timestamp.format(Date(millisecondsSince1970: period.to)),
                problems: problems.map { problem in
                    let next = Problems.next(after: problem.screen, among: problems)
                    return ProblemList.Entry(problem, proposal: problem.proposal(next: next, catalog: draft))
                }))
    }
}

/// What `GET /v1/admin/struggles` answers.
struct ProblemList: Encodable {
    struct Share: Encodable {
        var name: String
        var users: Int
    }

    struct Entry: Encodable {
        var signal: String
        var screen: String
        var element: String
        var users: Int
        var visits: Int
        var occurrences: Int
        /// Occurrences in the period's last 7 days and the 7 before (its halves when shorter).
        var later: Int
        var earlier: Int
        var locales: [Share]
        var platforms: [Share]
        var addressedBy: [String]
        /// The tip Waymark proposes, as it would go in the draft; absent when no rule can name the place.
        var proposal: ProposedTip?

        init(_ problem: Problem, proposal: Proposal?) {
            self.proposal = proposal.map(ProposedTip.init)
            signal = problem.signal.rawValue
            screen = problem.screen
            element = problem.element
            users = problem.users
            visits = problem.visits
            occurrences = problem.occurrences
            later = problem.later
            earlier = problem.earlier
            locales = problem.locales.map { Share(name: $0.name, users: $0.users) }
            platforms = problem.platforms.map { Share(name: $0.name, users: $0.users) }
            addressedBy = problem.addressedBy
        }
    }

    /// A proposed tip, as the draft would have it.
    struct ProposedTip: Encodable {
        var id: String
        var container: String
        var anchor: String?
        var renderer: String
        var trigger: String
        var dismissal: String?
        var title: String
        var reason: String

        init(_ proposal: Proposal) {
            let tip = proposal.tip
            id = tip.id
            container = tip.tip.container
            anchor = tip.tip.anchor
            renderer = tip.renderer.rawValue
            trigger = tip.tip.trigger.description
            dismissal = tip.tip.dismissal?.description
            title = tip.content.fallback.title
            reason = proposal.reason
        }
    }

    var from: String
    var to: String
    var problems: [Entry]
}
