import Foundation

/// The console's people and their traces: users, their role in each app, login sessions, and the
/// audit log of every change. Part of every ``Store``.
///
/// Secrets never reach the store in clear: passwords arrive as slow hashes, session tokens as
/// SHA-256 hashes. The audit log only grows: no method changes or removes an entry, and the
/// databases refuse such changes too.
public protocol AccountStore: Sendable {
    // MARK: Users and roles

    /// Adds a user; `.conflict` when the email is taken.
    func createUser(_ user: ConsoleUser) async throws(StoreError)
    /// The user with this email (compared as given: callers normalize it first).
    func user(email: String) async throws(StoreError) -> ConsoleUser?
    func user(id: String) async throws(StoreError) -> ConsoleUser?
    /// The user's role in each app they belong to.
    func memberships(user: String) async throws(StoreError) -> [Membership]
    /// The app's members with their roles, by email.
    func members(app: String) async throws(StoreError) -> [Member]
    /// Gives the user `role` in the app, or with nil removes them from it, once `check` has
    /// accepted the change (it throws to refuse it). `check` sees the change with the app's owners
    /// counted in the same transaction, and changes of one app's members take turns, so no other
    /// change comes between. Returns the role they had.
    @discardableResult
    func changeRole(
        _ role: Role?, user: String, app: String, check: @escaping @Sendable (MembershipChange) throws(StoreError) -> Void
    ) async throws(StoreError) -> Role?
    /// Replaces the user's password hash and ends all their sessions but `keeping` (the one that
    /// changed it), so a stolen session dies with the old password.
    func setPassword(user: String, hash: String, keeping session: String?) async throws(StoreError)

    // MARK: Sessions

    func insertSession(_ session: ConsoleSession) async throws(StoreError)
    /// The session with this token hash, expired or not.
    func session(id: String) async throws(StoreError) -> ConsoleSession?
    /// Records activity: the session stays alive until `lastSeenAt` plus the idle limit.
    func touchSession(id: String, at time: Date) async throws(StoreError)
    func deleteSession(id: String) async throws(StoreError)
    /// Removes the sessions last seen before `lastSeenBefore` or created before `createdBefore`
    /// (both past their limits); returns how many.
    @discardableResult
    func deleteExpiredSessions(lastSeenBefore: Date, createdBefore: Date) async throws(StoreError) -> Int

    // MARK: Failed logins

    /// Per key with failures at or after `since`: how many, and the earliest one's time.
    func loginFailures(keys: [String], since: Date) async throws(StoreError) -> [String: LoginFailures]
    /// Forgets the key's failures (a successful login forgets its email's).
    func clearLoginFailures(key: String) async throws(StoreError)
    /// Counts a try as a failed login under each key (the console counts per email and per client
    /// address; kept in the database, so every server behind a load balancer counts the same), in
    /// one transaction, unless one key already has `limit` failures at or after `since`: then
    /// nothing is recorded and the failures found are answered (nil: the try was counted). Tries
    /// made at once take turns, so no more than the limit are ever counted in.
    func chargeLoginFailure(keys: [(key: String, limit: Int)], at time: Date, since: Date) async throws(StoreError)
        -> [String: LoginFailures]?
    /// Takes back one failure recorded under each of `keys` at `time` (a try counted before its
    /// password was checked, which then was right).
    func forgetLoginFailure(keys: [String], at time: Date) async throws(StoreError)
    /// Removes the failures before `before` (past every limit's window); returns how many.
    @discardableResult
    func deleteLoginFailures(before: Date) async throws(StoreError) -> Int

    // MARK: Audit log

    /// Appends an entry and returns it with its sequence number (increasing, never reused).
    @discardableResult
    func appendAudit(_ entry: AuditEntry) async throws(StoreError) -> AuditEntry
    /// The app's entries, newest first, at most `limit`.
    func auditLog(app: String, limit: Int) async throws(StoreError) -> [AuditEntry]
}

/// What a console user may do in one app; each role can do what the ones before it can.
public enum Role: String, Hashable, Sendable, CaseIterable, Comparable {
    /// Reads the catalog, versions, analytics and the audit log.
    case viewer
    /// Also edits the draft, publishes and rolls back.
    case editor
    /// Also manages the app's members and keys.
    case owner

    public static func < (lhs: Role, rhs: Role) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

public struct ConsoleUser: Hashable, Sendable {
    public var id: String
    /// Lowercased, trimmed.
    public var email: String
    /// A bcrypt hash (see the console's `Passwords`); never the password.
    public var passwordHash: String
    public var createdAt: Date

    public init(id: String, email: String, passwordHash: String, createdAt: Date) {
        self.id = id
        self.email = email
        self.passwordHash = passwordHash
        self.createdAt = createdAt
    }
}

public struct Membership: Hashable, Sendable {
    public var user: String
    public var app: String
    public var role: Role

