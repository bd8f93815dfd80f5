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

    /// A comma-separated list, each entry trimmed, blanks left out.
    func list(_ name: String) -> [String] {
        (self[name] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Screen names as `screen:NAME` has them, comma-separated; none: every screen.
    func screens(_ name: String) throws(FieldError) -> [String] {
        let screens = list(name)
        if let bad = screens.first(where: { !Segment.isName($0) }) {
            throw FieldError(field: name, message: "\"\(bad)\" is not a screen's name (letters, digits, _ and -)")
        }
        return screens
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

/// A button of a tip or tour page as a form shows it: rows `PREFIX.N.id`, `.label`, `.kind`,
/// `.to` and `.style` (empty: by its place, the first the main one).
struct ActionRow: Equatable {
    var id = "", label = "", kind = "dismiss", to = "", style = ""

    static let kinds = [
        ("dismiss", "Close it"), ("next", "Next tip of its group, or next page"), ("tour", "Open a tour"), ("url", "Open a web page"),
        ("route", "Go to a place in the app"),
    ]
    static let styles = [("", "By its place"), ("primary", "Main"), ("secondary", "Other")]

    var isEmpty: Bool { id.trimmingCharacters(in: .whitespaces).isEmpty && label.trimmingCharacters(in: .whitespaces).isEmpty }

    /// The rows of some buttons, and an empty one to add a button while there is room.
    static func rows(_ actions: [Action]) -> [ActionRow] {
        actions.enumerated().map { index, action in
            ActionRow(
                id: action.id, label: action.label.fallback, kind: action.effect.kind, to: action.effect.destination ?? "",
                style: action.style == (index == 0 ? .primary : .secondary) ? "" : action.style.rawValue)
        } + (actions.count < Action.limit ? [ActionRow()] : [])
    }

    /// The rows of a form under `prefix`, and an empty one while there is room.
    static func read(_ form: Form, prefix: String) -> [ActionRow] {
        var rows = (0..<Action.limit).compactMap { index -> ActionRow? in
            let name = "\(prefix).\(index)"
            guard let id = form["\(name).id"] else { return nil }
            return ActionRow(
                id: id, label: form["\(name).label"] ?? "", kind: form["\(name).kind"] ?? "dismiss", to: form["\(name).to"] ?? "",
                style: form["\(name).style"] ?? "")
        }
        if rows.count < Action.limit && !rows.contains(where: \.isEmpty) { rows.append(ActionRow()) }
        return rows
    }

    /// The filled rows as buttons, each keeping its translated labels from `existing` (by id);
    /// `next` says whether a button may go to a next step. Errors name the row under `field`.
    static func actions(_ rows: [ActionRow], next: Bool, keeping existing: [Action], field: String) throws(FieldError) -> [Action] {
        var actions: [Action] = []
        for (index, row) in rows.filter({ !$0.isEmpty }).enumerated() {
            func problem(_ message: String) -> FieldError { FieldError(field: field, message: "button \(index + 1): \(message)") }
            let id = row.id.trimmingCharacters(in: .whitespaces)
            guard CatalogDocument.isIdentifier(id) else { throw problem("its id is letters, digits, -, _ or .") }
            guard !actions.contains(where: { $0.id == id }) else { throw problem("another button has the id \"\(id)\"") }
            if let message = Action.labelProblem(row.label) { throw problem(message) }
            let effect: Action.Effect
            switch Action.effect(kind: row.kind, to: row.to, next: next) {
            case .success(let found): effect = found
            case .failure(let failure): throw problem(failure.message)
            }
            let old = existing.first { $0.id == id }
            actions.append(
                Action(
                    id: id, label: Localized(row.label.trimmingCharacters(in: .whitespacesAndNewlines), locales: old?.label.locales ?? [:]),
                    effect: effect, style: Action.Style(rawValue: row.style) ?? (index == 0 ? .primary : .secondary)))
        }
        return actions
    }

    /// For a template: each row with its field names under `prefix` and the choices it offers.
    static func values(_ rows: [ActionRow], prefix: String) -> [[String: Any]] {
        rows.enumerated().map { index, row in
            [
                "name": "\(prefix).\(index)", "number": index + 1, "id": row.id, "label": row.label, "to": row.to,
                "kinds": kinds.map { ["value": $0.0, "label": $0.1, "selected": $0.0 == row.kind] as [String: Any] },
                "styles": styles.map { ["value": $0.0, "label": $0.1, "selected": $0.0 == row.style] as [String: Any] },
            ]
        }
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
