import Foundation
import Hummingbird
import WaymarkServer
import WaymarkSupport

/// The demo shop's page, made by its stand-in backend as a real shop's server makes its pages: the
/// user (from `?user=`, else the `demo-user` cookie, else a new one) and their identity proof are
/// written into it, and it names the SDK by its versioned URL, so a phone's browser fetches the
/// SDK beside the shop's script and starts the catalog request as soon as both have run.
struct DemoPage: Sendable {
    /// `shop.html`, with `{{sdk}}` and `{{session}}` to fill.
    let template: String
    let clientKey: String
    let identitySecret: String

    /// The session for a request: whom the page is for, and the proof the server checks claims by.
    func session(user: String, request: Request, fallbackHost: String) -> DemoSession {
        let host = request.head.authority ?? fallbackHost
        return DemoSession(
            server: "http://\(host)", clientKey: clientKey, user: user,
            userHash: Secrets.userHash(user: user, identitySecret: identitySecret))
    }

    /// `GET /demo/`: the page for this visitor, revalidated on every visit by its ETag.
    func response(_ request: Request, fallbackHost: String) throws -> Response {
        let user = try Self.user(request)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Inside <script>, "<" could end the element; as \u003c it is the same JSON string.
        let session = String(decoding: try encoder.encode(session(user: user, request: request, fallbackHost: fallbackHost)), as: UTF8.self)
            .replacingOccurrences(of: "<", with: "\\u003c")
        let sdk = (try? WaymarkServer.installedWebSDK().versionedPath) ?? "/sdk/waymark.js"
        let page = template.replacingOccurrences(of: "{{sdk}}", with: sdk).replacingOccurrences(of: "{{session}}", with: session)
        let etag = "\"" + Secrets.hash(page).prefix(32) + "\""
        let headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-cache", .eTag: etag,
            .setCookie: "demo-user=\(Self.cookieValue(user)); Path=/demo; Max-Age=31536000; SameSite=Lax; HttpOnly",
        ]
        if request.headers.ifNoneMatchNames(etag) { return Response(status: .notModified, headers: headers) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    /// The visitor: `?user=` names one (1 to 64 characters), else the cookie the page set last time,
    /// else a new shopper.
    static func user(_ request: Request) throws -> String {
        if let named = request.uri.queryParameters.get("user") {
            guard (1...64).contains(named.count) else { throw HTTPError(.badRequest, message: "user must be 1 to 64 characters") }
            return named
        }
        for cookie in request.headers[values: .cookie].flatMap({ $0.split(separator: ";") }) {
            let parts = cookie.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0] == "demo-user", let user = parts[1].removingPercentEncoding, (1...64).contains(user.count) {
                return user
            }
        }
        return "shopper-" + String(UInt32.random(in: .min ... .max), radix: 36)
    }

    static func cookieValue(_ user: String) -> String {
        user.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? "shopper"
    }
}
