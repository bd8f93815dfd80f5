import Foundation
import Hummingbird
import WaymarkAPI
import WaymarkCatalog
import WaymarkDelivery
import WaymarkRules
import WaymarkServer
import WaymarkStore

/// Tours with their pages, the media their pages play, and the reward policy, edited in forms.
/// Like the tip form, each form changes only what it shows: a page's narration is kept.
extension WaymarkConsole {
    func tourPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess, new: Bool) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let catalog = try await server.draftCatalog(app: app.id)?.catalog ?? Catalog(tips: [])
        if new { return tourForm(signedIn, app, catalog, TourFields.empty, new: true) }
        guard let id = context.parameters.get("id"), let tour = catalog.tours.first(where: { $0.id == id }) else {
            throw ConsoleError.notFound
        }
        return tourForm(signedIn, app, catalog, TourFields(tour), new: false)
    }

    func saveTour(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        let isNew = form["new"] == "1"
        var fields = TourFields(form: form)
        if !isNew { fields.values["id"] = context.parameters.get("id") ?? "" }
        let id = fields.values["id"] ?? ""
        var errors = fields.ruleErrors()
        if errors.isEmpty {
            errors = try await saveEdit(app: app, actor: signedIn.actor) { catalog in
                let existing = catalog.tours.firstIndex { $0.id == id }
                if isNew, existing != nil { throw FieldError(field: "id", message: "a tour \"\(id)\" exists already") }
                if !isNew, existing == nil { throw FieldError(field: "id", message: "the tour \"\(id)\" was deleted meanwhile") }
                let tour = try fields.tour(updating: existing.map { catalog.tours[$0] }, media: Set(catalog.media.map(\.id)))
                if let existing { catalog.tours[existing] = tour } else { catalog.tours.append(tour) }
            }
            if errors.isEmpty { return .redirect(to: "/console/apps/\(app.id)?saved=\(id)", type: .normal) }
        }
        let catalog = try await server.draftCatalog(app: app.id)?.catalog ?? Catalog(tips: [])
        return tourForm(signedIn, app, catalog, fields, new: isNew, errors: errors, status: .unprocessableContent)
    }

    func deleteTour(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        try await deleteObject(request, context, access) { catalog, id in
            guard catalog.tours.contains(where: { $0.id == id }) else { throw ConsoleError.notFound }
            catalog.tours.removeAll { $0.id == id }
        }
    }

    /// One page of the draft tour as the server would deliver it to a chosen client (media
    /// variant, locale), drawn by waymark.js's own tour panel with events and claims switched off.
    func tourPreviewPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        guard let id = context.parameters.get("id"), let draft = try await server.draftCatalog(app: app.id),
            let tour = draft.catalog.tours.first(where: { $0.id == id })
        else { throw ConsoleError.notFound }
        let choice = PreviewClient(request)
        // The tour itself, whatever its targeting says: the preview shows the content; the
        // message says whether this client would get it.
        var untargeted = draft.catalog
        untargeted.tours = [tour]
        untargeted.tours[0].targeting = Targeting()
        guard let delivered = Resolver(catalog: untargeted, version: 0).resolve(for: choice.client).tours.first else {
            throw ConsoleError.notFound
        }
        let targeted = Resolver.admits(tour.targeting, id: id, context: choice.client.values, user: choice.client.user)
        let page = min(max(0, request.uri.queryParameters["page"].flatMap { Int(String($0)) } ?? 0), delivered.pages.count - 1)
        var values = frame("Preview of the tour \(id)", signedIn, app: app)
        values.merge(choice.values) { $1 }
        values["previewScript"] = true
        values["action"] = "/console/apps/\(app.id)/tours/\(id)/preview"
        values["back"] = "/console/apps/\(app.id)/tours/\(id)"
        values["pages"] = delivered.pages.enumerated().map {
            ["index": $0.offset, "id": $0.element.id, "selected": $0.offset == page] as [String: Any]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        values["tourJSON"] = String(decoding: try encoder.encode(delivered), as: UTF8.self)
        if let words = InterfaceText.strings(forLocale: choice.client.locale) {
            values["wordsJSON"] = String(decoding: try encoder.encode(words), as: UTF8.self)
        }
        values["page"] = page
        let shown = delivered.pages[page]
        values["message"] =
            "Page \(page + 1) of \(delivered.pages.count) as \(choice.client.platform ?? "") \(choice.client.model ?? "") "
            + "\(choice.client.appVersion ?? "") in \(shown.content.locale)"
            + (shown.media.map { ", playing \($0.url)" } ?? ", no video for this client")
            + (targeted ? "." : ". This client is not targeted: it would not get the tour.")
        return Templates.page("preview", values)
    }

    func mediaPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess, new: Bool) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        if new { return mediaForm(signedIn, app, MediaFields.empty, new: true) }
        guard let id = context.parameters.get("id"),
            let media = try await server.draftCatalog(app: app.id)?.catalog.media.first(where: { $0.id == id })
        else { throw ConsoleError.notFound }
        return mediaForm(signedIn, app, MediaFields(media), new: false)
    }

    func saveMedia(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        let isNew = form["new"] == "1"
        var fields = MediaFields(form: form)
        if !isNew { fields.id = context.parameters.get("id") ?? "" }
        let id = fields.id.trimmingCharacters(in: .whitespaces)
        let errors = try await saveEdit(app: app, actor: signedIn.actor) { catalog in
            let existing = catalog.media.firstIndex { $0.id == id }
            if isNew, existing != nil { throw FieldError(field: "id", message: "a media entry \"\(id)\" exists already") }
            if !isNew, existing == nil { throw FieldError(field: "id", message: "the media entry \"\(id)\" was deleted meanwhile") }
            let media = try fields.media()
            if let existing { catalog.media[existing] = media } else { catalog.media.append(media) }
        }
        if errors.isEmpty { return .redirect(to: "/console/apps/\(app.id)?saved=\(id)", type: .normal) }
        return mediaForm(signedIn, app, fields, new: isNew, errors: errors, status: .unprocessableContent)
    }

    func deleteMedia(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        try await deleteObject(request, context, access) { catalog, id in
            guard catalog.media.contains(where: { $0.id == id }) else { throw ConsoleError.notFound }
            let users = catalog.tours.filter { $0.pages.contains { $0.media == id } }.map(\.id)
            guard users.isEmpty else {
                throw ConsoleError(
                    status: .conflict,
                    message: "The media \"\(id)\" is played by the tour \(users.joined(separator: ", ")): remove it from their pages first."
                )
            }
            catalog.media.removeAll { $0.id == id }
        }
    }

    /// `POST rewards`: the most credits one user can hold (blank: no cap).
    func saveRewards(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        let values = ["cap": form["maxCreditsPerUser"] ?? ""]
        let errors = try await saveEdit(app: app, actor: signedIn.actor) { catalog in
            catalog.rewards.maxCreditsPerUser = try values.text("cap").map { _ in
                try values.wholeNumber("cap", default: 0, in: 1...1_000_000_000)
            }
        }
        if let error = errors.values.first {
            throw ConsoleError(status: .unprocessableContent, message: "The credit cap was not saved: \(error["message"] ?? "").")
        }
        return .redirect(to: "/console/apps/\(app.id)", type: .normal)
    }

    private func tourForm(
        _ signedIn: SignedIn, _ app: AppRecord, _ catalog: Catalog, _ fields: TourFields, new: Bool,
        errors: [String: [String: String]] = [:],
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var values = frame(new ? "New tour" : "Tour \(fields.values["id"] ?? "")", signedIn, app: app)
        for (name, value) in fields.values { values["f_" + name] = value }
        values["new"] = new
        values["hasErrors"] = !errors.isEmpty
        for (name, error) in errors { values["e_" + name] = error }
        let mediaIDs = catalog.media.map(\.id)
        values["pages"] = fields.pages.enumerated().map { index, page in
            [
                "index": index, "number": index + 1, "id": page.id, "order": page.order, "title": page.title, "body": page.body,
                "reward": page.reward, "translated": page.locales.count > 1,
                "locales": LocaleRow.values(page.locales).map { $0.merging(["page": index]) { $1 } },
                "actions": ActionRow.values(page.actions, prefix: "page.\(index).action"),
                "hasActions": page.actions.contains { !$0.isEmpty },
                "media": ([""] + mediaIDs).map {
                    ["value": $0, "label": $0.isEmpty ? "none" : $0, "selected": $0 == page.media] as [String: Any]
                },
            ] as [String: Any]
        }
        return Templates.page("tour", values, status: status)
    }

    private func mediaForm(
        _ signedIn: SignedIn, _ app: AppRecord, _ fields: MediaFields, new: Bool, errors: [String: [String: String]] = [:],
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var values = frame(new ? "New media" : "Media \(fields.id)", signedIn, app: app)
        values["f_id"] = fields.id
        values["new"] = new
        values["hasErrors"] = !errors.isEmpty
        for (name, error) in errors { values["e_" + name] = error }
        values["variants"] = fields.variants.enumerated().map { index, row in
            var values: [String: Any] = ["index": index]
            for column in MediaFields.columns { values[column] = row[column] ?? "" }
            return values
        }
        return Templates.page("media", values, status: status)
    }
}

