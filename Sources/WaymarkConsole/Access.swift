import Foundation
import HTTPTypes
import Hummingbird
import WaymarkNarration
import WaymarkServer
import WaymarkStore

/// The request context of the console's routes: the server's, and what the route's need was found
/// to grant before its handler ran (see ``ConsoleRoutes``).
struct ConsoleRequestContext: ChildRequestContext {
    typealias ParentContext = WaymarkRequestContext

    var coreContext: CoreRequestContextStorage
    /// The server's context of the request: its peer's address, for the login throttle.
    let parent: WaymarkRequestContext
    /// The signed-in user, once ``SessionMiddleware`` found the session.
    var signedIn: SignedIn?
    /// A state-changing request's form, read and its CSRF token checked by ``SessionMiddleware``.
    var form = Form(fields: [:])
    /// The files of a `multipart/form-data` submission.
    var files: [String: MultipartForm.File] = [:]
    /// The app of the path and the user's role in it, once ``AppRoleMiddleware`` checked them.
    var app: (record: AppRecord, role: Role)?

    init(context: WaymarkRequestContext) {
        coreContext = context.coreContext
        parent = context
    }
}

/// What a console route needs before its handler runs, stated as a type where the route is
/// registered: nothing (``Anyone``), a session (``SignedInUser``), or a role in the app of the path
/// (``Viewer``, ``Editor``, ``Owner``). ``ConsoleRoutes`` takes no route without one, and puts
/// each into the group whose middleware checks it; the handler is given what was granted.
protocol ConsoleNeed: Sendable {
    /// What the handler is given once the need is met.
    associatedtype Granted: Sendable
    /// The need as ``RouteNeed`` names it: `anyone`, `signed-in`, or a role's name.
    static var name: String { get }
    /// The group of `routes` whose middleware checks this need.
    static func group(in routes: ConsoleRoutes) -> RouterGroup<ConsoleRequestContext>
    /// What the group's middleware granted; a route whose middleware granted nothing is refused.
    static func granted(_ context: ConsoleRequestContext) throws -> Granted
}

/// A public page: the login form, the stylesheet. The handler checks anything else it needs.
enum Anyone: ConsoleNeed {
    static let name = "anyone"
    static func group(in routes: ConsoleRoutes) -> RouterGroup<ConsoleRequestContext> { routes.open }
    static func granted(_ context: ConsoleRequestContext) throws {}
}

/// A page of one's own: any signed-in user.
enum SignedInUser: ConsoleNeed {
    static let name = "signed-in"
    static func group(in routes: ConsoleRoutes) -> RouterGroup<ConsoleRequestContext> { routes.signedIn }
    static func granted(_ context: ConsoleRequestContext) throws -> SignedIn {
        guard let signedIn = context.signedIn else { throw ConsoleError.forbidden("this page needs a session") }
        return signedIn
    }
}

/// What a route of one app is given: the user, the app, their role in it, and the form they sent.
struct AppAccess: Sendable {
    let signedIn: SignedIn
    let app: AppRecord
    let role: Role
    let form: Form
    let files: [String: MultipartForm.File]
}

/// A page of the app in the path, for members with at least ``role``.
protocol AppRoleNeed: ConsoleNeed where Granted == AppAccess {
    static var role: Role { get }
}

extension AppRoleNeed {
    static var name: String { role.rawValue }
    static func group(in routes: ConsoleRoutes) -> RouterGroup<ConsoleRequestContext> { routes.members[role]! }
    static func granted(_ context: ConsoleRequestContext) throws -> AppAccess {
        guard let signedIn = context.signedIn, let (app, held) = context.app, held >= role else {
            throw ConsoleError.forbidden("this needs the \(role.rawValue) role")
        }
        return AppAccess(signedIn: signedIn, app: app, role: held, form: context.form, files: context.files)
    }
}

/// Reads the app: its catalog, versions, analytics and audit log.
enum Viewer: AppRoleNeed { static let role = Role.viewer }
/// Also edits the draft, publishes and rolls back.
enum Editor: AppRoleNeed { static let role = Role.editor }
/// Also manages members, keys, webhooks, people's data and retention.
enum Owner: AppRoleNeed { static let role = Role.owner }

