import Foundation
import WaymarkRules

/// What the server keeps about each identified user of an app: their latest attributes, each with
/// when it last changed, for delivery-time targeting and analytics; and their progress with tips
/// and tours, which follows them from device to device.
public protocol UserStore: Sendable {
    /// Applies `changes` to the user's attributes in one transaction (a nil value removes one) and
    /// returns all of them, by name. An attribute set to the value it already has keeps its
    /// `changedAt`. Returns nil, changing nothing, when the user would then have more than `limit`
    /// attributes: the count is read in the same transaction, so concurrent updates cannot pass it
    /// together.
    func updateAttributes(
        app: String, user: String, _ changes: [String: ContextValue?], at time: Date, limit: Int
    ) async throws(StoreError) -> [UserAttribute]?
    /// The user's attributes, by name; empty for a user never identified.
    func attributes(app: String, user: String) async throws(StoreError) -> [UserAttribute]

    /// What the app's identified users have as attributes: per name and type, how many users
    /// have it and its most common values (up to `examples`, as text, the most common first),
    /// by name.
    func attributeSummary(app: String, examples: Int) async throws(StoreError) -> [AttributeSummary]

    /// The attributes with these names, per user who has any of them: what a replay of the app's
    /// users reads as `user.<name>`.
    func attributes(app: String, named names: [String]) async throws(StoreError) -> [String: [String: ContextValue]]

    /// Replaces who is in the app's segments that read history (as the segment refresher last
    /// found them), all at once, in one transaction: segments not in `members` then have none.
    func replaceSegmentMembers(app: String, _ members: [String: Set<String>]) async throws(StoreError)
    /// The segments the user was in when the refresher last looked, by name.
    func segments(app: String, user: String) async throws(StoreError) -> [String]
    /// Everyone the refresher last found in the app's segments that read history, by segment.
    func segmentMembers(app: String) async throws(StoreError) -> [String: Set<String>]

    /// Erases everything the app keeps about one user, in one transaction: their events (survey
    /// answers and narration listens among them), attributes, progress, segment memberships and
    /// grants; and appends `audit(erased)` to the audit log in the same transaction, so an erasure
    /// is recorded exactly when it happens. The user's webhook deliveries go too, and the notice
    /// `notice` makes of the erasure is added to the outbox in the same transaction. A user the app
    /// has nothing of erases nothing.
    func eraseUser(
        app: String, user: String, audit: @escaping @Sendable (UserErasure) -> AuditEntry,
        notice: @escaping @Sendable (UserErasure) -> WebhookNotice?
    ) async throws(StoreError) -> UserErasure

    /// The user's progress document (the JSON ``updateProgress(app:user:at:_:)`` last wrote), or
    /// nil for a user with none.
    func progress(app: String, user: String) async throws(StoreError) -> String?
    /// Replaces the user's progress document with `update(current)` in one transaction (nil
    /// keeps it as it is, writing nothing) and returns what is then stored: updates from several of
    /// the user's devices at once take turns, each seeing the one before, so none is lost.
    func updateProgress(
        app: String, user: String, at time: Date, _ update: @escaping @Sendable (String?) -> String?
    ) async throws(StoreError) -> String?
}

/// One attribute of a user: `cityTier` is `2` since a time.
public struct UserAttribute: Hashable, Sendable {
    public var name: String
    public var value: ContextValue
    /// When the attribute took this value.
    public var changedAt: Date

    public init(name: String, value: ContextValue, changedAt: Date) {
        self.name = name
        self.value = value
        self.changedAt = changedAt
    }
}

/// One attribute as the app's users have it: `cityTier`, a number, for 1,204 users, most often 2.
public struct AttributeSummary: Hashable, Sendable {
    /// The attribute's name, as `user.<name>` reads it.
    public var name: String
    /// `text`, `number`, `bool`, `time` or `version` (``ContextValue/storedType``).
    public var type: String
    /// How many users have it with this type.
    public var users: Int
    /// Its most common values as stored text, the most common first.
    public var examples: [String]

