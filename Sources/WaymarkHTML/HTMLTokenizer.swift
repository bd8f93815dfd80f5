/// A token of HTML as a browser's tokenizer sees it (the WHATWG "data" state and the states it
/// reaches), minus what the sanitizer never keeps: comments, doctypes and processing instructions
/// are skipped, and the content of raw-text elements (`script`, `style`, `textarea`, ...) is read past
/// without being tokenized, the way the browser reads it.
enum HTMLToken: Equatable {
    case text(String)
    case startTag(name: String, attributes: [HTMLAttribute], selfClosing: Bool)
    case endTag(name: String)
}

struct HTMLAttribute: Equatable {
    var name: String
    var value: String
}

/// Elements whose content the browser does not parse as markup: after their start tag everything
/// up to the matching end tag is text (or, for `plaintext`, everything to the end).
let rawTextElements: Set<String> = [
    "script", "style", "xmp", "iframe", "noembed", "noframes", "noscript", "textarea", "title", "plaintext",
]

struct HTMLTokenizer {
    private let scalars: [Unicode.Scalar]
    private var position = 0

    init(_ html: String) {
        // The browser normalizes newlines before tokenizing: CR LF and CR become LF.
        var scalars: [Unicode.Scalar] = []
        scalars.reserveCapacity(html.unicodeScalars.count)
        var previousWasCR = false
        for scalar in html.unicodeScalars {
            if scalar == "\r" {
                scalars.append("\n")
                previousWasCR = true
                continue
            }
            if !(scalar == "\n" && previousWasCR) { scalars.append(scalar) }
            previousWasCR = false
        }
        self.scalars = scalars
    }

    /// The next token, or nil at the end.
    mutating func next() -> HTMLToken? {
        while position < scalars.count {
            guard startsMarkup(at: position) else { return .text(text()) }
            if let token = markup() { return token }
        }
        return nil
    }

    /// Text up to the next `<` that starts markup.
    private mutating func text() -> String {
        var result = String.UnicodeScalarView()
        while position < scalars.count {
            let scalar = scalars[position]
            if startsMarkup(at: position) { break }
            if scalar == "&" {
                position += 1
                result.append(contentsOf: characterReference().unicodeScalars)
                continue
            }
            result.append(scalar)
            position += 1
        }
        return String(result)
    }

    /// Whether the `<` at `index` opens a tag, an end tag, a comment or a bogus comment, rather
    /// than being a plain less-than sign.
    private func startsMarkup(at index: Int) -> Bool {
        guard scalars[index] == "<", index + 1 < scalars.count else { return false }
        let next = scalars[index + 1]
        return isASCIILetter(next) || next == "/" || next == "!" || next == "?"
    }

    /// Reads the markup at a `<` that ``startsMarkup(at:)``; nil when it makes no token (a
    /// comment, a doctype, an unfinished tag at the end).
    private mutating func markup() -> HTMLToken? {
        let next = scalars[position + 1]
        if isASCIILetter(next) {
            position += 1
            return startTag()
        }
        if next == "/" {
            position += 2
            guard position < scalars.count else { return .text("</") }
            if isASCIILetter(scalars[position]) {
                let name = tagName()
                // Attributes on an end tag are read and ignored, as the browser does.
                _ = attributes()
                return consume(">") ? .endTag(name: name) : nil
            }
            if !consume(">") { skipBogusComment() }
            return nil
        }
        position += 2
        if next == "!" && match("--") {
            skipComment()
        } else {
            // `<!DOCTYPE …>`, `<![CDATA[…]]>`, `<?…>`: bogus comments, to the next `>`.
            skipBogusComment()
        }
        return nil
    }

    private mutating func startTag() -> HTMLToken? {
        let name = tagName()
        let attributes = attributes()
        var selfClosing = false
        if match("/>") {
            selfClosing = true
        } else if !consume(">") {
            // The input ended inside the tag: the browser drops the tag.
            return nil
        }
        // The browser ignores `/>` on HTML elements: `<script/>` still starts a script.
        if rawTextElements.contains(name) { skipRawText(until: name) }
        return .startTag(name: name, attributes: attributes, selfClosing: selfClosing)
    }

    private mutating func tagName() -> String {
        var name = String.UnicodeScalarView()
        while position < scalars.count {
            let scalar = scalars[position]
            if isWhitespace(scalar) || scalar == "/" || scalar == ">" { break }
            name.append(asciiLowercased(scalar))
            position += 1
        }
        return String(name)
    }

