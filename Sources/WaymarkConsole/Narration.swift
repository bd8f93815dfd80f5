import Foundation
import Hummingbird
import WaymarkCatalog
import WaymarkNarration
import WaymarkServer
import WaymarkStore

/// The narration page: for every tip and tour page of the draft, in each locale, whether it is
/// spoken (a recording, or speech the server made), a player, and, for editors, regenerating
/// speech, uploading a recording in its place, and the catalog's voice settings.
extension WaymarkConsole {
    /// `GET /console/apps/:app/narration`.
    func narrationPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess, notice: String? = nil) async throws
        -> Response
    {
        let (signedIn, app) = (access.signedIn, access.app)
        var catalog = try await server.draftCatalog(app: app.id)?.catalog
        if catalog == nil { catalog = try await server.publishedCatalog(app: app.id)?.catalog }
        let plan = NarrationPlan(catalog ?? Catalog(tips: []))
        let states = try await server.narrationStates(app: app.id, plan: plan)
        // The draft's speech is made as soon as someone looks, so that authors hear it before they
        // publish (the narrator takes each key once, and only while its bounded queue has room).
        server.requestMissingNarration(app: app.id, plan: plan, states: states)
        var values = frame("Narration", signedIn, app: app)
        values["notice"] = notice
        values["makesSpeech"] = server.makesNarration
        values["language"] = catalog?.narration?.language ?? ""
        values["speed"] = catalog?.narration?.speed ?? 150
        values["listen"] = (catalog?.listen ?? []).joined(separator: ", ")
        values["voices"] = NarrationPlan.voices.sorted().joined(separator: ", ")
        values["maximumMB"] = Recording.maximumSize >> 20
        values["rows"] = plan.lines.map { line in Self.row(line, states: states, app: app.id, makesSpeech: server.makesNarration) }
        values["spoken"] = plan.lines.filter { Self.isSpoken($0, states) }.count
        values["total"] = plan.lines.count
        return Templates.page("narration", values)
    }

    private static func isSpoken(_ line: NarrationPlan.Line, _ states: [String: NarrationState]) -> Bool {
        if case .external = line.source { return true }
        guard let key = line.key, case .ready = states[key] else { return false }
        return true
    }

    static func row(_ line: NarrationPlan.Line, states: [String: NarrationState], app: String, makesSpeech: Bool) -> [String: Any] {
        var row: [String: Any] = ["object": line.owner.description, "owner": ownerField(line.owner), "locale": line.locale]
        switch line.source {
        case .external(let url):
            row["kind"] = "recording on the web"
            row["status"] = "ready"
            row["url"] = url
            row["hasRecording"] = true
        case .recording(let key):
            row["kind"] = "uploaded recording"
            row["hasRecording"] = true
            if let state = states[key] {
                describe(state, key: key, app: app, into: &row)
            } else {
                // A catalog pushed from another server names a recording this one never received.
                row["status"] = "missing on this server: upload it again"
            }
        case .speech(let speech):
            row["kind"] = "speech (\(speech.voice), \(speech.speed) words a minute)"
            row["canRegenerate"] = true
            row["key"] = speech.key
            if let state = states[speech.key] {
                describe(state, key: speech.key, app: app, into: &row)
            } else {
                row["status"] = makesSpeech ? "waiting: being made" : "not made: this server makes no speech"
            }
        case .none(let reason):
            row["kind"] = "none"
            row["status"] = reason
        }
        return row
    }

    private static func describe(_ state: NarrationState, key: String, app: String, into row: inout [String: Any]) {
        switch state {
        case .ready(let ready):
            row["status"] = "ready"
            row["duration"] = String(format: "%.1f s", ready.duration)
            row["size"] = "\(max(1, ready.byteCount / 1024)) KB"
            row["url"] = WaymarkServer.narrationPath(app: app, key: key)
        case .failed(let message, _):
            row["status"] = "failed"
            row["failure"] = message
        }
    }

    /// How a form names the object a line belongs to: `tip/ID`, `tip/ID/VARIANT`, `page/TOUR/PAGE`,
    /// `article/ID`.
    static func ownerField(_ owner: NarrationPlan.Line.Owner) -> String {
        switch owner {
        case .tip(let id, nil): "tip/\(id)"
        case .tip(let id, let variant?): "tip/\(id)/\(variant)"
        case .page(let tour, let page): "page/\(tour)/\(page)"
        case .article(let id): "article/\(id)"
        }
    }

    /// `POST .../narration/settings`: the language of the default content and the speed (a blank
    /// language turns generated speech off), and the locales whose users hear every tip until they
    /// turn it off (`listen`, separated by commas or spaces).
    func saveNarrationSettings(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        let fields = ["language": form["language"] ?? "", "speed": form["speed"] ?? ""]
        let listen = form["listen"].map { $0.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init) }
        let errors = try await saveEdit(app: app, actor: signedIn.actor) { catalog in
            if let listen { catalog.listen = listen }
            guard let language = fields.text("language") else {
                catalog.narration = nil
                return
            }
            let speed = try fields.wholeNumber("speed", default: 150, in: NarrationSettings.speeds)
            catalog.narration = NarrationSettings(language: language, speed: speed)
        }
        if let error = errors.values.first {
            throw ConsoleError(status: .unprocessableContent, message: "The narration settings were not saved: \(error["message"] ?? "").")
        }
        return .redirect(to: "/console/apps/\(app.id)/narration", type: .normal)
    }

    /// `POST .../narration/regenerate`: forgets the speech of `key` and makes it again.
    func regenerateNarration(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let app = access.app
        let catalog = try await server.draftCatalog(app: app.id)?.catalog ?? Catalog(tips: [])
        guard let key = form.text("key"), let speech = NarrationPlan(catalog).speeches.first(where: { $0.key == key }) else {
            throw ConsoleError.badRequest("The draft has no such narration: reload the page.")
        }
        guard server.makesNarration else {
            throw ConsoleError(
                status: .serviceUnavailable,
                message: "This server makes no speech: espeak-ng or ffmpeg is not installed, or narration is off.")
        }
        try await server.regenerateNarration(app: app.id, speech: speech)
        return .redirect(to: "/console/apps/\(app.id)/narration", type: .normal)
    }

    /// `POST .../narration/recording`: a recording replaces the narration of one content. The file
    /// is checked (size, format, length), kept under a hash of its bytes, and named by the draft.
    func uploadRecording(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        // Read, up to SessionMiddleware.uploadLimit, before the session's token was checked.
        let upload = MultipartForm(form: access.form, files: access.files)
        let (signedIn, app) = (access.signedIn, access.app)
        guard let file = upload.files["file"], !file.bytes.isEmpty else { throw ConsoleError.badRequest("Choose a recording to upload.") }
        let recording: Recording
        do {
            recording = try await Recording.check(file.bytes)
        } catch {
            throw ConsoleError(status: .unprocessableContent, message: "The recording was not saved: \(error.message).")
        }
        let owner = upload.form["owner"] ?? ""
        let locale = upload.form["locale"] ?? ""
        try await store.saveNarration(
            NarrationAudio(
                app: app.id, key: recording.key, format: recording.format, duration: recording.duration, bytes: recording.bytes,
                source: .recording, createdAt: now()
            )
        )
        try await server.editDraft(app: app.id, actor: signedIn.actor) { catalog in
            try Self.change(&catalog, owner: owner, locale: locale) { $0.audio = Content.recordingPrefix + recording.key }
        }
        return .redirect(to: "/console/apps/\(app.id)/narration", type: .normal)
    }

    /// `POST .../narration/recording/remove`: the content goes back to generated speech (or none).
    func removeRecording(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        try await server.editDraft(app: app.id, actor: signedIn.actor) { catalog in
            try Self.change(&catalog, owner: form["owner"] ?? "", locale: form["locale"] ?? "") { $0.audio = nil }
        }
        return .redirect(to: "/console/apps/\(app.id)/narration", type: .normal)
    }

    /// Changes the content a form names (see ``ownerField(_:)``) in one locale.
    static func change(_ catalog: inout Catalog, owner: String, locale: String, _ body: (inout Content) -> Void) throws {
        func apply(_ content: inout Localized<Content>) -> Bool {
            if locale == "default" {
                body(&content.fallback)
                return true
            }
            guard content.locales[locale] != nil else { return false }
            body(&content.locales[locale]!)
            return true
        }
        let parts = owner.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var found = false
        switch (parts.first, parts.count) {
        case ("tip", 2):
            if let index = catalog.tips.firstIndex(where: { $0.id == parts[1] }) { found = apply(&catalog.tips[index].content) }
        case ("tip", 3):
            if let index = catalog.tips.firstIndex(where: { $0.id == parts[1] }),
                let variant = catalog.tips[index].variants.firstIndex(where: { $0.id == parts[2] })
            {
                found = apply(&catalog.tips[index].variants[variant].content)
            }
        case ("page", 3):
            if let tour = catalog.tours.firstIndex(where: { $0.id == parts[1] }),
                let page = catalog.tours[tour].pages.firstIndex(where: { $0.id == parts[2] })
            {
                found = apply(&catalog.tours[tour].pages[page].content)
            }
        case ("article", 2):
            if let index = catalog.articles.firstIndex(where: { $0.id == parts[1] }) { found = apply(&catalog.articles[index].content) }
        default:
            break
        }
        if !found { throw ConsoleError.badRequest("The draft has no such tip, page, article or locale: reload the page.") }
    }
}
