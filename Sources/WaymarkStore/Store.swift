import Foundation
import WaymarkSupport

/// Everything the server keeps, behind one protocol so that SQLite (the default) and PostgreSQL
/// (for several servers) are interchangeable without touching the handlers.
///
/// Every method is one transaction: it either happens entirely or not at all. Objects belong to
/// one app, and every method that reads or changes them takes the app's id, so a caller cannot
/// reach another app's objects by naming their ids. The console's users, sessions and audit log
/// are in ``AccountStore``, the reads of analytics in ``AnalyticsStore``, narration audio in
/// ``NarrationStore``, what is known of each app's users in ``UserStore``, webhook endpoints and
/// their outbox in ``WebhookStore``.
public protocol Store: AccountStore, AnalyticsExport, AnalyticsOutbox, AnalyticsStore, AnchorStore, CaptureStore, EligibilityStore,
    NarrationStore,
    PreviewStore, StruggleStore, UserStore,
    WebhookStore
{
    /// Whether other servers may change this database (PostgreSQL): a server then checks the live
    /// version's number before it trusts what it cached. False for an embedded database only this
    /// process writes (SQLite).
    var isShared: Bool { get }

    // MARK: Apps and keys

    func createApp(_ app: AppRecord) async throws(StoreError)
    func app(id: String) async throws(StoreError) -> AppRecord?
    func apps() async throws(StoreError) -> [AppRecord]
    func insertKey(_ key: KeyRecord) async throws(StoreError)
    /// The key whose hash this is, revoked or not.
    func key(hash: String) async throws(StoreError) -> KeyRecord?
    func keys(app: String) async throws(StoreError) -> [KeyRecord]
    /// Revokes a key of this app; `false` when the app has no such key.
    func revokeKey(id: String, app: String, at time: Date) async throws(StoreError) -> Bool

    // MARK: Catalog

    /// The draft document of an app, if one was saved.
    func draft(app: String) async throws(StoreError) -> CatalogDraft?
    /// Saves the app's draft as the next revision if `accept` takes its current revision (0: there
    /// is no draft yet), and appends `audit` to the audit log in the same transaction. The revision
    /// is read and the draft written under one lock, so no other save comes between. Returns the
    /// saved draft, or nil when `accept` refused: the caller decides what a refusal means (another
    /// change came first, say).
    func saveDraft(
        app: String, document: String, at time: Date, audit: [AuditEntry], accept: @escaping @Sendable (_ currentRevision: Int) -> Bool
    ) async throws(StoreError) -> CatalogDraft?
    /// Freezes a document as the next numbered version of the app and makes it live, and appends
    /// the entries `audit` makes for that version to the audit log, and the webhook notice
    /// `notice` makes to the outbox, in the same transaction.
    func publish(
        app: String, document: String, at time: Date, note: String?, audit: @escaping @Sendable (CatalogVersion) -> [AuditEntry],
        notice: @escaping @Sendable (CatalogVersion) -> WebhookNotice?
    ) async throws(StoreError) -> CatalogVersion
    /// The live version: the latest published.
    func liveVersion(app: String) async throws(StoreError) -> CatalogVersion?
    /// The live version's number alone (nil: nothing published): a cheap read that lets a server
    /// sharing the database with others tell whether its cached catalog is still the live one.
    func liveVersionNumber(app: String) async throws(StoreError) -> Int?
    func version(app: String, number: Int) async throws(StoreError) -> CatalogVersion?
    /// Every version, newest first, without their documents.
    func versions(app: String) async throws(StoreError) -> [CatalogVersion]

    // MARK: Events

    /// Stores events, each once per (app, id) for good; returns, per event in order, whether it was
    /// new (`true`) or a duplicate. Committed before it returns. A batch holding an event of an app
    /// that does not exist stores nothing (`.conflict`). The webhook notices `notices` makes of
    /// the new events (duplicates left out) go to the outbox in the same transaction. A store may
    /// also call it with every event, before inserting, to learn whether it makes any.
    func insertEvents(_ events: [StoredEvent], notices: @escaping @Sendable ([StoredEvent]) -> [WebhookNotice]) async throws(StoreError)
        -> [Bool]
    func eventCount(app: String) async throws(StoreError) -> Int
    /// The user's latest `page_viewed` and `page_read_to_bottom` events whose target is `page`,
    /// newest first, at most `limit`: what a credit claim is checked against. An index of these
    /// two names alone serves it, so other events cost nothing more to store.
    func readingEvents(app: String, user: String, page: String, limit: Int) async throws(StoreError) -> [StoredEvent]
    /// Removes at most `limit` of the app's events whose time is before `before` (ms since 1970),
    /// the oldest first, in one short transaction; answers how many. Retention calls it in small
    /// batches so that ingestion is never held up for long.
    func deleteEvents(app: String, before: Int64, limit: Int) async throws(StoreError) -> Int
    /// How many days each app that does not keep its events forever keeps them, by app.
    func eventRetentions() async throws(StoreError) -> [String: Int]
    /// Sets how many days the app keeps its events (nil: forever, the default), and appends
    /// `audit` in the same transaction.
    func setEventRetention(app: String, days: Int?, audit: AuditEntry) async throws(StoreError)
    /// The events seen since a time (ms since 1970) as rules name them, `name` or `name:target`,
    /// most frequent first: what the console offers while one writes a rule.
    func eventNames(app: String, since: Int64, limit: Int) async throws(StoreError) -> [String]

    // MARK: Rewards

    /// Grants a claim once: the first claim of (app, user, tour, page) appends `grant` to the
    /// ledger with `credits(balance)` credits, given the user's balance read in the same
    /// transaction (one user's claims take turns, so the balance cannot change in between); every
    /// later claim, concurrent or not, returns that same grant. A new grant adds the webhook notice
    /// `notice` makes of it to the outbox in the same transaction.
    func claim(
        _ grant: Grant, credits: @escaping @Sendable (_ balance: Int) -> Int, notice: @escaping @Sendable (ClaimOutcome) -> WebhookNotice?
    ) async throws(StoreError) -> ClaimOutcome
    /// The sum of the user's ledger.
    func balance(app: String, user: String) async throws(StoreError) -> Int
    /// The user's grants, in the order they were granted.
    func grants(app: String, user: String) async throws(StoreError) -> [Grant]
    /// At most `limit` of the app's grants whose ``Grant/sequence`` is above `sequence`, in that
    /// order: a backend that remembers the last sequence it read misses none and reads none twice.
    func grants(app: String, after sequence: Int64, limit: Int) async throws(StoreError) -> [Grant]
}

