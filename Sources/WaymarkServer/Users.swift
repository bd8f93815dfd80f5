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
    /// of theirs.
    func identify(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let identify = try await request.decodeBody(as: IdentifyBody.self, context: context).identify
        guard (1...256).contains(identify.user.utf8.count), !identify.user.utf8.contains(0) else {
            throw APIError.badRequest("user must be text of 1 to 256 bytes, without NUL")
        }
        let app = try await app(of: key)
        guard Secrets.verify(userHash: identify.userHash, user: identify.user, identitySecret: app.identitySecret) else {
            throw APIError(.forbidden, .badUserHash, "userHash is not the HMAC-SHA256 of user with this app's identity secret")
        }
        guard identify.attributes.count <= AttributeLimits.count else {
            throw APIError.badRequest("at most \(AttributeLimits.count) attributes at once, not \(identify.attributes.count)")
        }
        let problems = identify.attributes.sorted { $0.key < $1.key }.compactMap { AttributeLimits.problem(name: $0.key, value: $0.value) }
        if let first = problems.first {
            throw APIError(.badRequest, .badRequest, first, diagnostics: problems)
        }
        guard
            let attributes = try await store.updateAttributes(
                app: app.id, user: identify.user, identify.attributes, at: now(), limit: AttributeLimits.count)
        else {
            throw APIError(
                .unprocessableContent, .tooManyAttributes,
                "a user has at most \(AttributeLimits.count) attributes: remove some (set them to null) to set others"
            )
        }
        metrics.identifies.increment()
        return jsonResponse(
            IdentifiedUser(
                user: identify.user,
                attributes: attributes.map {
                    IdentifiedUser.Attribute(name: $0.name, value: $0.value, changedAt: Timestamp.format($0.changedAt))
                }
            )
        )
    }

    /// The attributes targeting may read for the catalog's user: none unless the live catalog's
    /// targeting reads some and the request proves the user (`Waymark-User-Hash`). A proof that
    /// does not prove the user is refused rather than ignored, so that an app's mistake shows.
    func attributes(for client: ClientContext, _ request: Request, key: KeyRecord, catalog: Resolver) async throws -> [String: ContextValue]
    {
        guard catalog.readsAttributes, let user = client.user, let hash = request.headers[.waymarkUserHash] else { return [:] }
        let app = try await app(of: key)
        guard Secrets.verify(userHash: hash, user: user, identitySecret: app.identitySecret) else {
            throw APIError(.forbidden, .badUserHash, "Waymark-User-Hash is not the HMAC-SHA256 of user with this app's identity secret")
        }
        return Dictionary(try await store.attributes(app: app.id, user: user).map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
    }
}

/// `POST /v1/identify`: an ``IdentifyRequest`` and nothing else.
struct IdentifyBody: Decodable {
    var identify: IdentifyRequest

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(["user", "userHash", "attributes"])
        identify = try IdentifyRequest(from: decoder)
    }
}
