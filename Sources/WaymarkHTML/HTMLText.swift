/// The words of sanitized HTML as plain text, for speaking it: tags dropped, character references
/// decoded, blocks (paragraphs, list items, headings, line breaks) on lines of their own, runs of
/// spaces made one.
public enum HTMLText {
    private static let blocks: Set<String> = [
        "p", "br", "li", "ul", "ol", "div", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "tr", "table", "hr",
    ]

    public static func plain(_ html: String) -> String {
        var tokenizer = HTMLTokenizer(html)
        var lines: [String] = []
        var line = ""
        func endLine() {
            let words = line.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            if !words.isEmpty { lines.append(words) }
            line = ""
        }
        while let token = tokenizer.next() {
            switch token {
            case .text(let text):
                line += text
            case .startTag(let name, _, _), .endTag(let name):
                if blocks.contains(name) { endLine() }
            }
        }
        endLine()
        return lines.joined(separator: "\n")
    }
}
