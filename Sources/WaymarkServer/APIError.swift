import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat
import WaymarkAPI

/// An error answer: a status and `{"error": {"code", "message", "diagnostics"?}}`.
public struct APIError: HTTPResponseError, Sendable {
    /// What went wrong, for programs: the `code` of the answer. New codes may be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String {
            case badRequest = "bad_request"
            case unauthorized
            case badUserHash = "bad_user_hash"
            case notFound = "not_found"
            case notPublished = "not_published"
            case noDraft = "no_draft"
            case noReward = "no_reward"
            case notRead = "not_read"
            case readTooQuickly = "read_too_quickly"
            case methodNotAllowed = "method_not_allowed"
            case draftBusy = "draft_busy"
            case draftChanged = "draft_changed"
            case tooManyEvents = "too_many_events"
            case tooManyAttributes = "too_many_attributes"
            case tooMuchProgress = "too_much_progress"
            case tooManyWebhooks = "too_many_webhooks"
            case endpointNotAllowed = "endpoint_not_allowed"
            case invalidCatalog = "invalid_catalog"
            case invalidField = "invalid_field"
            case bodyTooLarge = "body_too_large"
            case idMismatch = "id_mismatch"
            case storageUnavailable = "storage_unavailable"
            case inPreview = "in_preview"
            case notPaired = "not_paired"
            case notBuilder = "not_builder"
            case previewEnded = "preview_ended"
            case `internal`
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }
        public var description: String { base.rawValue }

        /// The body or a parameter is malformed (400).
        public static let badRequest = Code(.badRequest)
        /// No key, or an unknown, revoked or wrong kind of key (401).
        public static let unauthorized = Code(.unauthorized)
        /// The identity proof does not prove the user (403).
        public static let badUserHash = Code(.badUserHash)
        /// No such object for this key's app (404).
        public static let notFound = Code(.notFound)
        /// The app has no live catalog yet (404).
        public static let notPublished = Code(.notPublished)
        /// The app has no draft (404, or 409 when publishing).
        public static let noDraft = Code(.noDraft)
        /// The tour page has no reward in the live catalog (404).
        public static let noReward = Code(.noReward)
        /// A page's credit was claimed before the server had the user's `page_read_to_bottom` of
        /// it (409): send the event, then claim again.
        public static let notRead = Code(.notRead)
        /// The user's page events show less than the page's minimum reading time (403).
        public static let readTooQuickly = Code(.readTooQuickly)
        /// The path has no route for this method (405, with `Allow`).
        public static let methodNotAllowed = Code(.methodNotAllowed)
        /// The draft kept changing while a change was saved (409).
        public static let draftBusy = Code(.draftBusy)
        /// The draft changed since the revision the client named (412).
        public static let draftChanged = Code(.draftChanged)
        /// A batch holds more events than one request may, as `maxItems` in the OpenAPI document
        /// says (400).
        public static let tooManyEvents = Code(.tooManyEvents)
        /// The user would have more attributes than one may (422).
        public static let tooManyAttributes = Code(.tooManyAttributes)
        /// The user's progress would name more tips and tours than the server keeps (422).
        public static let tooMuchProgress = Code(.tooMuchProgress)
        /// The app has as many webhook endpoints as one may (409).
        public static let tooManyWebhooks = Code(.tooManyWebhooks)
        /// A webhook endpoint on this machine or a private network, which this server does not
        /// call (403).
        public static let endpointNotAllowed = Code(.endpointNotAllowed)
        /// The catalog has errors, each in `diagnostics` (422).
        public static let invalidCatalog = Code(.invalidCatalog)
        /// A field of the body has the right type but a value the server cannot take; `field` names
        /// it (422).
        public static let invalidField = Code(.invalidField)
        /// The body is larger than the route takes (413); the server closes the connection after
        /// the answer.
        public static let bodyTooLarge = Code(.bodyTooLarge)
        /// The body's id is not the path's (422).
        public static let idMismatch = Code(.idMismatch)
        /// A draft preview's token asked for what only the app's own users do: a credit, an
        /// identify, progress (403).
        public static let inPreview = Code(.inPreview)
        /// A capture sent with the app's own key, or with an ended preview's: captures come only
        /// from a device paired with the console (403).
        public static let notPaired = Code(.notPaired)
        /// A draft change from a page was made with a key that is not a page builder's (403).
        public static let notBuilder = Code(.notBuilder)
        /// The page builder expired or was ended (403).
        public static let previewEnded = Code(.previewEnded)
        /// The database failed; nothing was stored (503).
        public static let storageUnavailable = Code(.storageUnavailable)
        /// The server failed; nothing was stored (500).
        public static let `internal` = Code(.internal)
    }

    public var status: HTTPResponse.Status
    public var code: Code
    public var message: String
    public var diagnostics: [String]?
    /// The body's field the error is about, when it is about one.
    public var field: String?
    /// Headers the answer carries besides its type (`Allow` on a 405).
    public var headers: HTTPFields

    public init(
        _ status: HTTPResponse.Status, _ code: Code, _ message: String, diagnostics: [String]? = nil, field: String? = nil,
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.diagnostics = diagnostics
        self.field = field
        self.headers = headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = APIErrorBody(code: code.description, message: message, diagnostics: diagnostics, field: field)
        return jsonResponse(body, status: status, headers: headers)
    }

    static let unauthorized = APIError(.unauthorized, .unauthorized, "a valid key is needed: Authorization: Bearer KEY")
    static let notFound = APIError(.notFound, .notFound, "no such object")
    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, .badRequest, message) }
    /// A 422 about one field of the body: `field` is its name, `message` why its value is refused.
    static func invalidField(_ field: String, _ message: String) -> APIError {
        APIError(.unprocessableContent, .invalidField, "\(field): \(message)", field: field)
    }
}

let jsonEncoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
}()

func jsonData(_ value: some Encodable) -> Data {
    // Our wire types only hold strings, numbers and rules, which always encode.
    (try? jsonEncoder.encode(value)) ?? Data("{}".utf8)
}

func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
    var headers = headers
    headers[.contentType] = "application/json; charset=utf-8"
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: jsonData(value))))
}

/// A 400 unless the body is UTF-8.
func requireUTF8(_ data: Data) throws {
    guard String(data: data, encoding: .utf8) != nil else { throw APIError.badRequest("the body is not UTF-8") }
}

/// A JSON object from a body, or a 400 that says what is wrong.
func jsonObject(_ data: Data) throws -> [String: Any] {
    try requireUTF8(data)
    let value: Any
    do {
        value = try JSONSerialization.jsonObject(with: data)
    } catch {
        throw APIError.badRequest("the body is not valid JSON")
    }
    guard let object = value as? [String: Any] else { throw APIError.badRequest("the body must be a JSON object") }
    return object
}
