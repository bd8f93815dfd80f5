import Foundation
import Hummingbird

/// What the server hands to web pages: the SDK file (the client endpoints' CORS answers are
/// ``WaymarkServer/clientCORS``).
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
            return Response(
                status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "the web SDK is missing from this installation\n")))
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
