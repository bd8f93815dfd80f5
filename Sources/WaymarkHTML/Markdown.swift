/// Content authors write Markdown; clients get HTML. This is the part of Markdown tips and tour
/// pages need: paragraphs, `#` headings, `-`/`*`/`+` and `1.` lists (nested by indentation),
/// `>` quotes, fenced code, `---` rules, and inline `**strong**`, `*emphasis*`, `` `code` ``,
/// `[links](https://…)`, `![images](https://…)`, backslash escapes and hard breaks. HTML inside
/// Markdown is not markup: it shows as typed (authors who want markup write the body as `html`).
/// The result goes through ``HTMLSanitizer`` like any other HTML.
///
/// It is written for input from anyone: every step is bounded (nesting depth, the closers an opener
/// looks at), so no input makes it slow, deep or crash. (Ink, tried first, loops forever on
/// `<p title="x`, takes exponential time on `[[[[[[[[[[[[[[[[[[[[`, and traps on `* \n `: the
/// fuzzer found all three within minutes.)
public enum Markdown {
    public static func html(_ markdown: String) -> String {
        var output = ""
        renderBlocks(lines(markdown)[...], depth: 0, tight: false, into: &output)
        return HTMLSanitizer.sanitize(output)
    }

    /// Nesting of quotes and lists, and of inline spans, beyond which the rest is plain text.
    static let maximumDepth = 8

    typealias Line = ArraySlice<Unicode.Scalar>

