import Foundation
import Hummingbird
import WaymarkCatalog
import WaymarkEngine
import WaymarkServer
import WaymarkStore
import WaymarkSupport

/// Publishing with the difference in view, versions with one-step rollback, and the audit log.
extension WaymarkConsole {
    /// The changes the draft would publish, object by object with their lines.
    func publishPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let draft = try await server.draftCatalog(app: app.id)
        let live = try await server.publishedCatalog(app: app.id)
        let changes = CatalogChange.changes(
            from: live?.catalog ?? Catalog(tips: []), to: draft?.catalog ?? live?.catalog ?? Catalog(tips: []))
        var values = frame("Publish", signedIn, app: app)
        values["changes"] = changes.map(Self.changeValues)
        values["hasChanges"] = !changes.isEmpty
        values["hasDraft"] = draft != nil
        values["liveVersion"] = live.map { String($0.version.number) } ?? "none"
        let warnings = SightingCheck(try await store.sightings(app: app.id)).warnings(draft?.catalog ?? live?.catalog ?? Catalog(tips: []))
        values.merge(SightingCheck.values(warnings)) { $1 }
        return Templates.page("publish", values)
    }

    func publish(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let version = try await server.publishDraft(app: app.id, actor: signedIn.actor)
        return .redirect(to: "/console/apps/\(app.id)/versions?published=\(version.number)", type: .normal)
    }

    func versionsPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let versions = try await store.versions(app: app.id)
        var values = frame("Versions", signedIn, app: app)
        values["versions"] = versions.enumerated().map { index, version in
            [
                "number": version.number, "publishedAt": Self.format(version.publishedAt), "note": version.note ?? "",
                "live": index == 0, "canRollBack": index > 0 && (signedIn.role(in: app.id) ?? .viewer) >= .editor,
            ] as [String: Any]
        }
        values["published"] = request.uri.queryParameters["published"].flatMap { Int(String($0)) }
        return Templates.page("versions", values)
    }

    func rollback(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        guard let number = context.parameters.get("number", as: Int.self) else { throw ConsoleError.notFound }
        let version: CatalogVersion
        do {
            version = try await server.rollback(app: app.id, to: number, actor: signedIn.actor)
        } catch let error as APIError where error.status == .notFound {
            throw ConsoleError.notFound
        }
        return .redirect(to: "/console/apps/\(app.id)/versions?published=\(version.number)", type: .normal)
    }

    func auditPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        var values = frame("Audit log", signedIn, app: app)
        values["entries"] = try await store.auditLog(app: app.id, limit: 200).map { entry in
            [
                "sequence": entry.sequence, "at": Self.format(entry.at), "actor": entry.actor.description,
                "action": entry.action.description, "object": entry.object,
                "lines": DiffLine.diff(entry.before ?? "", entry.after ?? "").map(Self.lineValues),
                "hasLines": entry.before != nil || entry.after != nil,
            ] as [String: Any]
        }
        return Templates.page("audit", values)
    }

    static func changeValues(_ change: CatalogChange) -> [String: Any] {
        ["kind": change.kind.rawValue, "id": change.id, "verb": change.verb, "lines": change.lines.map(lineValues)]
    }

    static func lineValues(_ line: DiffLine) -> [String: Any] {
        ["text": line.text, "change": line.change.rawValue, "sign": line.change == .added ? "+" : line.change == .removed ? "-" : " "]
    }

    static func format(_ date: Date) -> String { Timestamp.format(date) }
}