extension Store {
    /// Stores events that no webhook hears of (imports, generated traffic).
    public func insertEvents(_ events: [StoredEvent]) async throws(StoreError) -> [Bool] {
        try await insertEvents(events, notices: { _ in [] })
    }

    /// Publishes a version that no webhook hears of (a copy's history, tests of storage).
    public func publish(
        app: String, document: String, at time: Date, note: String?, audit: @escaping @Sendable (CatalogVersion) -> [AuditEntry]
    ) async throws(StoreError) -> CatalogVersion {
        try await publish(app: app, document: document, at: time, note: note, audit: audit, notice: { _ in nil })
    }

    /// Grants a claim that no webhook hears of (generated traffic).
    public func claim(_ grant: Grant, credits: @escaping @Sendable (_ balance: Int) -> Int) async throws(StoreError) -> ClaimOutcome {
        try await claim(grant, credits: credits, notice: { _ in nil })
    }
}

public struct AppRecord: Hashable, Sendable {
    public var id: String
    public var name: String
    /// The secret with which the app's backend signs user ids (`userHash`); shown once at creation.
    public var identitySecret: String
    public var createdAt: Date

    public init(id: String, name: String, identitySecret: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.identitySecret = identitySecret
        self.createdAt = createdAt
    }
}

public struct KeyRecord: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// Publishable, goes into apps: reads the published catalog, sends events, claims rewards.
        case client
        /// Server-to-server and admin API.
        case secret
        /// A draft preview's token (``PreviewRecord``), never stored as a key: reads the app's
        /// draft for a previewing device, whose events are kept apart from the app's. Its
        /// `revokedAt` is when the preview ended, if it has.
        case preview
    }

    /// A short public id, to list and revoke the key without knowing it.
    public var id: String
    public var app: String
    public var kind: Kind
    /// SHA-256 of the key, lowercase hex. The key itself is never stored.
    public var hash: String
    public var createdAt: Date
    public var revokedAt: Date?

    public init(id: String, app: String, kind: Kind, hash: String, createdAt: Date, revokedAt: Date? = nil) {
        self.id = id
        self.app = app
        self.kind = kind
        self.hash = hash
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

public struct CatalogDraft: Hashable, Sendable {
    public var app: String
    /// The catalog document (YAML or JSON, the format `waymark lint` reads), checked on save.
    public var document: String
    public var updatedAt: Date
    /// 1 for the first save, one more for each save after it.
    public var revision: Int

    public init(app: String, document: String, updatedAt: Date, revision: Int) {
        self.app = app
        self.document = document
        self.updatedAt = updatedAt
        self.revision = revision
    }
}

public struct CatalogVersion: Hashable, Sendable {
    public var app: String
    /// 1, 2, 3...: numbered per app, never reused.
    public var number: Int
    /// Empty in listings.
    public var document: String
    public var publishedAt: Date
    /// Set for a rollback: "rollback to 3".
    public var note: String?

    public init(app: String, number: Int, document: String, publishedAt: Date, note: String? = nil) {
        self.app = app
        self.number = number
        self.document = document
        self.publishedAt = publishedAt
        self.note = note
    }
}

public struct StoredEvent: Hashable, Sendable {
    public var app: String
    /// The client-made id (UUIDv7): time-ordered, so inserts append to the index.
    public var id: String
    public var user: String
    public var name: String
    public var target: String?
    /// When it happened, by the client's clock (clamped when far in the future), in ms since 1970.
    public var timestamp: Int64
    /// When the server received it, in ms since 1970.
    public var receivedAt: Int64
    /// Whether the timestamp was in the future and replaced by the receive time.
    public var clamped: Bool
    /// The properties as a JSON object of text, numbers and flags, keys sorted, or `nil`.
    public var properties: String?
    /// The `platform` property every SDK sends, kept apart so analytics group by it without
    /// reading JSON.
    public var platform: String?
    /// The `appVersion` property, kept apart like the platform.
    public var appVersion: String?

    /// An event as received: the properties become JSON text, and the platform and app version
    /// are taken from them.
    public init(
        app: String, id: String, user: String, name: String, target: String?, timestamp: Int64, receivedAt: Int64,
        clamped: Bool, properties: [String: String]?
    ) {
        self.init(
            app: app, id: id, user: user, name: name, target: target, timestamp: timestamp, receivedAt: receivedAt, clamped: clamped,
            members: properties.map { $0.map { JSONMember(key: $0.key, value: $0.value) } }
        )
    }

    /// An event as received, with typed properties in any order.
    public init(
        app: String, id: String, user: String, name: String, target: String?, timestamp: Int64, receivedAt: Int64,
        clamped: Bool, members: [JSONMember]?
    ) {
        let sorted = members?.sorted { $0.key < $1.key }
        func text(_ key: String) -> String? { sorted?.first { $0.key == key }?.text }
        self.init(
            app: app, id: id, user: user, name: name, target: target, timestamp: timestamp, receivedAt: receivedAt, clamped: clamped,
            propertiesJSON: sorted.map(jsonText), platform: text("platform"), appVersion: text("appVersion")
        )
    }

    /// An event as a store holds it.
    public init(
        app: String, id: String, user: String, name: String, target: String?, timestamp: Int64, receivedAt: Int64,
        clamped: Bool, propertiesJSON: String?, platform: String?, appVersion: String?
    ) {
        self.app = app
        self.id = id
        self.user = user
        self.name = name
        self.target = target
        self.timestamp = timestamp
        self.receivedAt = receivedAt
        self.clamped = clamped
        self.properties = propertiesJSON
        self.platform = platform
        self.appVersion = appVersion
    }
}

/// One credit grant of the ledger, unique per app, user, tour and page. A checklist's grant is kept
/// as the tour `checklist:ID` (no tour id has a colon) with an empty page.
public struct Grant: Hashable, Sendable {
    /// The tour a checklist's grant is kept under.
    public static func checklistTour(_ checklist: String) -> String { "checklist:" + checklist }

    /// The checklist this grant is for, if it is one's.
    public var checklist: String? { Self.checklist(ofTour: tour) }

    /// The checklist a grant kept under `tour` is for, if it is one's (``checklistTour(_:)``).
    public static func checklist(ofTour tour: String) -> String? {
        tour.hasPrefix("checklist:") ? String(tour.dropFirst("checklist:".count)) : nil
    }

    public var id: String
    public var app: String
    public var user: String
    public var tour: String
    public var page: String
    public var credits: Int
    public var grantedAt: Date
    /// Its place in the app's ledger, 1, 2, 3... in the order grants were committed (a grant is
    /// numbered while no other of the app can be, so a later number is never seen first); 0 for a
    /// grant not stored yet.
    public var sequence: Int64

    public init(
        id: String, app: String, user: String, tour: String, page: String, credits: Int, grantedAt: Date, sequence: Int64 = 0
    ) {
        self.id = id
        self.app = app
        self.user = user
        self.tour = tour
        self.page = page
        self.credits = credits
        self.grantedAt = grantedAt
        self.sequence = sequence
    }
}

public struct ClaimOutcome: Hashable, Sendable {
    /// The grant of this claim: new, or the one an earlier claim made.
    public var grant: Grant
    /// Whether this call created it.
    public var created: Bool
    public var balance: Int

    public init(grant: Grant, created: Bool, balance: Int) {
        self.grant = grant
        self.created = created
        self.balance = balance
    }
}

extension Date {
    /// Milliseconds since 1970, as records store times.
    public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    public init(millisecondsSince1970 millis: Int64) { self.init(timeIntervalSince1970: Double(millis) / 1000) }
}

/// A storage failure: what went wrong, for logs; the server answers 500 or 503 without the details.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The database cannot be reached or opened.
        public static let unavailable = Code("unavailable")
        /// A uniqueness or reference constraint refused the change.
        public static let conflict = Code("conflict")
        /// The database cannot store a value it was given (PostgreSQL takes no NUL character in
        /// text): no retry will change that.
        public static let invalidValue = Code("invalid_value")
        /// Any other database error.
        public static let failed = Code("failed")

        public var description: String { name }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "storage \(code): \(message)" }
}
