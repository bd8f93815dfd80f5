import Hummingbird

/// Answers a request whose path has routes, but none for its method, with 405 and `Allow` naming
/// the methods it has, where the router alone answers 404. Add it last, once every route is
/// registered: it is built from the router's routes, and sees only what no route answered.
public struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Each route's path as segments (a capture, `{name}`, and `*` match any one) and its methods.
    private let patterns: [(segments: [Substring], methods: Set<String>)]

    public init(routes: [Router<Context>.RouteDescription]) {
        var methods: [String: Set<String>] = [:]
        for route in routes { methods[route.path.description, default: []].insert(route.method.rawValue) }
        patterns = methods.map { (Self.segments($0.key), $0.value) }
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && context.endpointPath == "NotFound" {
            let path = Self.segments(request.uri.path)
            let allowed = patterns.filter { Self.matches($0.segments, path) }.reduce(into: Set<String>()) { $0.formUnion($1.methods) }
            guard !allowed.isEmpty else { throw error }
            let list = allowed.sorted().joined(separator: ", ")
            throw APIError(
                .methodNotAllowed, .methodNotAllowed, "\(request.method.rawValue) is not allowed here; use \(list)", headers: [.allow: list]
            )
        }
    }

    private static func segments(_ path: String) -> [Substring] { path.split(separator: "/") }

    private static func matches(_ pattern: [Substring], _ path: [Substring]) -> Bool {
        guard pattern.count == path.count else { return false }
        return zip(pattern, path).allSatisfy { pattern, segment in
            pattern == "*" || (pattern.first == "{" && pattern.last == "}") || pattern == segment
        }
    }
}
