import Foundation
import HummingbirdBcrypt
import NIOPosix
import WaymarkServer
import WaymarkStore

/// Console passwords: bcrypt (cost 12 by default, about a quarter of a second here) over the
/// SHA-256 of the password, so that passwords longer than bcrypt's 72 bytes keep all their
/// characters. Hashing runs on NIO's blocking thread pool, never on a request's executor.
public enum Passwords {
    public static let minimumLength = 12
    public static let maximumLength = 512

    public static func hash(_ password: String, cost: UInt8 = 12) async throws -> String {
        let prepared = Secrets.hash(password)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(prepared, cost: cost) }
    }

    public static func verify(_ password: String, hash: String) async throws -> Bool {
        let prepared = Secrets.hash(password)
        return try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(prepared, hash: hash) }
    }

    /// Why a new password is refused, or nil when it is acceptable.
    public static func problem(with password: String) -> String? {
        if password.count < minimumLength { return "a password needs at least \(minimumLength) characters" }
        if password.utf8.count > maximumLength { return "a password has at most \(maximumLength) bytes" }
        return nil
    }
}

/// Console users, for the command line (`waymark users add`, where an app's first owner is made:
/// the console has no default account) and for owners adding members in the console.
public enum Accounts {
    public struct AccountError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The rule every membership change follows: an app keeps at least one owner. Refuses
    /// (`.conflict`) the change that would demote or remove the last one.
    public static let keepsAnOwner: @Sendable (MembershipChange) throws(StoreError) -> Void = { change throws(StoreError) in
        if change.before == .owner, change.after != .owner, change.owners <= 1 {
            throw StoreError(.conflict, "an app keeps at least one owner")
        }
    }

    /// Adds the user if the email is new (with `password`), and gives them `role` in `app`,
    /// recording it in the audit log. Returns whether the user was created.
    @discardableResult
    public static func addMember(
        email rawEmail: String, password: String?, role: Role, app: String, actor: AuditEntry.Actor = .cli, in store: any Store,
        cost: UInt8 = 12,
        at time: Date = Date()
    ) async throws -> Bool {
        let email = normalize(email: rawEmail)
        guard isEmail(email) else { throw AccountError(description: "\"\(rawEmail)\" is not an email address") }
        guard try await store.app(id: app) != nil else { throw AccountError(description: "there is no app \(app)") }
        var created = false
        let user: ConsoleUser
        if let existing = try await store.user(email: email) {
            user = existing
        } else {
            guard let password else { throw AccountError(description: "a new user needs a password") }
            if let problem = Passwords.problem(with: password) { throw AccountError(description: problem) }
            user = ConsoleUser(
                id: "usr_" + Secrets.randomHex(bytes: 8), email: email, passwordHash: try await Passwords.hash(password, cost: cost),
                createdAt: time
            )
            try await store.createUser(user)
            created = true
        }
        let before = try await store.changeRole(role, user: user.id, app: app, check: keepsAnOwner)
        try await store.appendAudit(
            AuditEntry(
                app: app, actor: actor, at: time, action: .roleSet, object: "user \(email)", before: before?.rawValue, after: role.rawValue)
        )
        return created
    }

    /// A password for a new account, shown once: 20 characters from an unambiguous alphabet (about 100 bits).
    public static func generatePassword() -> String {
        let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    static func normalize(email: String) -> String { email.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() }

    static func isEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return text.utf8.count <= 254 && parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
            && !text.contains(where: { $0.isWhitespace || $0 == "<" || $0 == ">" })
    }
}
