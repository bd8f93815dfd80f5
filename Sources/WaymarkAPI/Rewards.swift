/// `POST /v1/rewards/claims`: the user read a tour page to the bottom, or completed a checklist,
/// and claims its credits: `tour` and `page`, or `checklist`.
///
/// `userHash` proves the user id: the lowercase hex HMAC-SHA256 of `user` keyed with the app's
/// identity secret, computed by the app's own backend (the client key is public).
public struct RewardClaim: Codable, Hashable, Sendable {
    /// The user who read the page, as the app names them.
    public var user: String
    /// The identity proof: HMAC-SHA256 of `user` with the app's identity secret, in lowercase hex.
    public var userHash: String
    /// The tour's id, for a page's credits.
    public var tour: String?
    /// The page's id, for a page's credits.
    public var page: String?
    /// The checklist's id, for a completed checklist's credits.
    public var checklist: String?

    /// A claim of `page` of `tour` for `user`, proven by `userHash`.
    public init(user: String, userHash: String, tour: String, page: String) {
        self.user = user
        self.userHash = userHash
        self.tour = tour
        self.page = page
    }

    /// A claim of a completed checklist's credits for `user`, proven by `userHash`.
    public init(user: String, userHash: String, checklist: String) {
        self.user = user
        self.userHash = userHash
        self.checklist = checklist
    }
}

/// The grant for a claim: the same for every repetition of the claim.
public struct RewardGrant: Codable, Hashable, Sendable {
    /// The grant's id in the ledger.
    public var grantId: String
    /// The user it was granted to.
    public var user: String
    /// The tour's id, for a page's grant.
    public var tour: String?
    /// The page's id, for a page's grant.
    public var page: String?
    /// The checklist's id, for a checklist's grant.
    public var checklist: String?
    /// The credits granted: the page's or checklist's, or fewer under the app's cap per user.
    public var credits: Int
    /// RFC 3339 time of the first claim.
    public var grantedAt: String
    /// The user's balance after this grant (the sum of the ledger).
    public var balance: Int
    /// Whether this answer created the grant (false for a repeated claim).
    public var created: Bool

    /// A grant with these fields: `tour` and `page`, or `checklist`.
    public init(
        grantId: String, user: String, tour: String? = nil, page: String? = nil, checklist: String? = nil, credits: Int, grantedAt: String,
        balance: Int, created: Bool
    ) {
        self.grantId = grantId
        self.user = user
        self.tour = tour
        self.page = page
        self.checklist = checklist
        self.credits = credits
        self.grantedAt = grantedAt
        self.balance = balance
        self.created = created
    }
}

/// Every error the API answers with: `{"error": {"code": "...", "message": "..."}}`.
public struct APIErrorBody: Codable, Hashable, Sendable {
    /// The error itself.
    public struct Detail: Codable, Hashable, Sendable {
        /// What went wrong, for programs: `unauthorized`, `bad_request`, `invalid_catalog`...
        public var code: String
        /// What went wrong, for people.
        public var message: String
        /// For rule and catalog errors: where, as `file:line:column` diagnostics.
        public var diagnostics: [String]?
        /// The body's field the error is about, when it is about one (`url`).
        public var field: String?

        /// An error with this code, message, diagnostics and field.
        public init(code: String, message: String, diagnostics: [String]? = nil, field: String? = nil) {
            self.code = code
            self.message = message
            self.diagnostics = diagnostics
            self.field = field
        }
    }

    /// The error.
    public var error: Detail

    /// An error body with this code, message, diagnostics and field.
    public init(code: String, message: String, diagnostics: [String]? = nil, field: String? = nil) {
        error = Detail(code: code, message: message, diagnostics: diagnostics, field: field)
    }
}

/// One grant of an app's ledger, as the grants API (secret key) lists it.
public struct LedgerGrant: Codable, Hashable, Sendable {
    /// The grant's id, as the claim's answer gave it.
    public var grantId: String
    /// The user it was granted to.
    public var user: String
    /// The tour's id, for a page's grant.
    public var tour: String?
    /// The page's id, for a page's grant.
    public var page: String?
    /// The checklist's id, for a checklist's grant.
    public var checklist: String?
    /// The credits granted.
    public var credits: Int
    /// RFC 3339 time of the grant.
    public var grantedAt: String
    /// Its place in the app's ledger: 1, 2, 3... in the order grants were made, never reused.
    public var sequence: Int64

    /// A grant with these fields: `tour` and `page`, or `checklist`.
    public init(
        grantId: String, user: String, tour: String? = nil, page: String? = nil, checklist: String? = nil, credits: Int, grantedAt: String,
        sequence: Int64
    ) {
        self.grantId = grantId
        self.user = user
        self.tour = tour
        self.page = page
        self.checklist = checklist
        self.credits = credits
        self.grantedAt = grantedAt
        self.sequence = sequence
    }
}

/// `GET /v1/admin/users/{user}/grants`: what one user was granted, and their balance.
public struct UserGrants: Codable, Hashable, Sendable {
    /// The user, as the app names them.
    public var user: String
    /// The sum of their grants.
    public var balance: Int
    /// Their grants, in the order they were made.
    public var grants: [LedgerGrant]

    /// A user's grants and balance.
    public init(user: String, balance: Int, grants: [LedgerGrant]) {
        self.user = user
        self.balance = balance
        self.grants = grants
    }
}

/// `GET /v1/admin/grants?after=N&limit=M`: the app's grants after a sequence number, in order.
/// A backend reconciles by asking again with `after` set to `next` until `grants` is empty, and
/// keeps `next` for its next run: no grant is missed or read twice.
public struct GrantPage: Codable, Hashable, Sendable {
    /// At most `limit` grants, in the order they were made.
    public var grants: [LedgerGrant]
    /// The `after` of the next request: the last grant's sequence, or the request's own `after`
    /// when none came.
    public var next: Int64

    /// A page of grants and where the next starts.
    public init(grants: [LedgerGrant], next: Int64) {
        self.grants = grants
        self.next = next
    }
}
