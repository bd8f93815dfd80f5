import Foundation
import Hummingbird
import WaymarkAPI
import WaymarkCatalog
import WaymarkDelivery
import WaymarkEngine
import WaymarkHTML
import WaymarkRules
import WaymarkStore
import WaymarkSupport

/// The page builder: an author opens the app's own web page from the console, picks the element a
/// tip points at, writes the tip there and saves it to the draft.
///
/// A builder is a preview (``Previews``) whose token may also save one draft tip, the one it was
/// made for (``WaymarkStore/PreviewRecord/edits``): the page shows the draft as a preview does, and
/// the web SDK, seeing `builder` in the catalog's preview, loads its builder part. The token is
/// short-lived (``Previews/builderMinutes``), sent as the `Authorization` header (never a cookie,
/// so another site cannot use it on the author's behalf), kept hashed, and refused once the
/// builder expired or was ended; it reads no analytics, keys or other objects.
extension Previews {
    /// How long a builder lasts unless asked, and the most it may be asked for, in minutes: long
    /// enough to write one tip, short enough that a forgotten tab is soon harmless.
    public static let builderMinutes = 30
    public static let builderMinutesLimit = 60
}

extension WaymarkServer {
    /// Makes a builder of the draft tip `tip` (made on its first save if the draft has no such tip)
    /// on the page at `url`, lasting `minutes`. Throws a 422 for an id a tip cannot have or a URL
    /// ``Previews/urlProblem(_:)`` refuses, or a web page the builder cannot run in.
    public func makeBuilder(app: String, tip: String, url: String, minutes: Int, actor: AuditEntry.Actor) async throws -> MadePreview {
        guard CatalogDocument.isIdentifier(tip), tip.utf8.count <= 128 else {
            throw APIError(
                .unprocessableContent, .invalidField, "a tip's id is 1 to 128 letters, digits, '-', '_' or '.'", field: "tip")
        }
        if let problem = Previews.urlProblem(url) { throw APIError(.unprocessableContent, .invalidField, problem, field: "url") }
        guard url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://") else {
            throw APIError(
                .unprocessableContent, .invalidField, "the builder opens the app's web page: give its http(s) address", field: "url")
        }
        guard (Previews.minutes.lowerBound...Previews.builderMinutesLimit).contains(minutes) else {
            throw APIError(
                .unprocessableContent, .invalidField,
                "a builder lasts \(Previews.minutes.lowerBound) to \(Previews.builderMinutesLimit) minutes", field: "minutes")
        }
        return try await keepPreview(app: app, url: url, minutes: minutes, edits: tip, actor: actor)
    }

    /// The builder a request's token belongs to, while it lasts: 403 `not_builder` for any other
    /// key (a preview's too), 403 `preview_ended` once it expired or was ended.
    func builder(_ context: WaymarkRequestContext) async throws -> PreviewRecord {
        let key = try context.key()
        guard key.kind == .preview, let record = try await store.preview(app: key.app, id: key.id), let tip = record.edits, !tip.isEmpty
        else {
            throw APIError(.forbidden, .notBuilder, "only a page builder opened from the console may change the draft from a page")
        }
        guard key.revokedAt == nil else {
            throw APIError(.forbidden, .previewEnded, "the builder has ended: open it again from the console")
        }
        return record
    }

    /// `GET /v1/builder`: the tip the builder edits, as it is in the draft, with the locales the
    /// catalog is written in.
    func builderSession(_ context: WaymarkRequestContext) async throws -> Response {
        let record = try await builder(context)
        let tip = record.edits ?? ""
        let catalog = try await draftCatalog(app: record.app)?.catalog ?? Catalog(tips: [])
        var session = BuilderSession(
            tip: tip, expires: Timestamp.format(record.expiresAt), console: "/console/apps/\(record.app)/tips/\(tip)",
            locales: ["default"] + catalog.locales)
        for locale in catalog.locales { session.ui[locale] = InterfaceText.strings(forLocale: locale) }
        if let existing = catalog.tips.first(where: { $0.id == tip }) {
            session.exists = true
            session.renderer = existing.renderer.rawValue
            session.anchor = existing.tip.anchor
            session.selector = existing.selector
            session.container = existing.tip.container
            for locale in session.locales {
                let content = locale == "default" ? existing.content.fallback : existing.content.locales[locale]
                let button = existing.actions.first.map { locale == "default" ? $0.label.fallback : $0.label.locales[locale] } ?? nil
                guard content != nil || button != nil else { continue }
                session.content[locale] = BuilderText(
                    title: content?.title ?? "", text: content.map { $0.markdown ?? HTMLText.plain($0.html) } ?? "", button: button ?? "")
            }
        }
        var headers: HTTPFields = [:]
        headers[.cacheControl] = "no-store"
        return jsonResponse(session, headers: headers)
    }

    /// `POST /v1/builder/tip`: saves the tip as the builder wrote it into the draft: the element it
    /// points at, its area, and its title, text and button in each locale given. A tip the draft
    /// does not have yet is made, shown on the screen it was written on (`screen:NAME`) until the
    /// author gives it a rule in the console.
    func saveBuilderTip(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let record = try await builder(context)
        let id = record.edits ?? ""
        let body = try await request.decodeBody(as: BuilderTipBody.self, context: context)
        if let problem = body.problem { throw APIError(.unprocessableContent, .invalidField, problem) }
        var created = false
        let (_, revision) = try await editDraft(app: record.app, actor: AuditEntry.Actor(stored: record.createdBy)) { catalog in
            let known = Set(["default"] + catalog.locales)
            if let unknown = body.content.keys.sorted().first(where: { !known.contains($0) }) {
                throw APIError(
                    .unprocessableContent, .invalidField,
                    "the catalog is not written in \"\(unknown)\": its locales are \(known.sorted().joined(separator: ", "))",
                    field: "content")
            }
            let index = catalog.tips.firstIndex { $0.id == id }
            var tip: CatalogTip
            if let index {
                tip = catalog.tips[index]
            } else {
                guard let first = body.content["default"], !first.title.isEmpty else {
                    throw APIError(.unprocessableContent, .invalidField, "a new tip needs a title in the default locale", field: "content")
                }
                guard let screen = body.screen, let trigger = try? Rule(parsing: "screen:\(screen)") else {
                    throw APIError(
                        .unprocessableContent, .invalidField, "a new tip needs the screen it was written on, as a name", field: "screen")
                }
                tip = CatalogTip(
                    tip: Tip(id: id, container: body.container ?? "main", trigger: trigger), content: Localized(Content(title: first.title))
                )
                created = true
            }
            body.apply(to: &tip)
            if let index { catalog.tips[index] = tip } else { catalog.tips.append(tip) }
        }
        return jsonResponse(BuilderSaved(tip: id, revision: revision, created: created))
    }

    /// `POST /v1/builder/end`: the author is done; the builder's token stops working at once.
    func endBuilder(_ context: WaymarkRequestContext) async throws -> Response {
        let record = try await builder(context)
        _ = try await endPreview(app: record.app, id: record.id, actor: AuditEntry.Actor(stored: record.createdBy))
        return Response(status: .noContent)
    }
}

