import CoreMetrics
import Foundation
import Hummingbird
import WaymarkAPI
import WaymarkCatalog
import WaymarkDelivery
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
    /// `POST /v1/rewards/claims`: grants a page's or a checklist's credits once per user, proven by
    /// `userHash`.
    func claim(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.appKey()
        let claim = try await request.decodeBody(as: ClaimBody.self, context: context).claim
        let app = try await app(of: key)
        guard Secrets.verify(userHash: claim.userHash, user: claim.user, identitySecret: app.identitySecret) else {
            throw APIError(.forbidden, .badUserHash, "userHash is not the HMAC-SHA256 of user with this app's identity secret")
        }
        guard let live = try await liveCatalog(app: app.id) else {
            throw APIError(.notFound, .noReward, "the app has no live catalog, so no reward")
        }
        let ledger: (tour: String, page: String, credits: Int)
        switch (claim.tour, claim.page, claim.checklist) {
        case (let tourID?, let pageID?, nil):
            guard let tour = live.catalog.tours.first(where: { $0.id == tourID }), let page = tour.pages.first(where: { $0.id == pageID }),
                let credits = page.reward
            else {
                throw APIError(.notFound, .noReward, "the live catalog has no reward for this tour page")
            }
            if live.catalog.rewards.requireReading || page.minReadingSeconds != nil {
                try await checkReading(app: app.id, user: claim.user, tour: tour.id, page: page)
            }
            ledger = (tour.id, page.id, credits)
        case (nil, nil, let checklistID?):
            guard let checklist = live.catalog.checklists.first(where: { $0.id == checklistID }), let credits = checklist.reward else {
                throw APIError(.notFound, .noReward, "the live catalog has no reward for this checklist")
            }
            ledger = (Grant.checklistTour(checklist.id), "", credits)
        default:
            throw APIError.badRequest("a claim names a tour and its page, or a checklist")
        }
        let credits = ledger.credits
        let outcome = try await store.claim(
            Grant(
                id: "grant_" + Secrets.randomHex(bytes: 12), app: app.id, user: claim.user, tour: ledger.tour, page: ledger.page,
                // Whole milliseconds, as the store keeps them: the answer, the notice and the
                // grants API then show one time.
                credits: credits, grantedAt: Date(millisecondsSince1970: now().millisecondsSince1970)
            ),
            credits: { [cap = live.catalog.rewards.maxCreditsPerUser] balance in
                CreditCap.credits(offered: credits, balance: balance, cap: cap)
            },
            notice: WebhookNotices.creditGranted
        )
        let grant = outcome.grant
        if outcome.created { metrics.rewardsGranted.increment() }
        return jsonResponse(
            RewardGrant(LedgerGrant(grant), balance: outcome.balance, created: outcome.created),
            status: outcome.created ? .created : .ok
        )
    }
}

extension WaymarkServer {
    /// How many of the user's latest events of a page a claim reads.
    static let readingEventLimit = 200

    /// Refuses a page's credit unless the user's own stored events show the page read to its
    /// bottom (`page_read_to_bottom`, with the tour as its `tour` property) and, for a page with a
    /// minimum reading time, that long from opening it (the latest `page_viewed` before that
    /// reading) at least once.
    func checkReading(app: String, user: String, tour: String, page: TourPage) async throws {
        let events = try await store.readingEvents(app: app, user: user, page: page.id, limit: Self.readingEventLimit)
            .filter { Self.textProperty("tour", of: $0) == tour }
        let reads = events.filter { $0.name == "page_read_to_bottom" }.map(\.timestamp)
        guard !reads.isEmpty else {
            throw APIError(
                .conflict, .notRead,
                "no page_read_to_bottom of page \(page.id) of tour \(tour) from this user has reached the server: send it, then claim")
        }
        guard let minimum = page.minReadingSeconds else { return }
        let views = events.filter { $0.name == "page_viewed" }.map(\.timestamp)
        let longest = reads.compactMap { read in views.filter { $0 <= read }.max().map { read - $0 } }.max()
        guard let longest, longest >= Int64(minimum) * 1000 else {
            let shown = longest.map { "it was read in \($0 / 1000) s" } ?? "no page_viewed came before its bottom"
            throw APIError(.forbidden, .readTooQuickly, "this page's credit needs \(minimum) s of reading; \(shown)")
        }
    }

    /// A text property of a stored event.
    static func textProperty(_ name: String, of event: StoredEvent) -> String? {
        guard let json = event.properties, let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            return nil
        }
        return object[name] as? String
    }

    /// The most grants one page of `GET /v1/admin/grants` holds, and how many it holds unless asked.
    static let grantPageLimit = (most: 1000, unlessAsked: 100)

    /// `GET /v1/admin/users/{user}/grants`: one user's grants and balance, for the app's backend;
    /// 404 for a user the ledger has no grant of (never granted one, or erased).
    func userGrants(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let user = try context.userParameter()
        let grants = try await store.grants(app: key.app, user: user)
        guard !grants.isEmpty else { throw APIError(.notFound, .notFound, "the ledger has no grant of this user") }
        return jsonResponse(
            UserGrants(user: user, balance: grants.reduce(0) { $0 + $1.credits }, grants: grants.map(LedgerGrant.init)))
    }

    /// `GET /v1/admin/grants?after=N&limit=M`: the app's grants after sequence `after` (0: from
    /// the first), at most `limit` (1 to 1000, 100 unless asked), in the order they were made.
    func grantPage(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let query = request.uri.queryParameters
        func number(_ name: String, default value: Int64, in range: ClosedRange<Int64>) throws -> Int64 {
            guard let text = query[name[...]] else { return value }
            guard let number = Int64(text), range.contains(number) else {
                throw APIError.badRequest("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return number
        }
        let after = try number("after", default: 0, in: 0...Int64.max)
        let limit = try number("limit", default: Int64(Self.grantPageLimit.unlessAsked), in: 1...Int64(Self.grantPageLimit.most))
        let grants = try await store.grants(app: key.app, after: after, limit: Int(limit)).map(LedgerGrant.init)
        return jsonResponse(GrantPage(grants: grants, next: grants.last?.sequence ?? after))
    }
}

extension RewardGrant {
    /// A claim's answer: the grant as the ledger shows it, with the user's balance after it.
    init(_ grant: LedgerGrant, balance: Int, created: Bool) {
        self.init(
            grantId: grant.grantId, user: grant.user, tour: grant.tour, page: grant.page, checklist: grant.checklist,
            credits: grant.credits, grantedAt: grant.grantedAt, balance: balance, created: created)
    }
}

extension LedgerGrant {
    /// A stored grant as the grants API shows it.
    init(_ grant: Grant) {
        let checklist = grant.checklist
        self.init(
            grantId: grant.id, user: grant.user, tour: checklist == nil ? grant.tour : nil, page: checklist == nil ? grant.page : nil,
            checklist: checklist, credits: grant.credits, grantedAt: Timestamp.format(grant.grantedAt), sequence: grant.sequence)
    }
}

/// `POST /v1/rewards/claims`: a ``RewardClaim`` and nothing else.
struct ClaimBody: Decodable {
    var claim: RewardClaim

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(["user", "userHash", "tour", "page", "checklist"])
        claim = try RewardClaim(from: decoder)
    }
}
