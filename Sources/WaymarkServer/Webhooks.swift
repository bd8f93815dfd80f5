import Crypto
import Foundation
import Hummingbird
import WaymarkAPI
import WaymarkCatalog
import WaymarkStore
import WaymarkSupport

/// The changes an app's backend can hear of through its webhook endpoints.
public enum WebhookType: String, CaseIterable, Sendable {
    /// A credit claim made a new grant (a tour page's or a checklist's).
    case creditGranted = "credit.granted"
    /// A user's device reported a checklist completed (`checklist_completed`).
    case checklistCompleted = "checklist.completed"
    /// A user answered a survey (`survey_answered`).
    case surveyAnswered = "survey.answered"
    /// A new version of the catalog went live.
    case catalogPublished = "catalog.published"
    /// An earlier version of the catalog went live again.
    case catalogRolledBack = "catalog.rolled_back"
    /// Everything about one user was erased.
    case userErased = "user.erased"
    /// The guidance events of an upload (tips shown, tour pages read, help searched...), for the
    /// team's own analytics: only to endpoints that name this type, never to those that take
    /// every type, since every upload may have some.
    case guidanceEvents = "guidance.events"
}

/// What each change tells the app's endpoints: a JSON body with the notice's id (the receiver's
/// key against repeats), its type, when it happened, the app, and `data` of the type's own.
///
/// ```json
/// {"app":"app_…","created":"2026-11-26T09:00:00.000Z","data":{…},"id":"evt_…","type":"credit.granted"}
/// ```
public enum WebhookNotices {
    /// `credit.granted`: the new grant as the grants API shows it, and the user's balance after it.
    public static func creditGranted(_ outcome: ClaimOutcome) -> WebhookNotice {
        notice(
            .creditGranted, app: outcome.grant.app, user: outcome.grant.user, at: outcome.grant.grantedAt,
            data: [("balance", "\(outcome.balance)"), ("grant", String(decoding: jsonData(LedgerGrant(outcome.grant)), as: UTF8.self))])
    }

    /// `catalog.published` or, for a version that publishes an earlier one again,
    /// `catalog.rolled_back` with the version it went back to (`rolledBackTo`).
    public static func published(_ version: CatalogVersion, rolledBackTo: Int? = nil) -> WebhookNotice {
        var data = [("publishedAt", jsonString(Timestamp.format(version.publishedAt))), ("version", "\(version.number)")]
        if let rolledBackTo { data.append(("rolledBackTo", "\(rolledBackTo)")) }
        return notice(
            rolledBackTo == nil ? .catalogPublished : .catalogRolledBack, app: version.app, user: nil, at: version.publishedAt, data: data)
    }

    /// `user.erased`: whom (the app's own id for them, so that its backend erases them too) and
    /// how much went. The notice is the one trace of the user left, until it is pruned.
    public static func userErased(app: String, user: String, erased: UserErasure, at time: Date) -> WebhookNotice {
        notice(
            .userErased, app: app, user: nil, at: time,
            data: [("erased", String(decoding: jsonData(erased), as: UTF8.self)), ("user", jsonString(user))])
    }

    /// `survey.answered` for a stored `survey_answered` event (the survey is its target, the
    /// answer its properties), `checklist.completed` for a `checklist_completed` one; nil for
    /// every other event, which no webhook hears of.
    @Sendable public static func forEvent(_ event: StoredEvent) -> WebhookNotice? {
        let type: WebhookType
        switch event.name {
        case Survey.answerEvent: type = .surveyAnswered
        case DeliveredChecklist.completedEvent: type = .checklistCompleted
        default: return nil
        }
        var data = [("event", jsonString(event.id)), ("time", jsonString(Timestamp.format(Date(millisecondsSince1970: event.timestamp))))]
        data.append(("user", jsonString(event.user)))
        if type == .surveyAnswered {
            data.append(("answer", event.properties ?? "{}"))
            data.append(("survey", event.target.map(jsonString) ?? "null"))
        } else {
            data.append(("checklist", event.target.map(jsonString) ?? "null"))
        }
        return notice(type, app: event.app, user: event.user, at: Date(millisecondsSince1970: event.receivedAt), data: data)
    }

    /// The most events one `guidance.events` notice holds; an upload's more go in several.
    public static let guidanceBatch = 500

