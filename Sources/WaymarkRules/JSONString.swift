/// `text` as a JSON string literal: quotes, backslashes and control characters escaped, and the
/// line and paragraph separators too, so the text is also safe inside a script. Used wherever
/// JSON is written by hand (replay output, event answers).
public func jsonString(_ text: String) -> String {
    var output = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": output += "\\\""
        case "\\": output += "\\\\"
        case "\n": output += "\\n"
        case "\r": output += "\\r"
        case "\t": output += "\\t"
        case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
            let hex = String(scalar.value, radix: 16)
            output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: output.unicodeScalars.append(scalar)
        }
    }
    return output + "\""
}

/// An object of strings as JSON text, keys sorted: how the server stores each event's properties,
/// written by hand where an encoder would cost too much per request.
public func jsonText(_ values: [String: String]) -> String {
    "{" + values.sorted { $0.key < $1.key }.map { jsonString($0.key) + ":" + jsonString($0.value) }.joined(separator: ",") + "}"
}
