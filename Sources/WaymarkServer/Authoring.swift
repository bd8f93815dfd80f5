import Foundation
import HTTPTypes
import WaymarkCatalog
import WaymarkStore

extension AuditEntry {
    /// The entry for one object's change: `tip.added`, `tour.changed`, `media.removed`, `settings.changed`.
    public init(change: CatalogChange, app: String, actor: AuditEntry.Actor, at time: Date) {
        self.init(
            app: app, actor: actor, at: time, action: .change(of: change.kind.rawValue, change.verb),
            object: "\(change.kind.rawValue) \(change.id)", before: change.before, after: change.after
        )
    }
}

extension AuditEntry {
    /// The entry of a publication: `publish` of `version N`, with its note (a rollback's "rollback to N").
    public static func publication(by actor: AuditEntry.Actor) -> @Sendable (CatalogVersion) -> [AuditEntry] {
        { version in
            [
                AuditEntry(
                    app: version.app, actor: actor, at: version.publishedAt, action: .publish, object: "version \(version.number)",
                    before: nil, after: version.note
                )
            ]
        }
    }
}

extension CatalogDraft {
    /// Whether a save may replace the draft: when it was made from revision `expected` (0: there
    /// was no draft), and the draft is still at it; always when `expected` is nil (a save that
    /// means to replace whatever is there).
    public static func unchanged(since expected: Int?) -> @Sendable (_ currentRevision: Int) -> Bool {
        { current in expected == nil || current == expected }
    }
}

/// Changing an app's catalog, for the admin API and the console alike: every change is checked
/// whole, saved as a new draft revision, and written to the audit log in the same transaction.
extension WaymarkServer {
    /// The app's draft, read and checked, with its revision; nil when nothing was saved yet.
    public func draftCatalog(app: String) async throws -> (catalog: Catalog, revision: Int)? {
        guard let draft = try await store.draft(app: app) else { return nil }
        return (try check(draft.document, file: "draft"), draft.revision)
    }

    /// Applies `change` to the draft (an empty catalog if there is none), checks the whole result
    /// and saves it; when another save came first, applies the change again to that one.
    @discardableResult
    public func editDraft(
        app: String, actor: AuditEntry.Actor, _ change: (inout Catalog) throws -> Void
    ) async throws -> (catalog: Catalog, revision: Int) {
        for attempt in 0..<20 {
            if attempt > 0 { try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 * attempt)))) }
            let current = try await draftCatalog(app: app)
            let before = current?.catalog ?? Catalog(tips: [])
            var catalog = before
            try change(&catalog)
            let document = CatalogDocument.yaml(catalog)
            // The parts were checked alone; this checks how they fit (ids, group orders, media used by tours).
            let checked = try check(document, file: "draft")
            let time = now()
            let audit = CatalogChange.changes(from: before, to: checked).map { AuditEntry(change: $0, app: app, actor: actor, at: time) }
            if let saved = try await store.saveDraft(
                app: app, document: document, at: time, audit: audit, accept: CatalogDraft.unchanged(since: current?.revision ?? 0)
            ) {
                return (checked, saved.revision)
            }
        }
        throw APIError(.conflict, .draftBusy, "the draft kept changing while this change was saved: try again")
    }

    /// Freezes the draft as the next version and makes it live at once on this server.
    public func publishDraft(app: String, actor: AuditEntry.Actor) async throws -> CatalogVersion {
        guard let draft = try await store.draft(app: app) else {
            throw APIError(.conflict, .noDraft, "nothing to publish: save a draft first")
        }
        _ = try check(draft.document, file: "draft")
        let version = try await store.publish(
            app: app, document: draft.document, at: now(), note: nil, audit: AuditEntry.publication(by: actor),
            notice: { WebhookNotices.published($0) })
        try await cacheLive(version)
        return version
    }

    /// Publishes an earlier version again, as a new version noted "rollback to N". The draft is
    /// left as it is.
    public func rollback(app: String, to number: Int, actor: AuditEntry.Actor) async throws -> CatalogVersion {
        guard let old = try await store.version(app: app, number: number) else { throw APIError.notFound }
        let version = try await store.publish(
            app: app, document: old.document, at: now(), note: "rollback to \(number)", audit: AuditEntry.publication(by: actor),
            notice: { WebhookNotices.published($0, rolledBackTo: number) }
        )
        try await cacheLive(version)
        return version
    }

    /// The catalog of a published version; nil when there is no such version.
    public func publishedCatalog(app: String, number: Int? = nil) async throws -> (catalog: Catalog, version: CatalogVersion)? {
        let found = if let number { try await store.version(app: app, number: number) } else { try await store.liveVersion(app: app) }
        guard let version = found else { return nil }
        return (try check(version.document, file: "version \(version.number)"), version)
    }
}
