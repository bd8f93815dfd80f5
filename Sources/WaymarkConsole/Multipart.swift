import Foundation
import Hummingbird
import MultipartKit

/// A `multipart/form-data` submission (a form with a file), read whole up to a limit by
/// MultipartKit: its text fields as a ``Form``, its files by field name.
struct MultipartForm: Sendable {
    struct File: Sendable {
        var filename: String
        var bytes: [UInt8]
    }

    var form: Form
    var files: [String: File]

    /// Reads the request's body; `limit` bounds the whole submission.
    static func read(_ request: Request, limit: Int) async throws -> MultipartForm {
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data"),
            let boundary = parameter("boundary", in: type), !boundary.isEmpty, boundary.utf8.count <= 70
        else { throw ConsoleError.badRequest("The form must be sent as multipart/form-data.") }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch {
            throw ConsoleError(status: .contentTooLarge, message: "The upload is larger than \(limit >> 20) MB.")
        }
        guard let parsed = parse(buffer, boundary: boundary) else {
            throw ConsoleError.badRequest("The upload is not a well-formed multipart form.")
        }
        return parsed
    }

    /// A parameter of a header value: `boundary` of `multipart/form-data; boundary="x"`.
    static func parameter(_ name: String, in header: String) -> String? {
        for part in header.split(separator: ";").dropFirst() {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == name else { continue }
            var value = pair[1]
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    /// The form's parts, read by MultipartKit's parser; nil when the body is not a well-formed
    /// multipart form or a text field is not UTF-8.
    static func parse(_ body: ByteBuffer, boundary: String) -> MultipartForm? {
        var parts: [MultipartPart] = []
        var headers = HTTPHeaders()
        var content = ByteBuffer()
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in headers.add(name: name, value: value) }
        parser.onBody = { chunk in content.writeBuffer(&chunk) }
        parser.onPartComplete = {
            parts.append(MultipartPart(headers: headers, body: content))
            headers = HTTPHeaders()
            content = ByteBuffer()
        }
        // The parser reads what arrived; an upload cut short has no closing delimiter.
        guard body.readableBytesView.firstRange(of: Array("--\(boundary)--".utf8)) != nil else { return nil }
        do { try parser.execute(body) } catch { return nil }
        var fields: [String: String] = [:]
        var files: [String: File] = [:]
        for part in parts {
            guard let name = part.name else { continue }
            let disposition = part.headers.first(name: "Content-Disposition") ?? ""
            if let filename = parameter("filename", in: disposition) {
                files[name] = File(filename: filename, bytes: Array(part.body.readableBytesView))
            } else if let text = String(validating: part.body.readableBytesView, as: UTF8.self) {
                fields[name] = text
            } else {
                return nil
            }
        }
        return MultipartForm(form: Form(fields: fields), files: files)
    }
}
