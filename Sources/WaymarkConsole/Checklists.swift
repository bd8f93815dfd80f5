import Foundation
import HTTPTypes
import Hummingbird
import WaymarkAPI
import WaymarkCatalog
import WaymarkDelivery
import WaymarkRules
import WaymarkServer
import WaymarkStore

/// Onboarding checklists in a form: the checklist's title and text, when it is offered, to whom,
/// its credits, and its items (each with the rule that marks it done and what its "Show me"
/// starts). Translations written in the catalog are kept.
extension WaymarkConsole {
    func checklistPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess, new: Bool) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let catalog = try await server.draftCatalog(app: app.id)?.catalog ?? Catalog(tips: [])
        if new { return try await checklistForm(signedIn, app, catalog, ChecklistFields.empty, new: true) }
        guard let id = context.parameters.get("id"), let checklist = catalog.checklists.first(where: { $0.id == id }) else {
            throw ConsoleError.notFound
        }
        return try await checklistForm(signedIn, app, catalog, ChecklistFields(checklist), new: false)
    }

    func saveChecklist(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        let isNew = form["new"] == "1"
        var fields = ChecklistFields(form: form)
        if !isNew { fields.values["id"] = context.parameters.get("id") ?? "" }
        let id = fields.values["id"] ?? ""
        var errors = fields.ruleErrors()
        if errors.isEmpty {
            errors = try await saveEdit(app: app, actor: signedIn.actor) { catalog in
                let existing = catalog.checklists.firstIndex { $0.id == id }
                if isNew, existing != nil { throw FieldError(field: "id", message: "a checklist \"\(id)\" exists already") }
                if !isNew, existing == nil { throw FieldError(field: "id", message: "the checklist \"\(id)\" was deleted meanwhile") }
                let checklist = try fields.checklist(updating: existing.map { catalog.checklists[$0] })
                if let existing { catalog.checklists[existing] = checklist } else { catalog.checklists.append(checklist) }
            }
            if errors.isEmpty { return .redirect(to: "/console/apps/\(app.id)?saved=\(id)", type: .normal) }
        }
        let catalog = try await server.draftCatalog(app: app.id)?.catalog ?? Catalog(tips: [])
        return try await checklistForm(signedIn, app, catalog, fields, new: isNew, errors: errors, status: .unprocessableContent)
    }

    func deleteChecklist(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        try await deleteObject(request, context, access) { catalog, id in
            guard catalog.checklists.contains(where: { $0.id == id }) else { throw ConsoleError.notFound }
            catalog.checklists.removeAll { $0.id == id }
        }
    }

    /// A draft checklist's panel, or a draft article in the help panel, as the server would deliver
    /// it to a chosen client (its locale), drawn by waymark.js's own launcher with nothing kept or sent.
    func launcherPreviewPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess, articles: Bool) async throws
        -> Response
    {
        let (signedIn, app) = (access.signedIn, access.app)
        guard let id = context.parameters.get("id"), let draft = try await server.draftCatalog(app: app.id) else {
            throw ConsoleError.notFound
        }
        let choice = PreviewClient(request)
        // The object itself, whatever its targeting says; the message says whether this client gets it.
        var only = Catalog(tips: [])
        let targeting: Targeting
        if articles {
            guard let article = draft.catalog.articles.first(where: { $0.id == id }) else { throw ConsoleError.notFound }
            targeting = article.targeting
            only.articles = [article]
            only.articles[0].targeting = Targeting()
        } else {
            guard let checklist = draft.catalog.checklists.first(where: { $0.id == id }) else { throw ConsoleError.notFound }
            targeting = checklist.targeting
            only.checklists = [checklist]
            only.checklists[0].targeting = Targeting()
        }
        let delivered = Resolver(catalog: only, version: 0).resolve(for: choice.client)
        let kind = articles ? "article" : "checklist"
        var values = frame("Preview of the \(kind) \(id)", signedIn, app: app)
        values.merge(choice.values) { $1 }
        values["previewScript"] = true
        values["action"] = "/console/apps/\(app.id)/\(kind)s/\(id)/preview"
        values["back"] = "/console/apps/\(app.id)/\(kind)s/\(id)"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let launcher = DeliveredCatalog(
            version: 0, frequency: "immediate", tips: [], tours: [], checklists: delivered.checklists, articles: delivered.articles,
            ui: delivered.ui)
        values["launcherJSON"] = String(decoding: try encoder.encode(launcher), as: UTF8.self)
        let locale = delivered.checklists?.first?.content.locale ?? delivered.articles?.first?.content.locale ?? "default"
        let targeted = Resolver.admits(targeting, id: id, context: choice.client.values, user: choice.client.user)
        values["message"] =
            "The \(kind) as \(choice.client.platform ?? "") \(choice.client.model ?? "") \(choice.client.appVersion ?? "") would get it, in \(locale)"
            + (targeted ? "." : ". This client is not targeted: it would not get the \(kind).")
        return Templates.page("preview", values)
    }

    private func checklistForm(
        _ signedIn: SignedIn, _ app: AppRecord, _ catalog: Catalog, _ fields: ChecklistFields, new: Bool,
        errors: [String: [String: String]] = [:], status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        var values = frame(new ? "New checklist" : "Checklist \(fields.values["id"] ?? "")", signedIn, app: app)
        for (name, value) in fields.values { values["f_" + name] = value }
        values["new"] = new
        values["hasErrors"] = !errors.isEmpty
        for (name, error) in errors { values["e_" + name] = error }
        let starts =
            [("", "nothing")] + catalog.tours.map { ("tour:\($0.id)", "tour \($0.id)") }
            + catalog.tips.map { ("tip:\($0.id)", "tip \($0.id)") }
        values["items"] = fields.items.enumerated().map { index, item in
            [
                "index": index, "number": index + 1, "id": item.id, "title": item.title, "done": item.done,
                "starts": starts.map { ["value": $0.0, "label": $0.1, "selected": $0.0 == item.start] as [String: Any] },
            ] as [String: Any]
        }
        values.merge(try await ruleVocabulary(app: app.id)) { _, vocabulary in vocabulary }
        return Templates.page("checklist", values, status: status)
    }
}

