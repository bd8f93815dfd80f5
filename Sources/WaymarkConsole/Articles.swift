import Foundation
import HTTPTypes
import Hummingbird
import WaymarkCatalog
import WaymarkRules
import WaymarkServer
import WaymarkStore

/// Help articles in a form: the title and text, the screens it belongs to, the words it is found
/// by, and who gets it. Translations and narration written in the catalog are kept.
extension WaymarkConsole {
    func articlePage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess, new: Bool) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let catalog = try await server.draftCatalog(app: app.id)?.catalog ?? Catalog(tips: [])
        if new { return articleForm(signedIn, app, ArticleFields(values: ["rollout": "100"]), new: true) }
        guard let id = context.parameters.get("id"), let article = catalog.articles.first(where: { $0.id == id }) else {
            throw ConsoleError.notFound
        }
        return articleForm(signedIn, app, ArticleFields(article), new: false)
    }

    func saveArticle(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        let isNew = form["new"] == "1"
        var fields = ArticleFields(
            values: Dictionary(
                uniqueKeysWithValues: ["id", "title", "body", "screens", "keywords", "targeting", "rollout"].map { ($0, form[$0] ?? "") }))
        if !isNew { fields.values["id"] = context.parameters.get("id") ?? "" }
        let id = fields.values["id"] ?? ""
        var errors = RuleCheck.errors(fields.values, [("targeting", required: nil, kind: .targeting)])
        if errors.isEmpty {
            errors = try await saveEdit(app: app, actor: signedIn.actor) { catalog in
                let existing = catalog.articles.firstIndex { $0.id == id }
                if isNew, existing != nil { throw FieldError(field: "id", message: "an article \"\(id)\" exists already") }
                if !isNew, existing == nil { throw FieldError(field: "id", message: "the article \"\(id)\" was deleted meanwhile") }
                let article = try fields.article(updating: existing.map { catalog.articles[$0] })
                if let existing { catalog.articles[existing] = article } else { catalog.articles.append(article) }
            }
            if errors.isEmpty { return .redirect(to: "/console/apps/\(app.id)?saved=\(id)", type: .normal) }
        }
        return articleForm(signedIn, app, fields, new: isNew, errors: errors, status: .unprocessableContent)
    }

    func deleteArticle(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        try await deleteObject(request, context, access) { catalog, id in
            guard catalog.articles.contains(where: { $0.id == id }) else { throw ConsoleError.notFound }
            catalog.articles.removeAll { $0.id == id }
        }
    }

    private func articleForm(
        _ signedIn: SignedIn, _ app: AppRecord, _ fields: ArticleFields, new: Bool, errors: [String: [String: String]] = [:],
        status: HTTPResponse.Status = .ok
    ) -> Response {
        var values = frame(new ? "New help article" : "Article \(fields.values["id"] ?? "")", signedIn, app: app)
        for (name, value) in fields.values { values["f_" + name] = value }
        values["new"] = new
        values["hasErrors"] = !errors.isEmpty
        for (name, error) in errors { values["e_" + name] = error }
        return Templates.page("article", values, status: status)
    }
}

/// An article's form fields as text; screens and keywords are comma-separated lists.
struct ArticleFields {
    var values: [String: String]

    init(values: [String: String]) { self.values = values }

    init(_ article: Article) {
        values = [
            "id": article.id, "title": article.content.fallback.title, "body": Content.editable(article.content.fallback),
            "screens": article.screens.joined(separator: ", "), "keywords": article.keywords.joined(separator: ", "),
            "targeting": article.targeting.rule?.description ?? "", "rollout": String(article.targeting.rollout),
        ]
    }

    /// The article these fields describe, keeping its translations and narration from `existing`.
    func article(updating existing: Article?) throws(FieldError) -> Article {
        guard let id = values.text("id") else { throw FieldError(field: "id", message: "an article needs an id") }
        guard CatalogDocument.isIdentifier(id) else { throw FieldError(field: "id", message: "letters, digits, -, _ or . only") }
        guard let title = values.text("title") else { throw FieldError(field: "title", message: "an article needs a title") }
        let screens = try values.screens("screens")
        let keywords = values.list("keywords")
        guard keywords.count <= Article.keywordLimit, keywords.allSatisfy({ $0.utf8.count <= 64 }) else {
            throw FieldError(field: "keywords", message: "at most \(Article.keywordLimit) keywords of 1 to 64 bytes")
        }
        return Article(
            id: id,
            content: Localized(
                Content.written(title: title, body: values["body"] ?? "", html: false, keeping: existing?.content.fallback),
                locales: existing?.content.locales ?? [:]),
            screens: screens, keywords: keywords,
            targeting: Targeting(
                rule: try values.targetingRule("targeting"), rollout: try values.wholeNumber("rollout", default: 100, in: 0...100)))
    }
}
