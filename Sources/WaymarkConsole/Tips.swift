import Foundation
import Hummingbird
import WaymarkAPI
import WaymarkCatalog
import WaymarkDelivery
import WaymarkEngine
import WaymarkRules
import WaymarkServer
import WaymarkStore

/// An app's overview and its tips, edited in a form. The form changes only the fields it shows:
/// a tip's policy, narration and anything else it does not show are kept as they were.
extension WaymarkConsole {
    func appPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let draft = try await server.draftCatalog(app: app.id)
        let live = try await server.publishedCatalog(app: app.id)
        let liveTips = Dictionary((live?.catalog.tips ?? []).map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let draftCatalog = draft?.catalog ?? Catalog(tips: [])
        func row(_ tip: CatalogTip, _ status: String) -> [String: Any] {
            [
                "id": tip.id, "renderer": tip.renderer.rawValue, "container": tip.tip.container, "trigger": tip.tip.trigger.description,
                "status": status, "title": tip.content.fallback.title, "removed": status.hasPrefix("removed"),
            ]
        }
        let draftIDs = Set(draftCatalog.tips.map(\.id))
        let tips =
            draftCatalog.tips.map { tip in
                row(tip, liveTips[tip.id].map { $0 == tip ? "live" : "changed, not published" } ?? "new, not published")
            }
            + (live?.catalog.tips ?? []).filter { !draftIDs.contains($0.id) }.map { row($0, "removed, not published") }
        var values = frame(app.name, signedIn, app: app)
        values["tips"] = tips
        values["tours"] = draftCatalog.tours.map { tour in
            [
                "id": tour.id, "pages": tour.pages.count, "trigger": tour.trigger?.description ?? "opened by the app",
                "credits": tour.pages.compactMap(\.reward).reduce(0, +),
            ] as [String: Any]
        }
        values["checklists"] = draftCatalog.checklists.map { checklist in
            [
                "id": checklist.id, "title": checklist.content.fallback.title, "items": checklist.items.count,
                "credits": checklist.reward.map(String.init) ?? "none",
            ] as [String: Any]
        }
        values["articles"] = draftCatalog.articles.map { article in
            [
                "id": article.id, "title": article.content.fallback.title,
                "screens": article.screens.isEmpty ? "every screen" : article.screens.joined(separator: ", "),
            ]
        }
        values["media"] = draftCatalog.media.map { media in
            let users = draftCatalog.tours.filter { $0.pages.contains { $0.media == media.id } }.map(\.id)
            return ["id": media.id, "variants": media.variants.count, "usedBy": users.joined(separator: ", ")] as [String: Any]
        }
        values["maxCredits"] = draftCatalog.rewards.maxCreditsPerUser.map(String.init) ?? ""
        values["draftRevision"] = draft?.revision ?? 0
        values["liveVersion"] = live.map { String($0.version.number) } ?? "none"
        values["unpublished"] = draftCatalog != (live?.catalog ?? Catalog(tips: [])) && draft != nil
        values.merge(SightingCheck.values(SightingCheck(try await store.sightings(app: app.id)).warnings(draftCatalog))) { $1 }
        return Templates.page("app", values)
    }

