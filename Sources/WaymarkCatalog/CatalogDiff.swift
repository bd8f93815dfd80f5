/// What changed between two catalogs, object by object: the audit log records each change, and
/// the console shows them before publishing.
public struct CatalogChange: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case tip, tour, checklist, article, media, segment
        /// Frequency, locales, rewards, narration and listening: the settings of the whole catalog.
        case settings
    }

    public var kind: Kind
    /// The object's id (a segment's name); `catalog` for settings.
    public var id: String
    /// The object as canonical YAML; nil when it did not exist.
    public var before: String?
    public var after: String?

    public init(kind: Kind, id: String, before: String?, after: String?) {
        self.kind = kind
        self.id = id
        self.before = before
        self.after = after
    }

    /// `added`, `removed` or `changed`.
    public var verb: String { before == nil ? "added" : after == nil ? "removed" : "changed" }

    /// The line-by-line difference of the two YAML texts.
    public var lines: [DiffLine] { DiffLine.diff(before ?? "", after ?? "") }

    /// The changes from `old` to `new`: objects in `new`'s order, then the removed ones, then settings.
    public static func changes(from old: Catalog, to new: Catalog) -> [CatalogChange] {
        var changes: [CatalogChange] = []
        func compare<T: Hashable>(_ kind: Kind, _ old: [T], _ new: [T], id: (T) -> String, yaml: (T) -> String) {
            let oldByID = Dictionary(old.map { (id($0), $0) }, uniquingKeysWith: { first, _ in first })
            let newIDs = Set(new.map(id))
            for object in new {
                let previous = oldByID[id(object)]
                if previous != object {
                    changes.append(CatalogChange(kind: kind, id: id(object), before: previous.map(yaml), after: yaml(object)))
                }
            }
            for object in old where !newIDs.contains(id(object)) {
                changes.append(CatalogChange(kind: kind, id: id(object), before: yaml(object), after: nil))
            }
        }
        compare(.tip, old.tips, new.tips, id: \.id, yaml: CatalogDocument.yaml)
        compare(.tour, old.tours, new.tours, id: \.id, yaml: CatalogDocument.yaml)
        compare(.checklist, old.checklists, new.checklists, id: \.id, yaml: CatalogDocument.yaml)
        compare(.article, old.articles, new.articles, id: \.id, yaml: CatalogDocument.yaml)
        compare(.media, old.media, new.media, id: \.id, yaml: CatalogDocument.yaml)
        compare(.segment, old.segments, new.segments, id: \.name, yaml: CatalogDocument.yaml)
        let settings = { (catalog: Catalog) in
            CatalogDocument.yaml(
                Catalog(
                    frequency: catalog.frequency, locales: catalog.locales, tips: [], rewards: catalog.rewards,
                    narration: catalog.narration,
                    listen: catalog.listen)
            )
        }
        if old.frequency != new.frequency || old.locales != new.locales || old.rewards != new.rewards || old.narration != new.narration
            || old.listen != new.listen
        {
            changes.append(CatalogChange(kind: .settings, id: "catalog", before: settings(old), after: settings(new)))
        }
        return changes
    }
}

/// One line of a line diff: kept, removed (only in the old text) or added (only in the new).
public struct DiffLine: Hashable, Sendable {
    public enum Change: String, Hashable, Sendable { case kept, removed, added }

    public var change: Change
    public var text: String

    public init(_ change: Change, _ text: String) {
        self.change = change
        self.text = text
    }

    /// The shortest edit from `old` to `new` by lines (longest common subsequence). Catalog objects
    /// are short, so the quadratic table is small; beyond 2,000 lines a side, every old line is
    /// removed and every new one added.
    public static func diff(_ old: String, _ new: String) -> [DiffLine] {
        let a = lines(old)
        let b = lines(new)
        guard a.count <= 2000, b.count <= 2000 else { return a.map { DiffLine(.removed, $0) } + b.map { DiffLine(.added, $0) } }
        // common[i][j]: the length of the longest common subsequence of a[i...] and b[j...].
        var common = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                common[i][j] = a[i] == b[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var lines: [DiffLine] = []
        var (i, j) = (0, 0)
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                lines.append(DiffLine(.kept, a[i]))
                (i, j) = (i + 1, j + 1)
            } else if j < b.count, i == a.count || common[i][j + 1] >= common[i + 1][j] {
                lines.append(DiffLine(.added, b[j]))
                j += 1
            } else {
                lines.append(DiffLine(.removed, a[i]))
                i += 1
            }
        }
        return lines
    }

    /// The lines of a text; a final line break ends the last line rather than starting an empty one.
    private static func lines(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }
}
