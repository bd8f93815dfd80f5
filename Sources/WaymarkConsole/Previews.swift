import Foundation
import Hummingbird
import WaymarkServer
import WaymarkStore

/// Previews of the draft on a phone: the author makes a link, opens it on a phone (by its QR
/// code), sees the draft there in the real app, and reads here what the phone did.
extension WaymarkConsole {
    /// How long a preview may last, as the form offers it, in minutes.
    static let previewDurations = [15, 30, 60, 240]

    /// `GET /console/apps/:app/previews`: the form and the app's previews.
    func previewsPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        try await previewsPage(access.signedIn, access.app)
    }

    /// `POST /console/apps/:app/previews`: makes a preview and shows its link and QR code, once.
    func makePreview(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let url = (form["url"] ?? "").trimmingCharacters(in: .whitespaces)
        let minutes = Int(form["minutes"] ?? "") ?? Previews.defaultMinutes
        do {
            let made = try await server.makePreview(app: access.app.id, url: url, minutes: minutes, actor: access.signedIn.actor)
            return try await previewsPage(access.signedIn, access.app, made: made, url: url, status: .created)
        } catch let error as APIError {
            return try await previewsPage(access.signedIn, access.app, problem: error.message, url: url, status: error.status)
        }
    }

    /// `POST /console/apps/:app/previews/:id/end`: ends a preview now.
    func endPreview(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let id = context.parameters.get("id") ?? ""
        let ended = try await server.endPreview(app: access.app.id, id: id, actor: access.signedIn.actor)
        return try await previewsPage(
            access.signedIn, access.app, notice: ended ? "Preview \(id) has ended: its link no longer opens the draft." : nil,
            problem: ended ? nil : "That preview had already ended.")
    }

    /// `GET /console/apps/:app/previews/:id`: one preview and what its phone sent, newest first.
    func previewEventsPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        guard let preview = try await store.preview(app: access.app.id, id: context.parameters.get("id") ?? "") else {
            throw ConsoleError.notFound
        }
        var values = frame("Preview \(preview.id)", access.signedIn, app: access.app)
        values["preview"] = previewValues(preview)
        let events = try await store.previewEvents(preview: preview.id, limit: Previews.eventLimit)
        values["hasEvents"] = !events.isEmpty
        values["events"] = events.map { event in
            [
                "name": event.name, "target": event.target ?? "", "at": Self.format(Date(millisecondsSince1970: event.timestamp)),
                "properties": event.properties ?? "",
            ]
        }
        return Templates.page("preview-events", values)
    }

    private func previewsPage(
        _ signedIn: SignedIn, _ app: AppRecord, made: MadePreview? = nil, notice: String? = nil, problem: String? = nil,
        url: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        var values = frame("Preview on a phone", signedIn, app: app)
        let previews = try await store.previews(app: app.id)
        values["notice"] = notice
        values["problem"] = problem
        values["hasDraft"] = try await store.draft(app: app.id) != nil
        // The address the app was last previewed at: an app's page rarely moves.
        values["url"] = url ?? previews.first?.url ?? ""
        let chosen = made.map { Int($0.record.expiresAt.timeIntervalSince($0.record.createdAt) / 60) } ?? Previews.defaultMinutes
        values["durations"] = Self.previewDurations.map { minutes in
            [
                "minutes": minutes, "label": minutes < 60 ? "\(minutes) minutes" : minutes == 60 ? "1 hour" : "\(minutes / 60) hours",
                "selected": minutes == chosen,
            ] as [String: Any]
        }
        if let made {
            var shown = previewValues(made.record)
            shown["link"] = made.link
            shown["qr"] = (try? QRCode(made.link).svg(moduleSize: 5)) ?? ""
            shown["loopback"] = Self.isLoopback(made.record.url)
            values["made"] = shown
        }
        values["previews"] = previews.map(previewValues)
        values["hasPreviews"] = !previews.isEmpty
        return Templates.page("previews", values, status: status)
    }

    /// Whether `url` names this machine: a phone that opens it reaches itself, not the app.
    static func isLoopback(_ url: String) -> Bool {
        guard let host = URLComponents(string: url)?.host?.lowercased() else { return false }
        return host == "localhost" || host.hasSuffix(".localhost") || host.hasPrefix("127.") || host == "[::1]" || host == "::1"
    }

    private func previewValues(_ preview: PreviewRecord) -> [String: Any] {
        let active = preview.isActive(at: now())
        return [
            "id": preview.id, "url": preview.url, "createdBy": preview.createdBy.replacingOccurrences(of: "user:", with: ""),
            "createdAt": Self.format(preview.createdAt), "until": Self.format(preview.end), "active": active,
            "status": active ? "open until \(Self.format(preview.expiresAt))" : "ended \(Self.format(preview.end))",
        ]
    }
}

/// The page builder, from a tip's form: the app's page opens in a new tab, where the author picks
/// the element and writes the tip on the page itself.
extension WaymarkConsole {
    /// `POST /console/apps/:app/build` (the tip form's "Choose on the page"): makes a builder of
    /// the form's tip and opens the app's page with it; a page saying why when it cannot.
    func openBuilder(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let tip = (form["tip"] ?? form["id"] ?? "").trimmingCharacters(in: .whitespaces)
        let url = (form["pageURL"] ?? "").trimmingCharacters(in: .whitespaces)
        do {
            let made = try await server.makeBuilder(
                app: access.app.id, tip: tip, url: url, minutes: Previews.builderMinutes, actor: access.signedIn.actor)
            var response = Response.redirect(to: made.link, type: .normal)
            // The link holds the builder's token: no cache keeps it, no next page is told it.
            response.headers[.cacheControl] = "no-store"
            response.headers[.referrerPolicy] = "no-referrer"
            return response
        } catch let error as APIError {
            var values = frame("The builder could not open", access.signedIn, app: access.app)
            values["message"] = "The page builder could not open: \(error.message). Go back to the tip, correct it and try again."
            return Templates.page("error", values, status: error.status)
        }
    }

    /// The address the builder opens, as the tip form offers it: the app's web page it was last
    /// previewed or built on (an app's page rarely moves), or nothing.
    func builderPage(app: String) async throws -> String {
        try await store.previews(app: app).first { $0.url.hasPrefix("http://") || $0.url.hasPrefix("https://") }?.url ?? ""
    }
}