    func tipPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess, new: Bool) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        if new {
            // Picked on "What the app has": the area, anchor or selector the author chose there.
            var fields = TipFields.empty
            for name in ["container", "anchor", "selector"] {
                if let value = request.uri.queryParameters[Substring(name)].map(String.init), !value.isEmpty, value.count <= 512 {
                    fields.values[name] = value
                }
            }
            return try await tipForm(signedIn, app, fields, new: true)
        }
        guard let id = context.parameters.get("id"),
            let tip = try await server.draftCatalog(app: app.id)?.catalog.tips.first(where: { $0.id == id })
        else { throw ConsoleError.notFound }
        return try await tipForm(signedIn, app, TipFields(tip), new: false, proposed: request.uri.queryParameters["proposed"] != nil)
    }

    func saveTip(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        let isNew = form["new"] == "1"
        var fields = TipFields(form: form)
        // A new tip takes its id from the form; an existing one keeps the id of its address.
        if !isNew { fields.values["id"] = context.parameters.get("id") ?? "" }
        let id = fields.values["id"] ?? ""
        // "Write the rule" in a recipe: the rule goes into its field, and nothing is saved yet.
        if let field = form["write"] {
            var recipes = RecipeFields(form: form)
            let errors = recipes.write(into: &fields.values, field: field)
            return try await tipForm(signedIn, app, fields, new: isNew, errors: errors, recipes: recipes)
        }
        var errors = fields.ruleErrors()
        if errors.isEmpty {
            errors = try await saveEdit(app: app, actor: signedIn.actor) { catalog in
                let existing = catalog.tips.first { $0.id == id }
                if isNew, existing != nil { throw FieldError(field: "id", message: "a tip \"\(id)\" exists already") }
                if !isNew, existing == nil { throw FieldError(field: "id", message: "the tip \"\(id)\" was deleted meanwhile") }
                let tip = try fields.tip(updating: existing)
                if let index = catalog.tips.firstIndex(where: { $0.id == id }) {
                    catalog.tips[index] = tip
                } else {
                    catalog.tips.append(tip)
                }
            }
            if errors.isEmpty { return .redirect(to: "/console/apps/\(app.id)?saved=\(id)", type: .normal) }
        }
        return try await tipForm(
            signedIn, app, fields, new: isNew, errors: errors, recipes: RecipeFields(form: form), status: .unprocessableContent)
    }

    func deleteTip(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        try await deleteObject(request, context, access) { catalog, id in
            guard catalog.tips.contains(where: { $0.id == id }) else { throw ConsoleError.notFound }
            catalog.tips.removeAll { $0.id == id }
        }
    }

    /// Applies a form's change to the draft through the server's checked and audited edit. Returns
    /// the form's errors: a field's, or the whole catalog check's under `form`; empty when saved.
    func saveEdit(app: AppRecord, actor: AuditEntry.Actor, _ change: (inout Catalog) throws -> Void) async throws -> [String: [String:
        String]]
    {
        do {
            try await server.editDraft(app: app.id, actor: actor, change)
            return [:]
        } catch let error as FieldError {
            return [error.field: ["message": error.message]]
        } catch let error as APIError {
            return ["form": ["message": error.message, "details": (error.diagnostics ?? []).joined(separator: "\n\n")]]
        }
    }

    /// `POST .../:id/delete` for any kind of object: `change` removes the object `id` from the draft.
    func deleteObject(
        _ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess,
        _ change: @escaping (inout Catalog, String) throws -> Void
    ) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let id = context.parameters.get("id") ?? ""
        try await server.editDraft(app: app.id, actor: signedIn.actor) { try change(&$0, id) }
        return .redirect(to: "/console/apps/\(app.id)", type: .normal)
    }

    /// `GET rules/check?rule=...&kind=event|targeting|segment`: the parser's verdict as one types,
    /// as JSON: `{"ok": true}` or `{"ok": false, "message", "excerpt"}`. Targeting is checked
    /// against the draft's segments.
    func checkRule(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let app = access.app
        let text = request.uri.queryParameters["rule"].map(String.init) ?? ""
        let kind = request.uri.queryParameters["kind"].flatMap { RuleKind(rawValue: String($0)) } ?? .event
        var segments: Set<String>?
        if kind == .targeting { segments = Set((try await server.draftCatalog(app: app.id)?.catalog.segments ?? []).map(\.name)) }
        var body: [String: Any] = ["ok": true]
        if let error = RuleCheck.check(text, kind, segments: segments) {
            body = ["ok": false, "message": error["message"] ?? "", "excerpt": error["excerpt"] ?? ""]
        }
        let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `GET rules/recipe?kind=...&subject=...&number=...`: the rule a recipe writes, as JSON:
    /// `{"ok": true, "rule"}` or `{"ok": false, "message"}`. The form's script fills the field
    /// with it; without the script, the form's own "Write the rule" does the same on the server.
    func writeRecipe(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let query = { (name: String) in request.uri.queryParameters[Substring(name)].map(String.init) ?? "" }
        var body: [String: Any]
        do {
            let rule = try RuleRecipe(kind: query("kind"), subject: query("subject"), number: query("number")).rule()
            body = ["ok": true, "rule": rule.description]
        } catch {
            body = ["ok": false, "message": error.message]
        }
        let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The draft tip as the server would deliver it to one client (platform, model, app version,
    /// locale, user: the same resolution as `GET /v1/catalog`), drawn by waymark.js itself.
    func previewPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        guard let id = context.parameters.get("id"), let draft = try await server.draftCatalog(app: app.id),
            let authored = draft.catalog.tips.first(where: { $0.id == id })
        else { throw ConsoleError.notFound }
        let choice = PreviewClient(request)
        let client = choice.client
        let delivered = Resolver(catalog: draft.catalog, version: 0).resolve(for: client).tips.first { $0.id == id }
        var values = frame("Preview of \(id)", signedIn, app: app)
        values.merge(choice.values) { $1 }
        values["previewScript"] = true
        values["action"] = "/console/apps/\(app.id)/tips/\(id)/preview"
        values["back"] = "/console/apps/\(app.id)/tips/\(id)"
        values["anchor"] = authored.tip.anchor
        if let delivered {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            values["tipJSON"] = String(decoding: try encoder.encode(delivered), as: UTF8.self)
            if let words = InterfaceText.strings(forLocale: client.locale) {
                values["wordsJSON"] = String(decoding: try encoder.encode(words), as: UTF8.self)
            }
            values["message"] =
                "As \(client.platform ?? "") \(client.model ?? "") \(client.appVersion ?? "") in \(delivered.content.locale)"
                + (delivered.variant.map { ", variant \($0)" } ?? "") + ": the draft's tip, drawn by waymark.js."
        } else {
            values["message"] = "This client does not get the tip: its targeting or rollout leaves it out."
        }
        return Templates.page("preview", values)
    }

    private func tipForm(
        _ signedIn: SignedIn, _ app: AppRecord, _ fields: TipFields, new: Bool, errors: [String: [String: String]] = [:],
        recipes: RecipeFields = RecipeFields(), status: HTTPResponse.Status = .ok, proposed: Bool = false
    ) async throws -> Response {
        var values = frame(new ? "New tip" : "Tip \(fields.values["id"] ?? "")", signedIn, app: app)
        values["proposed"] = proposed
        for (name, value) in fields.values { values["f_" + name] = value }
        values["new"] = new
        values["errors"] = errors
        values["hasErrors"] = !errors.isEmpty
        for (name, error) in errors { values["e_" + name] = error }
        values["renderers"] = Renderer.allCases.map {
            ["value": $0.rawValue, "selected": $0.rawValue == fields.values["renderer"]] as [String: Any]
        }
        values["gestures"] = ([""] + Gesture.allCases.map(\.rawValue)).map {
            ["value": $0, "label": $0.isEmpty ? "none" : $0, "selected": $0 == (fields.values["gesture"] ?? "")] as [String: Any]
        }
        values["surveys"] = [("", "No: a tip"), ("csat", "Satisfaction, 1 to 5 (CSAT)"), ("nps", "Would recommend, 0 to 10 (NPS)")].map {
            ["value": $0.0, "label": $0.1, "selected": $0.0 == (fields.values["survey"] ?? "")] as [String: Any]
        }
        values["surveyComment"] = fields.values["surveyComment"] == "1"
        values["locales"] = LocaleRow.values(fields.locales)
        values["variants"] = fields.variants.enumerated().map {
            ["index": $0.offset, "id": $0.element.id, "weight": $0.element.weight, "title": $0.element.title, "body": $0.element.body]
                as [String: Any]
        }
        values["actions"] = ActionRow.values(fields.actions, prefix: "action")
        values["pageURL"] = try await builderPage(app: app.id)
        values.merge(try await sightingOffers(app: app.id)) { $1 }
        let warnings = SightingCheck(try await store.sightings(app: app.id)).warnings(
            tip: fields.values["id"] ?? "", container: fields.values.text("container"), anchor: fields.values.text("anchor"),
            selector: fields.values.text("selector"), renderer: fields.values.text("renderer").flatMap(Renderer.init(rawValue:)))
        values.merge(SightingCheck.values(warnings)) { $1 }
        let vocabulary = try await ruleVocabulary(app: app.id)
        values.merge(vocabulary) { _, vocabulary in vocabulary }
        values.merge(recipes.values(fields: ["trigger", "dismissal"], errors: errors)) { $1 }
        values["recipeNames"] = RecipeFields.names(vocabulary["eventNames"] as? [String] ?? [])
        values["segments"] = (try await server.draftCatalog(app: app.id)?.catalog.segments ?? []).map {
            ["name": $0.name, "summary": $0.summary]
        }
        return Templates.page("tip", values, status: status)
    }

    /// What a rule field's help lists beside it: the events seen in the last 30 days
    /// (`eventNames`), and the attributes the app's users have (`attributes`, as the attributes
    /// page lists them, with one example each).
    func ruleVocabulary(app: String) async throws -> [String: Any] {
        let eventNames = try await store.eventNames(
            app: app, since: now().addingTimeInterval(-30 * 86400).millisecondsSince1970, limit: 200)
        let attributes = try await store.attributeSummary(app: app, examples: 1).map {
            ["name": $0.name, "type": $0.type, "users": $0.users, "example": $0.examples.first ?? ""] as [String: Any]
        }
        return ["eventNames": eventNames, "attributes": attributes]
    }
}

/// A tip's form fields as text, to show in the form and to make the tip from.
struct TipFields {
    struct VariantRow { var id = "", weight = "1", title = "", body = "" }

    var values: [String: String]
    var locales: [LocaleRow]
    var variants: [VariantRow]
    var actions: [ActionRow]

    static let empty = TipFields(
        values: ["renderer": "tooltip", "priority": "0", "rollout": "100", "trigger": "", "format": "markdown"],
        locales: [LocaleRow()], variants: [VariantRow()], actions: [ActionRow()])

    init(values: [String: String], locales: [LocaleRow], variants: [VariantRow], actions: [ActionRow]) {
        self.values = values
        self.locales = locales
        self.variants = variants
        self.actions = actions
    }

    init(_ tip: CatalogTip) {
        let content = tip.content.fallback
        values = [
            "id": tip.id, "container": tip.tip.container, "anchor": tip.tip.anchor ?? "", "selector": tip.selector ?? "",
            "trigger": tip.tip.trigger.description,
            "dismissal": tip.tip.dismissal?.description ?? "", "priority": String(tip.tip.priority), "renderer": tip.renderer.rawValue,
            "gesture": tip.gesture?.rawValue ?? "", "targeting": tip.targeting.rule?.description ?? "",
            "rollout": String(tip.targeting.rollout),
            "title": content.title, "body": Content.editable(content), "format": Content.format(content),
            "survey": tip.survey?.scale.rawValue ?? "", "surveyComment": tip.survey?.comment == true ? "1" : "",
        ]
        locales = LocaleRow.rows(tip.content)
        variants =
            tip.variants.map {
                VariantRow(
                    id: $0.id, weight: String($0.weight), title: $0.content.fallback.title, body: Content.editable($0.content.fallback))
            } + [VariantRow()]
        actions = ActionRow.rows(tip.actions)
    }

    init(form: Form) {
        values = [:]
        for name in [
            "id", "container", "anchor", "selector", "trigger", "dismissal", "priority", "renderer", "gesture", "targeting", "rollout",
            "title", "body",
            "format",
            "survey", "surveyComment",
        ] {
            values[name] = form[name] ?? ""
        }
        locales = LocaleRow.read(form, prefix: "locale")
        variants = (0..<20).compactMap { index in
            guard form["variant.\(index).id"] != nil else { return nil }
            return VariantRow(
                id: form["variant.\(index).id"] ?? "", weight: form["variant.\(index).weight"] ?? "1",
                title: form["variant.\(index).title"] ?? "",
                body: form["variant.\(index).body"] ?? "")
        }
        if !variants.contains(where: { $0.id.isEmpty }) { variants.append(VariantRow()) }
        actions = ActionRow.read(form, prefix: "action")
    }

    /// The parser's errors in the three rule fields, each with its caret excerpt.
    func ruleErrors() -> [String: [String: String]] {
        RuleCheck.errors(
            values,
            [
                ("trigger", required: "a tip needs a trigger: the rule that shows it", kind: .event),
                ("dismissal", required: nil, kind: .event), ("targeting", required: nil, kind: .targeting),
            ])
    }

    /// The tip these fields describe, keeping what the form does not show from `existing`.
    func tip(updating existing: CatalogTip?) throws -> CatalogTip {
        guard let id = values.text("id") else { throw FieldError(field: "id", message: "a tip needs an id") }
        guard let container = values.text("container") else { throw FieldError(field: "container", message: "a tip needs a container") }
        guard let trigger = try values.rule("trigger") else { throw FieldError(field: "trigger", message: "a tip needs a trigger") }
        guard let renderer = Renderer(rawValue: values.text("renderer") ?? "tooltip") else {
            throw FieldError(field: "renderer", message: "no such renderer")
        }
        let gesture = try values.text("gesture").map { name in
            guard let gesture = Gesture(rawValue: name) else { throw FieldError(field: "gesture", message: "no such gesture") }
            return gesture
        }
        guard let title = values.text("title") else { throw FieldError(field: "title", message: "a tip needs a title") }
        let html = values["format"] == "html"
        var tip =
            existing ?? CatalogTip(tip: Tip(id: id, container: container, trigger: trigger), content: Localized(Content(title: title)))
        tip.tip.id = id
        tip.tip.container = container
        tip.tip.anchor = values.text("anchor")
        tip.selector = values.text("selector")
        if let selector = tip.selector {
            if let problem = CSSSelector.problem(selector) {
                throw FieldError(field: "selector", message: "not a CSS selector: \(problem)")
            }
            if tip.tip.anchor != nil {
                throw FieldError(field: "selector", message: "a tip points at one element: by its anchor or by a selector, not both")
            }
        }
        tip.tip.trigger = trigger
        tip.tip.dismissal = try values.rule("dismissal")
        if let scale = values.text("survey") {
            guard let scale = Survey.Scale(rawValue: scale) else { throw FieldError(field: "survey", message: "no such survey") }
            if let problem = Survey.idProblem(id) { throw FieldError(field: "survey", message: problem) }
            tip.survey = Survey(scale: scale, comment: values["surveyComment"] == "1")
            // Answered, a survey is done, unless the author said otherwise.
            if tip.tip.dismissal == nil { tip.tip.dismissal = Survey.answered(tip: id) }
        } else {
            tip.survey = nil
        }
        tip.tip.priority = try values.wholeNumber("priority", default: 0, in: -1000...1000)
        tip.renderer = renderer
        tip.gesture = gesture
        tip.targeting = Targeting(
            rule: try values.targetingRule("targeting"), rollout: try values.wholeNumber("rollout", default: 100, in: 0...100))
        let locales = try LocaleRow.contents(self.locales, html: html, keeping: existing?.content.locales ?? [:], field: "locales")
        tip.content = Localized(
            Content.written(title: title, body: values["body"] ?? "", html: html, keeping: existing?.content.fallback), locales: locales
        )
        tip.variants = try variants.filter { !$0.id.trimmingCharacters(in: .whitespaces).isEmpty }.map { row in
            let variantID = row.id.trimmingCharacters(in: .whitespaces)
            guard let weight = Int(row.weight.trimmingCharacters(in: .whitespaces)), (1...1000).contains(weight) else {
                throw FieldError(field: "variants", message: "variant \(variantID): the weight is a whole number from 1 to 1000")
            }
            guard !row.title.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw FieldError(field: "variants", message: "variant \(variantID) needs a title")
            }
            let old = existing?.variants.first { $0.id == variantID }
            return Variant(
                id: variantID, weight: weight,
                content: Localized(
                    Content.written(title: row.title, body: row.body, html: html, keeping: old?.content.fallback),
                    locales: old?.content.locales ?? [:]
                )
            )
        }
        tip.actions = try ActionRow.actions(actions, next: tip.tip.group != nil, keeping: existing?.actions ?? [], field: "actions")
        return tip
    }
}
