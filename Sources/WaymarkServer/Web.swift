import CompressNIO
import Foundation
import Hummingbird
import Logging
import NIOCore

/// The web SDK as the server hands it to pages: one file (``ModuleJoiner``), minified, kept
/// gzip-compressed, under a stable URL and a versioned one.
///
/// `Resources/web/sdk/` holds the modules; `Resources/web/waymark.min.js` is their minified copy,
/// made by `scripts/build-web-sdk` (rjsmin), whose first line names the SHA-256 of the joined
/// source it was made from. The server serves that copy (without that line) while it matches the
/// modules, and the readable join otherwise, so a module edited without running the script still
/// runs as written. Gzip answers send `Resources/web/waymark.min.js.gz`, the copy packed by zopfli
/// (smaller than zlib's best), while it unpacks to the copy served; otherwise what is served,
/// compressed by zlib once. Every module is also served as written at `/sdk/src/NAME.js`, for
/// debugging and for what the joined file leaves out: `ruletext.js` (the parser of a rule's text)
/// and `preview.js` (the console's previews).
public struct WebSDK: Sendable {
    /// The modules joined: the minified copy's source.
    public let source: String
    /// What pages receive: the minified copy, or ``source`` when the copy is out of date.
    public let served: ByteBuffer
    /// ``served`` gzip-compressed: the packed copy made with the minified one, else zlib at its
    /// highest level, once.
    let gzipped: ByteBuffer
    /// Whether ``served`` is the minified copy.
    public let isMinified: Bool
    /// Sixteen hex digits of the served bytes' SHA-256: `/sdk/VERSION/waymark.js`.
    public let version: String
    /// The strong ETag of ``served``.
    let etag: String
    /// The modules as written, by file name, with their ETags.
    let modules: [String: (text: ByteBuffer, etag: String)]

    /// The versioned URL's path, which may be cached for ever: `/sdk/VERSION/waymark.js`.
    public var versionedPath: String { "/sdk/\(version)/waymark.js" }

    /// Joins the modules in `folder/sdk` and takes `folder/waymark.min.js` if it was made from them.
    public static func load(folder: URL) throws(ModuleJoiner.Failure) -> WebSDK {
        let folderOfModules = folder.appendingPathComponent("sdk")
        var modules: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folderOfModules.path)) ?? [] where name.hasSuffix(".js") {
            modules[name] = FileManager.default.contents(atPath: folderOfModules.appendingPathComponent(name).path)
                .map { String(decoding: $0, as: UTF8.self) }
        }
        let source = try ModuleJoiner { [modules] in modules[$0] }.join(entry: "waymark.js")
        let minified = FileManager.default.contents(atPath: folder.appendingPathComponent("waymark.min.js").path)
            .map { String(decoding: $0, as: UTF8.self) }
        let packed = FileManager.default.contents(atPath: folder.appendingPathComponent("waymark.min.js.gz").path)
            .map { ByteBuffer(bytes: $0) }
        return WebSDK(source: source, minified: minified, packed: packed, modules: modules)
    }

    /// The SDK from its joined `source`, a minified copy (used if its first line names the
    /// source's SHA-256), that copy packed with gzip (used if it unpacks to the copy) and the
    /// modules as written.
    init(source: String, minified: String?, packed: ByteBuffer? = nil, modules: [String: String] = [:]) {
        self.source = source
        self.modules = modules.mapValues { (ByteBuffer(string: $0), "\"" + Secrets.hash($0).prefix(32) + "\"") }
        // The first line says what the copy was made from; pages need not download that.
        let lines = minified?.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false) ?? []
        let current = lines.count == 2 && lines[0].contains("sha256 \(Secrets.hash(source)) ")
        isMinified = current
        let text = current ? String(lines[1]) : source
        served = ByteBuffer(string: text)
        var unpacked = packed
        if current, let packed, (try? unpacked?.decompress(with: .gzip(), maxSize: served.readableBytes + 1)) == served {
            gzipped = packed
        } else {
            gzipped = ContentCoding.gzip(served, level: 9)
        }
        let hash = Secrets.hash(text)
        version = String(hash.prefix(16))
        etag = "\"" + hash.prefix(32) + "\""
    }
}

extension WaymarkServer {
    /// The web SDK of this installation, made once.
    static let webSDK: Result<WebSDK, ModuleJoiner.Failure> = {
        guard let folder = Bundle.module.resourceURL?.appendingPathComponent("web") else {
            return .failure(ModuleJoiner.Failure(module: "waymark.js", reason: "the installation has no web resources"))
        }
        return Result { () throws(ModuleJoiner.Failure) in try WebSDK.load(folder: folder) }
    }()

    /// The web SDK of this installation (the CLI prints it; the console shows its versioned URL).
    public static func installedWebSDK() throws(ModuleJoiner.Failure) -> WebSDK { try webSDK.get() }

    /// `GET /sdk/waymark.js` (cached five minutes, then revalidated) and `GET /sdk/VERSION/waymark.js`
    /// (cached for ever). Another version answers a redirect to this one: a page that pinned an
    /// older SDK gets the one this server speaks with.
    func webSDK(_ request: Request, version: String?) -> Response {
        let sdk: WebSDK
        switch Self.webSDK {
        case .success(let loaded): sdk = loaded
        case .failure(let failure):
            logger.error("the web SDK cannot be served", metadata: ["reason": "\(failure)"])
            return Response(
                status: .internalServerError, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "the web SDK in this installation is broken: \(failure)\n")))
        }
        if let version, version != sdk.version {
            return Response(
                status: .found, headers: [.accessControlAllowOrigin: "*", .location: sdk.versionedPath, .cacheControl: "no-cache"])
        }
        var headers = Self.scriptHeaders(
            etag: sdk.etag, cacheControl: version == nil ? "public, max-age=300" : "public, max-age=31536000, immutable")
        if request.headers[.ifNoneMatch] == sdk.etag { return Response(status: .notModified, headers: headers) }
        if ContentCoding.acceptsGzip(request) {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: sdk.gzipped))
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: sdk.served))
    }

    /// `GET /sdk/src/NAME.js`: one module as written, importable from a page like any ES module
    /// (its imports resolve beside it), cached five minutes. The compression middleware gzips it.
    func webSDKModule(_ request: Request, name: String) -> Response {
        guard case .success(let sdk) = Self.webSDK, let module = sdk.modules[name] else {
            return Response(
                status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "no module \(name) in the web SDK\n")))
        }
        let headers = Self.scriptHeaders(etag: module.etag, cacheControl: "public, max-age=300")
        if request.headers[.ifNoneMatch] == module.etag { return Response(status: .notModified, headers: headers) }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: module.text))
    }

    /// What every SDK script is answered with: any page may load it, as JavaScript and only that.
    static func scriptHeaders(etag: String, cacheControl: String) -> HTTPFields {
        [
            .accessControlAllowOrigin: "*", .contentType: "text/javascript; charset=utf-8", .eTag: etag,
            .cacheControl: cacheControl, .init("X-Content-Type-Options")!: "nosniff",
        ]
    }
}