    /// The attributes of a tag, up to (not including) its `>` or `/>`; the first of two with the
    /// same name wins.
    private mutating func attributes() -> [HTMLAttribute] {
        var result: [HTMLAttribute] = []
        while position < scalars.count {
            let scalar = scalars[position]
            if isWhitespace(scalar) {
                position += 1
                continue
            }
            if scalar == ">" { break }
            if scalar == "/" {
                if position + 1 < scalars.count && scalars[position + 1] == ">" { break }
                position += 1
                continue
            }
            // The name: an `=` in first place belongs to it.
            var name = String.UnicodeScalarView()
            name.append(asciiLowercased(scalar))
            position += 1
            while position < scalars.count {
                let scalar = scalars[position]
                if isWhitespace(scalar) || scalar == "/" || scalar == ">" || scalar == "=" { break }
                name.append(asciiLowercased(scalar))
                position += 1
            }
            var value = ""
            skipWhitespace()
            if position < scalars.count && scalars[position] == "=" {
                position += 1
                skipWhitespace()
                value = attributeValue()
            }
            let attribute = HTMLAttribute(name: String(name), value: value)
            if !result.contains(where: { $0.name == attribute.name }) { result.append(attribute) }
        }
        return result
    }

    private mutating func attributeValue() -> String {
        guard position < scalars.count else { return "" }
        let quote = scalars[position]
        let quoted = quote == "\"" || quote == "'"
        if quoted { position += 1 }
        var value = String.UnicodeScalarView()
        while position < scalars.count {
            let scalar = scalars[position]
            if quoted ? scalar == quote : isWhitespace(scalar) || scalar == ">" { break }
            position += 1
            if scalar == "&" {
                value.append(contentsOf: characterReference().unicodeScalars)
            } else {
                value.append(scalar)
            }
        }
        if quoted && position < scalars.count { position += 1 }
        return String(value)
    }

    /// After a `&`: the character it stands for, or `&` itself when no reference follows.
    private mutating func characterReference() -> String {
        if position < scalars.count && scalars[position] == "#" {
            var index = position + 1
            var hex = false
            if index < scalars.count && (scalars[index] == "x" || scalars[index] == "X") {
                hex = true
                index += 1
            }
            var value: UInt32 = 0
            var digits = 0
            while index < scalars.count, let digit = digitValue(scalars[index], hex: hex) {
                value = min(value &* (hex ? 16 : 10) &+ digit, 0x110000)
                digits += 1
                index += 1
            }
            guard digits > 0 else { return "&" }
            if index < scalars.count && scalars[index] == ";" { index += 1 }
            position = index
            return String(numericCharacter(value))
        }
        var index = position
        var name = ""
        while index < scalars.count, index - position < 32, isASCIIAlphanumeric(scalars[index]) {
            name.unicodeScalars.append(scalars[index])
            index += 1
        }
        if index < scalars.count, scalars[index] == ";", let character = namedCharacterReferences[name] {
            position = index + 1
            return character
        }
        return "&"
    }

    /// Skips the content of a raw-text element up to its end tag (`</name` followed by whitespace,
    /// `/` or `>`), which the next call then reads as an end tag. `plaintext` has no end.
    private mutating func skipRawText(until name: String) {
        guard name != "plaintext" else {
            position = scalars.count
            return
        }
        let nameScalars = Array(name.unicodeScalars)
        while position < scalars.count {
            if scalars[position] == "<", position + 1 < scalars.count, scalars[position + 1] == "/" {
                let start = position + 2
                let end = start + nameScalars.count
                if end <= scalars.count,
                    zip(scalars[start..<end], nameScalars).allSatisfy({ asciiLowercased($0) == $1 }),
                    end == scalars.count || isWhitespace(scalars[end]) || scalars[end] == "/" || scalars[end] == ">"
                {
                    return
                }
            }
            position += 1
        }
    }

    /// After `<!--`: to the end of the comment (`-->`, `--!>`, or at once for `<!-->` and `<!--->`).
    private mutating func skipComment() {
        if match(">") || match("->") { return }
        while position < scalars.count {
            if match("-->") || match("--!>") { return }
            position += 1
        }
    }

