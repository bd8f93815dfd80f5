/// Makes HTML from anyone safe to put into a page: what comes out holds only the elements and
/// attributes of an allowlist (text formatting, paragraphs, headings, lists, quotes, code, links
/// to http(s) URLs, images from http(s) URLs), every text and attribute value escaped, and nothing
/// else: no script, no event handler, no style, no comment, no foreign (SVG, MathML) content.
///
/// It parses the input the way a browser's tokenizer does, builds a tree with a few nesting rules
/// of its own (a block closes an open paragraph or inline element, a list item needs a list), and
/// writes that tree out again. It never copies markup through, so what a browser reads from the
/// output is the tree the sanitizer built, whatever the input did to confuse parsers (the mutation
/// XSS family). Sanitizing its own output changes nothing.
public enum HTMLSanitizer {
    /// Nesting deeper than this keeps the text and drops the tags.
    public static let maximumDepth = 32

    public static func sanitize(_ html: String) -> String {
        var builder = TreeWriter()
        var tokenizer = HTMLTokenizer(html)
        while let token = tokenizer.next() {
            builder.take(token)
        }
        return builder.finish()
    }
}

private enum Kind {
    /// Holds text and inline elements only.
    case inline
    /// A block that holds only inline content: p, headings, pre.
    case textBlock
    /// A block that holds blocks too: div, blockquote, li.
    case container
    /// ul, ol: holds li.
    case list
}

private let allowedElements: [String: Kind] = [
    "a": .inline, "b": .inline, "strong": .inline, "i": .inline, "em": .inline, "u": .inline, "s": .inline,
    "del": .inline, "ins": .inline, "mark": .inline, "small": .inline, "sub": .inline, "sup": .inline,
    "code": .inline, "kbd": .inline, "span": .inline, "abbr": .inline, "q": .inline,
    "p": .textBlock, "h1": .textBlock, "h2": .textBlock, "h3": .textBlock, "h4": .textBlock, "h5": .textBlock,
    "h6": .textBlock, "pre": .textBlock,
    "div": .container, "blockquote": .container, "li": .container,
    "ul": .list, "ol": .list,
]

/// Allowed elements with no content and no end tag.
private let allowedVoidElements: Set<String> = ["br", "img", "hr"]

/// Elements dropped with everything inside them. (The raw-text ones, script and style among them,
/// never reach the tree: the tokenizer reads past their content.)
private let droppedWithContent: Set<String> = [
    "svg", "math", "template", "object", "applet", "select", "frameset", "head", "canvas", "audio", "video",
    "picture", "map", "datalist", "iframe", "script", "style", "noscript", "noembed", "noframes", "textarea",
    "title", "xmp", "plaintext",
]

/// Elements the browser never gives content or an end tag; dropped.
private let otherVoidElements: Set<String> = [
    "area", "base", "basefont", "bgsound", "col", "embed", "frame", "input", "keygen", "link", "meta", "param",
    "source", "track", "wbr", "image",
]

private struct TreeWriter {
    var output = ""
    /// The open allowed elements, outermost first.
    var stack: [String] = []
    /// Inside a dropped element: its name and how many of its kind are open.
    var skipping: (name: String, depth: Int)?
    /// The browser drops a newline that comes right after `<pre>`.
    var afterPre = false

    mutating func take(_ token: HTMLToken) {
        let wasAfterPre = afterPre
        afterPre = false
        if let skip = skipping {
            switch token {
            case .startTag(let name, _, let selfClosing) where name == skip.name && !selfClosesForeign(name, selfClosing):
                skipping = (skip.name, skip.depth + 1)
            case .endTag(let name) where name == skip.name:
                skipping = skip.depth == 1 ? nil : (skip.name, skip.depth - 1)
            default:
                break
            }
            return
        }
        switch token {
        case .text(var text):
            if wasAfterPre && text.unicodeScalars.first == "\n" { text.unicodeScalars.removeFirst() }
            appendText(text)
        case .startTag(let name, let attributes, let selfClosing):
            start(name, attributes, selfClosing: selfClosing)
        case .endTag(let name):
            guard let index = stack.lastIndex(of: name) else { return }
            while stack.count > index { close() }
        }
    }

    mutating func start(_ name: String, _ attributes: [HTMLAttribute], selfClosing: Bool) {
        if droppedWithContent.contains(name) {
            // Raw-text elements come with their content already skipped; the rest are skipped here.
            if !rawTextElements.contains(name) && !selfClosesForeign(name, selfClosing) { skipping = (name, 1) }
            return
        }
        if otherVoidElements.contains(name) { return }
        if allowedVoidElements.contains(name) {
            if name == "hr" { closeToContainer() }
            guard let kept = keptAttributes(name, attributes) else { return }
            output += "<" + name + kept + ">"
            return
        }
        guard let kind = allowedElements[name], stack.count < HTMLSanitizer.maximumDepth else { return }
        guard let kept = keptAttributes(name, attributes) else { return }
        switch kind {
        case .textBlock, .container, .list:
            if name == "li" {
                // A list item needs a list: it closes what is open down to the nearest one.
                guard let list = stack.lastIndex(where: { allowedElements[$0] == .list }) else { return }
                while stack.count > list + 1 { close() }
            } else {
                closeToContainer()
            }
        case .inline:
            if name == "a", let open = stack.lastIndex(of: "a") {
                // Links do not nest.
                while stack.count > open { close() }
            }
        }
        stack.append(name)
        output += "<" + name + kept + ">"
        if name == "pre" {
            // Always written, always dropped on reading: so a newline the text starts with survives.
            output += "\n"
            afterPre = true
        }
    }

