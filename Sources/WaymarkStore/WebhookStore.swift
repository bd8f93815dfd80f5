import Foundation

/// Each app's webhook endpoints and the outbox of what is to be delivered to them.
///
/// A change that an app's backend hears of (a credit granted, a survey answered, a catalog
/// published, a user erased) writes its ``WebhookNotice`` in the change's own transaction: one
/// delivery per endpoint of the app that takes the notice's type. The delivery service then leases
/// due deliveries, sends them, and records each answer, so a delivery is sent at least once even
/// when a server is killed between the change and the sending.
public protocol WebhookStore: Sendable {
    /// Adds an endpoint to its app and appends `audit`, unless the app has `limit` endpoints
    /// already (false, changing nothing): the count is read in the same transaction, so endpoints
    /// added at once cannot pass the limit together.
    func createWebhookEndpoint(_ endpoint: WebhookEndpoint, limit: Int, audit: AuditEntry) async throws(StoreError) -> Bool
    /// The app's endpoints, oldest first.
    func webhookEndpoints(app: String) async throws(StoreError) -> [WebhookEndpoint]
    /// Makes `secret` the endpoint's signing secret; the one it replaces keeps signing beside it
    /// until `previousUntil`. Appends `audit` in the same transaction. Nil when the app has no
    /// such endpoint.
    func rotateWebhookSecret(
        app: String, endpoint: String, secret: String, previousUntil: Date, audit: AuditEntry
    ) async throws(StoreError) -> WebhookEndpoint?
    /// Removes the endpoint and its deliveries, and appends `audit`; false when the app has no
    /// such endpoint.
    func deleteWebhookEndpoint(app: String, endpoint: String, audit: AuditEntry) async throws(StoreError) -> Bool

    /// The app's latest deliveries, newest first, at most `limit`; only one endpoint's when
    /// `endpoint` is set.
    func webhookDeliveries(app: String, endpoint: String?, limit: Int) async throws(StoreError) -> [WebhookDelivery]
    /// Up to `limit` deliveries, of any app, that are due at `now` and not leased, now leased
    /// until `until`: no other server's lease takes them meanwhile (on PostgreSQL, rows another
    /// server is leasing at that moment are skipped, not waited for). The oldest due first.
    func leaseWebhookDeliveries(now: Date, until: Date, limit: Int) async throws(StoreError) -> [WebhookDispatch]
    /// Records the answer to one attempt of a leased delivery and what becomes of it; false,
    /// changing nothing, when the lease is no longer `lease` (it ran out and another server took
    /// the delivery).
    func recordWebhookAttempt(_ attempt: WebhookAttempt, lease: Date) async throws(StoreError) -> Bool
    /// Makes one of the app's deliveries due again at `now`, whatever became of it; false when
    /// the app has no such delivery.
    func redeliverWebhook(app: String, event: String, endpoint: String, now: Date) async throws(StoreError) -> Bool
    /// Removes deliveries that are no longer pending and were made before `before`; answers how
    /// many.
    func pruneWebhookDeliveries(before: Date) async throws(StoreError) -> Int
}

/// Where an app's backend hears of changes, and with which secrets deliveries are signed.
public struct WebhookEndpoint: Hashable, Sendable {
    public var id: String
    public var app: String
    /// An absolute `https` (or `http`) URL.
    public var url: String
    /// The notice types it takes (`credit.granted`...); empty takes them all.
    public var types: [String]
    /// The secret deliveries are signed with. Kept as it is, since signing needs it; shown only
    /// when it is made.
    public var secret: String
    /// The secret a rotation replaced, which signs beside the new one until ``previousUntil``.
    public var previousSecret: String?
    public var previousUntil: Date?
    public var createdAt: Date

    public init(
        id: String, app: String, url: String, types: [String], secret: String, previousSecret: String? = nil,
        previousUntil: Date? = nil, createdAt: Date
    ) {
        self.id = id
        self.app = app
        self.url = url
        self.types = types
        self.secret = secret
        self.previousSecret = previousSecret
        self.previousUntil = previousUntil
        self.createdAt = createdAt
    }

    /// The secrets that sign a delivery at `time`: the current one, and the one a rotation
    /// replaced while it is still valid.
    public func signingSecrets(at time: Date) -> [String] {
        guard let previousSecret, previousValid(at: time) != nil else { return [secret] }
        return [secret, previousSecret]
    }

