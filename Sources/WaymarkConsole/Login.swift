import Foundation
import HTTPTypes
import Hummingbird
import WaymarkServer
import WaymarkStore

/// Signing in and out, and the list of one's apps.
extension WaymarkConsole {
    /// The login form, with a fresh double-submit token in a cookie and in the form (a login
    /// cannot be forged from another site either). It shows even to a signed-in browser: signing
    /// in again, as someone else or not, replaces that session.
    func loginPage(_ request: Request, message: String? = nil, email: String = "", status: HTTPResponse.Status = .ok) async throws
        -> Response
    {
        let token = Secrets.randomHex(bytes: 32)
        var values: [String: Any] = ["title": "Sign in", "csrf": token, "email": email]
        values["message"] = message
        var response = Templates.page("login", values, status: status)
        response.setCookie(Sessions.cookie(Sessions.loginCookie, token, maxAge: 3600))
        return response
    }

    func login(_ request: Request, _ context: ConsoleRequestContext) async throws -> Response {
        let form = try await Form.read(request)
        try Sessions.checkOrigin(request)
        guard let cookie = request.cookies[Sessions.loginCookie]?.value, Secrets.constantTimeEqual(cookie, form["csrf"] ?? "") else {
            throw ConsoleError.forbidden("the login form's security token is missing or stale: reload the page and try again")
        }
        let email = Accounts.normalize(email: form["email"] ?? "")
        let password = form["password"] ?? ""
        let time = now()
        let address = server.clientAddress(request, context.parent)
        if let wait = try await throttle.charge(email: email, address: address, at: time) {
            var response = try await loginPage(
                request, message: "Too many failed attempts. Try again in \((wait + 59) / 60) minute(s).", email: email,
                status: .tooManyRequests)
            response.headers[.retryAfter] = String(wait)
            return response
        }
        let user = password.utf8.count <= Passwords.maximumLength ? try await store.user(email: email) : nil
        // Without such a user, a hash is still checked, so the answer takes as long either way.
        let verified = try await Passwords.verify(password, hash: user?.passwordHash ?? Self.decoyHash)
        // A wrong try stays counted as the throttle charged it.
        guard let user, verified else {
            return try await loginPage(request, message: "Wrong email or password.", email: email, status: .unauthorized)
        }
        try await throttle.succeeded(email: email, address: address, at: time)
        var response = Response.redirect(to: "/console/apps", type: .normal)
        try await sessions.start(for: user, replacing: request, on: &response)
        return response
    }

    func logout(_ request: Request, _ context: ConsoleRequestContext) async throws -> Response {
        let form = try await Form.read(request)
        try Sessions.checkOrigin(request)
        if let signedIn = try await sessions.signedIn(request), !Secrets.constantTimeEqual(form["csrf"] ?? "", signedIn.session.csrfToken) {
            throw ConsoleError.forbidden("the form's security token is missing or stale")
        }
        var response = Response.redirect(to: "/console/login", type: .normal)
        try await sessions.end(request, on: &response)
        return response
    }

    func appsPage(_ request: Request, _ context: ConsoleRequestContext, _ signedIn: SignedIn) async throws -> Response {
        var apps: [[String: Any]] = []
        for membership in signedIn.memberships {
            guard let app = try await store.app(id: membership.app) else { continue }
            apps.append(["id": app.id, "name": app.name, "role": membership.role.rawValue])
        }
        var values = frame("Your apps", signedIn)
        values["apps"] = apps
        return Templates.page("apps", values)
    }

    /// A bcrypt hash of a random password nobody knows, checked when the email has no account.
    static let decoyHash = "$2b$12$" + String(repeating: "a", count: 53)
}

extension HTTPField.Name {
    static let retryAfter = Self("Retry-After")!
}
