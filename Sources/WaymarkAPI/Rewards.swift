/// `POST /v1/rewards/claims`: the user read a tour page to the bottom and claims its credit.
///
/// `userHash` proves the user id: the lowercase hex HMAC-SHA256 of `user` keyed with the app's
/// identity secret, computed by the app's own backend (the client key is public).
public struct RewardClaim: Codable, Hashable, Sendable {
    public var user: String
    public var userHash: String
    public var tour: String
    public var page: String

    public init(user: String, userHash: String, tour: String, page: String) {
        self.user = user
        self.userHash = userHash
        self.tour = tour
        self.page = page
    }
}

/// The grant for a claim: the same for every repetition of the claim.
public struct RewardGrant: Codable, Hashable, Sendable {
    public var grantId: String
    public var user: String
    public var tour: String
    public var page: String
    public var credits: Int
    /// RFC 3339 time of the first claim.
    public var grantedAt: String
    /// The user's balance after this grant (the sum of the ledger).
    public var balance: Int
    /// Whether this answer created the grant (false for a repeated claim).
    public var created: Bool

    public init(grantId: String, user: String, tour: String, page: String, credits: Int, grantedAt: String, balance: Int, created: Bool) {
        self.grantId = grantId
        self.user = user
        self.tour = tour
        self.page = page
        self.credits = credits
        self.grantedAt = grantedAt
        self.balance = balance
        self.created = created
    }
}

/// Every error the API answers with: `{"error": {"code": "...", "message": "..."}}`.
public struct APIErrorBody: Codable, Hashable, Sendable {
    public struct Detail: Codable, Hashable, Sendable {
        public var code: String
        public var message: String
        /// For rule and catalog errors: where, as `file:line:column` diagnostics.
        public var diagnostics: [String]?

        public init(code: String, message: String, diagnostics: [String]? = nil) {
            self.code = code
            self.message = message
            self.diagnostics = diagnostics
        }
    }

    public var error: Detail

    public init(code: String, message: String, diagnostics: [String]? = nil) {
        error = Detail(code: code, message: message, diagnostics: diagnostics)
    }
}