    /// Until when the secret a rotation replaced still signs, if it still does at `time`.
    public func previousValid(at time: Date) -> Date? {
        guard previousSecret != nil, let previousUntil, previousUntil > time else { return nil }
        return previousUntil
    }

    /// The stored form of ``types``: comma-separated, `*` for all.
    public var storedTypes: String { types.isEmpty ? "*" : types.joined(separator: ",") }

    /// ``types`` from their stored form.
    public static func types(stored: String) -> [String] {
        stored == "*" ? [] : stored.split(separator: ",").map(String.init)
    }
}

/// A change an app's backend hears of, as its endpoints receive it. Written in the transaction of
/// the change; each endpoint of the app that takes `type` gets a delivery of it.
public struct WebhookNotice: Hashable, Sendable {
    /// `evt_` and random hex: the same for every endpoint and every attempt, so that a receiver
    /// can tell a repeat.
    public var id: String
    public var app: String
    public var type: String
    /// The user it is about, if any: erasing the user removes their notices not yet pruned.
    public var user: String?
    public var createdAt: Date
    /// The JSON body delivered.
    public var body: String
    /// Whether only endpoints that name `type` get it, not those that take every type: for
    /// notices many times as frequent as the others (each upload's guidance events).
    public var onlyWhenNamed: Bool

    public init(id: String, app: String, type: String, user: String?, createdAt: Date, body: String, onlyWhenNamed: Bool = false) {
        self.id = id
        self.app = app
        self.type = type
        self.user = user
        self.createdAt = createdAt
        self.body = body
        self.onlyWhenNamed = onlyWhenNamed
    }
}

/// One notice on its way to one endpoint: what the console lists.
public struct WebhookDelivery: Hashable, Sendable {
    public enum State: String, Hashable, Sendable {
        /// To be sent (again) at ``WebhookDelivery/nextAttemptAt``.
        case pending
        /// The endpoint answered 2xx.
        case delivered
        /// Every attempt failed; sending it again starts over.
        case failed
    }

    public var event: String
    public var endpoint: String
    public var app: String
    public var type: String
    public var createdAt: Date
    public var state: State
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastAttemptAt: Date?
    /// The HTTP status of the last answer, if one came.
    public var lastStatus: Int?
    /// The start of the last answer's body.
    public var lastAnswer: String?
    /// Why the last attempt got no answer (a refused connection, a timeout).
    public var lastError: String?

    public init(
        event: String, endpoint: String, app: String, type: String, createdAt: Date, state: State, attempts: Int, nextAttemptAt: Date,
        lastAttemptAt: Date? = nil, lastStatus: Int? = nil, lastAnswer: String? = nil, lastError: String? = nil
    ) {
        self.event = event
        self.endpoint = endpoint
        self.app = app
        self.type = type
        self.createdAt = createdAt
        self.state = state
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastAttemptAt = lastAttemptAt
        self.lastStatus = lastStatus
        self.lastAnswer = lastAnswer
        self.lastError = lastError
    }
}

/// A leased delivery with what sending it needs.
public struct WebhookDispatch: Hashable, Sendable {
    public var event: String
    public var endpoint: WebhookEndpoint
    public var type: String
    public var body: String
    /// Attempts made before this one.
    public var attempts: Int

    public init(event: String, endpoint: WebhookEndpoint, type: String, body: String, attempts: Int) {
        self.event = event
        self.endpoint = endpoint
        self.type = type
        self.body = body
        self.attempts = attempts
    }
}

/// The outcome of one attempt to send a delivery.
public struct WebhookAttempt: Hashable, Sendable {
    public var event: String
    public var endpoint: String
    public var at: Date
    public var status: Int?
    public var answer: String?
    public var error: String?
    /// What the delivery becomes: delivered, pending again at ``nextAttemptAt``, or failed.
    public var state: WebhookDelivery.State
    public var nextAttemptAt: Date

    public init(
        event: String, endpoint: String, at: Date, status: Int?, answer: String?, error: String?, state: WebhookDelivery.State,
        nextAttemptAt: Date
    ) {
        self.event = event
        self.endpoint = endpoint
        self.at = at
        self.status = status
        self.answer = answer
        self.error = error
        self.state = state
        self.nextAttemptAt = nextAttemptAt
    }
}
