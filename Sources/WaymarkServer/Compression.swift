import CompressNIO
import Foundation
import Hummingbird
import NIOCore
import WaymarkSupport

/// gzip for every text answer a client accepts it for: on a 3G phone the bytes are the wait.
///
/// Each encoding of a resource has its own ETag (`"abc"`, `"abc-gzip"`, `"abc-br"`), and a
/// response's `Vary` names `Accept-Encoding`, so no cache hands gzip to a client that did not ask
/// for it. The middleware compresses what handlers answer; handlers that answer the same bytes
/// often (the catalog, the SDK) keep them compressed and mark them with `Content-Encoding: gzip`
/// themselves (the SDK also `br`, packed when it is built), and the middleware only gives them
/// their ETag and `Vary`.
public enum ContentCoding {
    /// Below this many bytes gzip's own 20 bytes of framing gain too little to spend time on.
    public static let minimumSize = 256

    /// Whether `Accept-Encoding` takes gzip: `gzip` (or `x-gzip`) with a q-value above 0, or `*` above
    /// 0 when gzip is not named.
    public static func acceptsGzip(_ request: Request) -> Bool { accepts(request, "gzip", alias: "x-gzip") }

    /// Whether `Accept-Encoding` takes brotli (`br`), read as for gzip. Browsers name it over HTTPS.
    public static func acceptsBrotli(_ request: Request) -> Bool { accepts(request, "br") }

    /// Whether `Accept-Encoding` takes `coding` (or `alias`): named with a q-value above 0, or `*`
    /// above 0 when it is not named.
    static func accepts(_ request: Request, _ coding: String, alias: String? = nil) -> Bool {
        guard let header = request.headers[.acceptEncoding] else { return false }
        var star: Bool?
        for part in header.split(separator: ",") {
            let pieces = part.split(separator: ";").map(\.withoutBlanks)
            guard let named = pieces.first else { continue }
            let quality = pieces.dropFirst().first { $0.hasPrefix("q=") || $0.hasPrefix("Q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if named.equalsIgnoringCase(coding) || alias.map(named.equalsIgnoringCase) == true { return quality > 0 }
            if named == "*" { star = quality > 0 }
        }
        return star ?? false
    }

    /// Whether a media type is text that compresses: text/*, JSON, YAML, JavaScript, XML, SVG.
    public static func isCompressible(_ contentType: String?) -> Bool {
        guard let type = contentType?.lowercased() else { return false }
        return type.hasPrefix("text/") || ["json", "yaml", "javascript", "xml"].contains { type.contains($0) }
    }

    /// `bytes` gzip-compressed (level 6 by default, zlib's balance of speed and size; 9 for bytes
    /// compressed once and sent many times).
    public static func gzip(_ bytes: ByteBuffer, level: Int32 = 6) -> ByteBuffer {
        var input = bytes
        // Compressing memory into memory fails only on a zlib that cannot allocate; send it as it is then.
        return (try? input.compress(with: .gzip(configuration: .init(compressionLevel: level)))) ?? bytes
    }

    /// The codings handlers answer in themselves, bytes they keep compressed (the SDK, the catalog):
    /// each encoding's ETag is the representation's with the coding's name after a dash.
    static let keptCodings = ["gzip", "br"]

    /// The ETag of the `coding` encoding of the representation whose ETag is `etag`.
    static func codedETag(_ etag: String, _ coding: String) -> String {
        guard etag.hasSuffix("\""), !keptCodings.contains(where: { etag.hasSuffix("-\($0)\"") }) else { return etag }
        return etag.dropLast() + "-\(coding)\""
    }

    /// An `If-None-Match` list with every encoding's ETag made back into the ETag its handler knows,
    /// and the coding the client named, if it named one.
    static func identityETags(_ list: String) -> (list: String, coding: String?) {
        var named: String?
        let tags = list.split(separator: ",").map { tag -> String in
            let trimmed = tag.withoutBlanks
            guard let coding = keptCodings.first(where: { trimmed.hasSuffix("-\($0)\"") }) else { return String(trimmed) }
            named = named ?? coding
            return trimmed.dropLast(coding.count + 2) + "\""
        }
        return named == nil ? (list, nil) : (tags.joined(separator: ", "), named)
    }

    static func addVary(_ headers: inout HTTPFields) {
        if let vary = headers[.vary] {
            if !vary.containsIgnoringCase("accept-encoding") { headers[.vary] = vary + ", Accept-Encoding" }
        } else {
            headers[.vary] = "Accept-Encoding"
        }
    }
}

/// Compresses text responses with gzip for clients that accept it (``ContentCoding``). What the
/// middleware added before it and any thrown error's answer pass uncompressed: `WaymarkServer`
/// adds it right after the request metrics, so every handler's answer passes through it.
public struct ResponseCompressionMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let gzip = ContentCoding.acceptsGzip(request)
        var request = request
        var askedAbout: String?
        if let list = request.headers[.ifNoneMatch] {
            let identity = ContentCoding.identityETags(list)
            var head = request.head
            head.headerFields[.ifNoneMatch] = identity.list
            request = Request(head: head, body: request.body)
            askedAbout = identity.coding
        }
        var response = try await next(request, context)
        if response.status == .notModified {
            // The client holds the encoding it named: confirm that one.
            if let coding = askedAbout, ContentCoding.accepts(request, coding, alias: coding == "gzip" ? "x-gzip" : nil),
                let etag = response.headers[.eTag]
            {
                response.headers[.eTag] = ContentCoding.codedETag(etag, coding)
            }
            if askedAbout != nil || gzip { ContentCoding.addVary(&response.headers) }
            return response
        }
        if let coding = response.headers[.contentEncoding], ContentCoding.keptCodings.contains(coding) {
            // A handler that keeps its bytes compressed did the work.
            if let etag = response.headers[.eTag] { response.headers[.eTag] = ContentCoding.codedETag(etag, coding) }
            ContentCoding.addVary(&response.headers)
            return response
        }
        guard response.headers[.contentEncoding] == nil, ContentCoding.isCompressible(response.headers[.contentType]) else {
            return response
        }
        ContentCoding.addVary(&response.headers)
        guard gzip, response.status.code >= 200, response.status != .noContent,
            (response.body.contentLength ?? Int.max) >= ContentCoding.minimumSize
        else { return response }
        if response.body.contentLength == nil {
            // A body written as it is made (an export): compressed as it goes, never held whole.
            let body = response.body
            response.body = ResponseBody { writer in
                try await body.write(GzipStreamWriter(writer))
            }
            response.headers[.contentEncoding] = "gzip"
            response.headers[.contentLength] = nil
            return response
        }
        let collector = BodyCollector()
        try await response.body.write(collector)
        guard collector.bytes.readableBytes >= ContentCoding.minimumSize else {
            response.body = ResponseBody(byteBuffer: collector.bytes)
            return response
        }
        let compressed = ContentCoding.gzip(collector.bytes)
        response.body = ResponseBody(byteBuffer: compressed)
        response.headers[.contentEncoding] = "gzip"
        response.headers[.contentLength] = String(compressed.readableBytes)
        if let etag = response.headers[.eTag] { response.headers[.eTag] = ContentCoding.codedETag(etag, "gzip") }
        return response
    }
}