    /// A summary with these fields.
    public init(name: String, type: String, users: Int, examples: [String]) {
        self.name = name
        self.type = type
        self.users = users
        self.examples = examples
    }

    /// What the stores ask for: per attribute's name and type, its `examples` most common values
    /// (ties by value) with how many users have each, and how many users have it at all. The
    /// database ranks the values, so an attribute with a value per user sends only the first.
    public static func query(app placeholder: String, examples: Int) -> String {
        """
        SELECT name, type, value, users, total FROM (
            SELECT name, type, value, COUNT(*) AS users, CAST(SUM(COUNT(*)) OVER (PARTITION BY name, type) AS BIGINT) AS total,
                ROW_NUMBER() OVER (PARTITION BY name, type ORDER BY COUNT(*) DESC, value) AS rank
            FROM user_attributes WHERE app = \(placeholder) GROUP BY name, type, value
        ) AS ranked WHERE rank <= \(examples) ORDER BY name, type, rank
        """
    }

    /// Summaries from the rows of ``query(app:examples:)``: (name, type, value, users with it,
    /// users with the attribute), in its order.
    public static func from(_ rows: [(name: String, type: String, value: String, users: Int, total: Int)]) -> [AttributeSummary] {
        var summaries: [AttributeSummary] = []
        for row in rows {
            if let last = summaries.last, last.name == row.name, last.type == row.type {
                summaries[summaries.count - 1].examples.append(row.value)
            } else {
                summaries.append(AttributeSummary(name: row.name, type: row.type, users: row.total, examples: [row.value]))
            }
        }
        return summaries
    }
}

/// What an update of a user's attributes writes, decided once for every store from the
/// attributes the store read in the update's transaction.
public struct AttributeWrites: Sendable {
    /// Attributes to insert or replace, by name: new ones and those whose value changes.
    public var set: [(name: String, value: ContextValue)] = []
    /// Attributes to delete.
    public var removed: [String] = []

    /// The writes that apply `changes` (nil removes) to `current`; nil when the user would then
    /// have more than `limit` attributes. An attribute set to the value it has is not written, so
    /// it keeps its `changedAt`.
    public init?(current: [UserAttribute], changes: [String: ContextValue?], limit: Int) {
        let known = Dictionary(current.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        var names = Set(known.keys)
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let value {
                names.insert(name)
                if known[name] != value { set.append((name, value)) }
            } else {
                names.remove(name)
                if known[name] != nil { removed.append(name) }
            }
        }
        guard names.count <= limit else { return nil }
    }
}

extension ContextValue {
    /// The value's type as stores keep it in their `type` column: `text`, `number`, `bool`,
    /// `time` or `version`.
    public var storedType: String {
        switch self {
        case .string: "text"
        case .number: "number"
        case .bool: "bool"
        case .time: "time"
        case .version: "version"
        }
    }

    /// The value a store kept as ``storedType`` and ``WaymarkRules/ContextValue/plainText`` in its
    /// `value` column; nil if they do not read.
    public init?(storedType type: String, text: String) {
        switch type {
        case "text": self = .string(text)
        case "number":
            guard let number = Double(text), number.isFinite else { return nil }
            self = .number(number)
        case "bool":
            guard text == "true" || text == "false" else { return nil }
            self = .bool(text == "true")
        case "time":
            guard let millis = RuleTime.parse(text) else { return nil }
            self = .time(milliseconds: millis)
        case "version":
            guard let version = Version(reading: text) else { return nil }
            self = .version(version)
        default: return nil
        }
    }
}

/// What erasing a user removed, counted: what the audit log keeps of it, with no trace of who.
public struct UserErasure: Codable, Hashable, Sendable, CustomStringConvertible {
    public var events = 0
    public var grants = 0
    public var attributes = 0
    /// 1 when they had a progress document.
    public var progress = 0
    public var segments = 0

    public init() {}

    public var description: String {
        "events: \(events), grants: \(grants), attributes: \(attributes), progress: \(progress), segment memberships: \(segments)"
    }
}
