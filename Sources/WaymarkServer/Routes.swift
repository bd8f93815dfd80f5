import HTTPTypes
import Hummingbird
import WaymarkStore

/// One registered route and what it needs before its handler runs, as the API and the console
/// list them (``WaymarkServer/addRoutes(to:)``, `WaymarkConsole.register(on:)`).
public struct RouteNeed: Sendable, Hashable, CustomStringConvertible {
    /// `GET`, `POST`, …
    public let method: String
    /// The path as registered, parameters as `:name`: `/v1/admin/keys/:id`.
    public let path: String
    /// What it needs: for the API `none`, `preflight`, `client key` or `secret key`; for the
    /// console `anyone`, `signed-in`, `viewer`, `editor` or `owner`.
    public let need: String

    public init(method: String, path: String, need: String) {
        self.method = method
        self.path = path
        self.need = need
    }

    public var description: String { "\(method) \(path) (\(need))" }
}

/// What an API route needs before its handler runs, stated as a type where the route is
/// registered (see ``APIRoutes``): nothing (``NoKey``), a client endpoint's CORS preflight
/// (``Preflight``), an app's client or secret key (``ClientKey``), or its secret key
/// (``SecretKey``). A handler that needs a key reads it with `context.key()`.
public protocol APINeed: Sendable {
    /// The need as ``RouteNeed`` names it.
    static var name: String { get }
    /// The group of `routes` whose middleware checks this need.
    static func group(in routes: APIRoutes) -> RouterGroup<WaymarkRequestContext>
}

/// Health, metrics, the API's description, the web SDK and narration audio.
public enum NoKey: APINeed {
    public static let name = "none"
    public static func group(in routes: APIRoutes) -> RouterGroup<WaymarkRequestContext> { routes.open }
}

/// A browser's preflight of a client endpoint: it carries no key, and gets CORS headers.
public enum Preflight: APINeed {
    public static let name = "preflight"
    public static func group(in routes: APIRoutes) -> RouterGroup<WaymarkRequestContext> { routes.preflight }
}

/// An app's client or secret key, with CORS for pages served from anywhere.
public enum ClientKey: APINeed {
    public static let name = "client key"
    public static func group(in routes: APIRoutes) -> RouterGroup<WaymarkRequestContext> { routes.client }
}

/// An app's secret key: the admin API.
public enum SecretKey: APINeed {
    public static let name = "secret key"
    public static func group(in routes: APIRoutes) -> RouterGroup<WaymarkRequestContext> { routes.admin }
}

/// The API's routes, in groups by what they need. Deny by default: a route is registered only with
/// an ``APINeed`` type, in the group whose middleware checks that need (a ``KeyAuthenticator`` for
/// keys) before any handler runs.
public final class APIRoutes: @unchecked Sendable {
    let open: RouterGroup<WaymarkRequestContext>
    let preflight: RouterGroup<WaymarkRequestContext>
    let client: RouterGroup<WaymarkRequestContext>
    let admin: RouterGroup<WaymarkRequestContext>
    /// What was registered, in order (built while the router is put together, before it serves).
    public private(set) var registered: [RouteNeed] = []

    init(router: Router<WaymarkRequestContext>, server: WaymarkServer) {
        open = router.group()
        preflight = router.group().add(middleware: WaymarkServer.clientCORS)
        client = router.group().add(middleware: WaymarkServer.clientCORS).add(
            middleware: KeyAuthenticator(server: server, kinds: [.client, .secret]))
        admin = router.group().add(middleware: KeyAuthenticator(server: server, kinds: [.secret]))
    }

    /// Adds `handler` for `method` on `path`, behind the middleware of `need`.
    public func on<Need: APINeed>(
        _ path: String, _ method: HTTPRequest.Method, _ need: Need.Type,
        _ handler: @escaping @Sendable (Request, WaymarkRequestContext) async throws -> some ResponseGenerator
    ) {
        Need.group(in: self).on(RouterPath(path), method: method, use: handler)
        registered.append(RouteNeed(method: method.rawValue, path: path, need: Need.name))
    }

    public func get<Need: APINeed>(
        _ path: String, _ need: Need.Type,
        _ handler: @escaping @Sendable (Request, WaymarkRequestContext) async throws -> some ResponseGenerator
    ) { on(path, .get, need, handler) }

    public func post<Need: APINeed>(
        _ path: String, _ need: Need.Type,
        _ handler: @escaping @Sendable (Request, WaymarkRequestContext) async throws -> some ResponseGenerator
    ) { on(path, .post, need, handler) }

    public func put<Need: APINeed>(
        _ path: String, _ need: Need.Type,
        _ handler: @escaping @Sendable (Request, WaymarkRequestContext) async throws -> some ResponseGenerator
    ) { on(path, .put, need, handler) }

    public func delete<Need: APINeed>(
        _ path: String, _ need: Need.Type,
        _ handler: @escaping @Sendable (Request, WaymarkRequestContext) async throws -> some ResponseGenerator
    ) { on(path, .delete, need, handler) }
}