/// The client a preview resolves the draft for, from the query: platform, model, app version,
/// locale, user.
struct PreviewClient {
    var client: ClientContext

    init(_ request: Request) {
        let query = request.uri.queryParameters
        func parameter(_ name: String, _ fallback: String) -> String {
            let value = query[Substring(name)].map { String($0.prefix(256)) }?.trimmingCharacters(in: .whitespaces) ?? ""
            return value.isEmpty ? fallback : value
        }
        client = ClientContext(
            platform: parameter("platform", "web"), model: parameter("model", "desktop-browser"),
            appVersion: parameter("appVersion", "1.0.0"), locale: parameter("locale", "en"), user: parameter("user", "preview-user")
        )
    }

    /// The form's values: `platforms` to choose from and `q_model`, `q_appVersion`, `q_locale`, `q_user`.
    var values: [String: Any] {
        var values: [String: Any] = [
            "platforms": ["ios", "android", "web"].map { (platform: String) in
                ["value": platform, "selected": platform == client.platform] as [String: Any]
            }
        ]
        for (name, value) in [("model", client.model), ("appVersion", client.appVersion), ("locale", client.locale), ("user", client.user)]
        {
            values["q_" + name] = value ?? ""
        }
        return values
    }
}

/// A tour's form fields as text.
struct TourFields {
    struct PageRow {
        var id = ""
        var order = ""
        var title = ""
        var body = ""
        var media = ""
        var reward = ""
        var locales = [LocaleRow()]
        var actions = [ActionRow()]
    }

