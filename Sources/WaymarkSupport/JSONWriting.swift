import Foundation

/// `text` as a JSON string literal: quotes, backslashes and control characters escaped, and the
/// line and paragraph separators too, so the text is also safe inside a script. For JSON written
/// by hand (replay output); event answers and stored properties append with ``appendJSONString(_:to:)``.
public func jsonString(_ text: String) -> String {
    var output: [UInt8] = []
    output.reserveCapacity(text.utf8.count + 2)
    appendJSONString(text, to: &output)
    return String(decoding: output, as: UTF8.self)
}

/// Appends `text` as a JSON string literal (escaped as ``jsonString(_:)`` escapes it) to UTF-8 `output`.
public func appendJSONString(_ text: String, to output: inout [UInt8]) {
    var text = text
    text.withUTF8 { appendJSONString($0, to: &output) }
}

/// A byte that may need an escape: ASCII controls, `"`, `\`, and the lead byte of U+2028 and U+2029.
private func needsJSONEscape(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0xE2
}

private func appendJSONString(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
    output.append(UInt8(ascii: "\""))
    var start = 0
    var index = 0
    while index < bytes.count {
        let byte = bytes[index]
        guard needsJSONEscape(byte) else {
            index += 1
            continue
        }
        let escape: String
        var length = 1
        switch byte {
        case UInt8(ascii: "\""): escape = "\\\""
        case UInt8(ascii: "\\"): escape = "\\\\"
        case UInt8(ascii: "\n"): escape = "\\n"
        case UInt8(ascii: "\r"): escape = "\\r"
        case UInt8(ascii: "\t"): escape = "\\t"
        case 0xE2:
            // U+2028 and U+2029 are E2 80 A8 and E2 80 A9; other characters with this lead byte stay.
            guard index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 else {
                index += 1
                continue
            }
            escape = bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029"
            length = 3
        default:
            let hex = String(byte, radix: 16)
            escape = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        output.append(contentsOf: escape.utf8)
        index += length
        start = index
    }
    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
    output.append(UInt8(ascii: "\""))
}

/// An object of strings as JSON text, keys sorted: how the server stores each event's properties,
/// written by hand where an encoder would cost too much per request.
public func jsonText(_ values: [String: String]) -> String {
    jsonText(values.map { JSONMember(key: $0.key, value: $0.value) }.sorted { $0.key < $1.key })
}

/// One member of a JSON object of scalars, as an event's properties are: text, numbers and flags.
public struct JSONMember: Hashable, Sendable {
    /// A member's value.
    public enum Value: Hashable, Sendable {
        /// A string.
        case text(String)
        /// A number, as the JSON text that wrote it (`799`, `-0.5`, `1e3`), so that it is stored
        /// exactly as sent.
        case number(String)
        /// `true` or `false`.
        case bool(Bool)
    }

    /// The member's name.
    public var key: String
    /// The member's value.
    public var value: Value

    /// A member named `key` whose value is `value`.
    public init(key: String, value: Value) {
        self.key = key
        self.value = value
    }

    /// A member named `key` whose value is the string `value`.
    public init(key: String, value: String) {
        self.init(key: key, value: .text(value))
    }

    /// The value when it is a string.
    public var text: String? {
        if case .text(let text) = value { return text }
        return nil
    }
}

/// An object of scalars as JSON text, its members in the order given (the event reader keeps
/// them sorted by key, as ``jsonText(_:)-([String:String])`` writes them).
public func jsonText(_ members: [JSONMember]) -> String {
    var output: [UInt8] = [UInt8(ascii: "{")]
    output.reserveCapacity(members.count * 32 + 2)
    for (position, member) in members.enumerated() {
        if position > 0 { output.append(UInt8(ascii: ",")) }
        appendJSONString(member.key, to: &output)
        output.append(UInt8(ascii: ":"))
        switch member.value {
        case .text(let text): appendJSONString(text, to: &output)
        case .number(let literal): output.append(contentsOf: literal.utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        }
    }
    output.append(UInt8(ascii: "}"))
    return String(decoding: output, as: UTF8.self)
}

/// `text` as one RFC 4180 CSV field: quoted when it holds a comma, a quote or a line break. Text a
/// spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab or carriage return first, and no
/// number) is prefixed with `'`: names and properties come from clients.
public func csvField(_ text: String) -> String {
    var text = text
    if let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first), Double(text) == nil { text = "'" + text }
    guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
    return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
