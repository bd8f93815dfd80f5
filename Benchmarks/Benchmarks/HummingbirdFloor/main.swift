// A yardstick for Benchmarks/wrk/run: Hummingbird, configured as `waymark serve` is, answering
// GET /v1/catalog with a file's bytes as they are (gzip-encoded), with the headers a catalog answer
// carries, and nothing else: no key, no decision, no cache of compressed answers, no middleware.
// What it serves per second is what the framework itself allows on this machine, beside which the
// catalog's own request path is measured.
//
//   HummingbirdFloor PORT FILE.gz
import Foundation
import Hummingbird

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[1]), let data = FileManager.default.contents(atPath: arguments[2]) else {
    FileHandle.standardError.write(Data("usage: HummingbirdFloor PORT FILE.gz\n".utf8))
    exit(2)
}
let body = ByteBuffer(bytes: data)
let router = Router()
router.get("/v1/catalog") { _, _ in
    Response(
        status: .ok,
        headers: [
            .contentType: "application/json; charset=utf-8", .contentEncoding: "gzip", .eTag: "\"floor\"",
            .cacheControl: "private, max-age=60, stale-if-error=604800", .vary: "Authorization",
            .accessControlExposeHeaders: "ETag",
        ],
        body: ResponseBody(byteBuffer: body)
    )
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "floor"))
try await app.runService()