    /// The lines, with CR LF and CR read as LF (as browsers do) and tabs as four spaces.
    static func lines(_ text: String) -> [Line] {
        var lines: [Line] = []
        var current: [Unicode.Scalar] = []
        var previousWasCR = false
        for scalar in text.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            switch scalar {
            case "\n" where previousWasCR: continue
            case "\n", "\r":
                lines.append(current[...])
                current = []
            case "\t": current.append(contentsOf: "    ".unicodeScalars)
            default: current.append(scalar)
            }
        }
        lines.append(current[...])
        return lines
    }

    // MARK: Blocks

    static func renderBlocks(_ lines: ArraySlice<Line>, depth: Int, tight: Bool, into output: inout String) {
        var index = lines.startIndex
        while index < lines.endIndex {
            let line = lines[index]
            let content = line.drop { $0 == " " }
            if content.isEmpty {
                index += 1
            } else if line.count - content.count >= 4 {
                // Indented code is not supported: such a line is text.
                index = paragraph(lines, from: index, tight: tight, into: &output)
            } else if let fence = fence(content) {
                index = codeBlock(lines, from: index, fence: fence, info: content.dropFirst(fence.count), into: &output)
            } else if let level = headingLevel(content) {
                let text = content.dropFirst(level).drop { $0 == " " }
                let trimmed = trimTrailing(trimTrailing(text, " "), "#")
                output += "<h\(level)>" + Inline(trimTrailing(trimmed, " ")).render(depth: 0) + "</h\(level)>"
                index += 1
            } else if isRule(content) {
                output += "<hr>"
                index += 1
            } else if content.first == ">" && depth < maximumDepth {
                var quoted: [Line] = []
                while index < lines.endIndex, let rest = quoteContent(lines[index]) {
                    quoted.append(rest)
                    index += 1
                }
                output += "<blockquote>"
                renderBlocks(quoted[...], depth: depth + 1, tight: false, into: &output)
                output += "</blockquote>"
            } else if let marker = listMarker(line), depth < maximumDepth {
                index = list(lines, from: index, marker: marker, depth: depth, into: &output)
            } else {
                index = paragraph(lines, from: index, tight: tight, into: &output)
            }
        }
    }

    /// Lines up to a blank one or one that starts another block, as one paragraph (without `<p>`
    /// in a tight list item).
    static func paragraph(_ lines: ArraySlice<Line>, from start: Int, tight: Bool, into output: inout String) -> Int {
        var index = start
        var text: [Unicode.Scalar] = []
        while index < lines.endIndex {
            let line = lines[index]
            let content = line.drop { $0 == " " }
            if content.isEmpty { break }
            if index > start && line.count - content.count < 4
                && (fence(content) != nil || headingLevel(content) != nil || isRule(content) || content.first == ">"
                    || listMarker(line).map { $0.start == 1 || $0.ordinal == nil } == true)
            {
                break
            }
            if index > start { text.append("\n") }
            text.append(contentsOf: content)
            index += 1
        }
        let html = Inline(trimTrailing(text[...], " ")).render(depth: 0)
        output += tight ? html : "<p>" + html + "</p>"
        return index
    }

    static func codeBlock(_ lines: ArraySlice<Line>, from start: Int, fence: Line, info: Line, into output: inout String) -> Int {
        var index = start + 1
        var code = ""
        while index < lines.endIndex {
            let content = lines[index].drop { $0 == " " }
            if content.starts(with: fence), trimTrailing(content, " ").allSatisfy({ $0 == fence.first }) {
                index += 1
                break
            }
            code += String(String.UnicodeScalarView(lines[index])) + "\n"
            index += 1
        }
        let language = info.drop { $0 == " " }.prefix { $0 != " " }
        let attribute = language.isEmpty ? "" : " class=\"language-\(escaped(String(String.UnicodeScalarView(language)), quotes: true))\""
        output += "<pre><code\(attribute)>" + escaped(code, quotes: false) + "</code></pre>"
        return index
    }

    struct ListMarker {
        /// `-`, `*` or `+` for a bullet list, `.` or `)` for an ordered one.
        var symbol: Unicode.Scalar
        var ordinal: Int?
        var start: Int { ordinal ?? 1 }
        /// Columns from the start of the line to the item's text.
        var contentColumn: Int
        var indent: Int
    }

    /// `- item`, `* item`, `+ item`, `1. item`, `1) item`, up to three spaces in.
    static func listMarker(_ line: Line) -> ListMarker? {
        let content = line.drop { $0 == " " }
        let indent = line.count - content.count
        guard indent < 4, let first = content.first else { return nil }
        var symbol = first
        var ordinal: Int?
        var width = 1
        if "0123456789".unicodeScalars.contains(first) {
            let digits = content.prefix { "0123456789".unicodeScalars.contains($0) }
            guard digits.count <= 9, let next = content.dropFirst(digits.count).first, next == "." || next == ")" else { return nil }
            ordinal = Int(String(String.UnicodeScalarView(digits)))
            symbol = next
            width = digits.count + 1
        } else if !"-*+".unicodeScalars.contains(first) {
            return nil
        }
        let after = content.dropFirst(width)
        guard after.isEmpty || after.first == " " else { return nil }
        let spaces = after.prefix { $0 == " " }.count
        return ListMarker(
            symbol: symbol, ordinal: ordinal, contentColumn: indent + width + (spaces >= 1 && spaces <= 4 ? spaces : 1), indent: indent)
    }

    static func list(_ lines: ArraySlice<Line>, from start: Int, marker first: ListMarker, depth: Int, into output: inout String) -> Int {
        var items: [[Line]] = []
        var loose = false
        var index = start
        var marker = first
        while index < lines.endIndex {
            // The item's first line, then the lines indented under it (and lazy continuation lines).
            var item: [Line] = [lines[index].dropFirst(min(marker.contentColumn, lines[index].count))]
            index += 1
            var blankBefore = false
            while index < lines.endIndex {
                let line = lines[index]
                let content = line.drop { $0 == " " }
                let indent = line.count - content.count
                if content.isEmpty {
                    blankBefore = true
                    item.append(content)
                    index += 1
                    continue
                }
                if indent >= marker.contentColumn {
                    if blankBefore { loose = true }
                    item.append(line.dropFirst(marker.contentColumn))
                } else if !blankBefore && listMarker(line) == nil && fence(content) == nil && headingLevel(content) == nil
                    && !isRule(content) && content.first != ">"
                {
                    item.append(content)
                } else {
                    break
                }
                blankBefore = false
                index += 1
            }
            while item.last?.isEmpty == true { item.removeLast() }
            items.append(item)
            guard index < lines.endIndex, let next = listMarker(lines[index]), next.symbol == first.symbol,
                (next.ordinal == nil) == (first.ordinal == nil), next.indent < marker.contentColumn
            else { break }
            if blankBefore { loose = true }
            marker = next
        }
        let tag = first.ordinal == nil ? "ul" : "ol"
        output += first.start != 1 ? "<ol start=\"\(first.start)\">" : "<\(tag)>"
        for item in items {
            output += "<li>"
            renderBlocks(item[...], depth: depth + 1, tight: !loose, into: &output)
            output += "</li>"
        }
        output += "</\(tag)>"
        return index
    }

    /// The text after `>` (and one space), or nil when the line is not quoted.
    static func quoteContent(_ line: Line) -> Line? {
        let content = line.drop { $0 == " " }
        guard line.count - content.count < 4, content.first == ">" else { return nil }
        let rest = content.dropFirst()
        return rest.first == " " ? rest.dropFirst() : rest
    }

    /// ``` or ~~~ (three or more), returned as the fence a closing line must repeat.
    static func fence(_ content: Line) -> Line? {
        guard let first = content.first, first == "`" || first == "~" else { return nil }
        let run = content.prefix { $0 == first }
        guard run.count >= 3 else { return nil }
        if first == "`" && content.dropFirst(run.count).contains("`") { return nil }
        return run
    }

    static func headingLevel(_ content: Line) -> Int? {
        let hashes = content.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes) else { return nil }
        let after = content.dropFirst(hashes)
        return after.isEmpty || after.first == " " ? hashes : nil
    }

    /// `---`, `***`, `___`, spaces allowed between.
    static func isRule(_ content: Line) -> Bool {
        guard let first = content.first, "-*_".unicodeScalars.contains(first) else { return false }
        let marks = content.filter { $0 != " " }
        return marks.count >= 3 && marks.allSatisfy { $0 == first }
    }

    static func trimTrailing(_ text: Line, _ scalar: Unicode.Scalar) -> Line {
        var text = text
        while text.last == scalar { text.removeLast() }
        return text
    }
}

