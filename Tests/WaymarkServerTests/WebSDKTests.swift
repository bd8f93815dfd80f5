import Foundation
import HTTPTypes
import Hummingbird
import Testing
import WaymarkAPI
import WaymarkSupport

@testable import WaymarkServer

/// What a phone downloads: the minified SDK while it is current, within its weight, and brotli or
/// gzip for whoever accepts it.
@Suite struct WebSDKTests {
    static func request(acceptEncoding: String?) -> Request {
        var head = HTTPRequest(method: .get, scheme: "http", authority: "localhost", path: "/")
        if let acceptEncoding { head.headerFields[.acceptEncoding] = acceptEncoding }
        return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
    }

    @Test func theInstalledSDKIsTheMinifiedCopyOfTheseModulesWithinItsWeight() throws {
        let sdk = try WaymarkServer.installedWebSDK()
        for (path, file) in sdk.files {
            #expect(file.isMinified, "the minified copy of \(path) was made from other modules: run scripts/build-web-sdk and commit it")
            let zlib = ContentCoding.gzip(file.served, level: 9).readableBytes
            // A part of a few hundred bytes packs no smaller by zopfli than by zlib's best.
            #expect(file.gzipped.readableBytes <= zlib, "the zopfli copy of \(path) is served, not zlib's \(zlib) bytes")
            #expect(!String(buffer: file.served).contains("sha256"), "the copy's first line is not sent")
            #expect(file.brotli != nil, "the brotli copy of \(path) is not the one made with the minified copy")
        }
        // What every page downloads; the parts come only to pages that need them. A browser over
        // HTTPS takes brotli: 2 KB under 20 KB. Gzip, for the others, stays under 20 KB.
        let brotli = sdk.main.brotli?.readableBytes ?? .max
        #expect(brotli <= 18 * 1024, "the SDK weighs \(brotli) bytes with brotli")
        #expect(sdk.main.gzipped.readableBytes <= 20 * 1024, "the SDK weighs \(sdk.main.gzipped.readableBytes) bytes gzipped")
        #expect(sdk.versionedPath == "/sdk/\(sdk.version)/waymark.js" && sdk.version.count == 16)
        #expect(
            sdk.files.map(\.path)
                == [
                    "waymark.js", "bridge.js", "builder.js", "controls.js", "gestures.js", "identity.js", "kinds.js", "launcher.js",
                    "narration.js",
                    "previewing.js",
                    "sightings.js", "theme.js", "tours.js",
                ].map {
                    "\(sdk.version)/\($0)"
                })
    }

    /// The server takes the names sightings.js sends (Tests/web/sightings.test.mjs keeps the same list).
    @Test func anAnchorReportTakesTheNamesTheWebSDKSends() {
        let taken = ["cart-link", "a\\b", "^~!", String(repeating: "x", count: 128)]
        let refused = ["a:b", "row[1]", "two words", "खोज", "", String(repeating: "x", count: 129), "tab\there"]
        #expect(taken.allSatisfy(AnchorReport.isName))
        #expect(!refused.contains(where: AnchorReport.isName))
        #expect(AnchorReport(platform: "web", screen: "products", anchors: taken, areas: []).problem == nil)
        #expect(
            AnchorReport(platform: "web", screen: "product page", anchors: [], areas: []).problem?.hasPrefix("screen is a name") == true)
        #expect(AnchorReport(platform: "web", screen: "p", anchors: Array(repeating: "a", count: 201), areas: []).problem != nil)
    }

    @Test func aMinifiedCopyOfOtherModulesIsNotServed() {
        let source = "const __waymark = (() => {\nreturn {  };\n})();\n"
        let current = WebSDK.File(source: source, minified: "/* sha256 \(Secrets.hash(source)) */\nconst __waymark=(()=>{return{}})();\n")
        #expect(current.isMinified && String(buffer: current.served) == "const __waymark=(()=>{return{}})();\n")
        let stale = WebSDK.File(source: source, minified: "/* sha256 \(Secrets.hash("older modules")) */\nconst x=1;\n")
        #expect(!stale.isMinified && String(buffer: stale.served) == source)
        #expect(!WebSDK.File(source: source, minified: nil).isMinified)
        #expect(current.etag != stale.etag, "the ETag names the bytes served")
    }

    @Test func aPackedCopyIsServedOnlyWhileItUnpacksToTheMinifiedCopy() {
        let source = "const __waymark = (() => {\nreturn {  };\n})();\n"
        let minified = "/* sha256 \(Secrets.hash(source)) */\nconst __waymark=(()=>{return{}})();\n"
        let body = ByteBuffer(string: "const __waymark=(()=>{return{}})();\n")
        let packed = ContentCoding.gzip(body, level: 1)
        #expect(WebSDK.File(source: source, minified: minified, packed: packed).gzipped == packed)
        let other = ContentCoding.gzip(ByteBuffer(string: "const x=1;\n"), level: 1)
        #expect(WebSDK.File(source: source, minified: minified, packed: other).gzipped == ContentCoding.gzip(body, level: 9))
        let broken = ByteBuffer(string: "not gzip at all")
        #expect(WebSDK.File(source: source, minified: minified, packed: broken).gzipped == ContentCoding.gzip(body, level: 9))
        let stale = WebSDK.File(source: source, minified: "/* sha256 \(Secrets.hash("older")) */\nconst x=1;\n", packed: other)
        #expect(stale.gzipped == ContentCoding.gzip(ByteBuffer(string: source), level: 9), "a stale copy's packing is not used")
    }

    @Test func aBrotliCopyIsServedOnlyWhileTheMinifiedCopyNamesIt() {
        let source = "const __waymark = (() => {\nreturn {  };\n})();\n"
        let packed = ByteBuffer(bytes: [0x0b, 0x01, 0x80, 0x7a, 0x03])
        let named = "/* sha256 \(Secrets.hash(source)) ; packed by brotli, sha256 \(Secrets.hash(bytes: packed)) */\nconst x=1;\n"
        #expect(WebSDK.File(source: source, minified: named, brotli: packed).brotli == packed)
        let other = ByteBuffer(bytes: [0x0b, 0x01, 0x80, 0x7a, 0x04])
        #expect(WebSDK.File(source: source, minified: named, brotli: other).brotli == nil, "a copy the first line does not name")
        let unnamed = "/* sha256 \(Secrets.hash(source)) */\nconst x=1;\n"
        #expect(WebSDK.File(source: source, minified: unnamed, brotli: packed).brotli == nil)
        let stale = "/* sha256 \(Secrets.hash("older")) ; packed by brotli, sha256 \(Secrets.hash(bytes: packed)) */\nconst x=1;\n"
        #expect(WebSDK.File(source: source, minified: stale, brotli: packed).brotli == nil, "a stale copy's packing is not used")
    }

    @Test func brotliIsTakenAsItsAcceptEncodingSays() {
        let accepted = ["br", "gzip, deflate, br, zstd", "BR;q=0.5", "*", "gzip, *;q=0.1"]
        let refused = [nil, "", "gzip, deflate", "br;q=0", "*, br;q=0", "identity", "brotli"]
        for header in accepted { #expect(ContentCoding.acceptsBrotli(Self.request(acceptEncoding: header)), "\(header)") }
        for header in refused { #expect(!ContentCoding.acceptsBrotli(Self.request(acceptEncoding: header)), "\(header ?? "none")") }
    }

    @Test func acceptEncodingIsReadWithItsQualityValues() {
        let accepted = ["gzip", "GZIP", "deflate, gzip", "br;q=1.0, gzip;q=0.5", "x-gzip", "*", "br, *;q=0.1"]
        let refused = [nil, "", "identity", "br", "gzip;q=0", "gzip; q=0.000", "*;q=0", "*, gzip;q=0", "deflate"]
        for header in accepted { #expect(ContentCoding.acceptsGzip(Self.request(acceptEncoding: header)), "\(header)") }
        for header in refused { #expect(!ContentCoding.acceptsGzip(Self.request(acceptEncoding: header)), "\(header ?? "none")") }
    }

    @Test func eachEncodingsETagIsItsOwnAndReadBack() {
        #expect(ContentCoding.codedETag("\"abc\"", "gzip") == "\"abc-gzip\"")
        #expect(ContentCoding.codedETag("W/\"abc\"", "gzip") == "W/\"abc-gzip\"")
        #expect(ContentCoding.codedETag("\"abc-gzip\"", "gzip") == "\"abc-gzip\"")
        #expect(ContentCoding.codedETag("\"abc\"", "br") == "\"abc-br\"")
        #expect(ContentCoding.identityETags("\"abc-gzip\", \"def\"") == ("\"abc\", \"def\"", "gzip"))
        #expect(ContentCoding.identityETags("\"abc-br\"") == ("\"abc\"", "br"))
        #expect(ContentCoding.identityETags("\"abc\"") == ("\"abc\"", nil))
    }

    @Test func compressedBodiesAreKeptByETagWithinTheirCapacity() {
        let bodies = CompressedBodies(capacity: 200)
        var made = 0
        let text = ByteBuffer(string: String(repeating: "waymark ", count: 100))
        for _ in 0..<3 { _ = bodies.body(etag: "\"a\"", make: { text }, compressed: { made += 1 }) }
        #expect(made == 1)
        // Random bytes do not compress: each takes most of the capacity, so the oldest goes.
        let noise = { ByteBuffer(bytes: (0..<180).map { _ in UInt8.random(in: 0...255) }) }
        _ = bodies.body(etag: "\"b\"", make: noise, compressed: { made += 1 })
        _ = bodies.body(etag: "\"a\"", make: { text }, compressed: { made += 1 })
        #expect(made == 3, "\"a\" was dropped to make room and compressed again")
    }
}
