import Foundation
import Hummingbird

/// A `multipart/form-data` submission (a form with a file), read whole up to a limit: its text
/// fields as a ``Form``, its files by field name.
///
/// Read by this small parser rather than MultipartKit's: on a 4.4 MB recording it takes 2.3 ms
/// where MultipartKit's parser took 10 to 14 ms (release builds), and 0.02 s against 2.6 s in the
/// debug builds the tests run (docs/performance.md).
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
        guard let parsed = parse(Array(buffer.readableBytesView), boundary: boundary) else {
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

    /// The form's parts; nil when the body is not a well-formed multipart form (no closing
    /// delimiter: an upload cut short) or a text field is not UTF-8.
    static func parse(_ body: [UInt8], boundary: String) -> MultipartForm? {
        let delimiter = Array("--\(boundary)".utf8)
        let crlf: [UInt8] = [13, 10]
        var fields: [String: String] = [:]
        var files: [String: File] = [:]
        guard var position = find(delimiter, in: body, from: 0) else { return nil }
        while true {
            position += delimiter.count
            // `--` after a delimiter closes the form.
            if body.count >= position + 2, body[position] == 45, body[position + 1] == 45 { break }
            guard body.count >= position + 2, Array(body[position..<position + 2]) == crlf else { return nil }
            position += 2
            guard let headersEnd = find(crlf + crlf, in: body, from: position) else { return nil }
            let headers = String(decoding: body[position..<headersEnd], as: UTF8.self)
            let contentStart = headersEnd + 4
            guard let next = find(crlf + delimiter, in: body, from: contentStart) else { return nil }
            let content = Array(body[contentStart..<next])
            var name: String?
            var filename: String?
            for line in headers.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
                let value = String(line.dropFirst("content-disposition:".count))
                name = parameter("name", in: value)
                filename = parameter("filename", in: value)
            }
            if let name {
                if let filename {
                    files[name] = File(filename: filename, bytes: content)
                } else if let text = String(validating: content, as: UTF8.self) {
                    fields[name] = text
                } else {
                    return nil
                }
            }
            position = next + 2
        }
        return MultipartForm(form: Form(fields: fields), files: files)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        let first = needle[0]
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