/// One paragraph's or heading's inline Markdown.
private struct Inline {
    let text: [Unicode.Scalar]
    /// For each special scalar, the index of its next occurrence at or after each position
    /// (`text.count` when none): finding a closer costs a lookup, not a scan.
    private var next: [Unicode.Scalar: [Int]] = [:]
    /// Closers an opener looks at before it counts as plain text.
    private static let candidates = 64

    init(_ text: Markdown.Line) {
        self.text = Array(text)
        for scalar in ["`", "*", "_"] as [Unicode.Scalar] {
            var positions = [Int](repeating: self.text.count, count: self.text.count + 1)
            for index in stride(from: self.text.count - 1, through: 0, by: -1) {
                positions[index] = self.text[index] == scalar ? index : positions[index + 1]
            }
            next[scalar] = positions
        }
    }

    /// The index of the next `scalar` at or after `index` (`text.count` when none).
    private func following(_ scalar: Unicode.Scalar, _ index: Int) -> Int { next[scalar]![index] }

    func render(depth: Int) -> String { render(0..<text.count, depth: depth) }

    private func render(_ range: Range<Int>, depth: Int) -> String {
        guard depth <= Markdown.maximumDepth else { return escapedText(range) }
        var output = ""
        var index = range.lowerBound
        var plainStart = index
        func flush(upTo end: Int) {
            output += escapedText(plainStart..<end)
        }
        while index < range.upperBound {
            let scalar = text[index]
            var replacement: (html: String, end: Int)?
            switch scalar {
            case "\\":
                if index + 1 < range.upperBound, text[index + 1] == "\n" {
                    replacement = ("<br>", index + 2)
                } else if index + 1 < range.upperBound, isASCIIPunctuation(text[index + 1]) {
                    replacement = (escaped(String(text[index + 1]), quotes: false), index + 2)
                }
            case "`":
                // A run that opens no code span is text, all of it: its backticks open nothing either.
                let length = run(of: "`", at: index, in: range)
                replacement = codeSpan(at: index, length: length, in: range) ?? (escapedText(index..<(index + length)), index + length)
            case "*", "_": replacement = emphasis(at: index, in: range, depth: depth)
            case "[": replacement = link(at: index, in: range, depth: depth, image: false)
            case "!" where index + 1 < range.upperBound && text[index + 1] == "[":
                replacement = link(at: index + 1, in: range, depth: depth, image: true)
            case "\n":
                // Two spaces before a line end make a hard break.
                if index - plainStart >= 2, text[index - 1] == " ", text[index - 2] == " " {
                    var end = index
                    while end > plainStart && text[end - 1] == " " { end -= 1 }
                    flush(upTo: end)
                    plainStart = index
                    replacement = ("<br>", index + 1)
                }
            default: break
            }
            if let replacement {
                flush(upTo: index)
                output += replacement.html
                index = replacement.end
                plainStart = index
            } else {
                index += 1
            }
        }
        flush(upTo: range.upperBound)
        return output
    }

    private func escapedText(_ range: Range<Int>) -> String {
        range.isEmpty ? "" : escaped(String(String.UnicodeScalarView(text[range])), quotes: false)
    }