    var values: [String: String]
    var pages: [PageRow]

    static let empty = TourFields(values: ["rollout": "100", "format": "markdown"], pages: [PageRow(order: "1")])

    init(values: [String: String], pages: [PageRow]) {
        self.values = values
        self.pages = pages
    }

    init(_ tour: Tour) {
        values = [
            "id": tour.id, "trigger": tour.trigger?.description ?? "", "targeting": tour.targeting.rule?.description ?? "",
            "rollout": String(tour.targeting.rollout), "format": tour.pages.first.map { Content.format($0.content.fallback) } ?? "markdown",
            "screens": tour.screens.joined(separator: ", "),
        ]
        pages =
            tour.pages.enumerated().map { index, page in
                PageRow(
                    id: page.id, order: String(index + 1), title: page.content.fallback.title,
                    body: Content.editable(page.content.fallback),
                    media: page.media ?? "", reward: page.reward.map(String.init) ?? "", locales: LocaleRow.rows(page.content),
                    actions: ActionRow.rows(page.actions)
                )
            } + [PageRow(order: String(tour.pages.count + 1))]
    }

    init(form: Form) {
        values = [:]
        for name in ["id", "trigger", "targeting", "rollout", "format", "screens"] { values[name] = form[name] ?? "" }
        pages = (0..<50).compactMap { index in
            let prefix = "page.\(index)"
            guard let id = form["\(prefix).id"] else { return nil }
            return PageRow(
                id: id, order: form["\(prefix).order"] ?? "", title: form["\(prefix).title"] ?? "", body: form["\(prefix).body"] ?? "",
                media: form["\(prefix).media"] ?? "", reward: form["\(prefix).reward"] ?? "",
                locales: LocaleRow.read(form, prefix: "\(prefix).locale"), actions: ActionRow.read(form, prefix: "\(prefix).action")
            )
        }
        if !pages.contains(where: { $0.id.trimmingCharacters(in: .whitespaces).isEmpty }) {
            pages.append(PageRow(order: String(pages.count + 1)))
        }
    }

    func ruleErrors() -> [String: [String: String]] {
        RuleCheck.errors(values, [("trigger", required: nil, kind: .event), ("targeting", required: nil, kind: .targeting)])
    }