    /// `guidance.events`: the guidance events (``WaymarkAPI/IncomingEvent/guidanceNames``) among
    /// `events` of the apps in `apps`, one notice per app and at most ``guidanceBatch`` events,
    /// each as the export writes it: `id`, `user`, `name`, `target`, `time`, `properties`.
    public static func guidance(_ events: [StoredEvent], apps: Set<String>) -> [WebhookNotice] {
        guard !apps.isEmpty else { return [] }
        var byApp: [String: [StoredEvent]] = [:]
        for event in events where apps.contains(event.app) && IncomingEvent.guidanceNames.contains(event.name) {
            byApp[event.app, default: []].append(event)
        }
        return byApp.sorted { $0.key < $1.key }.flatMap { app, events in
            stride(from: 0, to: events.count, by: guidanceBatch).map { start in
                let chunk = events[start..<min(start + guidanceBatch, events.count)]
                let items = chunk.map { event in
                    object([
                        ("id", jsonString(event.id)), ("name", jsonString(event.name)), ("properties", event.properties ?? "{}"),
                        ("target", event.target.map(jsonString) ?? "null"),
                        ("time", jsonString(Timestamp.format(Date(millisecondsSince1970: event.timestamp)))),
                        ("user", jsonString(event.user)),
                    ])
                }
                var notice = notice(
                    .guidanceEvents, app: app, user: nil, at: Date(millisecondsSince1970: chunk.map(\.receivedAt).max() ?? 0),
                    data: [("events", "[" + items.joined(separator: ",") + "]")])
                notice.onlyWhenNamed = true
                return notice
            }
        }
    }

    /// A notice whose `data` has these members, each already JSON; written by hand so that an
    /// event's properties go out exactly as stored.
    static func notice(_ type: WebhookType, app: String, user: String?, at time: Date, data: [(String, String)]) -> WebhookNotice {
        let id = "evt_" + Secrets.randomHex(bytes: 16)
        let members = [
            ("app", jsonString(app)), ("created", jsonString(Timestamp.format(time))), ("data", object(data)), ("id", jsonString(id)),
            ("type", jsonString(type.rawValue)),
        ]
        return WebhookNotice(id: id, app: app, type: type.rawValue, user: user, createdAt: time, body: object(members))
    }

