import WaymarkCatalog

/// The tip ids of published catalogs, by their text. A published version never changes, and the
/// reports ask when each live tip was first published (``Eligibility/firstPublished(app:store:)``),
/// which reads every version: parsing each (5 ms for the demo shop's catalog) cost an app with 200
/// versions a second on every report. Each text is parsed once in the process's life and
/// remembered by its digest and length; a text that does not parse has no tips.
actor PublishedTips {
    static let shared = PublishedTips()

    /// How many texts are remembered; past it, all are forgotten and parsed again when asked.
    static let capacity = 20_000

    private var ids: [Key: [String]] = [:]
    /// How many texts were parsed.
    private(set) var parses = 0

    struct Key: Hashable {
        let digest: String
        let length: Int
    }

    /// The ids of the tips of the catalog `document` (`file` names it in a parse error, which is
    /// not reported: such a version has no tips).
    func ids(in document: String, file: String) -> [String] {
        let key = Key(digest: Eligibility.digest(document), length: document.utf8.count)
        if let known = ids[key] { return known }
        parses += 1
        let tips = (try? CatalogDocument.parse(document, file: file))?.tips.map(\.id) ?? []
        if ids.count >= Self.capacity { ids.removeAll() }
        ids[key] = tips
        return tips
    }
}