    private mutating func skipBogusComment() {
        while position < scalars.count && scalars[position] != ">" { position += 1 }
        if position < scalars.count { position += 1 }
    }

    private mutating func skipWhitespace() {
        while position < scalars.count && isWhitespace(scalars[position]) { position += 1 }
    }

    private mutating func consume(_ scalar: Unicode.Scalar) -> Bool {
        guard position < scalars.count, scalars[position] == scalar else { return false }
        position += 1
        return true
    }

    /// Consumes `text` if it comes next, matching ASCII letters case-insensitively.
    private mutating func match(_ text: String) -> Bool {
        var index = position
        for expected in text.unicodeScalars {
            guard index < scalars.count, asciiLowercased(scalars[index]) == expected else { return false }
            index += 1
        }
        position = index
        return true
    }
}

/// The character a numeric reference stands for, with the browser's replacements: NUL, surrogates
/// and values past Unicode become U+FFFD, and 0x80 to 0x9F are read as windows-1252.
private func numericCharacter(_ value: UInt32) -> Character {
    if let mapped = windows1252[value] { return Character(Unicode.Scalar(mapped)!) }
    guard value != 0, let scalar = Unicode.Scalar(value) else { return "\u{FFFD}" }
    return Character(scalar)
}

private let windows1252: [UInt32: UInt32] = [
    0x80: 0x20AC, 0x82: 0x201A, 0x83: 0x0192, 0x84: 0x201E, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021,
    0x88: 0x02C6, 0x89: 0x2030, 0x8A: 0x0160, 0x8B: 0x2039, 0x8C: 0x0152, 0x8E: 0x017D, 0x91: 0x2018,
    0x92: 0x2019, 0x93: 0x201C, 0x94: 0x201D, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02DC,
    0x99: 0x2122, 0x9A: 0x0161, 0x9B: 0x203A, 0x9C: 0x0153, 0x9E: 0x017E, 0x9F: 0x0178,
]

/// The named references people type. Others stay as written (and come out escaped, so the browser
/// shows them as typed rather than reading them).
private let namedCharacterReferences: [String: String] = [
    "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "shy": "\u{AD}",
    "copy": "©", "reg": "®", "trade": "™", "hellip": "…", "mdash": "—", "ndash": "–", "lsquo": "‘",
    "rsquo": "’", "ldquo": "“", "rdquo": "”", "laquo": "«", "raquo": "»", "bull": "•", "middot": "·",
    "times": "×", "divide": "÷", "deg": "°", "plusmn": "±", "para": "¶", "sect": "§", "euro": "€",
    "pound": "£", "yen": "¥", "cent": "¢", "rarr": "→", "larr": "←", "uarr": "↑", "darr": "↓",
    "harr": "↔", "check": "✓", "star": "☆", "hearts": "♥", "zwj": "\u{200D}", "zwnj": "\u{200C}",
    "lrm": "\u{200E}", "rlm": "\u{200F}", "ensp": "\u{2002}", "emsp": "\u{2003}", "thinsp": "\u{2009}",
    "iexcl": "¡", "iquest": "¿", "frac12": "½", "frac14": "¼", "frac34": "¾", "sup2": "²", "sup3": "³",
    "micro": "µ", "permil": "‰", "prime": "′", "Prime": "″", "infin": "∞", "ne": "≠", "le": "≤",
    "ge": "≥", "asymp": "≈", "minus": "−", "colon": ":", "Tab": "\t", "NewLine": "\n", "lpar": "(",
    "rpar": ")", "sol": "/", "bsol": "\\", "num": "#", "excl": "!", "quest": "?", "equals": "=",
    "semi": ";", "comma": ",", "period": ".", "lowbar": "_", "grave": "`", "Hat": "^", "rupee": "₹",
]

func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
    scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\u{0C}"
}

func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
    (65...90).contains(scalar.value) || (97...122).contains(scalar.value)
}

private func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
    isASCIILetter(scalar) || (48...57).contains(scalar.value)
}

func asciiLowercased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
    (65...90).contains(scalar.value) ? Unicode.Scalar(scalar.value + 32)! : scalar
}

private func digitValue(_ scalar: Unicode.Scalar, hex: Bool) -> UInt32? {
    switch scalar.value {
    case 48...57: scalar.value - 48
    case 97...102 where hex: scalar.value - 87
    case 65...70 where hex: scalar.value - 55
    default: nil
    }
}
