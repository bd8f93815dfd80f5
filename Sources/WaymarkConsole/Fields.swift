import Foundation
import WaymarkCatalog
import WaymarkRules

/// A problem with one form field.
struct FieldError: Error {
    var field: String
    var message: String
}

/// A form's text fields by name, read the same way by every editor: blank is absent, rules parse
/// or name their field, numbers are whole and in range.
extension [String: String] {
    /// The field trimmed, or nil when absent or blank.
    func text(_ name: String) -> String? {
        guard let value = self[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return value
    }

    func rule(_ name: String) throws(FieldError) -> Rule? {
        guard let text = text(name) else { return nil }
        do { return try Rule(parsing: text) } catch { throw FieldError(field: name, message: error.description) }
    }

    /// A targeting rule: it may read only the client context.
    func targetingRule(_ name: String) throws(FieldError) -> Rule? {
        guard let rule = try rule(name) else { return nil }
        if let problem = targetingProblem(rule) { throw FieldError(field: name, message: problem) }
        return rule
    }

    func wholeNumber(_ name: String, default value: Int, in range: ClosedRange<Int>) throws(FieldError) -> Int {
        guard let text = text(name) else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw FieldError(field: name, message: "a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}

/// What a rule field is for, which decides what it may read.
enum RuleKind: String {
    /// A trigger or dismissal: anything of the language.
    case event
    /// Targeting: the client context, user attributes and segments (`segment:<name>`).
    case targeting
    /// A segment's rule: user attributes and events within the segments' history.
    case segment
}

/// The parser's verdict on rule fields, with the caret excerpt the console shows under them.
enum RuleCheck {
    /// The message and caret excerpt for a rule, or nil when it reads and reads only what its
    /// kind may (targeting naming only `segments`, when they are given).
    static func check(_ text: String, _ kind: RuleKind, segments: Set<String>? = nil) -> [String: String]? {
        do {
            let rule = try Rule(parsing: text)
            switch kind {
            case .event: return nil
            case .targeting:
                if let problem = targetingProblem(rule) { return ["message": problem] }
                if let segments, let unknown = segmentNames(in: rule).first(where: { !segments.contains($0) }) {
                    let known =
                        segments.isEmpty ? "this app has no segments yet" : "its segments are \(segments.sorted().joined(separator: ", "))"
                    return ["message": "no segment named \"\(unknown)\": \(known)"]
                }
                return nil
            case .segment: return Segment.problem(rule).map { ["message": $0] }
            }
        } catch {
            return ["message": error.description, "excerpt": error.excerpt(source: text, origin: "rule:\(error.line):\(error.column)")]
        }
    }

    /// The errors of a form's rule fields by name; a field with a `required` message may not be blank.
    static func errors(
        _ values: [String: String], _ fields: [(name: String, required: String?, kind: RuleKind)], segments: Set<String>? = nil
    ) -> [String: [String: String]] {
        var errors: [String: [String: String]] = [:]
        for field in fields {
            guard let text = values.text(field.name) else {
                if let message = field.required { errors[field.name] = ["message": message] }
                continue
            }
            if let error = check(text, field.kind, segments: segments) { errors[field.name] = error }
        }
        return errors
    }
}

/// One translation in a form: a locale, a title and a text.
struct LocaleRow {
    var code = ""
    var title = ""
    var body = ""

    /// The rows `PREFIX.N.code`, `.title`, `.body` of a form, and an empty one to add a locale.
    static func read(_ form: Form, prefix: String) -> [LocaleRow] {
        var rows = (0..<50).compactMap { index -> LocaleRow? in
            guard let code = form["\(prefix).\(index).code"] else { return nil }
            return LocaleRow(code: code, title: form["\(prefix).\(index).title"] ?? "", body: form["\(prefix).\(index).body"] ?? "")
        }
        if !rows.contains(where: { $0.code.isEmpty }) { rows.append(LocaleRow()) }
        return rows
    }

    /// The translations of some content, by locale, and an empty row.
    static func rows(_ content: Localized<Content>) -> [LocaleRow] {
        content.locales.sorted { $0.key < $1.key }.map { LocaleRow(code: $0.key, title: $0.value.title, body: Content.editable($0.value)) }
            + [LocaleRow()]
    }

    /// The filled rows as content by locale, keeping each locale's narration from `existing`.
    static func contents(_ rows: [LocaleRow], html: Bool, keeping existing: [String: Content], field: String) throws(FieldError)
        -> [String: Content]
    {
        var contents: [String: Content] = [:]
        for row in rows {
            let code = row.code.trimmingCharacters(in: .whitespaces)
            guard !code.isEmpty else { continue }
            guard !row.title.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw FieldError(field: field, message: "the \(code) translation needs a title")
            }
            contents[code] = Content.written(title: row.title, body: row.body, html: html, keeping: existing[code])
        }
        return contents
    }

    /// For a template: the rows numbered.
    static func values(_ rows: [LocaleRow]) -> [[String: Any]] {
        rows.enumerated().map { ["index": $0.offset, "code": $0.element.code, "title": $0.element.title, "body": $0.element.body] }
    }
}

extension Content {
    /// The body as its author wrote it: Markdown, or the sanitized HTML.
    static func editable(_ content: Content) -> String { content.markdown ?? content.html }

    /// Content from a form: the body in Markdown or HTML, the narration kept from `old`.
    static func written(title: String, body: String, html: Bool, keeping old: Content?) -> Content {
        html ? Content(title: title, html: body, audio: old?.audio) : Content(title: title, markdown: body, audio: old?.audio)
    }

    /// How a form shows the format of a body: `html` for HTML written as such, else `markdown`.
    static func format(_ content: Content) -> String { content.markdown == nil && !content.html.isEmpty ? "html" : "markdown" }
}
