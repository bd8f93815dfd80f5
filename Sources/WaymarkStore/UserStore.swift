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