/// The console's routes, in groups by what they need. Deny by default: a route is registered only
/// with a ``ConsoleNeed`` type, in the group whose middleware checks that need before any handler
/// runs; nothing else can add a console route.
final class ConsoleRoutes: @unchecked Sendable {
    /// Public pages, with the console's headers.
    let open: RouterGroup<ConsoleRequestContext>
    /// Behind ``SessionMiddleware``.
    let signedIn: RouterGroup<ConsoleRequestContext>
    /// Behind ``SessionMiddleware`` and an ``AppRoleMiddleware`` for each role.
    let members: [Role: RouterGroup<ConsoleRequestContext>]
    /// What was registered, in order (built while the router is put together, before it serves).
    private(set) var registered: [RouteNeed] = []

    init(router: Router<WaymarkRequestContext>, sessions: Sessions, store: any Store) {
        let open = router.group("/console", context: ConsoleRequestContext.self).add(middleware: ConsoleHeadersMiddleware())
        let signedIn = open.group().add(middleware: SessionMiddleware(sessions: sessions))
        self.open = open
        self.signedIn = signedIn
        members = Dictionary(
            uniqueKeysWithValues: Role.allCases.map { role in
                (role, signedIn.group().add(middleware: AppRoleMiddleware(role: role, store: store)))
            }
        )
    }

    typealias Handler<Need: ConsoleNeed> = @Sendable (Request, ConsoleRequestContext, Need.Granted) async throws -> Response

    func get<Need: ConsoleNeed>(_ path: String, _ need: Need.Type, _ handler: @escaping Handler<Need>) {
        on(path, .get, need, handler)
    }

    func post<Need: ConsoleNeed>(_ path: String, _ need: Need.Type, _ handler: @escaping Handler<Need>) {
        on(path, .post, need, handler)
    }

    private func on<Need: ConsoleNeed>(_ path: String, _ method: HTTPRequest.Method, _ need: Need.Type, _ handler: @escaping Handler<Need>)
    {
        Need.group(in: self).on(RouterPath(path), method: method) { request, context in
            try await handler(request, context, try Need.granted(context))
        }
        registered.append(RouteNeed(method: method.rawValue, path: "/console" + (path == "/" ? "" : path), need: Need.name))
    }
}

/// The session every signed-in route needs, checked before its handler runs: a GET without one is
/// sent to the login page, any other request refused. A state-changing request must come from
/// this site and carry the session's CSRF token (form field `csrf` or header `X-CSRF-Token`); its
/// form is read here, once (a `multipart/form-data` upload up to ``uploadLimit``), for the handler.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    /// The largest submission a console form takes: a recording and its fields.
    static let uploadLimit = Recording.maximumSize + 64 * 1024

    let sessions: Sessions

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let reading = request.method == .get || request.method == .head
        guard let signedIn = try await sessions.signedIn(request) else {
            if reading { throw ConsoleError.signIn }
            throw ConsoleError.forbidden("your session ended: sign in again")
        }
        var context = context
        context.signedIn = signedIn
        if !reading {
            try Sessions.checkOrigin(request)
            if request.headers[.contentType]?.lowercased().hasPrefix("multipart/form-data") == true {
                let upload = try await MultipartForm.read(request, limit: Self.uploadLimit)
                context.form = upload.form
                context.files = upload.files
            } else {
                context.form = try await Form.read(request)
            }
            let presented = context.form["csrf"] ?? request.headers[.csrfToken] ?? ""
            guard Secrets.constantTimeEqual(presented, signedIn.session.csrfToken) else {
                throw ConsoleError.forbidden("the form's security token is missing or stale: reload the page and try again")
            }
        }
        return try await next(request, context)
    }
}

/// The role a route of one app needs, checked before its handler runs: another app's id answers
/// as if it did not exist (404); a lesser role is refused (403).
struct AppRoleMiddleware: RouterMiddleware {
    typealias Context = ConsoleRequestContext
    let role: Role
    let store: any Store

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let signedIn = context.signedIn else { throw ConsoleError.signIn }
        guard let appID = context.parameters.get("app"), let held = signedIn.role(in: appID), let app = try await store.app(id: appID)
        else { throw ConsoleError.notFound }
        guard held >= role else { throw ConsoleError.forbidden("this needs the \(role.rawValue) role; you are \(held.rawValue) here") }
        var context = context
        context.app = (app, held)
        return try await next(request, context)
    }
}
