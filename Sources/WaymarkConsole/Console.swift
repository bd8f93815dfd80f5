import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import WaymarkServer
import WaymarkStore

/// The web console: pages rendered on the server for the people who write tips and tours, publish
/// them and roll them back. It sits on ``WaymarkServer``'s authoring operations, so a change made
/// here is checked, versioned and audited exactly as one made through the admin API.
///
/// ```swift
/// let router = server.router()
/// WaymarkConsole(server: server).register(on: router)
/// ```
///
/// `buildApplication` in WaymarkApplication does this, with the console's session sweeper.
///
/// Pages work without JavaScript; the one script (`assets/console.js`, no inline script anywhere,
/// as the Content-Security-Policy requires) only checks rules as one types.
public struct WaymarkConsole: Sendable {
    let server: WaymarkServer
    let store: any Store
    let sessions: Sessions
    let throttle: LoginThrottle
    let eligibleCache = EligibleCache()
    let now: @Sendable () -> Date

    public init(server: WaymarkServer, now: @escaping @Sendable () -> Date = { Date() }) {
        self.server = server
        self.store = server.store
        self.now = now
        sessions = Sessions(store: server.store, now: now)
        throttle = LoginThrottle(store: server.store)
    }

    public func register(on router: Router<WaymarkRequestContext>) {
        let console = router.group("/console").add(middleware: ConsoleHeadersMiddleware())
        console.get("/") { _, _ in Response.redirect(to: "/console/apps", type: .normal) }
        console.get("/assets/:file") { _, context in try Assets.response(context.parameters.get("file") ?? "") }
        console.get("/login") { request, _ in try await self.loginPage(request) }
        console.post("/login") { request, context in try await self.login(request, context) }
        console.post("/logout") { request, context in try await self.logout(request, context) }
        console.get("/apps") { request, context in try await self.appsPage(request, context) }
        console.get("/account") { request, context in try await self.accountPage(request, context) }
        console.post("/account") { request, context in try await self.changePassword(request, context) }
        console.get("/apps/:app") { request, context in try await self.appPage(request, context) }
        console.get("/apps/:app/new-tip") { request, context in try await self.tipPage(request, context, new: true) }
        console.get("/apps/:app/tips/:id") { request, context in try await self.tipPage(request, context, new: false) }
        console.post("/apps/:app/tips/:id") { request, context in try await self.saveTip(request, context) }
        console.post("/apps/:app/tips/:id/delete") { request, context in try await self.deleteTip(request, context) }
        console.get("/apps/:app/tips/:id/preview") { request, context in try await self.previewPage(request, context) }
        console.get("/apps/:app/new-tour") { request, context in try await self.tourPage(request, context, new: true) }
        console.get("/apps/:app/tours/:id") { request, context in try await self.tourPage(request, context, new: false) }
        console.post("/apps/:app/tours/:id") { request, context in try await self.saveTour(request, context) }
        console.post("/apps/:app/tours/:id/delete") { request, context in try await self.deleteTour(request, context) }
        console.get("/apps/:app/tours/:id/preview") { request, context in try await self.tourPreviewPage(request, context) }
        console.get("/apps/:app/new-checklist") { request, context in try await self.checklistPage(request, context, new: true) }
        console.get("/apps/:app/checklists/:id") { request, context in try await self.checklistPage(request, context, new: false) }
        console.post("/apps/:app/checklists/:id") { request, context in try await self.saveChecklist(request, context) }
        console.post("/apps/:app/checklists/:id/delete") { request, context in try await self.deleteChecklist(request, context) }
        console.get("/apps/:app/checklists/:id/preview") { request, context in
            try await self.launcherPreviewPage(request, context, articles: false)
        }
        console.get("/apps/:app/articles/:id/preview") { request, context in
            try await self.launcherPreviewPage(request, context, articles: true)
        }
        console.get("/apps/:app/new-article") { request, context in try await self.articlePage(request, context, new: true) }
        console.get("/apps/:app/articles/:id") { request, context in try await self.articlePage(request, context, new: false) }
        console.post("/apps/:app/articles/:id") { request, context in try await self.saveArticle(request, context) }
        console.post("/apps/:app/articles/:id/delete") { request, context in try await self.deleteArticle(request, context) }
        console.get("/apps/:app/new-media") { request, context in try await self.mediaPage(request, context, new: true) }
        console.get("/apps/:app/media/:id") { request, context in try await self.mediaPage(request, context, new: false) }
        console.post("/apps/:app/media/:id") { request, context in try await self.saveMedia(request, context) }
        console.post("/apps/:app/media/:id/delete") { request, context in try await self.deleteMedia(request, context) }
        console.post("/apps/:app/rewards") { request, context in try await self.saveRewards(request, context) }
        console.get("/apps/:app/rules/check") { request, context in try await self.checkRule(request, context) }
        console.get("/apps/:app/publish") { request, context in try await self.publishPage(request, context) }
        console.post("/apps/:app/publish") { request, context in try await self.publish(request, context) }
        console.get("/apps/:app/versions") { request, context in try await self.versionsPage(request, context) }
        console.post("/apps/:app/versions/:number/rollback") { request, context in try await self.rollback(request, context) }
        console.get("/apps/:app/members") { request, context in try await self.membersPage(request, context) }
        console.post("/apps/:app/members") { request, context in try await self.addMember(request, context) }
        console.post("/apps/:app/members/:user") { request, context in try await self.changeMember(request, context) }
        console.post("/apps/:app/keys") { request, context in try await self.createKey(request, context) }
        console.post("/apps/:app/keys/:id/revoke") { request, context in try await self.revokeKey(request, context) }
        console.post("/apps/:app/people/data") { request, context in try await self.personData(request, context) }
        console.post("/apps/:app/people/erase") { request, context in try await self.erasePerson(request, context) }
        console.post("/apps/:app/retention") { request, context in try await self.setRetention(request, context) }
        console.get("/apps/:app/webhooks") { request, context in try await self.webhooksPage(request, context) }
        console.post("/apps/:app/webhooks") { request, context in try await self.addWebhook(request, context) }
        console.post("/apps/:app/webhooks/:id/rotate") { request, context in try await self.rotateWebhook(request, context) }
        console.post("/apps/:app/webhooks/:id/delete") { request, context in try await self.deleteWebhook(request, context) }
        console.post("/apps/:app/webhooks/:id/deliveries/:event/resend") { request, context in
            try await self.resendWebhook(request, context)
        }
        console.get("/apps/:app/audit") { request, context in try await self.auditPage(request, context) }
        console.get("/apps/:app/segments") { request, context in try await self.segmentsPage(request, context) }
        console.get("/apps/:app/new-segment") { request, context in try await self.segmentPage(request, context, new: true) }
        console.get("/apps/:app/segments/:name") { request, context in try await self.segmentPage(request, context, new: false) }
        console.post("/apps/:app/segments/:name") { request, context in try await self.saveSegment(request, context) }
        console.post("/apps/:app/segments/:name/delete") { request, context in try await self.deleteSegment(request, context) }
        console.get("/apps/:app/attributes") { request, context in try await self.attributesPage(request, context) }
        console.get("/apps/:app/analytics") { request, context in try await self.analyticsPage(request, context) }
        console.get("/apps/:app/analytics/tips/:id") { request, context in try await self.tipAnalyticsPage(request, context) }
        console.get("/apps/:app/analytics/export/:table") { request, context in try await self.analyticsExport(request, context) }
        console.get("/apps/:app/tips/:id/backtest") { request, context in try await self.backtestPage(request, context) }
        console.get("/apps/:app/narration") { request, context in try await self.narrationPage(request, context) }
        console.post("/apps/:app/narration/settings") { request, context in try await self.saveNarrationSettings(request, context) }
        console.post("/apps/:app/narration/regenerate") { request, context in try await self.regenerateNarration(request, context) }
        console.post("/apps/:app/narration/recording") { request, context in try await self.uploadRecording(request, context) }
        console.post("/apps/:app/narration/recording/remove") { request, context in try await self.removeRecording(request, context) }
    }