/// What `GET /v1/builder` answers.
struct BuilderSession: Encodable {
    var tip: String
    var exists = false
    var expires: String
    /// Where the tip opens in the console, as a path on this server.
    var console: String
    /// `default` (the fallback) and the catalog's locales.
    var locales: [String]
    var renderer = Renderer.tooltip.rawValue
    var anchor: String?
    var selector: String?
    var container: String?
    var content: [String: BuilderText] = [:]
    /// The SDK's own words (Read aloud, Close...) in each of the catalog's locales that Waymark
    /// speaks, as a catalog delivered in that locale carries them: the sample tip draws them.
    var ui: [String: [String: String]] = [:]
}

/// A tip's words in one locale, as the builder writes them: the body is Markdown.
struct BuilderText: Codable {
    var title: String
    var text: String
    var button: String

    private enum CodingKeys: String, CodingKey { case title, text, button }

    init(title: String, text: String, button: String) {
        self.title = title
        self.text = text
        self.button = button
    }

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(["title", "text", "button"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decodeUnlessAbsent(String.self, forKey: .title) ?? ""
        text = try container.decodeUnlessAbsent(String.self, forKey: .text) ?? ""
        button = try container.decodeUnlessAbsent(String.self, forKey: .button) ?? ""
    }
}

/// `POST /v1/builder/tip`.
struct BuilderTipBody: Decodable {
    var anchor: String?
    var selector: String?
    var container: String?
    var screen: String?
    var content: [String: BuilderText]

