import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import WaymarkServer
import WaymarkTestSupport

/// Text answers travel gzip-compressed to clients that accept it (the web SDK brotli-compressed to
/// those that take brotli), each encoding under its own ETag, and the catalog is compressed once
/// per distinct answer.
@Suite(.timeLimit(.minutes(5))) struct CompressionTests {
    static let gzip: HTTPFields = [.acceptEncoding: "gzip, deflate"]
    /// What Chromium sends over HTTPS.
    static let brotli: HTTPFields = [.acceptEncoding: "gzip, deflate, br, zstd"]

    static func with(_ headers: HTTPFields, _ more: HTTPFields) -> HTTPFields {
        var all = headers
        all.append(contentsOf: more)
        return all
    }

    static func gunzip(_ body: ByteBuffer) throws -> ByteBuffer {
        var body = body
        return try body.decompress(with: .gzip())
    }

    @Test func everyTextAnswerIsCompressedForAClientThatAcceptsGzipAndIsTheSameOnceDecompressed() async throws {
        try await ServerTests().withServer { client, app, _, _ in
            try await ServerTests.publishShop(client, app)
            let paths: [(String, HTTPFields)] = [
                ("/sdk/waymark.js", [:]), ("/v1/catalog?platform=web&user=u1", ServerTests.auth(app.clientKey)),
                ("/openapi.yaml", [:]), ("/v1/admin/catalog/draft", ServerTests.auth(app.secretKey)),
                ("/console/assets/console.css", [:]), ("/console/login", [:]), ("/sdk/src/ruletext.js", [:]),
            ]
            for (path, headers) in paths {
                // The login page carries a new CSRF token each time: the same page, not the same bytes.
                let samePage = { (a: ByteBuffer, b: ByteBuffer) in
                    path == "/console/login" ? a.readableBytes == b.readableBytes : a == b
                }
                let plain = try await client.execute(uri: path, method: .get, headers: headers)
                let packed = try await client.execute(uri: path, method: .get, headers: Self.with(headers, Self.gzip))
                #expect(plain.status == .ok && packed.status == .ok, "\(path)")
                #expect(plain.headers[.contentEncoding] == nil, "\(path) without Accept-Encoding")
                #expect(packed.headers[.contentEncoding] == "gzip", "\(path)")
                for response in [plain, packed] {
                    #expect(response.headers[.vary]?.contains("Accept-Encoding") == true, "\(path): \(response.headers)")
                }
                #expect(packed.body.readableBytes < plain.body.readableBytes * 2 / 3, "\(path): \(packed.body.readableBytes) bytes")
                #expect(samePage(try Self.gunzip(packed.body), plain.body), "\(path)")
                if let etag = plain.headers[.eTag] {
                    #expect(packed.headers[.eTag] != etag, "\(path): each encoding has its own ETag")
                }
            }
            // Refusing gzip (q=0), or naming only other codings, gets the plain bytes.
            for refusal in ["gzip;q=0", "br", "identity", "*;q=0"] {
                let answer = try await client.execute(uri: "/openapi.yaml", method: .get, headers: [.acceptEncoding: refusal])
                #expect(answer.headers[.contentEncoding] == nil, "\(refusal)")
            }
            // Small answers are not worth it.
            let health = try await client.execute(uri: "/healthz", method: .get, headers: Self.gzip)
            #expect(health.headers[.contentEncoding] == nil && String(buffer: health.body) == "ok\n")
        }
    }

    @Test func eachEncodingIsRevalidatedWithItsOwnETag() async throws {
        try await ServerTests().withServer { client, app, _, _ in
            try await ServerTests.publishShop(client, app)
            for (path, headers) in [("/sdk/waymark.js", HTTPFields()), ("/v1/catalog?platform=web", ServerTests.auth(app.clientKey))] {
                let plain = try await client.execute(uri: path, method: .get, headers: headers)
                let packed = try await client.execute(uri: path, method: .get, headers: Self.with(headers, Self.gzip))
                let plainTag = try #require(plain.headers[.eTag])
                let packedTag = try #require(packed.headers[.eTag])
                let again = try await client.execute(
                    uri: path, method: .get, headers: Self.with(headers, Self.with(Self.gzip, [.ifNoneMatch: packedTag])))
                #expect(again.status == .notModified, "\(path)")
                #expect(again.headers[.eTag] == packedTag, "\(path): the 304 confirms the encoding the client holds")
                let plainAgain = try await client.execute(uri: path, method: .get, headers: Self.with(headers, [.ifNoneMatch: plainTag]))
                #expect(plainAgain.status == .notModified && plainAgain.headers[.eTag] == plainTag, "\(path)")
            }
        }
    }

    @Test func theSDKAndItsPartsGoWithBrotliToABrowserThatTakesIt() async throws {
        let sdk = try WaymarkServer.installedWebSDK()
        try await ServerTests().withServer { client, app, _, _ in
            try await ServerTests.publishShop(client, app)
            for (path, file) in [("/sdk/waymark.js", sdk.main)] + sdk.files.map({ ("/sdk/\($0.path)", $0.file) }) {
                let packed = try await client.execute(uri: path, method: .get, headers: Self.brotli)
                #expect(packed.status == .ok && packed.headers[.contentEncoding] == "br", "\(path)")
                #expect(packed.body == file.brotli, "\(path): the brotli copy made with the minified one")
                #expect(packed.headers[.vary]?.contains("Accept-Encoding") == true, "\(path)")
                let etag = try #require(packed.headers[.eTag])
                #expect(etag.hasSuffix("-br\""), "\(path): \(etag)")
                let again = try await client.execute(uri: path, method: .get, headers: Self.with(Self.brotli, [.ifNoneMatch: etag]))
                #expect(again.status == .notModified && again.headers[.eTag] == etag, "\(path): the 304 confirms brotli")
                // Refusing brotli gets gzip.
                let gzip = try await client.execute(uri: path, method: .get, headers: [.acceptEncoding: "br;q=0, gzip"])
                #expect(gzip.headers[.contentEncoding] == "gzip" && gzip.body == file.gzipped, "\(path)")
            }
            // Only the SDK is kept brotli-compressed; other answers are gzip.
            let catalog = try await client.execute(
                uri: "/v1/catalog?platform=web", method: .get, headers: Self.with(ServerTests.auth(app.clientKey), Self.brotli))
            #expect(catalog.headers[.contentEncoding] == "gzip")
        }
    }

    @Test func aCatalogAnswerIsCompressedOnceHowEverOftenItIsAskedFor() async throws {
        try await ServerTests().withServer { client, app, _, _ in
            try await ServerTests.publishShop(client, app)
            let headers = Self.with(ServerTests.auth(app.clientKey), Self.gzip)
            var bodies: [ByteBuffer] = []
            for _ in 0..<3 {
                bodies.append(try await client.execute(uri: "/v1/catalog?platform=web&locale=en", method: .get, headers: headers).body)
            }
            #expect(Set(bodies.map { Array(buffer: $0) }).count == 1)
            _ = try await client.execute(uri: "/v1/catalog?platform=web&locale=hi-IN", method: .get, headers: headers)
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains("waymark_catalog_compressions_total 2"), "one per distinct answer: \(metrics)")
        }
    }

    @Test func theSDKHasAVersionedURLCachedForEverAndOlderVersionsAreSentToIt() async throws {
        let sdk = try WaymarkServer.installedWebSDK()
        try await ServerTests().withServer { client, _, _, _ in
            let stable = try await client.execute(uri: "/sdk/waymark.js", method: .get)
            #expect(stable.headers[.cacheControl] == "public, max-age=300")
            let versioned = try await client.execute(uri: sdk.versionedPath, method: .get)
            #expect(versioned.status == .ok && versioned.body == stable.body)
            #expect(versioned.headers[.cacheControl] == "public, max-age=31536000, immutable")
            let older = try await client.execute(uri: "/sdk/0123456789abcdef/waymark.js", method: .get)
            #expect(older.status == .found && older.headers[.location] == sdk.versionedPath)
        }
    }

    @Test func thePartsTheSDKLoadsWhenNeededAreServedBesideItsVersionedURL() async throws {
        let sdk = try WaymarkServer.installedWebSDK()
        try await ServerTests().withServer { client, _, _, _ in
            let tours = try await client.execute(uri: "/sdk/\(sdk.version)/tours.js", method: .get, headers: Self.gzip)
            #expect(tours.status == .ok && tours.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(tours.headers[.cacheControl] == "public, max-age=31536000, immutable" && tours.headers[.contentEncoding] == "gzip")
            var body = tours.body
            let text = String(buffer: try body.decompress(with: .gzip(), maxSize: 1 << 20))
            #expect(text == String(buffer: try #require(sdk.parts["tours.js"]).served))
            #expect(text.contains("export default") && text.contains("TourPanel"))
            // A part of another version would not fit this server's SDK; a name that is no part is nothing.
            for path in ["/sdk/0123456789abcdef/tours.js", "/sdk/\(sdk.version)/engine.js", "/sdk/\(sdk.version)/..%2Fwaymark.js"] {
                let answer = try await client.execute(uri: path, method: .get)
                #expect(answer.status == .notFound, "\(path)")
            }
        }
    }

    @Test func eachModuleIsServedAsWrittenAndNothingElseIs() async throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../Sources/WaymarkServer/Resources/web/sdk").standardized
        try await ServerTests().withServer { client, _, _, _ in
            for name in ["ruletext.js", "engine.js", "waymark.js"] {
                let module = try await client.execute(uri: "/sdk/src/\(name)", method: .get)
                #expect(module.status == .ok && module.headers[.contentType] == "text/javascript; charset=utf-8", "\(name)")
                #expect(String(buffer: module.body) == (try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)))
                let tag = try #require(module.headers[.eTag])
                let again = try await client.execute(uri: "/sdk/src/\(name)", method: .get, headers: [.ifNoneMatch: tag])
                #expect(again.status == .notModified, "\(name)")
            }
            for missing in ["nope.js", "..%2FWeb.swift", "ruletext", "%2e%2e"] {
                #expect(try await client.execute(uri: "/sdk/src/\(missing)", method: .get).status == .notFound, "\(missing)")
            }
        }
    }
}