    /// The length of the run of `scalar` starting at `index`, counted up to `limit`.
    private func run(of scalar: Unicode.Scalar, at index: Int, in range: Range<Int>, limit: Int = .max) -> Int {
        var end = index
        while end < range.upperBound && text[end] == scalar && end - index < limit { end += 1 }
        return end - index
    }

    private func codeSpan(at index: Int, length: Int, in range: Range<Int>) -> (String, Int)? {
        var candidate = following("`", index + length)
        for _ in 0..<Self.candidates {
            guard candidate < range.upperBound else { return nil }
            let closing = run(of: "`", at: candidate, in: range, limit: length + 1)
            if closing == length {
                var code = String(String.UnicodeScalarView(text[(index + length)..<candidate].map { $0 == "\n" ? " " : $0 }))
                if code.count > 2, code.first == " ", code.last == " " { code = String(code.dropFirst().dropLast()) }
                return ("<code>" + escaped(code, quotes: false) + "</code>", candidate + length)
            }
            candidate = following("`", candidate + closing)
        }
        return nil
    }

    /// `**strong**`, `__strong__`, `*em*`, `_em_`: an opener followed by text, a closer of the same
    /// kind preceded by text.
    private func emphasis(at index: Int, in range: Range<Int>, depth: Int) -> (String, Int)? {
        let scalar = text[index]
        let length = run(of: scalar, at: index, in: range, limit: 2)
        let after = index + length
        guard after < range.upperBound, text[after] != " ", text[after] != "\n" else { return nil }
        // `_` inside a word (snake_case) is text.
        if scalar == "_", index > range.lowerBound, isWordScalar(text[index - 1]) { return nil }
        var candidate = following(scalar, after)
        for _ in 0..<Self.candidates {
            guard candidate + length <= range.upperBound else { return nil }
            let closing = run(of: scalar, at: candidate, in: range, limit: length)
            let before = text[candidate - 1]
            if closing >= length, before != " ", before != "\n", candidate > after,
                scalar == "*" || candidate + length >= range.upperBound || !isWordScalar(text[candidate + length])
            {
                let tag = length == 2 ? "strong" : "em"
                return ("<\(tag)>" + render(after..<candidate, depth: depth + 1) + "</\(tag)>", candidate + length)
            }
            candidate = following(scalar, candidate + max(closing, 1))
        }
        return nil
    }

    /// `[text](url "title")` or, for an image, `![alt](url)`; `index` is at the `[`. Brackets in
    /// the text and parentheses in the URL may nest; both are looked for within a bounded distance.
    private func link(at index: Int, in range: Range<Int>, depth: Int, image: Bool) -> (String, Int)? {
        guard let close = matching("[", "]", from: index, in: range), close + 1 < range.upperBound, text[close + 1] == "(",
            let end = matching("(", ")", from: close + 1, in: range)
        else { return nil }
        let inside = String(String.UnicodeScalarView(text[(close + 2)..<end])).trimmingSpaces()
        let destination = String(inside.prefix { $0 != " " && $0 != "\n" })
        var title = String(inside.dropFirst(destination.count)).trimmingSpaces()
        if title.count >= 2, let quote = title.first, quote == "\"" || quote == "'", title.last == quote {
            title = String(title.dropFirst().dropLast())
        } else if !title.isEmpty {
            return nil
        }
        let titleAttribute = title.isEmpty ? "" : " title=\"\(escaped(title, quotes: true))\""
        if image {
            let alt = String(String.UnicodeScalarView(text[(index + 1)..<close]))
            return ("<img src=\"\(escaped(destination, quotes: true))\" alt=\"\(escaped(alt, quotes: true))\"\(titleAttribute)>", end + 1)
        }
        let label = render((index + 1)..<close, depth: depth + 1)
        return ("<a href=\"\(escaped(destination, quotes: true))\"\(titleAttribute)>" + label + "</a>", end + 1)
    }

    /// The index of the `closer` that balances the `opener` at `index`, looking at most 2,048
    /// scalars ahead; nil when there is none.
    private func matching(_ opener: Unicode.Scalar, _ closer: Unicode.Scalar, from index: Int, in range: Range<Int>) -> Int? {
        var depth = 0
        var position = index
        while position < min(range.upperBound, index + 2_048) {
            switch text[position] {
            case "\\": position += 1
            case opener: depth += 1
            case closer:
                depth -= 1
                if depth == 0 { return position }
            default: break
            }
            position += 1
        }
        return nil
    }
}

private func isASCIIPunctuation(_ scalar: Unicode.Scalar) -> Bool {
    "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".unicodeScalars.contains(scalar)
}

private func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
    scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
