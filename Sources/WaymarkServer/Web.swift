import Foundation
import Hummingbird

/// What the server hands to web pages: the SDK file and the CORS answers that let a page on any
/// origin call the three client endpoints.
extension WaymarkServer {
    /// `waymark.js`, read once from the resources, with its strong ETag.
    static let webSDK: (body: ByteBuffer, etag: String)? = {
        guard let root = Bundle.module.resourceURL,
            let data = FileManager.default.contents(atPath: root.appendingPathComponent("web/sdk/waymark.js").path)
        else { return nil }
        return (ByteBuffer(bytes: data), "\"" + Secrets.hash(String(decoding: data, as: UTF8.self)).prefix(32) + "\"")
    }()

    func webSDK(_ request: Request) -> Response {
        guard let sdk = Self.webSDK else {
            return Response(status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: "the web SDK is missing from this installation\n")))
        }
        var headers: HTTPFields = [
            .contentType: "text/javascript; charset=utf-8", .eTag: sdk.etag, .cacheControl: "public, max-age=300",
            .accessControlAllowOrigin: "*",
        ]
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        if request.headers[.ifNoneMatch] == sdk.etag { return Response(status: .notModified, headers: headers) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: sdk.body))
    }
}

/// The endpoints client keys use (a generic type cannot hold a stored static).
private let clientPaths: Set<String> = ["/v1/catalog", "/v1/events", "/v1/rewards/claims"]

/// Cross-origin access to the endpoints that client keys use (catalog, events, reward claims), so
/// that waymark.js works in pages served from anywhere. Keys travel in the Authorization header,
/// never in cookies, so any origin may call; the admin API and everything else get no CORS headers.
struct ClientCORSMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard clientPaths.contains(request.uri.path) else { return try await next(request, context) }
        if request.method == .options {
            return Response(status: .noContent, headers: [
                .accessControlAllowOrigin: "*",
                .accessControlAllowMethods: "GET, POST, OPTIONS",
                .accessControlAllowHeaders: "Authorization, Content-Type, If-None-Match",
                .accessControlMaxAge: "86400",
            ])
        }
        do {
            var response = try await next(request, context)
            Self.addHeaders(&response.headers)
            return response
        } catch let error as any HTTPResponseError {
            // Errors too must be readable by the page, or it cannot tell a 401 from a network failure.
            var response = try error.response(from: request, context: context)
            Self.addHeaders(&response.headers)
            return response
        }
    }

    static func addHeaders(_ headers: inout HTTPFields) {
        headers[.accessControlAllowOrigin] = "*"
        headers[.accessControlExposeHeaders] = "ETag"
    }
}
