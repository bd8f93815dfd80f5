import Foundation
import Hummingbird
import WaymarkAPI
import WaymarkCatalog
import WaymarkDelivery
import WaymarkEngine
import WaymarkNarration
import WaymarkRules
import WaymarkStore
import WaymarkSupport

/// Draft previews: a link that opens the app on a real device with the app's draft in place of
/// its live catalog, for a limited time.
///
/// The link is the app's own page (or a link into a native app) with a token added as
/// `waymark-preview`. The SDK there uses the token in place of its client key: the catalog it gets
/// is the draft for everyone (``WaymarkCatalog/Catalog/previewed``), marked `preview`, and the
/// events it sends are kept with the preview, never with the app's events, so no report, segment
/// or webhook counts them. The token works for the app's catalog and events only, until the
/// preview expires or is ended; after that the catalog answers an ended, empty preview and events
/// are refused one by one, so a device's queue empties.
public enum Previews {
    /// How preview tokens begin: what tells the server to look one up as a preview.
    public static let tokenPrefix = "wm_preview_"
    /// How long a preview lasts unless asked, and the range it may be asked for, in minutes.
    public static let defaultMinutes = 30
    public static let minutes = 5...1440
    /// How many events a preview keeps: enough for an author's look around, not a load test.
    public static let eventLimit = 1_000
    /// How long an ended preview stays listed, with its events, before the next new preview
    /// removes it.
    public static let keptAfterEnd: TimeInterval = 86_400

    /// A new token and the record kept for it.
    static func make(app: String, url: String, createdBy: String, at time: Date, minutes: Int) -> (token: String, record: PreviewRecord) {
        // To the millisecond, as stores keep it: the answer says what is stored.
        let time = Date(millisecondsSince1970: time.millisecondsSince1970)
        let token = tokenPrefix + Secrets.randomHex(bytes: 24)
        let record = PreviewRecord(
            id: "pv_" + Secrets.randomHex(bytes: 6), app: app, hash: Secrets.hash(token), url: url, createdBy: createdBy, createdAt: time,
            expiresAt: time.addingTimeInterval(TimeInterval(minutes * 60)))
        return (token, record)
    }

    /// The preview link: `url` with `waymark-preview=TOKEN` added to its query, before any fragment.
    public static func link(_ url: String, token: String) -> String {
        let (base, fragment) =
            url.firstIndex(of: "#").map { (String(url[..<$0]), String(url[$0...])) } ?? (url, "")
        let separator = !base.contains("?") ? "?" : (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&")
        return base + separator + DeliveredPreview.linkParameter + "=" + token + fragment
    }

    /// Schemes a link never opens: they run or read things instead of opening an app.
    static let refusedSchemes: Set<String> = ["javascript", "data", "vbscript", "file", "blob", "about", "filesystem"]

    /// Why `text` cannot be where a preview opens, in a sentence; nil when it can: an `http` or
    /// `https` URL of a host (as webhook URLs are read), or a link into an app
    /// (`myshop://home`), in printable ASCII, at most 2,048 characters.
    public static func urlProblem(_ text: String) -> String? {
        guard !text.isEmpty else { return "give the address of the app's page, or a link into the app" }
        guard text.utf8.count <= EndpointURL.maximumLength, text.utf8.allSatisfy({ (0x21...0x7e).contains($0) }) else {
            return "the address must be at most 2,048 characters of printable ASCII, without spaces (percent-encode the rest)"
        }
        guard let colon = text.firstIndex(of: ":"), let first = text.first, first.isLetter,
            text[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || "+.-".contains($0) }), text.index(after: colon) < text.endIndex
        else {
            return "the address must start with its scheme, such as https://shop.example.com/ or myshop://home"
        }
        let scheme = text[..<colon].lowercased()
        if refusedSchemes.contains(scheme) { return "a preview cannot open a \(scheme): address" }
        if scheme == "http" || scheme == "https" {
            do { _ = try EndpointURL.parse(text) } catch { return "\(error)" }
        }
        return nil
    }
}

extension PreviewRecord {
    /// The preview as the key of a request made with its token: `revokedAt` says it ended.
    func asKey(at time: Date) -> KeyRecord {
        KeyRecord(id: id, app: app, kind: .preview, hash: hash, createdAt: createdAt, revokedAt: isActive(at: time) ? nil : end)
    }
}

/// A preview just made: its record, its token (shown once) and its link.
public struct MadePreview: Sendable {
    public var record: PreviewRecord
    public var token: String
    public var link: String
}