    private enum CodingKeys: String, CodingKey { case anchor, selector, container, screen, content }

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(["anchor", "selector", "container", "screen", "content"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        anchor = try container.decodeUnlessAbsent(String.self, forKey: .anchor)
        selector = try container.decodeUnlessAbsent(String.self, forKey: .selector)
        self.container = try container.decodeUnlessAbsent(String.self, forKey: .container)
        screen = try container.decodeUnlessAbsent(String.self, forKey: .screen)
        content = try container.decodeUnlessAbsent([String: BuilderText].self, forKey: .content) ?? [:]
    }

    /// Why the body cannot be saved, in a sentence; nil when it can.
    var problem: String? {
        if anchor != nil && selector != nil { return "a tip points at one element: by its anchor or by a selector, not both" }
        if let anchor, !CatalogDocument.isIdentifier(anchor) || anchor.utf8.count > 128 {
            return "an anchor is 1 to 128 letters, digits, '-', '_' or '.'"
        }
        if let selector {
            if selector.utf8.count > 512 { return "a selector is at most 512 bytes" }
            if let problem = CSSSelector.problem(selector) {
                return "selector \"\(selector.prefix(80))\" is not a CSS selector: \(problem)"
            }
        }
        if let container, !CatalogDocument.isIdentifier(container) || container.utf8.count > 128 {
            return "an area is 1 to 128 letters, digits, '-', '_' or '.'"
        }
        if let screen, screen.isEmpty || screen.utf8.count > 128 { return "a screen is named by 1 to 128 bytes" }
        for (locale, text) in content where text.title.count > 200 || text.text.count > 5_000 || text.button.count > 60 {
            return "in \(locale), a title is at most 200 characters, a text 5,000 and a button 60"
        }
        return nil
    }

    /// Writes what was picked and written into `tip`, keeping the rest (its rules, its other
    /// buttons, recordings); a locale's empty title leaves that locale's words as they were.
    func apply(to tip: inout CatalogTip) {
        if anchor != nil || selector != nil {
            tip.tip.anchor = anchor
            tip.selector = selector
        }
        if let container { tip.tip.container = container }
        for (locale, text) in content where !text.title.isEmpty {
            let old = locale == "default" ? tip.content.fallback : tip.content.locales[locale]
            let written = Content(title: text.title, markdown: text.text, audio: old?.audio)
            if locale == "default" { tip.content.fallback = written } else { tip.content.locales[locale] = written }
        }
        let buttons = content.filter { !$0.value.button.isEmpty }
        guard !buttons.isEmpty else { return }
        if tip.actions.isEmpty {
            let label = buttons["default"]?.button ?? buttons.sorted { $0.key < $1.key }[0].value.button
            tip.actions = [Action(id: "ok", label: Localized(label), effect: .dismiss)]
        }
        for (locale, text) in buttons {
            if locale == "default" {
                tip.actions[0].label.fallback = text.button
            } else {
                tip.actions[0].label.locales[locale] = text.button
            }
        }
    }
}

/// What `POST /v1/builder/tip` answers.
struct BuilderSaved: Encodable {
    var tip: String
    var revision: Int
    var created: Bool
}