/// A body writer that compresses what it is given into another as it comes, each piece flushed so
/// the client can read what has been written so far.
private struct GzipStreamWriter: ResponseBodyWriter {
    var parent: any ResponseBodyWriter
    let compressor: any NIOCompressor

    init(_ parent: any ResponseBodyWriter) {
        self.parent = parent
        compressor = CompressionAlgorithm.gzip(configuration: .init(compressionLevel: 6)).compressor
        // Starting a zlib stream fails only on a zlib that cannot allocate; writing then fails too.
        try? compressor.startStream()
    }

    mutating func write(_ buffer: ByteBuffer) async throws {
        var input = buffer
        let output = try input.compressStream(with: compressor, flush: .sync)
        if output.readableBytes > 0 { try await parent.write(output) }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        var empty = ByteBuffer()
        var output = ByteBuffer()
        output.reserveCapacity(64)
        try empty.compressStream(to: &output, with: compressor, flush: .finish)
        try compressor.finishStream()
        if output.readableBytes > 0 { try await parent.write(output) }
        try await parent.finish(trailingHeaders)
    }
}

/// A body writer that keeps what it is given, to be compressed as one.
private final class BodyCollector: ResponseBodyWriter, @unchecked Sendable {
    var bytes = ByteBuffer()
    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        bytes.writeBuffer(&buffer)
    }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// Compressed bodies by the ETag of what they compress, so that a representation sent again is
/// compressed once: up to `capacity` bytes of them, the oldest going first.
final class CompressedBodies: Sendable {
    private struct State {
        var bodies: [String: ByteBuffer] = [:]
        var order: [String] = []
        var bytes = 0
    }

    private let state = Locked(State())
    let capacity: Int

    init(capacity: Int = 32 << 20) {
        self.capacity = capacity
    }

    /// The gzip body kept for `etag`, or `make()` compressed and kept; `compressed` is told when
    /// that happens. Compressed at level 3, the best of zlib's fast levels: a catalog answered for
    /// each new user is compressed on the request's time, three times faster than at level 6 for
    /// about 8% more bytes (1,343 against 1,260 for the demo's).
    func body(etag: String, make: () -> ByteBuffer, compressed: () -> Void = {}) -> ByteBuffer {
        if let kept = state.withLock({ $0.bodies[etag] }) { return kept }
        let body = ContentCoding.gzip(make(), level: 3)
        compressed()
        state.withLock { state in
            guard state.bodies[etag] == nil else { return }
            state.bodies[etag] = body
            state.order.append(etag)
            state.bytes += body.readableBytes
            var dropped = 0
            while state.bytes > capacity, dropped < state.order.count - 1 {
                state.bytes -= state.bodies.removeValue(forKey: state.order[dropped])?.readableBytes ?? 0
                dropped += 1
            }
            state.order.removeFirst(dropped)
        }
        return body
    }
}