extension WaymarkServer {
    /// Makes a preview of the app's draft opening at `url`, lasting `minutes` (in ``Previews/minutes``),
    /// and removes previews that ended more than a day ago. Throws a 404 when the app has no draft,
    /// and a 422 for a URL ``Previews/urlProblem(_:)`` refuses.
    public func makePreview(app: String, url: String, minutes: Int, actor: AuditEntry.Actor) async throws -> MadePreview {
        if let problem = Previews.urlProblem(url) { throw APIError(.unprocessableContent, .invalidField, problem, field: "url") }
        guard Previews.minutes.contains(minutes) else {
            throw APIError(
                .unprocessableContent, .invalidField,
                "a preview lasts \(Previews.minutes.lowerBound) to \(Previews.minutes.upperBound) minutes", field: "minutes")
        }
        guard try await store.draft(app: app) != nil else {
            throw APIError(.notFound, .noDraft, "the app has no draft to preview yet")
        }
        return try await keepPreview(app: app, url: url, minutes: minutes, edits: nil, actor: actor)
    }

    /// Makes and keeps a preview (a builder of `edits` when given), audited, and removes previews
    /// that ended more than a day ago.
    func keepPreview(app: String, url: String, minutes: Int, edits: String?, actor: AuditEntry.Actor) async throws -> MadePreview {
        let time = now()
        var (token, record) = Previews.make(app: app, url: url, createdBy: actor.description, at: time, minutes: minutes)
        record.edits = edits
        try await store.createPreview(record, removingEndedBefore: time.addingTimeInterval(-Previews.keptAfterEnd))
        try await store.appendAudit(
            AuditEntry(
                app: app, actor: actor, at: time, action: .previewCreate,
                object: (edits == nil ? "preview " : "builder ") + record.id, before: nil,
                after: (edits.map { "of tip \($0), " } ?? "") + "until \(Timestamp.format(record.expiresAt)), at \(url)"))
        return MadePreview(record: record, token: token, link: Previews.link(url, token: token))
    }

    /// Ends one of the app's previews now; false when there is no such preview or it had ended.
    public func endPreview(app: String, id: String, actor: AuditEntry.Actor) async throws -> Bool {
        let time = now()
        guard try await store.endPreview(app: app, id: id, at: time) else { return false }
        try await store.appendAudit(
            AuditEntry(app: app, actor: actor, at: time, action: .previewEnd, object: "preview \(id)", before: nil, after: nil))
        return true
    }

    /// `GET /v1/catalog` with a preview's token: the draft as ``WaymarkCatalog/Catalog/previewed``
    /// resolves for this client, marked `preview`, never cached; once the preview ended, an empty
    /// catalog marked ended.
    func previewCatalog(_ client: ClientContext, key: KeyRecord) async throws -> Response {
        guard let preview = try await store.preview(app: key.app, id: key.id) else { throw APIError.unauthorized }
        var delivered: DeliveredCatalog
        if key.revokedAt != nil {
            delivered = DeliveredCatalog(version: 0, frequency: DisplayFrequency.immediate.rawValue, tips: [], tours: [])
            delivered.preview = DeliveredPreview(expires: Timestamp.format(preview.end), ended: true)
        } else {
            let draft = try await draftCatalog(app: key.app)
            let catalog = (draft?.catalog ?? Catalog(tips: [])).previewed
            let narration = try await narration(app: key.app, plan: NarrationPlan(catalog))
            delivered = Resolver(catalog: catalog, version: draft?.revision ?? 0, narration: narration.lookup).resolve(for: client)
            delivered.preview = DeliveredPreview(expires: Timestamp.format(preview.expiresAt), builder: preview.edits != nil ? true : nil)
        }
        var headers: HTTPFields = [:]
        headers[.cacheControl] = "no-store"
        headers[.vary] = "Authorization"
        return jsonResponse(delivered, headers: headers)
    }

    /// `POST /v1/events` with a preview's token: the accepted events are kept with the preview;
    /// once it ended, each is refused so that the device stops sending it.
    func previewEvents(_ results: inout [EventResult], _ events: [StoredEvent], key: KeyRecord) async throws {
        if key.revokedAt != nil {
            for index in results.indices where results[index].status == .accepted {
                results[index] = EventResult(id: results[index].id, status: .rejected, reason: "the preview ended")
            }
            return
        }
        try await store.recordPreviewEvents(
            preview: key.id,
            events.map {
                PreviewEvent(
                    id: $0.id, name: $0.name, target: $0.target, timestamp: $0.timestamp, receivedAt: $0.receivedAt,
                    properties: $0.properties)
            }, limit: Previews.eventLimit)
    }
}

