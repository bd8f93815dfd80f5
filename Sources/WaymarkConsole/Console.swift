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
    let groupsCache = GroupsCache()
    let segmentsCache = SegmentsCache()
    /// How long a page waits for figures counted in the background (``BackgroundCounts``).
    let countingPatience: Duration
    let now: @Sendable () -> Date

    /// What the reports read: the store, or tallies from an analytics store beside it (ClickHouse).
    let reports: any AnalyticsStore & UserStore

    /// The console of `server`; its reports read `reports` (the server's store when nil). A page
    /// waits `countingPatience` for figures counted in the background; zero shows only figures
    /// counted already.
    public init(
        server: WaymarkServer, reports: (any AnalyticsStore & UserStore)? = nil, countingPatience: Duration = .seconds(1),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.server = server
        self.countingPatience = countingPatience
        self.store = server.store
        self.reports = reports ?? server.store
        self.now = now
        sessions = Sessions(store: server.store, now: now)
        throttle = LoginThrottle(store: server.store)
    }

    /// Adds the console's routes to `router`, each in the group that checks what it needs
    /// (see ``ConsoleRoutes``), and lists them.
    @discardableResult
    public func register(on router: Router<WaymarkRequestContext>) -> [RouteNeed] {
        let routes = ConsoleRoutes(router: router, sessions: sessions, store: store)
        routes.get("/", Anyone.self) { _, _, _ in Response.redirect(to: "/console/apps", type: .normal) }
        routes.get("/assets/:file", Anyone.self) { request, context, _ in
            try Assets.response(context.parameters.get("file") ?? "", request.headers)
        }
        routes.get("/login", Anyone.self) { request, _, _ in try await self.loginPage(request) }
        routes.post("/login", Anyone.self) { request, context, _ in try await self.login(request, context) }
        routes.post("/logout", Anyone.self) { request, context, _ in try await self.logout(request, context) }
        routes.get("/apps", SignedInUser.self) { request, context, signedIn in try await self.appsPage(request, context, signedIn) }
        routes.get("/account", SignedInUser.self) { request, context, signedIn in try await self.accountPage(request, context, signedIn) }
        routes.post("/account", SignedInUser.self) { request, context, signedIn in try await self.changePassword(request, context, signedIn)
        }
        routes.get("/apps/:app", Viewer.self) { request, context, access in try await self.appPage(request, context, access) }
        routes.get("/apps/:app/new-tip", Viewer.self) { request, context, access in
            try await self.tipPage(request, context, access, new: true)
        }
        routes.get("/apps/:app/tips/:id", Viewer.self) { request, context, access in
            try await self.tipPage(request, context, access, new: false)
        }
        routes.post("/apps/:app/tips/:id", Editor.self) { request, context, access in try await self.saveTip(request, context, access) }
        routes.post("/apps/:app/tips/:id/delete", Editor.self) { request, context, access in
            try await self.deleteTip(request, context, access)
        }
        routes.get("/apps/:app/tips/:id/preview", Viewer.self) { request, context, access in
            try await self.previewPage(request, context, access)
        }
        routes.get("/apps/:app/new-tour", Viewer.self) { request, context, access in
            try await self.tourPage(request, context, access, new: true)
        }
        routes.get("/apps/:app/tours/:id", Viewer.self) { request, context, access in
            try await self.tourPage(request, context, access, new: false)
        }
        routes.post("/apps/:app/tours/:id", Editor.self) { request, context, access in try await self.saveTour(request, context, access) }
        routes.post("/apps/:app/tours/:id/delete", Editor.self) { request, context, access in
            try await self.deleteTour(request, context, access)
        }
        routes.get("/apps/:app/tours/:id/preview", Viewer.self) { request, context, access in
            try await self.tourPreviewPage(request, context, access)
        }
        routes.get("/apps/:app/new-checklist", Viewer.self) { request, context, access in
            try await self.checklistPage(request, context, access, new: true)
        }
        routes.get("/apps/:app/checklists/:id", Viewer.self) { request, context, access in
            try await self.checklistPage(request, context, access, new: false)
        }
        routes.post("/apps/:app/checklists/:id", Editor.self) { request, context, access in
            try await self.saveChecklist(request, context, access)
        }
        routes.post("/apps/:app/checklists/:id/delete", Editor.self) { request, context, access in
            try await self.deleteChecklist(request, context, access)
        }
        routes.get("/apps/:app/checklists/:id/preview", Viewer.self) { request, context, access in
            try await self.launcherPreviewPage(request, context, access, articles: false)
        }
        routes.get("/apps/:app/articles/:id/preview", Viewer.self) { request, context, access in
            try await self.launcherPreviewPage(request, context, access, articles: true)
        }
        routes.get("/apps/:app/new-article", Viewer.self) { request, context, access in
            try await self.articlePage(request, context, access, new: true)
        }
        routes.get("/apps/:app/articles/:id", Viewer.self) { request, context, access in
            try await self.articlePage(request, context, access, new: false)
        }
        routes.post("/apps/:app/articles/:id", Editor.self) { request, context, access in
            try await self.saveArticle(request, context, access)
        }
        routes.post("/apps/:app/articles/:id/delete", Editor.self) { request, context, access in
            try await self.deleteArticle(request, context, access)
        }
        routes.get("/apps/:app/new-media", Viewer.self) { request, context, access in
            try await self.mediaPage(request, context, access, new: true)
        }
        routes.get("/apps/:app/media/:id", Viewer.self) { request, context, access in
            try await self.mediaPage(request, context, access, new: false)
        }
        routes.post("/apps/:app/media/:id", Editor.self) { request, context, access in try await self.saveMedia(request, context, access) }
        routes.post("/apps/:app/media/:id/delete", Editor.self) { request, context, access in
            try await self.deleteMedia(request, context, access)
        }
        routes.post("/apps/:app/rewards", Editor.self) { request, context, access in try await self.saveRewards(request, context, access) }
        routes.get("/apps/:app/anchors", Viewer.self) { request, context, access in try await self.anchorsPage(request, context, access) }
        routes.get("/apps/:app/captures", Viewer.self) { request, context, access in try await self.capturesPage(request, context, access) }
        routes.get("/apps/:app/captures/:id/image", Viewer.self) { request, context, access in
            try await self.captureImage(request, context, access)
        }
        routes.get("/apps/:app/rules/check", Viewer.self) { request, context, access in try await self.checkRule(request, context, access) }
        routes.get("/apps/:app/rules/recipe", Viewer.self) { request, context, access in
            try await self.writeRecipe(request, context, access)
        }
        routes.get("/apps/:app/theme", Viewer.self) { request, context, access in try await self.themePage(request, context, access) }
        routes.post("/apps/:app/theme", Editor.self) { request, context, access in try await self.saveTheme(request, context, access) }
        routes.get("/apps/:app/previews", Viewer.self) { request, context, access in try await self.previewsPage(request, context, access) }
        routes.post("/apps/:app/previews", Editor.self) { request, context, access in try await self.makePreview(request, context, access) }
        routes.post("/apps/:app/build", Editor.self) { request, context, access in try await self.openBuilder(request, context, access) }
        routes.get("/apps/:app/previews/:id", Viewer.self) { request, context, access in
            try await self.previewEventsPage(request, context, access)
        }
        routes.post("/apps/:app/previews/:id/end", Editor.self) { request, context, access in
            try await self.endPreview(request, context, access)
        }
        routes.get("/apps/:app/publish", Viewer.self) { request, context, access in try await self.publishPage(request, context, access) }
        routes.post("/apps/:app/publish", Editor.self) { request, context, access in try await self.publish(request, context, access) }
        routes.get("/apps/:app/versions", Viewer.self) { request, context, access in try await self.versionsPage(request, context, access) }
        routes.post("/apps/:app/versions/:number/rollback", Editor.self) { request, context, access in
            try await self.rollback(request, context, access)
        }
        routes.get("/apps/:app/members", Owner.self) { request, context, access in try await self.membersPage(request, context, access) }
        routes.post("/apps/:app/members", Owner.self) { request, context, access in try await self.addMember(request, context, access) }
        routes.post("/apps/:app/members/:user", Owner.self) { request, context, access in
            try await self.changeMember(request, context, access)
        }
        routes.post("/apps/:app/keys", Owner.self) { request, context, access in try await self.createKey(request, context, access) }
        routes.post("/apps/:app/keys/:id/revoke", Owner.self) { request, context, access in
            try await self.revokeKey(request, context, access)
        }
        routes.post("/apps/:app/people/data", Owner.self) { request, context, access in try await self.personData(request, context, access)
        }
        routes.post("/apps/:app/people/erase", Owner.self) { request, context, access in
            try await self.erasePerson(request, context, access)
        }
        routes.post("/apps/:app/retention", Owner.self) { request, context, access in try await self.setRetention(request, context, access)
        }
        routes.get("/apps/:app/webhooks", Owner.self) { request, context, access in try await self.webhooksPage(request, context, access) }
        routes.post("/apps/:app/webhooks", Owner.self) { request, context, access in try await self.addWebhook(request, context, access) }
        routes.post("/apps/:app/webhooks/:id/rotate", Owner.self) { request, context, access in
            try await self.rotateWebhook(request, context, access)
        }
        routes.post("/apps/:app/webhooks/:id/delete", Owner.self) { request, context, access in
            try await self.deleteWebhook(request, context, access)
        }
        routes.post("/apps/:app/webhooks/:id/deliveries/:event/resend", Owner.self) { request, context, access in
            try await self.resendWebhook(request, context, access)
        }
        routes.get("/apps/:app/audit", Viewer.self) { request, context, access in try await self.auditPage(request, context, access) }
        routes.get("/apps/:app/segments", Viewer.self) { request, context, access in try await self.segmentsPage(request, context, access) }
        routes.get("/apps/:app/new-segment", Viewer.self) { request, context, access in
            try await self.segmentPage(request, context, access, new: true)
        }
        routes.get("/apps/:app/segments/:name", Viewer.self) { request, context, access in
            try await self.segmentPage(request, context, access, new: false)
        }
        routes.post("/apps/:app/segments/:name", Editor.self) { request, context, access in
            try await self.saveSegment(request, context, access)
        }
        routes.post("/apps/:app/segments/:name/delete", Editor.self) { request, context, access in
            try await self.deleteSegment(request, context, access)
        }
        routes.get("/apps/:app/attributes", Viewer.self) { request, context, access in
            try await self.attributesPage(request, context, access)
        }
        routes.get("/apps/:app/struggles", Viewer.self) { request, context, access in try await self.strugglesPage(request, context, access)
        }
        routes.post("/apps/:app/struggles/propose", Editor.self) { request, context, access in
            try await self.proposeTip(request, context, access)
        }
        routes.get("/apps/:app/struggles/one", Viewer.self) { request, context, access in
            try await self.strugglePage(request, context, access)
        }
        routes.get("/apps/:app/analytics", Viewer.self) { request, context, access in try await self.analyticsPage(request, context, access)
        }
        routes.get("/apps/:app/analytics/tips/:id", Viewer.self) { request, context, access in
            try await self.tipAnalyticsPage(request, context, access)
        }
        routes.get("/apps/:app/analytics/export/:table", Viewer.self) { request, context, access in
            try await self.analyticsExport(request, context, access)
        }
        routes.get("/apps/:app/tips/:id/backtest", Viewer.self) { request, context, access in
            try await self.backtestPage(request, context, access)
        }
        routes.get("/apps/:app/narration", Viewer.self) { request, context, access in try await self.narrationPage(request, context, access)
        }
        routes.post("/apps/:app/narration/settings", Editor.self) { request, context, access in
            try await self.saveNarrationSettings(request, context, access)
        }
        routes.post("/apps/:app/narration/regenerate", Editor.self) { request, context, access in
            try await self.regenerateNarration(request, context, access)
        }
        routes.post("/apps/:app/narration/recording", Editor.self) { request, context, access in
            try await self.uploadRecording(request, context, access)
        }
        routes.post("/apps/:app/narration/recording/remove", Editor.self) { request, context, access in
            try await self.removeRecording(request, context, access)
        }
        return routes.registered
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

/// The console's style sheet and scripts, served from this origin (the policy allows nothing
/// else). Each is asked again on every page (`no-cache`: a new release's takes effect at once)
/// with its ETag, and answered 304 while it is the same, so a phone on a slow network downloads
/// each once, not on every page.
enum Assets {
    static let files: [String: (type: String, etag: String, body: ByteBuffer)] = {
        let types = ["css": "text/css; charset=utf-8", "js": "text/javascript; charset=utf-8"]
        var files: [String: (String, String, ByteBuffer)] = [:]
        for (name, data) in resourceFiles("assets") {
            guard let type = types[(name as NSString).pathExtension] else { continue }
            let etag = "\"" + Secrets.hash(String(decoding: data, as: UTF8.self)).prefix(32) + "\""
            files[name] = (type, etag, ByteBuffer(bytes: data))
        }
        return files
    }()

    static func response(_ name: String, _ request: HTTPFields) throws -> Response {
        guard let file = files[name] else { throw ConsoleError.notFound }
        let headers: HTTPFields = [.contentType: file.type, .cacheControl: "no-cache", .eTag: file.etag]
        if request.ifNoneMatchNames(file.etag) { return Response(status: .notModified, headers: headers) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file.body))
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