/// A checklist's form fields as text.
struct ChecklistFields {
    struct ItemRow { var id = "", title = "", done = "", start = "" }

    var values: [String: String]
    var items: [ItemRow]

    static let empty = ChecklistFields(values: ["rollout": "100"], items: [ItemRow()])

    init(values: [String: String], items: [ItemRow]) {
        self.values = values
        self.items = items
    }

    init(_ checklist: Checklist) {
        values = [
            "id": checklist.id, "title": checklist.content.fallback.title, "body": Content.editable(checklist.content.fallback),
            "trigger": checklist.trigger?.description ?? "", "targeting": checklist.targeting.rule?.description ?? "",
            "rollout": String(checklist.targeting.rollout), "reward": checklist.reward.map(String.init) ?? "",
            "screens": checklist.screens.joined(separator: ", "),
        ]
        items =
            checklist.items.map { item in
                let start =
                    switch item.start {
                    case .tour(let id): "tour:\(id)"
                    case .tip(let id): "tip:\(id)"
                    case nil: ""
                    }
                return ItemRow(id: item.id, title: item.content.fallback.title, done: item.done.description, start: start)
            } + (checklist.items.count < Checklist.itemLimit ? [ItemRow()] : [])
    }

    init(form: Form) {
        values = [:]
        for name in ["id", "title", "body", "trigger", "targeting", "rollout", "reward", "screens"] { values[name] = form[name] ?? "" }
        items = (0..<Checklist.itemLimit).compactMap { index in
            guard let id = form["item.\(index).id"] else { return nil }
            return ItemRow(
                id: id, title: form["item.\(index).title"] ?? "", done: form["item.\(index).done"] ?? "",
                start: form["item.\(index).start"] ?? "")
        }
        if items.count < Checklist.itemLimit && !items.contains(where: { $0.id.trimmingCharacters(in: .whitespaces).isEmpty }) {
            items.append(ItemRow())
        }
    }

    func ruleErrors() -> [String: [String: String]] {
        RuleCheck.errors(values, [("trigger", required: nil, kind: .event), ("targeting", required: nil, kind: .targeting)])
    }

    /// The checklist these fields describe, keeping each text's translations and narration from
    /// `existing`; an item whose id is blanked is removed.
    func checklist(updating existing: Checklist?) throws(FieldError) -> Checklist {
        guard let id = values.text("id") else { throw FieldError(field: "id", message: "a checklist needs an id") }
        guard CatalogDocument.isIdentifier(id) else { throw FieldError(field: "id", message: "letters, digits, -, _ or . only") }
        guard let title = values.text("title") else { throw FieldError(field: "title", message: "a checklist needs a title") }
        var reward: Int?
        if values.text("reward") != nil { reward = try values.wholeNumber("reward", default: 0, in: 1...1_000_000) }
        var built: [ChecklistItem] = []
        for row in items {
            let itemID = row.id.trimmingCharacters(in: .whitespaces)
            guard !itemID.isEmpty else { continue }
            func problem(_ message: String) -> FieldError { FieldError(field: "items", message: "item \(itemID): \(message)") }
            guard CatalogDocument.isIdentifier(itemID) else { throw problem("its id is letters, digits, -, _ or .") }
            guard !built.contains(where: { $0.id == itemID }) else { throw problem("two items have this id") }
            let itemTitle = row.title.trimmingCharacters(in: .whitespaces)
            guard !itemTitle.isEmpty else { throw problem("an item needs a title") }
            let done: Rule
            do { done = try Rule(parsing: row.done) } catch { throw problem("its rule: \(error.message)") }
            let start: ChecklistItem.Start? =
                row.start.hasPrefix("tour:")
                ? .tour(String(row.start.dropFirst(5)))
                : row.start.hasPrefix("tip:") ? .tip(String(row.start.dropFirst(4))) : nil
            let old = existing?.items.first { $0.id == itemID }
            let content = Localized(
                Content(title: itemTitle, markdown: old?.content.fallback.markdown ?? "", audio: old?.content.fallback.audio),
                locales: old?.content.locales ?? [:])
            built.append(ChecklistItem(id: itemID, content: content, done: done, start: start))
        }
        guard !built.isEmpty else { throw FieldError(field: "items", message: "a checklist needs at least one item") }
        guard built.count <= Checklist.itemLimit else {
            throw FieldError(field: "items", message: "a checklist has at most \(Checklist.itemLimit) items")
        }
        return Checklist(
            id: id,
            content: Localized(
                Content.written(title: title, body: values["body"] ?? "", html: false, keeping: existing?.content.fallback),
                locales: existing?.content.locales ?? [:]),
            trigger: try values.rule("trigger"),
            targeting: Targeting(
                rule: try values.targetingRule("targeting"), rollout: try values.wholeNumber("rollout", default: 100, in: 0...100)),
            screens: try values.screens("screens"), reward: reward, items: built)
    }
}
