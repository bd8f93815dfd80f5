import Foundation
import Hummingbird
import Logging

/// What the server hands to web pages: the SDK file (the client endpoints' CORS answers are
/// ``WaymarkServer/clientCORS``).
extension WaymarkServer {
    /// The web SDK as pages load it: `waymark.js` and the modules it imports, from the resources'
    /// `web/sdk/` folder, joined into one file (``ModuleJoiner``) once, with its strong ETag.
    static let webSDK: Result<(body: ByteBuffer, etag: String), ModuleJoiner.Failure> = {
        let folder = Bundle.module.resourceURL?.appendingPathComponent("web/sdk")
        let joiner = ModuleJoiner { name in
            guard let url = folder?.appendingPathComponent(name), let data = FileManager.default.contents(atPath: url.path) else {
                return nil
            }
            return String(decoding: data, as: UTF8.self)
        }
        return Result { () throws(ModuleJoiner.Failure) in
            let text = try joiner.join(entry: "waymark.js")
            return (ByteBuffer(string: text), "\"" + Secrets.hash(text).prefix(32) + "\"")
        }
    }()

    func webSDK(_ request: Request) -> Response {
        let sdk: (body: ByteBuffer, etag: String)
        switch Self.webSDK {
        case .success(let joined): sdk = joined
        case .failure(let failure):
            logger.error("the web SDK cannot be served", metadata: ["reason": "\(failure)"])
            return Response(
                status: .internalServerError, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "the web SDK in this installation is broken: \(failure)\n")))
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
