import Foundation
import Hummingbird
import WaymarkCatalog
import WaymarkStore

/// Authoring the draft catalog, for secret keys: the whole document at once, or one tip, tour or
/// media entry at a time. Either way the whole catalog is checked before anything is saved, and
/// what is saved is the canonical document (``CatalogDocument/yaml(_:)``): Markdown as written,
/// HTML sanitized, comments gone.
///
/// Every save makes a new revision of the draft, sent as the ETag `"rN"`. A whole-document PUT with
/// `If-Match` is refused with 412 when someone saved in between; per-object changes re-apply
/// themselves to the newer draft instead.
extension WaymarkServer {
    func getDraft(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        guard let draft = try await store.draft(app: key.app) else {
            throw APIError(.notFound, .noDraft, "no draft yet: PUT /v1/admin/catalog/draft")
        }
        return yamlResponse(draft.document, revision: draft.revision)
    }

    /// Saves the whole catalog document (YAML or JSON) as the draft, if it reads without errors;
    /// otherwise 422 with every error as `draft:line:column: message` and the line with a caret.
    func putDraft(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let document = try await text(of: request, context)
        var expected: Int?
        if let match = request.headers[.ifMatch] {
            guard let revision = Self.revision(inETag: match) else {
                throw APIError(.preconditionFailed, .draftChanged, "If-Match must be the draft's ETag, such as \"r3\"")
            }
            expected = revision
        }
        let catalog = try check(document, file: "draft")
        // The audit compares with the draft read here; a save in between fails If-Match, or (without
        // If-Match) is replaced, and its objects are then logged as changed from the older draft.
        let previous = try await draftCatalog(app: key.app)?.catalog ?? Catalog(tips: [])
        let time = now()
        let audit = CatalogChange.changes(from: previous, to: catalog).map {
            AuditEntry(change: $0, app: key.app, actor: .key(key.id), at: time)
        }
        guard
            let saved = try await store.saveDraft(
                app: key.app, document: CatalogDocument.yaml(catalog), at: time, audit: audit,
                accept: CatalogDraft.unchanged(since: expected)
            )
        else {
            throw APIError(.preconditionFailed, .draftChanged, "the draft changed since revision \(expected ?? 0): GET it again")
        }
        // Saved, and said so where a tip names an anchor or area no screen has shown the SDKs.
        let warnings = SightingCheck(try await store.sightings(app: key.app)).warnings(catalog)
        return jsonResponse(DraftSummary(catalog, revision: saved.revision, warnings: warnings), headers: Self.etag(saved.revision))
    }

    func check(_ document: String, file: String) throws -> Catalog {
        try diagnosed { () throws(DiagnosticsError) in try CatalogDocument.parse(document, file: file) }
    }

    // MARK: One object at a time

    /// `GET /v1/admin/catalog/draft/{tips|tours|media|segments}`: the ids, in order.
    func listObjects(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let kind = try objectKind(context)
        let catalog = try await draftCatalog(app: key.app)?.catalog ?? Catalog(tips: [])
        return jsonResponse(kind.ids(in: catalog))
    }

    func getObject(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let (kind, id) = try (objectKind(context), objectID(context))
        guard let (catalog, revision) = try await draftCatalog(app: key.app), let yaml = kind.yaml(id, in: catalog) else {
            throw APIError.notFound
        }
        return yamlResponse(yaml, revision: revision)
    }

    /// Creates or replaces one object from its YAML or JSON. The id in the body must be the id in
    /// the path. 201 when it is new, 200 when it replaced one; the body is the object as saved.
    func putObject(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let (kind, id) = try (objectKind(context), objectID(context))
        let text = try await text(of: request, context)
        var created = false
        let (catalog, revision) = try await editDraft(app: key.app, actor: .key(key.id)) { catalog in
            let object = try diagnosed { () throws(DiagnosticsError) in
                try kind.parse(text, mediaIDs: Set(catalog.media.map(\.id)))
            }
            guard object.id == id else {
                throw APIError(.unprocessableContent, .idMismatch, "the body's id is \"\(object.id)\", the path's \"\(id)\"")
            }
            created = kind.upsert(object, into: &catalog)
        }
        return yamlResponse(kind.yaml(id, in: catalog) ?? "", revision: revision, status: created ? .created : .ok)
    }

    func deleteObject(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let (kind, id) = try (objectKind(context), objectID(context))
        let (_, revision) = try await editDraft(app: key.app, actor: .key(key.id)) { catalog in
            guard kind.remove(id, from: &catalog) else { throw APIError.notFound }
        }
        return Response(status: .noContent, headers: Self.etag(revision))
    }

    private func objectKind(_ context: WaymarkRequestContext) throws -> DraftObjectKind {
        guard let kind = context.parameters.get("kind").flatMap(DraftObjectKind.init(rawValue:)) else { throw APIError.notFound }
        return kind
    }

    private func objectID(_ context: WaymarkRequestContext) throws -> String {
        guard let id = context.parameters.get("id") else { throw APIError.notFound }
        return id
    }

    private func text(of request: Request, _ context: WaymarkRequestContext) async throws -> String {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        guard let text = String(validating: buffer.readableBytesView, as: UTF8.self) else {
            throw APIError.badRequest("the document is not UTF-8 text")
        }
        return text
    }

    /// A catalog document, or one object of it, with the draft revision it was read from as ETag.
    func yamlResponse(_ yaml: String, revision: Int? = nil, status: HTTPResponse.Status = .ok) -> Response {
        var headers = revision.map(Self.etag) ?? [:]
        headers[.contentType] = "application/yaml; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: yaml)))
    }

