/// A web tip's anchor as a CSS selector (`selector: "#checkout button.pay"`): checked here as the
/// catalog is read, drawn by the web SDK, which points at the first element it matches. Native
/// apps have no CSS: the Swift and Java clients leave such a tip out, saying why.
///
/// The check reads selector lists of compound selectors joined by combinators (descendant, `>`,
/// `+`, `~`): type and universal selectors, `#id`, `.class`, attribute selectors (`[data-x]`,
/// `[type="submit" i]`, with `=`, `~=`, `|=`, `^=`, `$=`, `*=`) and pseudo-classes, with their
/// arguments balanced (`:nth-child(2 of .row)`, `:not(.done)`). A pseudo-element (`::before`) is no
/// element to point at and is refused.
public enum CSSSelector {
    /// The longest selector a catalog takes, in bytes.
    public static let maxBytes = 512

    /// What is wrong with `text` as a selector, in words, or nil when it reads.
    public static func problem(_ text: String) -> String? {
        guard !text.trimmingWhitespace.isEmpty else { return "a selector names at least one element" }
        guard text.utf8.count <= maxBytes else { return "a selector is at most \(maxBytes) bytes" }
        if let control = text.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "a selector has no control characters (U+\(String(control.value, radix: 16, uppercase: true)))"
        }
        var reader = Reader(Array(text.unicodeScalars))
        do {
            try reader.selectorList(until: nil)
            return nil
        } catch {
            return error.message
        }
    }

    struct Problem: Error {
        var message: String
    }

    struct Reader {
        let scalars: [Unicode.Scalar]
        var index = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        func fail(_ expected: String) -> Problem {
            let found = current.map { "\"\(Character($0))\"" } ?? "the end"
            return Problem(message: "expected \(expected) at \(index + 1), found \(found)")
        }

        mutating func skipSpaces() -> Bool {
            let start = index
            while let scalar = current, scalar == " " || scalar == "\t" || scalar == "\n" { index += 1 }
            return index > start
        }

        /// Selectors separated by commas, up to `end` (a closing parenthesis) or the end of the text.
        mutating func selectorList(until end: Unicode.Scalar?) throws(Problem) {
            while true {
                _ = skipSpaces()
                try complex(until: end)
                if current == "," {
                    index += 1
                    continue
                }
                if current == end { return }
                throw fail(end == nil ? "a combinator, a comma or the end" : "\")\"")
            }
        }

        mutating func complex(until end: Unicode.Scalar?) throws(Problem) {
            try compound()
            while true {
                let spaced = skipSpaces()
                guard let scalar = current, scalar != ",", scalar != end else { return }
                if scalar == ">" || scalar == "+" || scalar == "~" {
                    index += 1
                    _ = skipSpaces()
                } else if !spaced {
                    throw fail("a combinator, a comma or the end")
                }
                try compound()
            }
        }

        mutating func compound() throws(Problem) {
            var parts = 0
            if current == "*" {
                index += 1
                parts += 1
            } else if isIdentifierStart() {
                try identifier()
                parts += 1
            }
            while let scalar = current {
                switch scalar {
                case "#":
                    index += 1
                    guard isIdentifierStart() || current.map(isNameScalar) == true else { throw fail("an id after #") }
                    while let next = current, isNameScalar(next) || next == "\\" { try nameScalar() }
                case ".":
                    index += 1
                    guard isIdentifierStart() else { throw fail("a class name after .") }
                    try identifier()
                case "[": try attribute()
                case ":":
                    index += 1
                    if current == ":" { throw Problem(message: "a pseudo-element (::\(word())) is no element to point at") }
                    guard isIdentifierStart() else { throw fail("a pseudo-class after :") }
                    try identifier()
                    if current == "(" { try arguments() }
                default:
                    guard parts > 0 else { throw fail("an element, #id, .class, [attribute] or :pseudo-class") }
                    return
                }
                parts += 1
            }
            guard parts > 0 else { throw fail("an element, #id, .class, [attribute] or :pseudo-class") }
        }

        /// `[name]` or `[name op value flag]`.
        mutating func attribute() throws(Problem) {
            index += 1
            _ = skipSpaces()
            guard isIdentifierStart() else { throw fail("an attribute's name") }
            try identifier()
            _ = skipSpaces()
            if current == "]" {
                index += 1
                return
            }
            if let scalar = current, "~|^$*".unicodeScalars.contains(scalar) { index += 1 }
            guard current == "=" else { throw fail("\"]\" or an operator such as =") }
            index += 1
            _ = skipSpaces()
            if current == "\"" || current == "'" {
                try string()
            } else if isIdentifierStart() {
                try identifier()
            } else {
                throw fail("a value, quoted or a name")
            }
            _ = skipSpaces()
            if let scalar = current, "iIsS".unicodeScalars.contains(scalar) {
                index += 1
                _ = skipSpaces()
            }
            guard current == "]" else { throw fail("\"]\"") }
            index += 1
        }

        /// A pseudo-class's arguments: selectors for :not, :is, :where and :has; anything
        /// balanced for the others (`2n+1 of .row`).
        mutating func arguments() throws(Problem) {
            let name = word(before: index)
            index += 1
            if ["not", "is", "where", "has", "matches"].contains(name.lowercased()) {
                if name.lowercased() == "has", let scalar = (scalars[index...].first { $0 != " " }), ">+~".unicodeScalars.contains(scalar) {
                    // :has(> .child) starts with a combinator.
                    while current != scalar { index += 1 }
                    index += 1
                }
                try selectorList(until: ")")
                index += 1
                return
            }
            var depth = 1
            var empty = true
            while depth > 0 {
                guard let scalar = current else { throw fail("\")\"") }
                switch scalar {
                case "(": depth += 1
                case ")": depth -= 1
                case "\"", "'":
                    try string()
                    empty = false
                    continue
                case "{", "}", ";": throw fail("\")\"")
                default: if scalar != " " { empty = false }
                }
                index += 1
            }
            if empty { throw Problem(message: "the pseudo-class :\(name)() needs an argument") }
        }

        mutating func string() throws(Problem) {
            let quote = current
            index += 1
            while let scalar = current, scalar != quote {
                index += scalar == "\\" ? 2 : 1
            }
            guard current == quote else { throw Problem(message: "a quoted value is not closed") }
            index += 1
        }

        func isIdentifierStart() -> Bool {
            guard let scalar = current else { return false }
            if scalar == "-" {
                guard index + 1 < scalars.count else { return false }
                let next = scalars[index + 1]
                return next == "-" || next == "\\" || isNameStart(next)
            }
            return scalar == "\\" || isNameStart(scalar)
        }

        mutating func identifier() throws(Problem) {
            if current == "-" { index += 1 }
            while let scalar = current, isNameScalar(scalar) || scalar == "\\" { try nameScalar() }
        }

        /// One character of a name, or an escape: `\\` and a character, or up to six hex digits and
        /// an optional space (`\\31 23` is `123`).
        mutating func nameScalar() throws(Problem) {
            guard current == "\\" else {
                index += 1
                return
            }
            index += 1
            guard let first = current else { throw Problem(message: "a selector does not end with \\") }
            guard first.properties.isASCIIHexDigit else {
                index += 1
                return
            }
            var digits = 0
            while digits < 6, let scalar = current, scalar.properties.isASCIIHexDigit {
                index += 1
                digits += 1
            }
            if current == " " { index += 1 }
        }

        /// The name just read before `end` (for messages).
        func word(before end: Int? = nil) -> String {
            let end = end ?? index
            var start = end
            while start > 0, isNameScalar(scalars[start - 1]) { start -= 1 }
            var text = String.UnicodeScalarView()
            text.append(contentsOf: scalars[start..<end])
            if end == index, start == end {
                var after = index
                while after < scalars.count, isNameScalar(scalars[after]) || scalars[after] == ":" { after += 1 }
                text.append(contentsOf: scalars[index..<after].filter { $0 != ":" })
            }
            return String(text)
        }
    }

    static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || scalar.value >= 0x80
    }

    static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        isNameStart(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
    }
}

extension String {
    fileprivate var trimmingWhitespace: Substring {
        drop { $0 == " " || $0 == "\t" || $0 == "\n" }
    }
}