    /// The tour these fields describe, its pages in the order of their numbers; a page whose id is
    /// blanked is removed.
    func tour(updating existing: Tour?, media: Set<String>) throws(FieldError) -> Tour {
        guard let id = values.text("id") else { throw FieldError(field: "id", message: "a tour needs an id") }
        let html = values["format"] == "html"
        var ordered: [(order: Int, position: Int, page: TourPage)] = []
        var seen: Set<String> = []
        for (position, row) in pages.enumerated() {
            let fields = ["id": row.id, "order": row.order, "title": row.title, "media": row.media, "reward": row.reward]
            guard let pageID = fields.text("id") else { continue }
            func problem(_ message: String) -> FieldError { FieldError(field: "pages", message: "page \(pageID): \(message)") }
            guard seen.insert(pageID).inserted else { throw problem("two pages have this id") }
            guard let title = fields.text("title") else { throw problem("a page needs a title") }
            let order: Int
            var reward: Int?
            do throws(FieldError) {
                order = try fields.wholeNumber("order", default: position + 1, in: 1...1000)
                if fields.text("reward") != nil { reward = try fields.wholeNumber("reward", default: 0, in: 1...1_000_000) }
            } catch {
                throw problem("the \(error.field == "order" ? "position" : "credit reward") is \(error.message)")
            }
            if let name = fields.text("media"), !media.contains(name) { throw problem("there is no media \"\(name)\"") }
            let old = existing?.pages.first { $0.id == pageID }
            let locales = try LocaleRow.contents(row.locales, html: html, keeping: old?.content.locales ?? [:], field: "pages")
            let content = Localized(
                Content.written(title: title, body: row.body, html: html, keeping: old?.content.fallback), locales: locales)
            let actions = try ActionRow.actions(row.actions, next: true, keeping: old?.actions ?? [], field: "pages")
            ordered.append(
                (order, position, TourPage(id: pageID, content: content, media: fields.text("media"), reward: reward, actions: actions)))
        }
        guard !ordered.isEmpty else { throw FieldError(field: "pages", message: "a tour needs at least one page") }
        return Tour(
            id: id, trigger: try values.rule("trigger"),
            targeting: Targeting(
                rule: try values.targetingRule("targeting"), rollout: try values.wholeNumber("rollout", default: 100, in: 0...100)),
            screens: try values.screens("screens"),
            pages: ordered.sorted { ($0.order, $0.position) < ($1.order, $1.position) }.map(\.page)
        )
    }
}

/// A media entry's form fields: its id and one row per variant.
struct MediaFields {
    static let columns = ["url", "thumbnail", "type", "model", "family", "minAppVersion", "locale"]

    var id: String
    /// Keyed by ``columns``.
    var variants: [[String: String]]

    static let empty = MediaFields(id: "", variants: [[:]])

    init(id: String, variants: [[String: String]]) {
        self.id = id
        self.variants = variants
    }

    init(_ media: Media) {
        id = media.id
        variants =
            media.variants.map { variant in
                var row = [
                    "url": variant.url, "thumbnail": variant.thumbnail ?? "", "type": variant.type ?? "", "model": variant.model ?? "",
                ]
                row["family"] = variant.family ?? ""
                row["minAppVersion"] = variant.minAppVersion?.description ?? ""
                row["locale"] = variant.locale ?? ""
                return row
            } + [[:]]
    }

    init(form: Form) {
        id = form["id"] ?? ""
        variants = (0..<50).compactMap { index in
            guard form["variant.\(index).url"] != nil else { return nil }
            return Dictionary(uniqueKeysWithValues: Self.columns.map { ($0, form["variant.\(index).\($0)"] ?? "") })
        }
        if !variants.contains(where: { $0.text("url") == nil }) { variants.append([:]) }
    }

    /// The media entry: rows without a URL are dropped; the server chooses among the rest per
    /// client by model, family, app version and locale.
    func media() throws(FieldError) -> Media {
        let id = id.trimmingCharacters(in: .whitespaces)
        guard !id.isEmpty else { throw FieldError(field: "id", message: "a media entry needs an id") }
        var variants: [MediaVariant] = []
        for (index, row) in self.variants.enumerated() {
            guard let url = row.text("url") else { continue }
            func problem(_ message: String) -> FieldError { FieldError(field: "variants", message: "variant \(index + 1): \(message)") }
            guard CatalogDocument.isWebURL(url) else { throw problem("the URL must be http or https, with a host") }
            if let thumbnail = row.text("thumbnail"), !CatalogDocument.isWebURL(thumbnail) {
                throw problem("the thumbnail must be an http or https URL")
            }
            var version: Version?
            if let text = row.text("minAppVersion") {
                guard let read = Version(reading: text) else {
                    throw problem("the oldest app version must be digits and dots, such as 1.3")
                }
                version = read
            }
            variants.append(
                MediaVariant(
                    url: url, thumbnail: row.text("thumbnail"), type: row.text("type"), model: row.text("model"),
                    family: row.text("family"),
                    minAppVersion: version, locale: row.text("locale")
                )
            )
        }
        guard !variants.isEmpty else { throw FieldError(field: "variants", message: "a media entry needs at least one URL") }
        return Media(id: id, variants: variants)
    }
}