// MARK: Admin API

extension WaymarkServer {
    /// `POST /v1/admin/previews` `{"url": "https://shop.example/", "minutes": 30}`: a preview of
    /// the draft, with its link and token (shown in this answer only); with `"tip": "ID"`, a page
    /// builder of that draft tip.
    func createPreview(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let body = try await request.decodeBody(as: NewPreviewBody.self, context: context)
        let made =
            if let tip = body.tip {
                try await makeBuilder(
                    app: key.app, tip: tip, url: body.url, minutes: body.minutes ?? Previews.builderMinutes, actor: .key(key.id))
            } else {
                try await makePreview(app: key.app, url: body.url, minutes: body.minutes ?? Previews.defaultMinutes, actor: .key(key.id))
            }
        var summary = PreviewSummary(made.record, at: now())
        summary.token = made.token
        summary.link = made.link
        return jsonResponse(summary, status: .created)
    }

    /// `GET /v1/admin/previews`: the app's previews, newest first (ended ones stay a day).
    func listPreviews(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let time = now()
        return jsonResponse(PreviewList(previews: try await store.previews(app: key.app).map { PreviewSummary($0, at: time) }))
    }

    /// `POST /v1/admin/previews/{id}/end`: ends the preview now; 404 when there is no such preview
    /// or it had ended. The preview stays listed, ended, for a day: ending is not deleting.
    func endPreview(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        guard try await endPreview(app: key.app, id: context.parameters.get("id") ?? "", actor: .key(key.id)) else {
            throw APIError(.notFound, .notFound, "no such preview, or it has ended")
        }
        return Response(status: .noContent)
    }

    /// `GET /v1/admin/previews/{id}/events`: what the previewing devices sent, newest first.
    func previewEventList(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        guard let preview = try await store.preview(app: key.app, id: context.parameters.get("id") ?? "") else {
            throw APIError(.notFound, .notFound, "no such preview")
        }
        let events = try await store.previewEvents(preview: preview.id, limit: Previews.eventLimit)
        return jsonResponse(PreviewEventList(events: events.map(PreviewEventList.Entry.init)))
    }
}

/// `POST /v1/admin/previews`.
struct NewPreviewBody: Decodable {
    var url: String
    var minutes: Int?
    /// The draft tip a page builder edits; nil for a preview.
    var tip: String?

    private enum CodingKeys: String, CodingKey { case url, minutes, tip }

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(["url", "minutes", "tip"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decode(String.self, forKey: .url)
        minutes = try container.decodeUnlessAbsent(Int.self, forKey: .minutes)
        tip = try container.decodeUnlessAbsent(String.self, forKey: .tip)
    }
}

/// A preview as the admin API shows it; `token` and `link` only when it is made.
struct PreviewSummary: Encodable {
    var id: String
    var url: String
    var createdBy: String
    var createdAt: String
    var expiresAt: String
    var endedAt: String?
    var active: Bool
    /// The draft tip a page builder edits; absent for a preview.
    var tip: String?
    var token: String?
    var link: String?

    init(_ record: PreviewRecord, at time: Date) {
        id = record.id
        url = record.url
        createdBy = record.createdBy
        createdAt = Timestamp.format(record.createdAt)
        expiresAt = Timestamp.format(record.expiresAt)
        endedAt = record.endedAt.map(Timestamp.format)
        active = record.isActive(at: time)
        tip = record.edits
    }
}

struct PreviewList: Encodable {
    var previews: [PreviewSummary]
}

struct PreviewEventList: Encodable {
    struct Entry: Encodable {
        var id: String
        var name: String
        var target: String?
        var timestamp: String
        var receivedAt: String
        var properties: [String: ContextValue]?

        init(_ event: PreviewEvent) {
            id = event.id
            name = event.name
            target = event.target
            timestamp = Timestamp.format(Date(millisecondsSince1970: event.timestamp))
            receivedAt = Timestamp.format(Date(millisecondsSince1970: event.receivedAt))
            properties = event.properties.flatMap { try? JSONDecoder().decode([String: ContextValue].self, from: Data($0.utf8)) }
        }
    }

    var events: [Entry]
}
