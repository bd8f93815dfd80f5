import Foundation
import Hummingbird
import WaymarkAPI
import WaymarkStore
import WaymarkSupport

/// The per-user cap on credits (`rewards.maxCreditsPerUser`): a grant gives what the page offers,
/// or what is left under the cap, never below zero. The store applies it to the balance it reads
/// in the claim's own transaction.
public enum CreditCap {
    /// The credits a new grant gives, for a user whose balance is `balance`.
    public static func credits(offered: Int, balance: Int, cap: Int?) -> Int {
        guard let cap else { return offered }
        return max(0, min(offered, cap - balance))
    }
}

extension WaymarkServer {
    /// `POST /v1/rewards/claims`: grants a page's credits once per user, proven by `userHash`.
    func claim(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try await authenticate(request, allow: [.client, .secret])
        let object = try jsonObject(Data(buffer: try await request.body.collect(upTo: 16 * 1024)))
        let fields = ["user", "userHash", "tour", "page"]
        if let extra = object.keys.sorted().first(where: { !fields.contains($0) }) {
            throw APIError.badRequest("unknown field \"\(extra)\"")
        }
        guard let user = object["user"] as? String, let userHash = object["userHash"] as? String,
            let tourID = object["tour"] as? String, let pageID = object["page"] as? String
        else {
            throw APIError.badRequest("the body is {\"user\", \"userHash\", \"tour\", \"page\"}, all text")
        }
        let claim = RewardClaim(user: user, userHash: userHash, tour: tourID, page: pageID)
        let app = try await app(of: key)
        guard Secrets.verify(userHash: claim.userHash, user: claim.user, identitySecret: app.identitySecret) else {
            throw APIError(.forbidden, "bad_user_hash", "userHash is not the HMAC-SHA256 of user with this app's identity secret")
        }
        guard let live = try await liveCatalog(app: app.id),
            let tour = live.catalog.tours.first(where: { $0.id == claim.tour }),
            let page = tour.pages.first(where: { $0.id == claim.page }), let credits = page.reward
        else {
            throw APIError(.notFound, "no_reward", "the live catalog has no reward for this tour page")
        }
        let outcome = try await store.claim(
            Grant(
                id: "grant_" + Secrets.randomHex(bytes: 12), app: app.id, user: claim.user, tour: tour.id, page: page.id,
                credits: credits, grantedAt: now()
            ),
            credits: { [cap = live.catalog.rewards.maxCreditsPerUser] balance in CreditCap.credits(offered: credits, balance: balance, cap: cap) }
        )
        let grant = outcome.grant
        if outcome.created { metrics.rewardsGranted.increment() }
        return jsonResponse(
            RewardGrant(
                grantId: grant.id, user: grant.user, tour: grant.tour, page: grant.page, credits: grant.credits,
                grantedAt: Timestamp.format(grant.grantedAt), balance: outcome.balance, created: outcome.created
            ),
            status: outcome.created ? .created : .ok
        )
    }
}