    // MARK: Access

    /// The signed-in user and the app of the path, if the user has at least `role` in it; see
    /// ``signedIn(_:form:)`` for the rest.
    func access(
        _ request: Request, _ context: WaymarkRequestContext, needs role: Role, form: Form? = nil
    ) async throws -> (SignedIn, AppRecord) {
        let signedIn = try await signedIn(request, form: form)
        // Another app's id answers as if it did not exist.
        guard let appID = context.parameters.get("app"), let held = signedIn.role(in: appID), let app = try await store.app(id: appID)
        else { throw ConsoleError.notFound }
        guard held >= role else { throw ConsoleError.forbidden("this needs the \(role.rawValue) role; you are \(held.rawValue) here") }
        return (signedIn, app)
    }

    /// The signed-in user. A GET without a session is sent to the login page; a state-changing
    /// request must come from this site and carry the session's CSRF token (form field `csrf` or
    /// header `X-CSRF-Token`).
    func signedIn(_ request: Request, form: Form? = nil) async throws -> SignedIn {
        guard let signedIn = try await sessions.signedIn(request) else {
            if request.method == .get || request.method == .head { throw ConsoleError.signIn }
            throw ConsoleError.forbidden("your session ended: sign in again")
        }
        if request.method != .get && request.method != .head {
            try Sessions.checkOrigin(request)
            let presented = form?["csrf"] ?? request.headers[.csrfToken] ?? ""
            guard Secrets.constantTimeEqual(presented, signedIn.session.csrfToken) else {
                throw ConsoleError.forbidden("the form's security token is missing or stale: reload the page and try again")
            }
        }
        return signedIn
    }

