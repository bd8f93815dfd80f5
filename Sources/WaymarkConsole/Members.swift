import Foundation
import HTTPTypes
import Hummingbird
import WaymarkServer
import WaymarkStore

/// The owner's page (members and keys) and everyone's account page (their password).
///
/// Secrets made here, a new member's first password or a new key, are shown once in the answer
/// to the form that made them and never stored in clear; the answer is not cached (`no-store`).
extension WaymarkConsole {
    func membersPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        return try await membersPage(signedIn, app)
    }

    /// Adds a member by email: someone without an account gets one, with a generated password
    /// shown here once for the owner to hand over (they change it on their account page).
    func addMember(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        guard let role = form["role"].flatMap(Role.init(rawValue:)) else { throw ConsoleError.badRequest("Choose a role.") }
        let email = Accounts.normalize(email: form["email"] ?? "")
        let password = Accounts.generatePassword()
        let created: Bool
        do {
            created = try await Accounts.addMember(
                email: email, password: password, role: role, app: app.id, actor: signedIn.actor, in: store, at: now())
        } catch let error as Accounts.AccountError {
            return try await membersPage(signedIn, app, problem: error.description, status: .badRequest)
        } catch let error as StoreError where error.code == .conflict {
            return try await membersPage(signedIn, app, problem: "\(email) is the app's only owner and stays one.", status: .conflict)
        }
        if created {
            return try await membersPage(
                signedIn, app, notice: "\(email) is now \(role.rawValue). Give them this password; they can change it under Account.",
                secret: password
            )
        }
        return try await membersPage(signedIn, app, notice: "\(email) is now \(role.rawValue).")
    }

    /// Changes a member's role (`role`), or removes them (`role=remove`); an app keeps one owner.
    func changeMember(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        guard let id = context.parameters.get("user"), let member = try await store.members(app: app.id).first(where: { $0.user.id == id })
        else { throw ConsoleError.notFound }
        let choice = form["role"] ?? ""
        guard choice == "remove" || Role(rawValue: choice) != nil else { throw ConsoleError.badRequest("Choose a role.") }
        let role = Role(rawValue: choice)
        do throws(StoreError) {
            try await store.changeRole(role, user: id, app: app.id, check: Accounts.keepsAnOwner)
        } catch {
            guard error.code == .conflict else { throw error }
            return try await membersPage(
                signedIn, app, problem: "\(member.user.email) is the app's only owner: make someone else owner first.", status: .conflict
            )
        }
        try await store.appendAudit(
            AuditEntry(
                app: app.id, actor: signedIn.actor, at: now(), action: role == nil ? .roleRemove : .roleSet,
                object: "user \(member.user.email)", before: member.role.rawValue, after: role?.rawValue
            )
        )
        // Whoever gave up their own ownership can no longer see this page.
        if id == signedIn.user.id && role != .owner { return .redirect(to: "/console/apps", type: .normal) }
        let notice = role.map { "\(member.user.email) is now \($0.rawValue)." } ?? "\(member.user.email) was removed."
        return try await membersPage(signedIn, app, notice: notice)
    }

    func createKey(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        guard let kind = form["kind"].flatMap(KeyRecord.Kind.init(rawValue:)) else {
            throw ConsoleError.badRequest("Choose client or secret.")
        }
        guard let made = try await server.createKey(app: app.id, kind: kind, actor: signedIn.actor) else { throw ConsoleError.notFound }
        return try await membersPage(
            signedIn, app, notice: "New \(kind.rawValue) key \(made.record.id). Copy it now: it is not shown again.", secret: made.key,
            status: .created
        )
    }

    func revokeKey(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        guard let id = context.parameters.get("id"), try await server.revokeKey(id: id, app: app.id, actor: signedIn.actor) else {
            throw ConsoleError.notFound
        }
        return try await membersPage(signedIn, app, notice: "Key \(id) is revoked: requests that carry it are refused.")
    }

    /// Everything the app keeps about one of its users, downloaded as one JSON file (their right
    /// of access), for an owner.
    func personData(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        guard let user = Self.person(form) else {
            return try await membersPage(signedIn, app, problem: "Give the user's id, as the app names them.", status: .badRequest)
        }
        let kept = try await DataRights.kept(app: app.id, user: user, in: store)
        guard !kept.isEmpty else {
            return try await membersPage(signedIn, app, problem: "The app keeps nothing about \(user).", status: .notFound)
        }
        let store = self.store
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/json; charset=utf-8", .contentDisposition: "attachment; filename=\"\(app.id)-user-data.json\"",
                .cacheControl: "no-store",
            ],
            body: ResponseBody { writer in
                try await DataRights.write(kept, app: app.id, user: user, from: store) { try await writer.write($0) }
                try await writer.finish(nil)
            })
    }

    /// Erases everything about one of the app's users (their right to erasure), for an owner who
    /// types the id twice: it cannot be undone.
    func erasePerson(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        guard let user = Self.person(form) else {
            return try await membersPage(signedIn, app, problem: "Give the user's id, as the app names them.", status: .badRequest)
        }
        guard form["confirm"] == user else {
            return try await membersPage(
                signedIn, app, problem: "Nothing was erased: type the user's id again to confirm.", status: .badRequest)
        }
        let erased = try await DataRights.erase(app: app.id, user: user, actor: signedIn.actor, at: now(), in: store)
        return try await membersPage(signedIn, app, notice: "Erased \(erased). The audit log records how much, not who.")
    }

    /// Sets how many days the app keeps its events (blank: forever), for an owner.
    func setRetention(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        let text = (form["days"] ?? "").trimmingCharacters(in: .whitespaces)
        let days = Int(text)
        guard text.isEmpty || days != nil, EventRetention.problem(days: days) == nil else {
            return try await membersPage(
                signedIn, app, problem: "Keep events from 1 to \(EventRetention.maximumDays) days, or leave it blank to keep them forever.",
                status: .badRequest)
        }
        try await EventRetention.set(app: app.id, days: days, actor: signedIn.actor, at: now(), in: store)
        return try await membersPage(
            signedIn, app,
            notice: days.map { "Events older than \($0) days are removed every hour from now on." } ?? "Events are kept forever.")
    }

    /// The user id a data-rights form names: 1 to 256 bytes, as events name users.
    private static func person(_ form: Form) -> String? {
        guard let user = form["user"], (1...256).contains(user.utf8.count), !user.utf8.contains(0) else { return nil }
        return user
    }

    private func membersPage(
        _ signedIn: SignedIn, _ app: AppRecord, notice: String? = nil, problem: String? = nil, secret: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        var values = frame("Members and keys", signedIn, app: app)
        values["notice"] = notice
        values["problem"] = problem
        values["secret"] = secret
        values["members"] = try await store.members(app: app.id).map { member in
            [
                "id": member.user.id, "email": member.user.email, "role": member.role.rawValue, "you": member.user.id == signedIn.user.id,
                "roles": Role.allCases.reversed().map { ["name": $0.rawValue, "selected": $0 == member.role] },
            ] as [String: Any]
        }
        values["retentionDays"] = try await store.eventRetentions()[app.id].map(String.init) ?? ""
        values["keys"] = try await store.keys(app: app.id).reversed().map { key in
            [
                "id": key.id, "kind": key.kind.rawValue, "createdAt": Self.format(key.createdAt),
                "revokedAt": key.revokedAt.map(Self.format) ?? "", "active": key.revokedAt == nil,
            ] as [String: Any]
        }
        return Templates.page("members", values, status: status)
    }

    // MARK: Account

    func accountPage(_ request: Request, _ context: ConsoleRequestContext, _ signedIn: SignedIn) async throws -> Response {
        accountPage(signedIn)
    }

    /// Changes one's password, given the current one (a borrowed session alone cannot), and ends
    /// one's other sessions. Wrong current passwords count as failed logins.
    func changePassword(_ request: Request, _ context: ConsoleRequestContext, _ signedIn: SignedIn) async throws -> Response {
        let form = context.form
        let time = now()
        let email = signedIn.user.email
        let address = server.clientAddress(request, context.parent)
        if let wait = try await throttle.charge(email: email, address: address, at: time) {
            return accountPage(
                signedIn, problem: "Too many failed attempts. Try again in \((wait + 59) / 60) minute(s).", status: .tooManyRequests)
        }
        let current = form["current"] ?? ""
        // A wrong try stays counted as the throttle charged it.
        guard current.utf8.count <= Passwords.maximumLength, try await Passwords.verify(current, hash: signedIn.user.passwordHash) else {
            return accountPage(signedIn, problem: "The current password is wrong.", status: .unauthorized)
        }
        try await throttle.succeeded(email: email, address: address, at: time)
        let new = form["new"] ?? ""
        if let problem = Passwords.problem(with: new) {
            return accountPage(signedIn, problem: "Not changed: \(problem).", status: .badRequest)
        }
        guard new == form["repeat"] else {
            return accountPage(signedIn, problem: "Not changed: the two new passwords differ.", status: .badRequest)
        }
        try await store.setPassword(user: signedIn.user.id, hash: try await Passwords.hash(new), keeping: signedIn.session.id)
        return accountPage(signedIn, notice: "Your password is changed, and your other sessions are signed out.")
    }

    private func accountPage(_ signedIn: SignedIn, notice: String? = nil, problem: String? = nil, status: HTTPResponse.Status = .ok)
        -> Response
    {
        var values = frame("Account", signedIn)
        values["notice"] = notice
        values["problem"] = problem
        values["minimum"] = Passwords.minimumLength
        return Templates.page("account", values, status: status)
    }
}