    /// Closes open elements until the innermost one is one that can hold a block.
    mutating func closeToContainer() {
        while let last = stack.last, allowedElements[last] != .container { close() }
    }

    mutating func close() {
        output += "</" + stack.removeLast() + ">"
    }

    mutating func appendText(_ text: String) {
        output += escaped(text, quotes: false)
    }

    mutating func finish() -> String {
        while !stack.isEmpty { close() }
        return output
    }
}

/// `<svg/>` and `<math/>` end at once (they are foreign elements); `/>` on an HTML element means
/// nothing to the browser.
private func selfClosesForeign(_ name: String, _ selfClosing: Bool) -> Bool {
    selfClosing && (name == "svg" || name == "math")
}

/// The attributes kept on an element, written out (` name="value"` each, in a fixed order), or nil
/// when the element must go: a link or image without a safe URL.
private func keptAttributes(_ element: String, _ attributes: [HTMLAttribute]) -> String? {
    func value(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
    var kept: [(String, String)] = []
    switch element {
    case "a":
        guard let href = value("href").flatMap(safeURL) else { return nil }
        kept.append(("href", href))
        kept.append(("rel", "noopener noreferrer nofollow"))
    case "img":
        guard let src = value("src").flatMap(safeURL) else { return nil }
        kept.append(("src", src))
        kept.append(("alt", value("alt") ?? ""))
        for name in ["width", "height"] {
            if let size = value(name), consists(size, of: digits, length: 1...4) { kept.append((name, size)) }
        }
    case "ol":
        if let start = value("start"), consists(start, of: digits, length: 1...9) { kept.append(("start", start)) }
    case "code":
        // Markdown's fenced code names its language this way.
        if let language = value("class"), language.hasPrefix("language-"),
            consists(String(language.unicodeScalars.dropFirst(9)), of: lowercase + digits + "+#-_", length: 1...31)
        {
            kept.append(("class", language))
        }
    default:
        break
    }
    if let title = value("title") { kept.append(("title", title)) }
    if let direction = value("dir")?.lowercased(), ["ltr", "rtl", "auto"].contains(direction) {
        kept.append(("dir", direction))
    }
    if let language = value("lang"), consists(language, of: lowercase + uppercase + digits + "-", length: 1...35) {
        kept.append(("lang", language))
    }
    return kept.map { " \($0.0)=\"\(escaped($0.1, quotes: true))\"" }.joined()
}

/// An absolute http(s) URL with a host, read the way the browser's URL parser reads an attribute
/// (leading and trailing controls and spaces dropped, tabs and newlines removed anywhere), or nil.
public func safeURL(_ raw: String) -> String? {
    var scalars = raw.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }[...]
    while let first = scalars.first, first.value <= 0x20 { scalars.removeFirst() }
    while let last = scalars.last, last.value <= 0x20 { scalars.removeLast() }
    guard scalars.count <= 2048, !scalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
    let prefix = scalars.prefix(8).map(asciiLowercased)
    let rest: ArraySlice<Unicode.Scalar>
    if prefix.starts(with: "https://".unicodeScalars) {
        rest = ArraySlice(scalars.dropFirst(8))
    } else if prefix.starts(with: "http://".unicodeScalars) {
        rest = ArraySlice(scalars.dropFirst(7))
    } else {
        return nil
    }
    let host = rest.prefix { !"/?#\\".unicodeScalars.contains($0) }
    guard !host.isEmpty, !host.contains(" ") else { return nil }
    return String(String.UnicodeScalarView(scalars))
}

/// Text made safe to put between tags, or with `quotes` in a double-quoted attribute: `&`, `<`,
/// `>` (and `"`) escaped, control characters dropped, and a carriage return (from `&#13;`) made the
/// newline it would read back as.
func escaped(_ text: String, quotes: Bool) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": result += "&amp;"
        case "<": result += "&lt;"
        case ">": result += "&gt;"
        case "\"" where quotes: result += "&quot;"
        case "\r": result += "\n"
        case "\u{0}"..."\u{8}", "\u{B}", "\u{E}"..."\u{1F}", "\u{7F}": continue
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result
}

private let digits = "0123456789"
private let lowercase = "abcdefghijklmnopqrstuvwxyz"
private let uppercase = lowercase.uppercased()

/// Whether `text` is `length` scalars, all from `allowed`. (Scalars, not characters: a digit with a
/// combining mark on it is not a digit.)
private func consists(_ text: String, of allowed: String, length: ClosedRange<Int>) -> Bool {
    length.contains(text.unicodeScalars.count) && text.unicodeScalars.allSatisfy { allowed.unicodeScalars.contains($0) }
}