    /// What every page of an app shows around its content.
    func frame(_ title: String, _ signedIn: SignedIn, app: AppRecord? = nil) -> [String: Any] {
        var frame: [String: Any] = ["title": title, "user": signedIn.user.email, "csrf": signedIn.session.csrfToken]
        if let app, let role = signedIn.role(in: app.id) {
            frame["app"] = ["id": app.id, "name": app.name, "role": role.rawValue, "isOwner": role == .owner]
            frame["canEdit"] = role >= .editor
        }
        return frame
    }
}

extension HTTPField.Name {
    static let csrfToken = Self("X-CSRF-Token")!
}

/// A console failure as a page: a status and one sentence for the person reading it.
struct ConsoleError: HTTPResponseError {
    var status: HTTPResponse.Status
    var message: String

    /// Where to send the browser instead of showing a page.
    var location: String?

    static let notFound = ConsoleError(
        status: .notFound, message: "There is no such page, or it belongs to an app you are not a member of.")
    /// Not signed in: the login page.
    static let signIn = ConsoleError(status: .seeOther, message: "", location: "/console/login")
    static func forbidden(_ message: String) -> ConsoleError { ConsoleError(status: .forbidden, message: message) }
    static func badRequest(_ message: String) -> ConsoleError { ConsoleError(status: .badRequest, message: message) }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        if let location { return .redirect(to: location, type: .normal) }
        var response = Templates.page("error", ["title": "\(status.code) \(status.reasonPhrase)", "message": message])
        response.status = status
        return response
    }
}

/// Security headers on every console answer: a strict Content-Security-Policy (scripts and styles
/// from this origin only, no inline script, no framing), no sniffing, no caching of pages that
/// carry tokens, and no referrer leaving the site.
struct ConsoleHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var policy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; media-src 'self' https:; connect-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as APIError {
            // The authoring operations' refusals (a draft that kept changing, nothing to publish), as a page.
            response = try ConsoleError(status: error.status, message: error.message).response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.contentSecurityPolicy] = Self.policy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "same-origin"
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}

/// The templates (`Resources/templates/*.mustache`), read once. `{{value}}` escapes HTML, quotes
/// included, and no template uses the unescaped `{{{value}}}`: whatever users type is shown as text.
enum Templates {
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (file, data) in resourceFiles("templates") where file.hasSuffix(".mustache") {
            do {
                try library.register(String(decoding: data, as: UTF8.self), named: String(file.dropLast(".mustache".count)))
            } catch {
                preconditionFailure("console template \(file) does not parse: \(error)")
            }
        }
        return library
    }()

    static func page(_ name: String, _ values: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let html = library.render(values, withTemplate: name) ?? "missing template \(name)"
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: html))
        )
    }
}

/// The console's stylesheet and script, served from this origin (the policy allows nothing else).
enum Assets {
    static let files: [String: (type: String, body: ByteBuffer)] = {
        let types = ["css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8"]
        var files: [String: (String, ByteBuffer)] = [:]
        for (name, data) in resourceFiles("assets") {
            if let type = types[(name as NSString).pathExtension] { files[name] = (type, ByteBuffer(bytes: data)) }
        }
        return files
    }()

    static func response(_ name: String) throws -> Response {
        guard let file = files[name] else { throw ConsoleError.notFound }
        return Response(
            status: .ok, headers: [.contentType: file.type, .cacheControl: "no-cache"], body: ResponseBody(byteBuffer: file.body)
        )
    }
}

/// The files of one of the console's resource folders, by name.
private func resourceFiles(_ folder: String) -> [(name: String, data: Data)] {
    guard let url = Bundle.module.resourceURL?.appendingPathComponent(folder),
        let names = try? FileManager.default.contentsOfDirectory(atPath: url.path)
    else { return [] }
    return names.compactMap { name in FileManager.default.contents(atPath: url.appendingPathComponent(name).path).map { (name, $0) } }
}

/// A submitted form (`application/x-www-form-urlencoded`), at most 256 KB; a repeated field keeps its last value.
struct Form: Sendable {
    private(set) var fields: [String: String] = [:]

    subscript(_ name: String) -> String? { fields[name] }

    init(fields: [String: String]) { self.fields = fields }

    /// The request's `application/x-www-form-urlencoded` body, read by Hummingbird's
    /// `URLEncodedFormDecoder`: at most 256 KB of UTF-8, each field once.
    static func read(_ request: Request) async throws -> Form {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: 256 * 1024)
        } catch {
            throw ConsoleError(status: .contentTooLarge, message: "The form is larger than 256 KB.")
        }
        guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else {
            throw ConsoleError.badRequest("The form is not UTF-8 text.")
        }
        do {
            return Form(fields: try URLEncodedFormDecoder().decode([String: String].self, from: text))
        } catch {
            throw ConsoleError.badRequest("The form could not be read: each field is sent once, as text.")
        }
    }

    /// The field trimmed, or nil when absent or blank.
    func text(_ name: String) -> String? {
        guard let value = fields[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }
}