    /// A JSON object of members whose values are JSON already, keys sorted.
    static func object(_ members: [(String, String)]) -> String {
        "{" + members.sorted { $0.0 < $1.0 }.map { jsonString($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }
}

/// How deliveries are signed, as Stripe signs its own: the header `Waymark-Signature:
/// t=UNIX_SECONDS,v1=HEX` where HEX is the HMAC-SHA256, keyed with the endpoint's secret, of the
/// time, a full stop and the body. While a rotation's old secret is still valid the header has a
/// `v1=` for each secret, so a receiver with either accepts it.
public enum WebhookSignature {
    public static let header = "Waymark-Signature"
    /// How far a signature's time may be from the receiver's clock, by default: older deliveries
    /// are refused as replays.
    public static let tolerance: TimeInterval = 300

    /// The header's value for `body` sent at `time`, signed with each of `secrets`.
    public static func sign(_ body: String, secrets: [String], at time: Date) -> String {
        let seconds = Int64(time.timeIntervalSince1970)
        return (["t=\(seconds)"] + secrets.map { "v1=" + mac(body, seconds: seconds, secret: $0) }).joined(separator: ",")
    }

    /// Whether `header` signs `body` with `secret`, at a time within `tolerance` of `now`: what a
    /// receiver checks, comparing in constant time.
    public static func verify(_ header: String, body: String, secret: String, now: Date, tolerance: TimeInterval = tolerance) -> Bool {
        var time: Int64?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { time = Int64(pair[1]) } else if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let time, abs(now.timeIntervalSince1970 - Double(time)) <= tolerance else { return false }
        let expected = mac(body, seconds: time, secret: secret)
        return signatures.contains { Secrets.constantTimeEqual($0, expected) }
    }

    static func mac(_ body: String, seconds: Int64, secret: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data("\(seconds).\(body)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return code.map { String(format: "%02x", $0) }.joined()
    }
}

/// Managing an app's endpoints, for the admin API and the console alike.
public enum WebhookEndpoints {
    /// The most endpoints one app may have.
    public static let limit = 10
    /// How long a rotated-out secret keeps signing, unless the rotation says otherwise.
    public static let defaultOverlapHours = 24
    /// The longest a rotated-out secret may keep signing: a week.
    public static let maximumOverlapHours = 168

    /// Why `url` cannot be an endpoint, if it cannot: a 422 naming the field `url` unless it is an
    /// ``EndpointURL``; unless `privateNetworks` allows it, a 403 when it is on this machine or a
    /// private network (named by their addresses or as `localhost`), so that an app's members
    /// cannot make the server call into the network it runs in.
    public static func problem(url text: String, privateNetworks: Bool) -> APIError? {
        let url: EndpointURL
        do {
            url = try EndpointURL.parse(text)
        } catch {
            return APIError.invalidField("url", error.message)
        }
        if !privateNetworks && isPrivate(host: url.host) {
            return APIError(
                .forbidden, .endpointNotAllowed,
                "the endpoint is on this machine or a private network; the server calls only public addresses")
        }
        return nil
    }

    /// Whether `host` (as ``EndpointURL`` reads it) names this machine, a private, shared,
    /// link-local or benchmarking network, or multicast and reserved addresses.
    static func isPrivate(host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host.hasSuffix(".localhost") || host.hasSuffix(".local") || host.hasSuffix(".internal") { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false).compactMap { UInt8($0) }
        guard octets.count == 4 else { return false }
        switch (octets[0], octets[1]) {
        case (10, _), (127, _), (0, _), (169, 254), (192, 168), (224...255, _): return true
        case (172, let second): return (16...31).contains(second)
        case (100, let second): return (64...127).contains(second)
        case (198, let second): return (18...19).contains(second)
        default: return false
        }
    }

    /// A new endpoint with a new secret (`whsec_` and 64 hex digits), audited; the answer is the
    /// one place the secret is shown.
    public static func create(
        app: String, url: String, types: [WebhookType], privateNetworks: Bool, actor: AuditEntry.Actor, at time: Date, in store: any Store
    ) async throws -> WebhookEndpoint {
        if let problem = problem(url: url, privateNetworks: privateNetworks) { throw problem }
        let endpoint = WebhookEndpoint(
            id: "whe_" + Secrets.randomHex(bytes: 8), app: app, url: url, types: types.map(\.rawValue), secret: newSecret(), createdAt: time
        )
        let created = try await store.createWebhookEndpoint(
            endpoint, limit: limit,
            audit: AuditEntry(
                app: app, actor: actor, at: time, action: .webhookCreate, object: "webhook \(endpoint.id)", before: nil,
                after: "\(url) (\(types.isEmpty ? "every type" : endpoint.types.joined(separator: ", ")))"))
        guard created else {
            throw APIError(.conflict, .tooManyWebhooks, "an app has at most \(limit) webhook endpoints: remove one first")
        }
        return endpoint
    }

    /// Gives the endpoint a new secret; the old one signs beside it for `overlapHours` more
    /// (0: not at all). Nil when the app has no such endpoint.
    public static func rotate(
        app: String, endpoint: String, overlapHours: Int, actor: AuditEntry.Actor, at time: Date, in store: any Store
    ) async throws -> WebhookEndpoint? {
        guard (0...maximumOverlapHours).contains(overlapHours) else {
            throw APIError.badRequest("the old secret may stay valid from 0 to \(maximumOverlapHours) hours")
        }
        return try await store.rotateWebhookSecret(
            app: app, endpoint: endpoint, secret: newSecret(), previousUntil: time.addingTimeInterval(Double(overlapHours) * 3600),
            audit: AuditEntry(
                app: app, actor: actor, at: time, action: .webhookRotate, object: "webhook \(endpoint)", before: nil,
                after: "old secret valid for \(overlapHours) h"))
    }

    /// Removes the endpoint and its deliveries, audited; false when the app has no such endpoint.
    public static func delete(app: String, endpoint: String, actor: AuditEntry.Actor, at time: Date, in store: any Store) async throws
        -> Bool
    {
        try await store.deleteWebhookEndpoint(
            app: app, endpoint: endpoint,
            audit: AuditEntry(
                app: app, actor: actor, at: time, action: .webhookDelete, object: "webhook \(endpoint)", before: nil, after: nil))
    }

    static func newSecret() -> String { "whsec_" + Secrets.randomHex(bytes: 32) }
}

extension WaymarkServer {
    func listWebhooks(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        return jsonResponse(try await store.webhookEndpoints(app: key.app).map { WebhookSummary($0, at: now()) })
    }

    /// `{"url": "https://…", "types": ["credit.granted"]}` (no types: every type): a new endpoint
    /// with its secret, shown in this answer only.
    func createWebhook(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let body = try await request.decodeBody(as: NewWebhookBody.self, context: context)
        let endpoint = try await WebhookEndpoints.create(
            app: key.app, url: body.url, types: body.types, privateNetworks: webhooksToPrivateNetworks, actor: .key(key.id), at: now(),
            in: store)
        return jsonResponse(WebhookSummary(endpoint, at: now(), showingSecret: true), status: .created)
    }

    /// `{"previousValidHours": 24}`: a new secret, shown in this answer only; the old one keeps
    /// signing beside it for that long.
    func rotateWebhook(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let body = try await request.decodeBody(as: RotationBody.self, context: context)
        guard
            let endpoint = try await WebhookEndpoints.rotate(
                app: key.app, endpoint: context.parameters.get("id") ?? "", overlapHours: body.previousValidHours, actor: .key(key.id),
                at: now(), in: store)
        else { throw APIError.notFound }
        return jsonResponse(WebhookSummary(endpoint, at: now(), showingSecret: true))
    }

    func deleteWebhook(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        guard
            try await WebhookEndpoints.delete(
                app: key.app, endpoint: context.parameters.get("id") ?? "", actor: .key(key.id), at: now(), in: store)
        else { throw APIError.notFound }
        return Response(status: .noContent)
    }

    /// The app's latest deliveries (`?endpoint=` one endpoint's, `?limit=` 1 to 500, 100 unless
    /// said), newest first, with the last answer of each.
    func webhookDeliveries(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let query = request.uri.queryParameters
        let limit = try query.get("limit").map { text in
            guard let limit = Int(text), (1...500).contains(limit) else {
                throw APIError.badRequest("limit is a whole number from 1 to 500")
            }
            return limit
        }
        let deliveries = try await store.webhookDeliveries(
            app: key.app, endpoint: query.get("endpoint").map { String($0) }, limit: limit ?? 100)
        return jsonResponse(deliveries.map { DeliverySummary($0) })
    }

    /// Sends one delivery again, soon, whatever became of it: 202, or 404.
    func resendWebhook(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let (endpoint, event) = (context.parameters.get("id") ?? "", context.parameters.get("event") ?? "")
        guard try await store.redeliverWebhook(app: key.app, event: event, endpoint: endpoint, now: now()) else { throw APIError.notFound }
        return Response(status: .accepted)
    }
}

/// An endpoint as the admin API shows it; `secret` only in the answer that made or rotated it.
struct WebhookSummary: Codable {
    var id: String
    var url: String
    /// The types it takes; empty: every type but `guidance.events`.
    var types: [String]
    var createdAt: String
    /// Until when a rotated-out secret still signs beside the current one.
    var previousSecretValidUntil: String?
    var secret: String?

    init(_ endpoint: WebhookEndpoint, at time: Date, showingSecret: Bool = false) {
        id = endpoint.id
        url = endpoint.url
        types = endpoint.types
        createdAt = Timestamp.format(endpoint.createdAt)
        previousSecretValidUntil = endpoint.previousValid(at: time).map(Timestamp.format)
        secret = showingSecret ? endpoint.secret : nil
    }
}

/// A delivery as the admin API lists it.
struct DeliverySummary: Codable {
    var event: String
    var endpoint: String
    var type: String
    var createdAt: String
    /// `pending`, `delivered` or `failed`.
    var state: String
    var attempts: Int
    /// When it is tried next, while pending.
    var nextAttemptAt: String?
    var lastAttemptAt: String?
    var lastStatus: Int?
    var lastAnswer: String?
    var lastError: String?

    init(_ delivery: WebhookDelivery) {
        event = delivery.event
        endpoint = delivery.endpoint
        type = delivery.type
        createdAt = Timestamp.format(delivery.createdAt)
        state = delivery.state.rawValue
        attempts = delivery.attempts
        nextAttemptAt = delivery.state == .pending ? Timestamp.format(delivery.nextAttemptAt) : nil
        lastAttemptAt = delivery.lastAttemptAt.map(Timestamp.format)
        lastStatus = delivery.lastStatus
        lastAnswer = delivery.lastAnswer
        lastError = delivery.lastError
    }
}

/// `POST /v1/admin/webhooks`.
struct NewWebhookBody: Decodable {
    var url: String
    var types: [WebhookType]

    private enum CodingKeys: String, CodingKey { case url, types }

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(["url", "types"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decode(String.self, forKey: .url)
        // Present means a list: null is refused, not taken for none.
        let names = container.contains(.types) ? try container.decode([String].self, forKey: .types) : []
        types = try names.map { name in
            guard let type = WebhookType(rawValue: name) else {
                let known = WebhookType.allCases.map(\.rawValue).joined(separator: ", ")
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: [CodingKeys.types], debugDescription: "types",
                        underlyingError: FieldError(message: "\"types\" holds \(known), not \"\(name)\"")))
            }
            return type
        }
    }
}

/// `POST /v1/admin/webhooks/{id}/rotate`.
struct RotationBody: Decodable {
    var previousValidHours: Int

    private enum CodingKeys: String, CodingKey { case previousValidHours }

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(["previousValidHours"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        previousValidHours =
            container.contains(.previousValidHours)
            ? try container.decode(Int.self, forKey: .previousValidHours) : WebhookEndpoints.defaultOverlapHours
    }
}
