import Foundation
import Hummingbird
import HummingbirdAuth
import WaymarkStore
import WaymarkSupport

extension WaymarkRequestContext {
    /// The key this request was authenticated with. Every route that needs one sits behind a
    /// ``KeyAuthenticator``, which refuses the request (401) before the handler without a key.
    public func key() throws -> KeyRecord {
        guard let identity else { throw APIError.unauthorized }
        return identity
    }

    /// The key, for a route a draft preview has no part in (credits, identity, progress): a
    /// preview's token is refused (403 `in_preview`).
    public func appKey() throws -> KeyRecord {
        let key = try key()
        guard key.kind != .preview else {
            throw APIError(
                .forbidden, .inPreview, "a preview of the draft shows guidance only: it keeps no credits, attributes or progress")
        }
        return key
    }

    /// The `:user` of the path, percent-decoded (`u%2F1` is `u/1`): 1 to 256 bytes without NUL,
    /// as events name users (400 otherwise).
    public func userParameter() throws -> String {
        guard let user = parameters.get("user")?.removingPercentEncoding, (1...256).contains(user.utf8.count), !user.utf8.contains(0)
        else {
            throw APIError.badRequest("the user in the path must be text of 1 to 256 bytes, without NUL, percent-encoded")
        }
        return user
    }
}

/// Authenticates the routes of a group by their `Authorization: Bearer KEY`: the key must be
/// valid, not revoked, and of a kind the group allows, or the request is answered 401 before any
/// handler runs. A request then costs no database read for its key while it is cached
/// (``KeyCache``).
struct KeyAuthenticator: AuthenticatorMiddleware {
    typealias Context = WaymarkRequestContext
    let server: WaymarkServer
    let kinds: Set<KeyRecord.Kind>

    func authenticate(request: Request, context: Context) async throws -> KeyRecord? {
        guard let key = Self.presentedKey(request.headers) else { throw APIError.unauthorized }
        if key.hasPrefix(Previews.tokenPrefix) {
            // A preview's token is read each time, never cached: ending it takes effect at once.
            guard kinds.contains(.client), let preview = try await server.store.preview(hash: Secrets.hash(key)) else {
                throw APIError.unauthorized
            }
            return preview.asKey(at: server.now())
        }
        let record: KeyRecord?
        if let cached = server.keys.get(key) {
            record = cached
        } else {
            record = try await server.store.key(hash: Secrets.hash(key))
            if let record { server.keys.put(key, record) }
        }
        guard let record, record.revokedAt == nil, kinds.contains(record.kind) else { throw APIError.unauthorized }
        return record
    }

    /// The bearer token, without the blanks around it; nil when there is none or it is longer than
    /// any key (200 bytes), which is then not even hashed.
    static func presentedKey(_ headers: HTTPFields) -> String? {
        guard let bearer = headers.bearer else { return nil }
        let token = bearer.token.withoutBlanks
        guard !token.isEmpty, token.utf8.count <= 200 else { return nil }
        return String(token)
    }
}
