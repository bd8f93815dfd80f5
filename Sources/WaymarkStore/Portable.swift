/// Every table of a Waymark database in a form both stores read and write, for moving a whole
/// database from one store to another (`waymark migrate-data`, SQLite to PostgreSQL): the tables in
/// an order where every reference points to a table before it, their columns under one name each
/// (a store may call a column otherwise: PostgreSQL's `user_id` is `user` here), and each row as
/// text, NULL as nil.
public enum PortableTable: String, CaseIterable, Sendable {
    case apps, keys, drafts, versions, events, grants, users, memberships, sessions, audit, narrations
    case userAttributes = "user_attributes"
    case userProgress = "user_progress"
    case eventRetention = "event_retention"
    case webhookEndpoints = "webhook_endpoints"
    case webhookDeliveries = "webhook_deliveries"
    case anchorSightings = "anchor_sightings"
    case previews
    case previewEvents = "preview_events"
    case captures

    public struct Column: Sendable {
        /// `bytes` travel as base64 text, `real` numbers in decimal.
        public enum Kind: Sendable { case text, integer, real, boolean, bytes }

        public var name: String
        public var kind: Kind
    }

    /// The columns, the primary key's first.
    public var columns: [Column] {
        func text(_ names: String...) -> [Column] { names.map { Column(name: $0, kind: .text) } }
        func integer(_ names: String...) -> [Column] { names.map { Column(name: $0, kind: .integer) } }
        switch self {
        case .apps: return text("id", "name", "identity_secret") + integer("created_at")
        case .keys: return text("id", "app", "kind", "hash") + integer("created_at", "revoked_at")
        case .drafts: return text("app", "document") + integer("updated_at", "revision")
        case .versions: return text("app") + integer("number") + text("document") + integer("published_at") + text("note")
        case .events:
            return text("app", "id", "user", "name", "target") + integer("timestamp", "received_at") + [
                Column(name: "clamped", kind: .boolean)
            ]
                + text("properties", "platform", "app_version")
        case .grants: return text("app", "user", "tour", "page", "id") + integer("credits", "granted_at", "sequence")
        case .users: return text("id", "email", "password_hash") + integer("created_at")
        case .memberships: return text("user", "app", "role")
        case .sessions: return text("id", "user", "csrf_token") + integer("created_at", "last_seen_at")
        case .audit: return integer("sequence") + text("app", "actor") + integer("at") + text("action", "object", "before", "after")
        case .narrations:
            return text("app", "key", "status", "format") + integer("duration_ms") + [Column(name: "bytes", kind: .bytes)]
                + text("source", "message") + integer("created_at")
        case .userAttributes: return text("app", "user", "name", "type", "value") + integer("changed_at")
        case .userProgress: return text("app", "user", "document") + integer("updated_at")
        case .eventRetention: return text("app") + integer("days")
        case .webhookEndpoints:
            return text("id", "app", "url", "types", "secret", "previous_secret") + integer("previous_until", "created_at")
        case .anchorSightings:
            return text("app", "platform", "screen", "kind", "name") + integer("first_seen", "last_seen", "reports", "matches")
        case .previews:
            return text("id", "app", "hash", "url", "created_by") + integer("created_at", "expires_at", "ended_at") + text("edits")
        case .previewEvents: return text("preview", "id", "name", "target") + integer("timestamp", "received_at") + text("properties")
        case .captures:
            return text("id", "app", "preview", "platform", "screen") + [
                Column(name: "width", kind: .real), Column(name: "height", kind: .real),
            ]
                + text("frames", "image_type") + [Column(name: "image", kind: .bytes)] + integer("created_at")
        case .webhookDeliveries:
            return text("event", "endpoint", "app", "type", "user", "body") + integer("created_at") + text("state")
                + integer("attempts", "next_attempt_at", "lease_until", "last_attempt_at", "last_status")
                + text("last_answer", "last_error")
        }
    }

    /// How many leading columns make the primary key, by which rows are read in order.
    public var keyLength: Int {
        switch self {
        case .versions, .events, .memberships, .narrations, .userProgress, .webhookDeliveries, .previewEvents: 2
        case .grants: 4
        case .userAttributes: 3
        case .anchorSightings: 5
        default: 1
        }
    }
}

/// Rows of one table, each cell as text (integers in decimal, booleans as 0 or 1, bytes in base64)
/// or nil for NULL.
public typealias PortableRows = [[String?]]
