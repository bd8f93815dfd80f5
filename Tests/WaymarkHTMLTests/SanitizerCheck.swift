import WaymarkHTML

/// The properties the fuzzer checks on every input and the tests on every payload and corpus file.
/// This file is shared: `Fuzz/Sources/FuzzHTML` links to it.
///
/// For any bytes, as HTML and as Markdown: the output is well-formed markup of the allowlist alone
/// (checked here by a reader of its own that knows nothing of the sanitizer's), and sanitizing it
/// again changes nothing. Nothing traps. Returns what broke, or `nil`.
func sanitizerFailure(_ bytes: [UInt8]) -> String? {
    let text = String(decoding: bytes, as: UTF8.self)
    for (what, output) in [("HTML", HTMLSanitizer.sanitize(text)), ("Markdown", Markdown.html(text))] {
        if let problem = allowlistProblem(output) { return "\(what): \(problem) in \(output)" }
        let again = HTMLSanitizer.sanitize(output)
        guard again == output else { return "\(what): sanitizing twice changes \(output) into \(again)" }
    }
    return nil
}

/// The elements and, for each, the attributes the output may have.
private let allowed: [String: Set<String>] = {
    let global: Set<String> = ["title", "dir", "lang"]
    var result: [String: Set<String>] = [:]
    for name in [
        "b", "strong", "i", "em", "u", "s", "del", "ins", "mark", "small", "sub", "sup", "kbd", "span", "abbr", "q",
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "div", "blockquote", "li", "ul", "br", "hr",
    ] {
        result[name] = global
    }
    result["a"] = global.union(["href", "rel"])
    result["img"] = global.union(["src", "alt", "width", "height"])
    result["ol"] = global.union(["start"])
    result["code"] = global.union(["class"])
    return result
}()
private let void: Set<String> = ["br", "hr", "img"]
private let references = ["&amp;", "&lt;", "&gt;", "&quot;", "&#39;"]

/// Why `html` is not allowlisted, well-formed markup, or nil when it is.
func allowlistProblem(_ html: String) -> String? {
    let scalars = Array(html.unicodeScalars)
    var index = 0
    var open: [String] = []
    func word() -> String {
        var result = ""
        while index < scalars.count, ("a"..."z").contains(scalars[index]) || ("0"..."9").contains(scalars[index]) {
            result.unicodeScalars.append(scalars[index])
            index += 1
        }
        return result
    }
    func reference() -> Bool {
        let rest = scalars[index...]
        guard let match = references.first(where: { rest.starts(with: $0.unicodeScalars) }) else { return false }
        index += match.unicodeScalars.count
        return true
    }
    while index < scalars.count {
        switch scalars[index] {
        case ">":
            return "a > outside a tag at \(index)"
        case "&":
            guard reference() else { return "a bare & at \(index)" }
        case "<":
            index += 1
            let closing = index < scalars.count && scalars[index] == "/"
            if closing { index += 1 }
            let name = word()
            guard let attributes = allowed[name] else { return "the element <\(name)> at \(index)" }
            if closing {
                guard index < scalars.count, scalars[index] == ">" else { return "an unfinished </\(name)" }
                guard open.last == name else { return "</\(name)> closes <\(open.last ?? "nothing")>" }
                open.removeLast()
                index += 1
                continue
            }
            var seen: Set<String> = []
            while index < scalars.count, scalars[index] == " " {
                index += 1
                let attribute = word()
                guard attributes.contains(attribute), seen.insert(attribute).inserted else {
                    return "the attribute \(attribute) on <\(name)>"
                }
                guard index + 1 < scalars.count, scalars[index] == "=", scalars[index + 1] == "\"" else {
                    return "an unquoted attribute on <\(name)>"
                }
                index += 2
                var value = ""
                while index < scalars.count, scalars[index] != "\"" {
                    switch scalars[index] {
                    case "<", ">": return "a raw \(scalars[index]) in an attribute of <\(name)>"
                    case "&":
                        let start = index
                        guard reference() else { return "a bare & in an attribute of <\(name)>" }
                        value += String(String.UnicodeScalarView(scalars[start..<index]))
                    default:
                        value.unicodeScalars.append(scalars[index])
                        index += 1
                    }
                }
                index += 1
                if attribute == "href" || attribute == "src" {
                    let lowered = value.lowercased().unicodeScalars
                    guard lowered.starts(with: "http://".unicodeScalars) || lowered.starts(with: "https://".unicodeScalars) else {
                        return "the URL \(value) on <\(name)>"
                    }
                }
            }
            guard index < scalars.count, scalars[index] == ">" else { return "an unfinished <\(name)" }
            index += 1
            if !void.contains(name) { open.append(name) }
        default:
            let value = scalars[index].value
            if value < 0x20 && value != 0x09 && value != 0x0A && value != 0x0C { return "the control U+\(value) at \(index)" }
            index += 1
        }
    }
    return open.isEmpty ? nil : "<\(open.joined(separator: ">, <"))> left open"
}
