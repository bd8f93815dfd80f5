import Foundation
import Hummingbird
import WaymarkSupport

extension Request {
    /// The JSON body as `T`, through the context's request decoder; a body that does not decode is
    /// a 400 whose message names what is wrong (a missing or mistyped field, an unknown one, or
    /// JSON that does not parse).
    func decodeBody<T: Decodable>(as type: T.Type, context: WaymarkRequestContext) async throws -> T {
        do {
            return try await context.requestDecoder.decode(type, from: self, context: context)
        } catch let error as DecodingError {
            throw APIError.badRequest(Self.sentence(error))
        }
    }

    /// A decoding error as a sentence for the client.
    static func sentence(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String { codingPath.map(\.stringValue).joined(separator: ".") }
        switch error {
        case .keyNotFound(let key, let context):
            return "the body needs \"\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))\""
        case .typeMismatch(let type, let context):
            return context.codingPath.isEmpty
                ? "the body must be a JSON object" : "\"\(path(context.codingPath))\" must be \(Self.name(of: type))"
        case .valueNotFound(let type, let context):
            return "\"\(path(context.codingPath))\" must be \(Self.name(of: type)), not null"
        case .dataCorrupted(let context):
            // Strict types say which field is unknown or which value is out of range.
            if let reason = context.underlyingError as? FieldError { return reason.message }
            return context.codingPath.isEmpty
                ? "the body is not valid JSON" : "\"\(path(context.codingPath))\" is not valid: \(context.debugDescription)"
        @unknown default:
            return "the body is not valid"
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Int.Type, is Int64.Type: "a whole number"
        case is Bool.Type: "true or false"
        default: "\(type)"
        }
    }
}

/// Why a field of a body is refused, for ``Request/decodeBody(as:context:)``'s message.
struct FieldError: Error {
    var message: String
}

/// A decoding container's keys, whatever they are: to refuse fields a type does not have.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Refuses an object with a field other than `fields`: a client that sends `usr` instead of
    /// `user` learns it at once instead of having it ignored.
    func refuseUnknownFields(_ fields: Set<String>) throws {
        let keys = try container(keyedBy: AnyCodingKey.self).allKeys.map(\.stringValue)
        if let extra = keys.sorted().first(where: { !fields.contains($0) }) {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "unknown field", underlyingError: FieldError(message: "unknown field \"\(extra)\""))
            )
        }
    }
}

extension KeyedDecodingContainer {
    /// The field's value when it is there, nil when it is absent; a `null` is refused as the wrong
    /// type, as the API's description (which has no nullable fields) says.
    func decodeUnlessAbsent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        contains(key) ? try decode(type, forKey: key) : nil
    }
}

extension Request {
    /// The query parameter `name` as an RFC 3339 time in ms since 1970, `value` when it is absent;
    /// a 400 naming it when it is not such a time.
    func timeParameter(_ name: String, default value: Int64) throws -> Int64 {
        guard let text = uri.queryParameters[name[...]] else { return value }
        guard let millis = Timestamp.parse(String(text)) else {
            throw APIError.badRequest("\(name) must be an RFC 3339 time, like 2026-11-01T00:00:00Z")
        }
        return millis
    }
}
