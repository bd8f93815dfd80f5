import Foundation
import Hummingbird
import WaymarkAPI

/// An error answer: a status and `{"error": {"code", "message", "diagnostics"?}}`.
public struct APIError: HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    public var diagnostics: [String]?

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, diagnostics: [String]? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.diagnostics = diagnostics
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = APIErrorBody(code: code, message: message, diagnostics: diagnostics)
        return jsonResponse(body, status: status)
    }

    static let unauthorized = APIError(.unauthorized, "unauthorized", "a valid key is needed: Authorization: Bearer KEY")
    static let notFound = APIError(.notFound, "not_found", "no such object")
    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, "bad_request", message) }
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