    public init(user: String, app: String, role: Role) {
        self.user = user
        self.app = app
        self.role = role
    }
}

/// A user as one app's member list shows them.
public struct Member: Hashable, Sendable {
    public var user: ConsoleUser
    public var role: Role

    public init(user: ConsoleUser, role: Role) {
        self.user = user
        self.role = role
    }
}

/// One key's recent failed logins (see ``AccountStore/loginFailures(keys:since:)``).
public struct LoginFailures: Hashable, Sendable {
    public var count: Int
    public var earliest: Date

    public init(count: Int, earliest: Date) {
        self.count = count
        self.earliest = earliest
    }
}

public struct ConsoleSession: Hashable, Sendable {
    /// SHA-256 of the token in the cookie, lowercase hex: a stolen database opens no session.
    public var id: String
    public var user: String
    /// The token every form and state-changing request made while signed in with it must carry.
    public var csrfToken: String
    public var createdAt: Date
    public var lastSeenAt: Date

    public init(id: String, user: String, csrfToken: String, createdAt: Date, lastSeenAt: Date) {
        self.id = id
        self.user = user
        self.csrfToken = csrfToken
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
    }
}

/// One change: who made it, when, to what, and the object before and after (as YAML text, or nil
/// when it did not exist).
public struct AuditEntry: Hashable, Sendable {
    /// Assigned by the store; 0 before.
    public var sequence: Int64
    public var app: String
    public var actor: Actor
    public var at: Date
    public var action: Action
    /// What it applied to: `tip search-tip`, `version 4`, `user ada@example.com`.
    public var object: String
    public var before: String?
    public var after: String?

    public init(
        sequence: Int64 = 0, app: String, actor: Actor, at: Date, action: Action, object: String, before: String?, after: String?
    ) {
        self.sequence = sequence
        self.app = app
        self.actor = actor
        self.at = at
        self.action = action
        self.object = object
        self.before = before
        self.after = after
    }
}

/// A change of one member's role, as ``AccountStore/changeRole(_:user:app:check:)`` shows it to
/// the rule that decides whether it may happen.
public struct MembershipChange: Hashable, Sendable {
    /// The role before the change; nil when the user is not a member.
    public var before: Role?
    /// The role after it; nil when the user is removed.
    public var after: Role?
    /// How many owners the app has before the change.
    public var owners: Int

    public init(before: Role?, after: Role?, owners: Int) {
        self.before = before
        self.after = after
        self.owners = owners
    }
}

extension AuditEntry {
    /// Who made a change: a console user, a secret key through the admin API, or the command line.
    /// Stored as its description: `user:EMAIL`, `key:KEY_ID`, `cli`.
    public struct Actor: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        /// A console user, by email.
        public static func user(_ email: String) -> Actor { Actor(stored: "user:\(email)") }
        /// The admin API, by the secret key's public id.
        public static func key(_ id: String) -> Actor { Actor(stored: "key:\(id)") }
        /// The command line on the server's machine.
        public static let cli = Actor(stored: "cli")

        /// An actor as a store keeps it.
        public init(stored description: String) { self.description = description }
    }

    /// What a change did. Stored as its description: `publish`, `role.set`, `key.create`, or an
    /// object's change such as `tip.added`.
    public struct Action: Hashable, Sendable, CustomStringConvertible {
        public let description: String

        /// A version was published (a rollback publishes an earlier document again).
        public static let publish = Action(stored: "publish")
        /// A member was given a role.
        public static let roleSet = Action(stored: "role.set")
        /// A member was removed from the app.
        public static let roleRemove = Action(stored: "role.remove")
        public static let keyCreate = Action(stored: "key.create")
        public static let keyRevoke = Action(stored: "key.revoke")
        /// How long the app keeps its events changed.
        public static let retentionSet = Action(stored: "retention.set")
        /// Everything about one user of the app was erased (the entry says how much, not who).
        public static let userErase = Action(stored: "user.erase")
        /// A webhook endpoint was added, had its secret rotated, or was removed.
        public static let webhookCreate = Action(stored: "webhook.create")
        public static let webhookRotate = Action(stored: "webhook.rotate")
        public static let webhookDelete = Action(stored: "webhook.delete")
        /// A preview of the draft was made, or ended before it expired.
        public static let previewCreate = Action(stored: "preview.create")
        public static let previewEnd = Action(stored: "preview.end")
        /// A catalog object changed: `tip.added`, `tour.changed`, `media.removed`, `settings.changed`.
        public static func change(of kind: String, _ verb: String) -> Action { Action(stored: "\(kind).\(verb)") }

        /// An action as a store keeps it.
        public init(stored description: String) { self.description = description }
    }
}
