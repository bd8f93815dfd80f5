import CompressNIO
import Foundation
import Hummingbird
import Logging
import NIOCore

/// The web SDK as the server hands it to pages: one file (``ModuleJoiner``) and the parts it loads
/// when needed (the tour panel), each minified, kept gzip-compressed, under versioned URLs.
///
/// `Resources/web/sdk/` holds the modules; `Resources/web/NAME.min.js` is the minified copy of the
/// joined file `NAME.js` (`waymark.min.js`, `tours.min.js`), made by `scripts/build-web-sdk`
/// (terser), whose first line names the SHA-256 of the joined source it was made from. The server
/// serves that copy (without that line) while it matches the modules, and the readable join
/// otherwise, so a module edited without running the script still runs as written. Brotli answers
/// (browsers ask for it over HTTPS) send `NAME.min.js.br`, the copy packed by brotli at its best,
/// while the copy's first line names its SHA-256 too; gzip answers send `NAME.min.js.gz`, the copy
/// packed by zopfli (smaller than zlib's best), while it unpacks to the copy served; otherwise what
/// is served, compressed by zlib once. Every module is also served
/// as written at `/sdk/src/NAME.js`, for debugging and for what the joined files leave out:
/// `ruletext.js` (the parser of a rule's text) and `preview.js` (the console's previews).
public struct WebSDK: Sendable {
    /// One file pages download: the SDK itself or one of its parts.
    public struct File: Sendable {
        /// The modules joined: the minified copy's source.
        public let source: String
        /// What pages receive: the minified copy, or ``source`` when the copy is out of date.
        public let served: ByteBuffer
        /// ``served`` gzip-compressed: the packed copy made with the minified one, else zlib at
        /// its highest level, once.
        public let gzipped: ByteBuffer
        /// ``served`` brotli-compressed, when the minified copy is served and names these bytes.
        public let brotli: ByteBuffer?
        /// Whether ``served`` is the minified copy.
        public let isMinified: Bool
        /// The strong ETag of ``served``.
        let etag: String

        /// The file from its joined `source`, a minified copy (used if its first line names the
        /// source's SHA-256), that copy packed with gzip (used if it unpacks to the copy) and with
        /// brotli (used if the first line names its SHA-256: this server cannot unpack brotli,
        /// `scripts/build-web-sdk --check` does).
        init(source: String, minified: String?, packed: ByteBuffer? = nil, brotli: ByteBuffer? = nil) {
            self.source = source
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
            self.brotli = brotli.flatMap { current && lines[0].contains("packed by brotli, sha256 \(Secrets.hash(bytes: $0)) ") ? $0 : nil }
            etag = "\"" + Secrets.hash(text).prefix(32) + "\""
        }
    }

    /// What a page loads: `waymark.js`, the entry module and all it imports.
    public let main: File
    /// The parts the SDK loads when needed, by file name (`tours.js`): a page downloads one only
    /// when it needs it (the tour panel, when a catalog has a tour).
    public let parts: [String: File]
    /// Sixteen hex digits naming the modules joined (``ModuleJoiner/Joined/version``):
    /// `/sdk/VERSION/waymark.js`, and the folder the SDK loads its parts from.
    public let version: String
    /// The modules as written, by file name, with their ETags.
    let modules: [String: (text: ByteBuffer, etag: String)]

    /// The versioned URL's path, which may be cached for ever: `/sdk/VERSION/waymark.js`.
    public var versionedPath: String { "/sdk/\(version)/waymark.js" }

    /// Every file of this version by its path below `/sdk/`: `VERSION/waymark.js` and each part's
    /// `VERSION/NAME.js`, as a server or a CDN serves them.
    public var files: [(path: String, file: File)] {
        [("\(version)/waymark.js", main)] + parts.sorted { $0.key < $1.key }.map { ("\(version)/\($0.key)", $0.value) }
    }

