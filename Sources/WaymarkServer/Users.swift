import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import WaymarkAPI
import WaymarkDelivery
import WaymarkRules
import WaymarkStore
import WaymarkSupport

extension HTTPField.Name {
    /// The identity proof of the catalog's `user` (``IdentifyRequest/userHash``): with it, targeting
    /// reads the user's attributes.
    static let waymarkUserHash = Self("Waymark-User-Hash")!
}

extension WaymarkServer {
    /// `POST /v1/identify`: sets attributes on a user proven by `userHash`, and answers with all
    /// of theirs. The proof is checked first: a caller who cannot prove the user learns nothing,
    /// not even which of their attributes would be refused.
    func identify(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        _ = try context.appKey()  // a preview keeps no user data: refused before its body is read
        let body = try await request.decodeBody(as: IdentifyBody.self, context: context)
        let app = try await provenApp(context, user: body.user, userHash: body.userHash)
        guard body.attributes.count <= AttributeLimits.count else {
            throw APIError.badRequest("at most \(AttributeLimits.count) attributes at once, not \(body.attributes.count)")
        }
        var changes: [String: ContextValue?] = [:]
        var problems: [String] = []
        for (name, attribute) in body.attributes.sorted(by: { $0.key < $1.key }) {
            switch attribute {
            case .value(let value):
                if let problem = AttributeLimits.problem(name: name, value: value) { problems.append(problem) }
                changes[name] = value
            case .invalid(let reason):
                problems.append("attribute \"\(name.prefix(80))\": \(reason)")
            }
        }
        if let first = problems.first {
            throw APIError(.badRequest, .badRequest, first, diagnostics: problems)
        }
        guard
            let attributes = try await store.updateAttributes(
                app: app.id, user: body.user, changes, at: now(), limit: AttributeLimits.count)
        else {
            throw APIError(
                .unprocessableContent, .tooManyAttributes,
                "a user has at most \(AttributeLimits.count) attributes: remove some (set them to null) to set others"
            )
        }
        metrics.identifies.increment()
        return jsonResponse(
            IdentifiedUser(
                user: body.user,
                attributes: attributes.map {
                    IdentifiedUser.Attribute(name: $0.name, value: $0.value, changedAt: Timestamp.format($0.changedAt))
                }
            )
        )
    }

    /// The app of the request's key, once `userHash` proves `user` (403 otherwise) and `user` is
    /// 1 to 256 bytes without NUL (400). The proof comes before anything else of the body is
    /// judged: a caller who cannot prove the user learns nothing of theirs.
    func provenApp(_ context: WaymarkRequestContext, user: String, userHash: String) async throws -> AppRecord {
        let app = try await app(of: try context.appKey())
        guard Secrets.verify(userHash: userHash, user: user, identitySecret: app.identitySecret) else {
            throw APIError(.forbidden, .badUserHash, "userHash is not the HMAC-SHA256 of user with this app's identity secret")
        }
        guard (1...256).contains(user.utf8.count), !user.utf8.contains(0) else {
            throw APIError.badRequest("user must be text of 1 to 256 bytes, without NUL")
        }
        return app
    }

    /// What targeting may read of the catalog's user: their attributes and the segments they are
    /// in, when the live catalog's targeting reads any and the request proves the user
    /// (`Waymark-User-Hash`); nothing otherwise. A proof that does not prove the user is refused
    /// rather than ignored, so that an app's mistake shows.
    func identity(of client: inout ClientContext, _ request: Request, key: KeyRecord, catalog: Resolver) async throws {
        guard catalog.readsAttributes || catalog.readsSegments, let user = client.user, let hash = request.headers[.waymarkUserHash]
        else { return }
        let app = try await app(of: key)
        guard Secrets.verify(userHash: hash, user: user, identitySecret: app.identitySecret) else {
            throw APIError(.forbidden, .badUserHash, "Waymark-User-Hash is not the HMAC-SHA256 of user with this app's identity secret")
        }
        if catalog.readsAttributes {
            let attributes = try await store.attributes(app: app.id, user: user)
            client.attributes = Dictionary(attributes.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
        }
        if catalog.readsSegments {
            let members = catalog.readsSegmentMembers ? try await store.segments(app: app.id, user: user) : []
            client.segments = catalog.segments(for: client, members: members)
        }
    }
}

/// `POST /v1/identify`: an ``IdentifyRequest`` and nothing else. An attribute's value that does
/// not read is kept as the reason, to be reported once the proof has been checked.
struct IdentifyBody: Decodable {
    enum Attribute: Decodable {
        case value(ContextValue?)
        case invalid(String)

        init(from decoder: any Decoder) throws {
            if try decoder.singleValueContainer().decodeNil() {
                self = .value(nil)
                return
            }
            do {
                self = .value(try ContextValue(from: decoder))
            } catch let error as DecodingError {
                switch error {
                case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
                    .keyNotFound(_, let context):
                    self = .invalid(context.debugDescription)
                @unknown default:
                    self = .invalid("not a value an attribute can have")
                }
            }
        }
    }

    var user: String
    var userHash: String
    var attributes: [String: Attribute]

    private enum CodingKeys: String, CodingKey { case user, userHash, attributes }

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(["user", "userHash", "attributes"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        user = try container.decode(String.self, forKey: .user)
        userHash = try container.decode(String.self, forKey: .userHash)
        attributes = try container.decode([String: Attribute].self, forKey: .attributes)
    }
}