    static func etag(_ revision: Int) -> HTTPFields {
        var headers = HTTPFields()
        headers[.eTag] = "\"r\(revision)\""
        return headers
    }

    static func revision(inETag tag: String) -> Int? {
        let trimmed = tag.withoutBlanks
        guard trimmed.hasPrefix("\"r"), trimmed.hasSuffix("\""), trimmed.count > 3 else { return nil }
        return Int(trimmed.dropFirst(2).dropLast())
    }
}

/// Runs a catalog read, turning its diagnostics into a 422 answer.
func diagnosed<T>(_ body: () throws(DiagnosticsError) -> T) throws(APIError) -> T {
    do {
        return try body()
    } catch {
        throw APIError(
            .unprocessableContent, .invalidCatalog, "the catalog has \(error.diagnostics.count) error(s)",
            diagnostics: error.diagnostics.map(\.description)
        )
    }
}

/// The objects of a catalog the admin API edits one at a time, by their path segment.
enum DraftObjectKind: String {
    case tips, tours, checklists, articles, media, segments

    /// An object of this kind read from a request body (its errors point into the body).
    enum Object {
        case tip(CatalogTip)
        case tour(Tour)
        case media(Media)
        case segment(Segment)
        case checklist(Checklist)
        case article(Article)

        var id: String {
            switch self {
            case .tip(let tip): tip.id
            case .tour(let tour): tour.id
            case .media(let media): media.id
            case .segment(let segment): segment.name
            case .checklist(let checklist): checklist.id
            case .article(let article): article.id
            }
        }
    }

    func parse(_ text: String, mediaIDs: Set<String>) throws(DiagnosticsError) -> Object {
        switch self {
        case .tips: .tip(try CatalogDocument.parseTip(text, file: "body"))
        case .tours: .tour(try CatalogDocument.parseTour(text, file: "body", mediaIDs: mediaIDs))
        case .media: .media(try CatalogDocument.parseMedia(text, file: "body"))
        case .segments: .segment(try CatalogDocument.parseSegment(text, file: "body"))
        case .checklists: .checklist(try CatalogDocument.parseChecklist(text, file: "body"))
        case .articles: .article(try CatalogDocument.parseArticle(text, file: "body"))
        }
    }

    func ids(in catalog: Catalog) -> [String] {
        switch self {
        case .tips: catalog.tips.map(\.id)
        case .tours: catalog.tours.map(\.id)
        case .media: catalog.media.map(\.id)
        case .segments: catalog.segments.map(\.name)
        case .checklists: catalog.checklists.map(\.id)
        case .articles: catalog.articles.map(\.id)
        }
    }

    func yaml(_ id: String, in catalog: Catalog) -> String? {
        switch self {
        case .tips: catalog.tips.first { $0.id == id }.map(CatalogDocument.yaml)
        case .tours: catalog.tours.first { $0.id == id }.map(CatalogDocument.yaml)
        case .media: catalog.media.first { $0.id == id }.map(CatalogDocument.yaml)
        case .segments: catalog.segments.first { $0.name == id }.map(CatalogDocument.yaml)
        case .checklists: catalog.checklists.first { $0.id == id }.map(CatalogDocument.yaml)
        case .articles: catalog.articles.first { $0.id == id }.map(CatalogDocument.yaml)
        }
    }

    /// Replaces the object with the same id, or appends it; true when it was new.
    func upsert(_ object: Object, into catalog: inout Catalog) -> Bool {
        switch object {
        case .tip(let tip): Self.upsert(tip, into: &catalog.tips, id: \.id)
        case .tour(let tour): Self.upsert(tour, into: &catalog.tours, id: \.id)
        case .media(let media): Self.upsert(media, into: &catalog.media, id: \.id)
        case .segment(let segment): Self.upsert(segment, into: &catalog.segments, id: \.name)
        case .checklist(let checklist): Self.upsert(checklist, into: &catalog.checklists, id: \.id)
        case .article(let article): Self.upsert(article, into: &catalog.articles, id: \.id)
        }
    }

    /// Removes the object; false when there was none.
    func remove(_ id: String, from catalog: inout Catalog) -> Bool {
        let before = ids(in: catalog).count
        switch self {
        case .tips: catalog.tips.removeAll { $0.id == id }
        case .tours: catalog.tours.removeAll { $0.id == id }
        case .media: catalog.media.removeAll { $0.id == id }
        case .segments: catalog.segments.removeAll { $0.name == id }
        case .checklists: catalog.checklists.removeAll { $0.id == id }
        case .articles: catalog.articles.removeAll { $0.id == id }
        }
        return ids(in: catalog).count < before
    }

    private static func upsert<T>(_ value: T, into list: inout [T], id: KeyPath<T, String>) -> Bool {
        if let index = list.firstIndex(where: { $0[keyPath: id] == value[keyPath: id] }) {
            list[index] = value
            return false
        }
        list.append(value)
        return true
    }
}

struct DraftSummary: Codable {
    var tips: Int
    var tours: Int
    var media: Int
    var revision: Int
    /// Tips whose anchor or area no screen has shown the SDKs (``SightingCheck``): saved all the same.
    var warnings: [String]

    init(_ catalog: Catalog, revision: Int, warnings: [String] = []) {
        tips = catalog.tips.count
        tours = catalog.tours.count
        media = catalog.media.count
        self.revision = revision
        self.warnings = warnings
    }
}