    /// Joins the modules in `folder/sdk` and takes each file's minified copy `folder/NAME.min.js`
    /// (and its packed `NAME.min.js.gz` and `NAME.min.js.br`) if it was made from them.
    public static func load(folder: URL) throws(ModuleJoiner.Failure) -> WebSDK {
        let folderOfModules = folder.appendingPathComponent("sdk")
        var modules: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folderOfModules.path)) ?? [] where name.hasSuffix(".js") {
            modules[name] = FileManager.default.contents(atPath: folderOfModules.appendingPathComponent(name).path)
                .map { String(decoding: $0, as: UTF8.self) }
        }
        let joined = try ModuleJoiner { [modules] in modules[$0] }.join(entry: "waymark.js")
        let file = { (name: String, source: String) -> File in
            let stem = folder.appendingPathComponent(String(name.dropLast(".js".count)) + ".min.js").path
            return File(
                source: source,
                minified: FileManager.default.contents(atPath: stem).map { String(decoding: $0, as: UTF8.self) },
                packed: FileManager.default.contents(atPath: stem + ".gz").map { ByteBuffer(bytes: $0) },
                brotli: FileManager.default.contents(atPath: stem + ".br").map { ByteBuffer(bytes: $0) })
        }
        return WebSDK(
            main: file("waymark.js", joined.main),
            parts: Dictionary(uniqueKeysWithValues: joined.parts.map { ($0.key, file($0.key, $0.value)) }),
            version: joined.version, modules: modules)
    }

    /// The SDK from its files and the modules as written.
    init(main: File, parts: [String: File] = [:], version: String, modules: [String: String] = [:]) {
        self.main = main
        self.parts = parts
        self.version = version
        self.modules = modules.mapValues { (ByteBuffer(string: $0), "\"" + Secrets.hash($0).prefix(32) + "\"") }
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

    /// `GET /sdk/waymark.js` (cached five minutes, then revalidated), `GET /sdk/VERSION/waymark.js`
    /// and `GET /sdk/VERSION/NAME.js` for a part (cached for ever). Another version of the SDK
    /// answers a redirect to this one: a page that pinned an older SDK gets the one this server
    /// speaks with. A part of another version is not found: its SDK is not this server's.
    func webSDK(_ request: Request, version: String?, file name: String = "waymark.js") -> Response {
        let sdk: WebSDK
        switch Self.webSDK {
        case .success(let loaded): sdk = loaded
        case .failure(let failure):
            logger.error("the web SDK cannot be served", metadata: ["reason": "\(failure)"])
            return Response(
                status: .internalServerError, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "the web SDK in this installation is broken: \(failure)\n")))
        }
        let isMain = name == "waymark.js"
        guard let file = isMain ? sdk.main : sdk.parts[name], version == nil || version == sdk.version || isMain else {
            let reason = sdk.parts[name] == nil ? "the web SDK has no part \(name)" : "this server's web SDK is version \(sdk.version)"
            return Response(
                status: .notFound, headers: [.contentType: "text/plain; charset=utf-8", .accessControlAllowOrigin: "*"],
                body: .init(byteBuffer: ByteBuffer(string: "\(reason)\n")))
        }
        if let version, version != sdk.version {
            return Response(
                status: .found, headers: [.accessControlAllowOrigin: "*", .location: sdk.versionedPath, .cacheControl: "no-cache"])
        }
        var headers = Self.scriptHeaders(
            etag: file.etag, cacheControl: version == nil ? "public, max-age=300" : "public, max-age=31536000, immutable")
        if request.headers.ifNoneMatchNames(file.etag) { return Response(status: .notModified, headers: headers) }
        if let brotli = file.brotli, ContentCoding.acceptsBrotli(request) {
            headers[.contentEncoding] = "br"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: brotli))
        }
        if ContentCoding.acceptsGzip(request) {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file.gzipped))
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file.served))
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
        if request.headers.ifNoneMatchNames(module.etag) { return Response(status: .notModified, headers: headers) }
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
