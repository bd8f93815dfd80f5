import Foundation
import HTTPTypes
import Hummingbird
import WaymarkAPI
import WaymarkCatalog
import WaymarkDelivery
import WaymarkNarration
import WaymarkStore

/// Narration on the server: which content has audio, serving it, and asking the narrator for
/// the speech still to make.
extension WaymarkServer {
    /// The path audio of an app is served at; no key is needed, since an `<audio>` element sends
    /// none: the key in the path is a hash only a catalog names.
    public static func narrationPath(app: String, key: String) -> String {
        "/v1/narration/\(app.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? app)/\(key)"
    }

    /// Whether this server makes speech (espeak-ng and ffmpeg installed, narration on).
    public var makesNarration: Bool { narrator != nil }

    /// Asks the narrator, when this server makes speech, for the plan's speech the store knows
    /// nothing of (neither made nor failed), to be made in the background; returns that speech.
    @discardableResult
    public func requestMissingNarration(app: String, plan: NarrationPlan, states: [String: NarrationState]) -> [NarrationPlan.Speech] {
        let missing = plan.speeches.filter { states[$0.key] == nil }
        narrator?.request(app: app, speeches: missing)
        return missing
    }

    /// What the store knows of each line of the catalog's narration plan.
    public func narrationStates(app: String, plan: NarrationPlan) async throws -> [String: NarrationState] {
        try await store.narrationStates(app: app, keys: plan.keys)
    }

    /// The audio each content of the catalog's plan plays, the speech it lacks (asked of the
    /// narrator), and a fingerprint of what the store knows of its keys (which are made, which
    /// failed): equal fingerprints deliver the same.
    func narration(app: String, plan: NarrationPlan) async throws -> (
        lookup: Resolver.Narration, missing: [NarrationPlan.Speech], fingerprint: Int
    ) {
        let states = try await narrationStates(app: app, plan: plan)
        var delivered: [LineKey: DeliveredNarration] = [:]
        for line in plan.lines {
            let at = LineKey(locale: line.locale, content: line.content)
            if case .external = line.source {
                delivered[at] = Resolver.recordingOnTheWeb(line.content, line.locale)
            } else if let key = line.key, case .ready(let ready) = states[key] {
                delivered[at] = DeliveredNarration(
                    url: Self.narrationPath(app: app, key: key), duration: ready.duration,
                    source: DeliveredNarration.Source(rawValue: ready.source.rawValue) ?? .recording
                )
            }
        }
        let missing = requestMissingNarration(app: app, plan: plan, states: states)
        let found = delivered
        let lookup: Resolver.Narration = { content, locale in found[LineKey(locale: locale, content: content)] }
        var fingerprint = Hasher()
        for (key, state) in states.sorted(by: { $0.key < $1.key }) {
            fingerprint.combine(key)
            if case .ready(let ready) = state { fingerprint.combine(ready.duration) } else { fingerprint.combine(-1.0) }
        }
        return (lookup, missing, fingerprint.finalize())
    }

    /// Forgets a generated narration of the app and makes it again.
    public func regenerateNarration(app: String, speech: NarrationPlan.Speech) async throws {
        try await store.deleteNarration(app: app, key: speech.key)
        live.recheckNow(app)
        narrator?.request(app: app, speeches: [speech])
    }

    /// `GET /v1/narration/:app/:key`: the audio, cacheable for good (a key names one content),
    /// with byte ranges for players that seek.
    func narrationAudio(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let app = try context.parameters.require("app")
        let key = try context.parameters.require("key")
        guard key.count <= 64, key.allSatisfy({ $0.isASCII && $0.isHexDigit }),
            let audio = try await store.narrationAudio(app: app, key: key)
        else { throw APIError.notFound }
        var headers: HTTPFields = [:]
        let etag = "\"\(key)\""
        headers[.eTag] = etag
        headers[.cacheControl] = "public, max-age=31536000, immutable"
        headers[.acceptRanges] = "bytes"
        headers[.contentType] = audio.format
        if request.headers.ifNoneMatchNames(etag) { return Response(status: .notModified, headers: headers) }
        let total = audio.bytes.count
        if let range = request.headers[.range].flatMap({ Self.byteRange($0, total: total) }) {
            guard let range else {
                headers[.contentRange] = "bytes */\(total)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(total)"
            return Response(
                status: .partialContent, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: audio.bytes[range])))
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: audio.bytes)))
    }

    /// A `Range: bytes=...` header of one range: nil when it is not one this reads (the whole
    /// file is sent), `.some(nil)` when it lies outside the file (416).
    static func byteRange(_ header: String, total: Int) -> Range<Int>?? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let parts = header.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let first = Int(parts[0].trimmingCharacters(in: .whitespaces))
        let last = Int(parts[1].trimmingCharacters(in: .whitespaces))
        switch (first, last) {
        case (let first?, let last):
            guard first < total, first >= 0 else { return .some(nil) }
            let end = min((last ?? total - 1), total - 1)
            guard end >= first else { return .some(nil) }
            return first..<(end + 1)
        case (nil, let suffix?):
            guard suffix > 0, total > 0 else { return .some(nil) }
            return max(0, total - suffix)..<total
        default:
            return nil
        }
    }
}

/// A content in a locale, as the narration of a catalog is looked up.
private struct LineKey: Hashable {
    var locale: String
    var content: Content
}
