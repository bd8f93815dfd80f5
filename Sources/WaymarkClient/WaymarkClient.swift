import Foundation
import WaymarkAPI
import WaymarkEngine
import WaymarkRules
import WaymarkSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Waymark SDK for Swift apps: fetches the app's catalog, runs its tips in the on-device
/// engine, uploads what the user did, and claims rewards. Foundation only (URLSession), so it runs
/// on Apple platforms and Linux alike; drawing is a renderer's job.
///
/// ```swift
/// let waymark = await WaymarkClient.start(
///     key: "wm_client_…", server: URL(string: "https://guide.example.com")!, user: "u42",
///     context: ClientContext(platform: "ios", model: "iPhone15,2", appVersion: "1.4", locale: "hi-IN"),
///     options: .init(directory: cachesDirectory)
/// )
/// Task { for await command in waymark.commands { renderer.apply(command, waymark.tip(command.tip)) } }
/// waymark.record("tap", target: "search")
/// ```
///
/// - The catalog is fetched with its ETag and kept on disk: the app starts from the last good one
///   and runs from it while offline; ``refresh()`` asks the server only whether it changed.
/// - Events are kept on disk until the server has answered for them and uploaded in batches, every
///   ``Options/flushInterval`` or as soon as a batch is full, with exponential backoff after
///   failures. Each event has a time-ordered id (`EventID`, from WaymarkSupport) made once, so a retried upload is
///   stored once.
/// - The engine's state (what was shown, closed, counted) is kept on disk as well.
public final class WaymarkClient: Sendable {
    /// How the client keeps its data and talks to the server; every field has a default fit for a phone.
    public struct Options: Sendable {
        /// Where the catalog, the event queue and the engine's state are kept; `nil`: in memory only.
        public var directory: URL?
        /// Events per upload (the server takes at most 500).
        public var batchSize: Int
        /// How often queued events are uploaded when no batch fills up.
        public var flushInterval: TimeInterval
        /// How often the catalog is checked for a new version.
        public var refreshInterval: TimeInterval
        /// The waits after failed uploads and claims.
        public var retry: RetryPolicy
        /// How many times a claim is tried when the server cannot be reached or fails.
        public var claimAttempts: Int
        /// The most events kept while offline; the oldest are dropped first.
        public var queueLimit: Int
        /// The session to send requests with; by default one without a URL cache (the SDK keeps its own).
        public var session: URLSession?
        /// The time source; tests inject their own.
        public var clock: @Sendable () -> Date
        /// Where a pressed button leads out of Waymark: a route of the app, a web page or a tour,
        /// for the app to open (see ``WaymarkClient/press(action:tip:)``).
        public var onAction: (@Sendable (ActionRequest) -> Void)?
        /// A tour whose trigger held, for the app to open: the client runs the catalog's tour
        /// triggers with the events it records, as the web SDK does, and opens one at a time, never
        /// one the user finished. Without it, tours open only when the app opens them.
        public var onTour: (@Sendable (TourStart) -> Void)?
        /// Whether the app's renderer says when a tip it draws comes into the user's sight and
        /// leaves it (``WaymarkClient/setTip(_:visible:)``), as the web SDK does: then `tip_shown`
        /// is sent when the tip is first seen, not when the engine shows it, and display time
        /// (`maxDisplayDuration`) counts only while it is in sight. `false` by default: a tip
        /// counts as seen from when it shows.
        public var countsTipsWhenSeen: Bool
        /// Each guidance event as the client queues it (``GuidanceEvent``; the names are
        /// `IncomingEvent.guidanceNames`), for the app to hand to its own analytics
        /// beside its funnel. Called on the thread that caused it (a tap's, the engine's timer's):
        /// keep it quick, as a tracker's `log` call is.
        public var onGuidanceEvent: (@Sendable (GuidanceEvent) -> Void)?

        /// Options with the defaults: uploads of 100 events every 15 s, the catalog checked every 5 minutes, 10,000 events kept offline.
        public init(
            directory: URL? = nil, batchSize: Int = 100, flushInterval: TimeInterval = 15, refreshInterval: TimeInterval = 300,
            retry: RetryPolicy = RetryPolicy(), claimAttempts: Int = 4, queueLimit: Int = 10_000, session: URLSession? = nil,
            clock: @escaping @Sendable () -> Date = { Date() }, onAction: (@Sendable (ActionRequest) -> Void)? = nil,
            onTour: (@Sendable (TourStart) -> Void)? = nil, countsTipsWhenSeen: Bool = false,
            onGuidanceEvent: (@Sendable (GuidanceEvent) -> Void)? = nil
        ) {
            self.directory = directory
            self.batchSize = min(max(batchSize, 1), EventBatch.maxEvents)
            self.flushInterval = flushInterval
            self.refreshInterval = refreshInterval
            self.retry = retry
            self.claimAttempts = max(claimAttempts, 1)
            self.queueLimit = queueLimit
            self.session = session
            self.clock = clock
            self.onAction = onAction
            self.onTour = onTour
            self.countsTipsWhenSeen = countsTipsWhenSeen
            self.onGuidanceEvent = onGuidanceEvent
        }
    }

    /// A pressed button that leads out of Waymark, for the app's ``Options/onAction`` hook.
    public struct ActionRequest: Hashable, Sendable {
        /// The button, as the catalog delivered it: `kind` is `route`, `url` or `tour`, `to` where.
        public var action: DeliveredAction
        /// The tip it was on, or nil for a tour page.
        public var tip: String?
        /// The tour it was on, or nil for a tip.
        public var tour: String?
        /// The tour's page it was on, or nil for a tip.
        public var page: String?

        /// A press of `action` on a tip, or on a tour's page.
        public init(action: DeliveredAction, tip: String? = nil, tour: String? = nil, page: String? = nil) {
            self.action = action
            self.tip = tip
            self.tour = tour
            self.page = page
        }
    }

    /// What ``refresh()`` found.
    public enum RefreshOutcome: Hashable, Sendable {
        /// A new catalog arrived and the engine runs it now.
        case updated(version: Int)
        /// The server's catalog is the one the client has (it answered 304).
        case notModified
        /// No catalog came; the client goes on with the one it has, if any.
        case failed(WaymarkClientError)
    }

    /// What ``flush()`` uploaded.
    public struct FlushReport: Hashable, Sendable {
        /// Events the server stored.
        public var accepted = 0
        /// Events the server already had: an earlier upload got through but its answer did not.
        public var duplicates = 0
        /// Events the server refused (their reasons are in the answer); they are not sent again.
        public var rejected = 0
        /// Events still queued.
        public var remaining = 0
    }

    /// The user the client records events for, as the app names them.
    public let user: String
    /// The device and app the catalog is resolved for.
    public let context: ClientContext
    /// The options the client was started with.
    public let options: Options
    /// The engine that decides which tips show; its `LiveEngine.commands` are ``commands``.
    public let engine: LiveEngine

    private let transport: Transport
    private let queue: EventQueue
    private let cache: CatalogCache
    private let tourFile: KeptFile<[String: TourProgress]>
    private let checklistFile: KeptFile<KeptChecklists>
    private let listeningFile: KeptFile<ListeningChoice>
    let triggerFile: KeptFile<EvaluatorSnapshot>
    let state: Locked<ClientState>
    private let lifecycle: Lifecycle

    /// Render commands for the app's renderer, in order: show, hide, pause, resume.
    public var commands: AsyncStream<RenderCommand> { engine.commands }

    /// The server the client talks to.
    public var server: URL { transport.server }

    /// The catalog the client runs, if it has one (from the server or from disk).
    public var catalog: DeliveredCatalog? { state.withLock { $0.entry?.catalog } }

    /// A tip's content and presentation, for drawing a `RenderCommand`.
    public func tip(_ id: String) -> DeliveredTip? { catalog?.tips.first { $0.id == id } }

    /// The catalog's tips this client leaves out, by id, each with the reason: a tip whose anchor
    /// is a CSS selector (`selector`) is for the web SDK, and an app's views have no CSS.
    public var ignoredTips: [String: String] {
        Dictionary(
            (catalog?.tips ?? []).compactMap { tip in Self.ignoring(tip).map { (tip.id, $0) } }, uniquingKeysWith: { first, _ in first })
    }

    static func ignoring(_ tip: DeliveredTip) -> String? {
        tip.selector.map {
            "its anchor is the CSS selector \"\($0)\", which only the web SDK can find; give it a named anchor to show it in apps"
        }
    }

    /// The tips the engine schedules: those not ignored.
    static func scheduled(_ tips: [DeliveredTip]) -> [Tip] {
        tips.filter { ignoring($0) == nil }.map(Tip.init)
    }

    /// A tour's pages and media, for drawing its panel.
    public func tour(_ id: String) -> DeliveredTour? { catalog?.tours.first { $0.id == id } }

    /// Events waiting to be uploaded.
    public var queuedEvents: Int { queue.count }

    /// Starts the SDK: the catalog from disk, then from the server (one try; offline is fine),
    /// and the background uploads, refreshes and engine clock. With `userHash` (see
    /// ``identify(attributes:userHash:)``) the catalog's targeting reads the attributes the server
    /// keeps for the user from the first fetch, and the user's progress from their other devices
    /// is merged in (``syncProgress()``) before this returns.
    public static func start(
        key: String, server: URL, user: String, userHash: String? = nil, context: ClientContext = ClientContext(),
        options: Options = Options()
    ) async -> WaymarkClient {
        let client = WaymarkClient(key: key, server: server, user: user, context: context, options: options)
        client.state.withLock { $0.userHash = userHash }
        await client.refresh()
        _ = try? await client.syncProgress()
        client.startBackgroundWork()
        return client
    }

    /// Opens a preview of the app's draft from a preview link (made in the console, opened on the
    /// phone): the link's `waymark-preview` token stands in for the client key. The client shows
    /// the draft's tips, tours, checklists and help for everyone and without display limits, keeps
    /// its state in memory only (apart from the user's), and sends events the server keeps with the
    /// preview, out of every report. Wire it to the app's deep link, use the returned client while
    /// ``preview`` is not ended, draw a "Preview" mark meanwhile, and go back to the app's own
    /// client after. Throws when the link carries no preview token.
    ///
    /// ```swift
    /// // In the app's handler of myshop://home?waymark-preview=…
    /// if WaymarkClient.previewToken(in: url) != nil {
    ///     guide = try await WaymarkClient.startPreview(link: url, server: server, user: user)
    /// }
    /// ```
    public static func startPreview(
        link: URL, server: URL, user: String, context: ClientContext = ClientContext(), options: Options = Options()
    ) async throws(WaymarkClientError) -> WaymarkClient {
        guard let token = previewToken(in: link) else {
            throw WaymarkClientError(status: nil, code: "not_a_preview_link", message: "the link has no waymark-preview token")
        }
        var options = options
        options.directory = nil
        let client = WaymarkClient(key: token, server: server, user: user, context: context, options: options)
        await client.refresh()
        client.startBackgroundWork()
        return client
    }

    /// The preview token a link carries (its `waymark-preview` query parameter), or nil.
    public static func previewToken(in link: URL) -> String? {
        URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?
            .first { $0.name == DeliveredPreview.linkParameter }?.value.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// How the app's guidance looks (the catalog's theme, every token given), for apps that draw
    /// tips with their own views: surface, text, accent and focus colours for light and dark
    /// mode, the font family, the corner radius and the spacing. A tip with a look of its own
    /// carries it as its `theme`. Nil: Waymark's look.
    public var theme: DeliveredTheme? { catalog?.theme }

    /// Set while this client shows a preview of the draft (``startPreview(link:server:user:context:options:)``):
    /// until when it lasts, and `ended` once the server says it is over (the catalog is then
    /// empty). Nil for the app's own client.
    public var preview: DeliveredPreview? { catalog?.preview }

    init(key: String, server: URL, user: String, context: ClientContext, options: Options) {
        var context = context
        context.user = user
        self.user = user
        self.context = context
        self.options = options
        transport = Transport(server: server, key: key, session: options.session ?? Transport.makeSession())
        if let directory = options.directory {
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        let file = { (name: String) in options.directory?.appendingPathComponent(name) }
        queue = EventQueue(url: file("events.jsonl"), limit: options.queueLimit)
        cache = CatalogCache(url: file("catalog.json"))
        tourFile = KeptFile(url: file("tours.json"))
        checklistFile = KeptFile(url: file("checklists.json"))
        triggerFile = KeptFile(url: file("tour-triggers.json"))
        listeningFile = KeptFile(url: file("listening.json"))
        let entry = cache.load()
        let kept = checklistFile.load() ?? KeptChecklists()
        var checklists = ChecklistRun(
            entry?.catalog.checklists ?? [], progress: kept.progress, offered: kept.offered, offeredAt: kept.offeredAt,
            restoring: kept.rules)
        _ = checklists.setContext(context.values.mapValues { $0 }, at: options.clock())
        var tours = TourGate(tours: Self.gated(entry?.catalog.tours ?? []), progress: tourFile.load() ?? [:], restoring: triggerFile.load())
        tours.setContext(context.values.mapValues { $0 }, at: options.clock())
        let state = Locked(ClientState(entry: entry, checklists: checklists, tours: tours, listening: listeningFile.load()))
        self.state = state
        let lifecycle = Lifecycle(
            queue: queue, state: state, user: user, properties: Self.standardProperties(context),
            countsWhenSeen: options.countsTipsWhenSeen, onGuidanceEvent: options.onGuidanceEvent)
        self.lifecycle = lifecycle
        engine = Self.makeEngine(
            tips: Self.scheduled(entry?.catalog.tips ?? []),
            frequency: entry.flatMap { DisplayFrequency(rawValue: $0.catalog.frequency) } ?? .immediate,
            sightReported: options.countsTipsWhenSeen, file: file("engine.json"), clock: options.clock,
            observe: lifecycle.record
        )
        engine.setContext(context.values.mapValues { $0 })
    }

    /// The engine, on its saved state if that reads; a state that does not read is started over.
    private static func makeEngine(
        tips: [Tip], frequency: DisplayFrequency, sightReported: Bool, file: URL?, clock: @escaping @Sendable () -> Date,
        observe: @escaping @Sendable ([RenderCommand]) -> Void
    ) -> LiveEngine {
        let store = file.map(FileEngineStore.init)
        let configuration = Engine.Configuration(frequency: frequency, sightReported: sightReported)
        if let engine = try? LiveEngine(tips: tips, configuration: configuration, store: store, clock: clock, observe: observe) {
            return engine
        }
        if let file { try? FileManager.default.removeItem(at: file) }
        // Without a saved state nothing can fail to read.
        return try! LiveEngine(tips: tips, configuration: configuration, store: store, clock: clock, observe: observe)
    }

    /// Properties every event carries, for engagement by platform and version.
    static func standardProperties(_ context: ClientContext) -> [String: ContextValue] {
        var properties: [String: ContextValue] = [:]
        properties["platform"] = context.platform.map(ContextValue.string)
        properties["appVersion"] = context.appVersion.map(ContextValue.string)
        properties["locale"] = context.locale.map(ContextValue.string)
        return properties
    }

    // MARK: Events

    /// Records what the user did: the engine sees it now, the server with the next upload.
    /// Returns the render commands it caused (they also go to ``commands``).
    @discardableResult
    public func record(_ name: String, target: String? = nil, properties: [String: ContextValue] = [:]) -> [RenderCommand] {
        let properties = properties.mapValues(\.asProperty)
        // Queued before what it causes (the tip_shown of a tip it shows), as the other SDKs queue it.
        enqueue(name, target: target, properties: properties)
        let produced = engine.record(name, target: target, properties: properties)
        let now = options.clock()
        checklistsChanged(
            state.withLock { state in
                if name == "screen" { (state.screen, state.anchorsMissed) = (target, []) }
                state.tours.record(name, target: target, properties: properties, at: now)
                return state.checklists.record(name, target: target, properties: properties, at: now)
            })
        openDueTour()
        return produced
    }

    /// The user closed a tip (its close button): it finishes for good.
    @discardableResult
    public func close(tip id: String) -> [RenderCommand] {
        engine.close(tip: id)
    }

    /// The user answered a survey tip: a score in its range and an optional comment, cut to the
    /// 512 bytes an event property holds. Sent as `survey_answered`; a survey tip's default
    /// dismissal is that event, so the answer also hides it.
    @discardableResult
    public func answer(survey id: String, score: Int, comment: String? = nil) throws(WaymarkClientError) -> [RenderCommand] {
        guard let tip = tip(id), let survey = tip.survey else {
            throw WaymarkClientError(status: nil, code: "not_a_survey", message: "the catalog has no survey tip \"\(id)\"")
        }
        guard (survey.min...survey.max).contains(score) else {
            throw WaymarkClientError(
                status: nil, code: "bad_score", message: "a score of this survey is from \(survey.min) to \(survey.max)")
        }
        // The score goes as text, as every SDK has sent it: survey reports read it so.
        var properties: [String: ContextValue] = ["tip": .string(id), "score": .string(String(score))]
        properties["variant"] = tip.variant.map(ContextValue.string)
        if let text = comment?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty {
            properties["comment"] = .string(Self.prefix(text, bytes: 512))
        }
        return record("survey_answered", target: id, properties: properties)
    }

    /// The longest start of `text` that fits in `bytes` of UTF-8 without splitting a character.
    static func prefix(_ text: String, bytes: Int) -> String {
        var count = 0
        var end = text.startIndex
        for character in text {
            count += character.utf8.count
            if count > bytes { break }
            end = text.index(after: end)
        }
        return String(text[..<end])
    }

    // MARK: Narration

    /// Narration a renderer can play: where, how long, and whether recorded or made by the server.
    public struct Narration: Hashable, Sendable {
        /// Absolute: a path on the server is resolved against it.
        public var url: URL
        /// Seconds, when known.
        public var duration: Double?
        /// Whether the audio was recorded by an author or made by the server.
        public var source: DeliveredNarration.Source
    }

    /// The narration of a tip in the content the catalog chose for this client, if it has one.
    public func narration(tip id: String) -> Narration? {
        tip(id).flatMap { Self.narration($0.content, server: transport.server) }
    }

    /// The narration of a tour page, if it has one.
    public func narration(tour: String, page: String) -> Narration? {
        self.tour(tour)?.pages.first { $0.id == page }.flatMap { Self.narration($0.content, server: transport.server) }
    }

    static func narration(_ content: DeliveredContent, server: URL) -> Narration? {
        guard let narration = content.narration, let url = URL(string: narration.url, relativeTo: server)?.absoluteURL,
            url.scheme == "https" || url.scheme == "http"
        else { return nil }
        return Narration(url: url, duration: narration.duration, source: narration.source)
    }

    /// The user started a tip's narration from its beginning (`narration_played`, as waymark.js sends it).
    public func narrationPlayed(tip id: String) { recordNarration("narration_played", tip: id) }

    /// The user heard a tip's narration to its end (`narration_completed`).
    public func narrationCompleted(tip id: String) { recordNarration("narration_completed", tip: id) }

    /// The same for a tour page's narration.
    public func narrationPlayed(tour: String, page: String) { recordNarration("narration_played", tour: tour, page: page) }

    /// The same for a tour page's narration heard to its end.
    public func narrationCompleted(tour: String, page: String) { recordNarration("narration_completed", tour: tour, page: page) }

    private func recordNarration(_ name: String, tip id: String) {
        guard let content = tip(id)?.content else { return }
        record(name, target: id, properties: Self.narrationProperties(content))
    }

    private func recordNarration(_ name: String, tour: String, page: String) {
        guard let content = self.tour(tour)?.pages.first(where: { $0.id == page })?.content else { return }
        record(
            name, target: page,
            properties: Self.narrationProperties(content).merging(["tour": .string(tour), "page": .string(page)]) { $1 })
    }

    static func narrationProperties(_ content: DeliveredContent) -> [String: ContextValue] {
        ["contentLocale": .string(content.locale), "source": .string(content.narration?.source.rawValue ?? "recording")]
    }

    /// The user tapped a hotspot's marker open (a tip whose renderer is `hotspot`): sends
    /// `hotspot_opened` (target: the tip), which rules read and analytics count as opened. The
    /// renderer then shows the tip beside its anchor; closing it is ``close(tip:)``.
    @discardableResult
    public func hotspotOpened(tip id: String) -> [RenderCommand] {
        var properties: [String: ContextValue] = ["tip": .string(id)]
        properties["variant"] = tip(id)?.variant.map(ContextValue.string)
        return record("hotspot_opened", target: id, properties: properties)
    }

    /// The user pressed one of a tip's buttons. Sends `tip_action` (target: the tip; `action`,
    /// `kind` and `to` as properties), which the engine sees first, so a dismissal that reads it
    /// (`tip_action:track-order`) counts the tip as done; any tip still showing then closes. A
    /// button that leads out of Waymark (a route, a web page, a tour) goes to ``Options/onAction``.
    @discardableResult
    public func press(action id: String, tip: String) throws(WaymarkClientError) -> [RenderCommand] {
        guard let delivered = self.tip(tip), let action = delivered.actions?.first(where: { $0.id == id }) else {
            throw WaymarkClientError(status: nil, code: "not_an_action", message: "tip \"\(tip)\" has no button \"\(id)\"")
        }
        var properties = Self.actionProperties(action)
        properties["tip"] = .string(tip)
        properties["variant"] = delivered.variant.map(ContextValue.string)
        var produced = record(DeliveredAction.tipEvent, target: tip, properties: properties)
        produced += close(tip: tip)
        if action.leavesWaymark { options.onAction?(ActionRequest(action: action, tip: tip)) }
        return produced
    }

    /// The user pressed one of a tour page's buttons. Sends `tour_action` (target: the tour; the
    /// `page`, `action`, `kind` and `to` as properties) and hands a button that leads out of
    /// Waymark to ``Options/onAction``. The button moves or ends the tour as its kind says
    /// (`TourGate.pressed(_:page:kind:to:)`): `dismiss` dismisses it, `route` and `tour` finish
    /// it (and a `tour` button's tour counts as open), so a trigger that still holds does not open
    /// it again; the app's panel closes itself for those and moves on for `next`. Answers the button.
    @discardableResult
    public func press(action id: String, tour: String, page: String) throws(WaymarkClientError) -> DeliveredAction {
        let pages = self.tour(tour)?.pages ?? []
        guard let index = pages.firstIndex(where: { $0.id == page }), let action = pages[index].actions?.first(where: { $0.id == id })
        else {
            throw WaymarkClientError(
                status: nil, code: "not_an_action", message: "page \"\(page)\" of tour \"\(tour)\" has no button \"\(id)\"")
        }
        var properties = Self.actionProperties(action)
        properties["tour"] = .string(tour)
        properties["page"] = .string(page)
        record(DeliveredAction.tourEvent, target: tour, properties: properties)
        saveTours { $0.pressed(tour, page: index, kind: action.kind, to: action.to) }
        if action.leavesWaymark { options.onAction?(ActionRequest(action: action, tour: tour, page: page)) }
        openDueTour()
        return action
    }

    static func actionProperties(_ action: DeliveredAction) -> [String: ContextValue] {
        var properties: [String: ContextValue] = ["action": .string(action.id), "kind": .string(action.kind)]
        properties["to"] = action.to.map(ContextValue.string)
        return properties
    }

    /// Sets values of the client context rules read (`user.plan`, `cart.items`...).
    @discardableResult
    public func setContext(_ values: [String: ContextValue?]) -> [RenderCommand] {
        let now = options.clock()
        checklistsChanged(
            state.withLock { state in
                state.tours.setContext(values, at: now)
                return state.checklists.setContext(values, at: now)
            })
        openDueTour()
        return engine.setContext(values)
    }

    // MARK: Checklists

    /// The catalog's checklists with the user's progress, for the app to draw (a launcher with
    /// the count done, a panel of the items, the first offered and not completed): each item is
    /// done once its rule holds and stays done. The client sends `checklist_item_done` (target:
    /// the checklist; property `item`) and `checklist_completed` as they happen, which rules read;
    /// claim a completed checklist's credits with ``claim(checklist:userHash:)``.
    public var checklists: [ChecklistStatus] { state.withLock { $0.checklists.statuses } }

    /// The user opened a checklist's panel: sends `checklist_opened`, which analytics count.
    public func checklistOpened(_ id: String) {
        enqueue(DeliveredChecklist.openedEvent, target: id, properties: ["checklist": .string(id)])
    }

    /// Sends what the rules latched and keeps the progress: done items stay done across restarts.
    private func checklistsChanged(_ changes: [ChecklistRun.Change]) {
        guard !changes.isEmpty else { return }
        for change in changes {
            switch change {
            case .itemDone(let checklist, let item):
                record(
                    DeliveredChecklist.itemDoneEvent, target: checklist,
                    properties: ["checklist": .string(checklist), "item": .string(item)])
            case .completed(let checklist, let seconds):
                var properties: [String: ContextValue] = ["checklist": .string(checklist)]
                properties["seconds"] = seconds.map { .number(Double($0)) }
                record(DeliveredChecklist.completedEvent, target: checklist, properties: properties)
            }
        }
        saveChecklists()
    }

    private func saveChecklists() {
        let kept = state.withLock { state in
            state.progressChanges += 1
            return state.checklists.kept
        }
        checklistFile.save(kept)
    }

    /// A container of the app's screen showed or hid (a screen was pushed, a sheet closed).
    @discardableResult
    public func setContainer(_ container: String, visible: Bool) -> [RenderCommand] {
        engine.setContainer(container, visible: visible)
    }

    /// With ``Options/countsTipsWhenSeen``, the app's renderer says that a tip it draws came into
    /// the user's sight (at least half of it on the screen, uncovered, for half a second, or touched)
    /// or left it (scrolled away, covered, the app in the background). The first time a shown tip
    /// is seen, `tip_shown` is sent; display time counts only while the tip is in sight.
    @discardableResult
    public func setTip(_ id: String, visible: Bool) -> [RenderCommand] {
        let commands = engine.setTip(id, visible: visible)
        if visible { lifecycle.seen(id, at: options.clock()) }
        return commands
    }

    /// The app's renderer was told to show a tip and did not find its anchor on the screen within
    /// `DeliveredTip.anchorWaitSeconds`. Sends `anchor_missing` (target: the tip; properties
    /// `anchor` and `screen`, the last screen recorded) once per tip and screen view, so the
    /// console can show an author that a tip points at an element the app does not have there.
    /// Rules do not see it. Answers whether it was sent.
    @discardableResult
    public func anchorNotFound(tip id: String) -> Bool {
        guard let anchor = tip(id)?.anchor else { return false }
        let screen: String?? = state.withLock { state in
            state.anchorsMissed.insert(id).inserted ? .some(state.screen) : nil
        }
        guard let screen else { return false }
        var properties: [String: ContextValue] = ["anchor": .string(anchor)]
        properties["screen"] = screen.map(ContextValue.string)
        enqueue(DeliveredTip.anchorMissingEvent, target: id, properties: properties)
        return true
    }

    /// The app says what a screen shows: the anchors its views are named by and the screen areas
    /// on it, for the console's tip form to offer and its check to compare tips with
    /// (`POST /v1/anchors`). Names only, no user; a name the server would refuse (a space, `[`,
    /// `]`, `:`, not printable ASCII, over 128 characters) is left out. Sent at most once a screen a
    /// UTC day while the app runs: answers false, sending nothing, when the screen was reported
    /// today. Call it when a screen has drawn, from a task of its own.
    @discardableResult
    public func reportAnchors(screen: String, anchors: [String], areas: [String]) async throws(WaymarkClientError) -> Bool {
        let day = Int((options.clock().timeIntervalSince1970 / 86_400).rounded(.down))
        guard state.withLock({ $0.reportedScreens[screen] != day }) else { return false }
        let report = AnchorReport(
            platform: context.platform ?? "unknown", screen: screen, anchors: AnchorReport.reportable(anchors),
            areas: AnchorReport.reportable(areas))
        if let problem = report.problem { throw WaymarkClientError(status: nil, code: "bad_request", message: problem) }
        _ = try await post("v1/anchors", (try? JSONEncoder().encode(report)) ?? Data(), accepting: [204])
        state.withLock { $0.reportedScreens[screen] = day }
        return true
    }

    /// Sends a picture of one screen with where its anchors and areas are (a `ScreenCapture`), for
    /// the console to show as boxes an author picks: only from a client opened from a preview link
    /// (``startPreview(link:server:user:context:options:)``), while the device is paired with the
    /// console; the app's own client is refused (403 `not_paired`). The frames are in the screen's
    /// points; the image is the app's own picture of its view, a PNG or JPEG of at most 700 KB.
    /// Answers the capture's id.
    @discardableResult
    public func sendCapture(_ capture: ScreenCapture) async throws(WaymarkClientError) -> String {
        if let problem = capture.problem { throw WaymarkClientError(status: nil, code: "bad_request", message: problem) }
        let answer = try await post("v1/captures", (try? JSONEncoder().encode(capture)) ?? Data(), accepting: [201])
        let created = try? JSONDecoder().decode([String: String].self, from: answer.body)
        return created?["id"] ?? ""
    }

    func enqueue(_ name: String, target: String?, properties: [String: ContextValue]) {
        lifecycle.enqueue(name, target: target, properties: lifecycle.properties.merging(properties) { $1 }, at: options.clock())
        let due = queue.count >= options.batchSize
        let start = state.withLock { state in
            guard due, state.failures == 0, !state.flushScheduled, !state.tasks.isEmpty else { return false }
            state.flushScheduled = true
            return true
        }
        if start {
            Task {
                _ = try? await self.flush()
                self.state.withLock { $0.flushScheduled = false }
            }
        }
    }

    /// Uploads every queued event now, in batches; events stay queued until the server answered
    /// for them. Throws when an upload fails (the events are sent again later).
    @discardableResult
    public func flush() async throws(WaymarkClientError) -> FlushReport {
        var report = FlushReport()
        do throws(WaymarkClientError) {
            while true {
                var batch = queue.takeBatch(size: options.batchSize)
                if batch.isEmpty { break }
                let encoder = JSONEncoder()
                var body = (try? encoder.encode(EventBatch(events: batch))) ?? Data()
                // Large properties can make a full batch bigger than the server takes: send less.
                while body.count > EventBatch.maxBodyBytes, batch.count > 1 {
                    queue.finish(Array(batch[(batch.count / 2)...]), answered: [])
                    batch = Array(batch[..<(batch.count / 2)])
                    body = (try? encoder.encode(EventBatch(events: batch))) ?? Data()
                }
                let result: EventBatchResult
                do throws(WaymarkClientError) {
                    let answer = try await transport.send("POST", "v1/events", body: body)
                    guard answer.status == 200 else { throw answer.error }
                    result = try transport.decode(EventBatchResult.self, from: answer)
                } catch {
                    queue.finish(batch, answered: [])
                    throw error
                }
                // Results come in the order sent.
                let answered = batch.prefix(result.results.count).map(\.id)
                queue.finish(batch, answered: Set(answered))
                for item in result.results {
                    switch item.status {
                    case .accepted: report.accepted += 1
                    case .duplicate: report.duplicates += 1
                    case .rejected: report.rejected += 1
                    }
                }
                if batch.count < options.batchSize { break }
            }
        } catch {
            state.withLock { $0.failures += 1 }
            throw error
        }
        state.withLock { $0.failures = 0 }
        report.remaining = queue.count
        return report
    }

    // MARK: Catalog

    /// Asks the server for the catalog (with the ETag of the one the client has) and runs a new
    /// one at once; tips keep their state by id.
    @discardableResult
    public func refresh() async -> RefreshOutcome {
        var items: [URLQueryItem] = []
        for (name, value) in [
            ("platform", context.platform), ("model", context.model), ("appVersion", context.appVersion),
            ("locale", context.locale), ("user", context.user),
        ] {
            if let value { items.append(URLQueryItem(name: name, value: value)) }
        }
        let query = items.map { "\($0.name)=\($0.value ?? "")" }.joined(separator: "&")
        let (current, userHash) = state.withLock { ($0.entry, $0.userHash) }
        var headers: [String: String] = [:]
        if let current, current.query == query, let etag = current.etag { headers["If-None-Match"] = etag }
        // The proof lets targeting read the attributes the server keeps for the user.
        if let userHash { headers["Waymark-User-Hash"] = userHash }
        do throws(WaymarkClientError) {
            let answer = try await transport.send("GET", "v1/catalog", query: items, headers: headers)
            if answer.status == 304 { return .notModified }
            guard answer.status == 200 else { throw answer.error }
            let catalog = try transport.decode(DeliveredCatalog.self, from: answer)
            let entry = CatalogCache.Entry(etag: answer.header("ETag"), query: query, catalog: catalog)
            cache.save(entry)
            let values = context.values.mapValues { Optional($0) }
            let now = options.clock()
            let changes = state.withLock { state in
                state.entry = entry
                state.checklists = ChecklistRun(
                    catalog.checklists ?? [], progress: state.checklists.progress, offered: state.checklists.offered,
                    offeredAt: state.checklists.offeredAt, restoring: state.checklists.snapshot)
                state.tours = state.tours.replacingTours(Self.gated(catalog.tours))
                state.tours.setContext(values, at: now)
                return state.checklists.setContext(values, at: now)
            }
            checklistsChanged(changes)
            engine.update(tips: Self.scheduled(catalog.tips))
            return .updated(version: catalog.version)
        } catch {
            return .failed(error)
        }
    }

    // MARK: Rewards

    /// Claims the credits of a tour page the user read to the bottom (``pageRead(tour:page:)``).
    /// `userHash` comes from the app's own backend: the HMAC-SHA256 of the user id with the app's
    /// identity secret. The events waiting to be sent go first, since the server grants the
    /// credit only once it has the user's `page_read_to_bottom` (while it has not, the claim is
    /// tried again like one that could not reach it, then thrown as `not_read`). The same claim
    /// again returns the same grant, so a claim whose answer was lost is simply retried.
    public func claim(tour: String, page: String, userHash: String) async throws(WaymarkClientError) -> RewardGrant {
        _ = try? await flush()
        return try await claim(RewardClaim(user: user, userHash: userHash, tour: tour, page: page), alsoRetrying: [409])
    }

    /// Claims the credits of a checklist the user completed (see ``checklists``), once: the same
    /// claim again returns the same grant.
    public func claim(checklist: String, userHash: String) async throws(WaymarkClientError) -> RewardGrant {
        try await claim(RewardClaim(user: user, userHash: userHash, checklist: checklist))
    }

    private func claim(_ claim: RewardClaim, alsoRetrying: Set<Int> = []) async throws(WaymarkClientError) -> RewardGrant {
        let body = (try? JSONEncoder().encode(claim)) ?? Data()
        let answer = try await post("v1/rewards/claims", body, accepting: [200, 201], alsoRetrying: alsoRetrying)
        return try transport.decode(RewardGrant.self, from: answer)
    }

    /// Posts `body`, trying again ``Options/claimAttempts`` times in all while the server cannot
    /// be reached or fails (or answers one of `alsoRetrying`); another refusal (a 4xx) is thrown
    /// at once.
    private func post(
        _ path: String, _ body: Data, accepting statuses: Set<Int>, alsoRetrying: Set<Int> = []
    ) async throws(WaymarkClientError) -> Transport.Answer {
        var failures = 0
        while true {
            do throws(WaymarkClientError) {
                let answer = try await transport.send("POST", path, body: body)
                guard statuses.contains(answer.status) else { throw answer.error }
                return answer
            } catch {
                failures += 1
                guard error.isTransient || error.status.map(alsoRetrying.contains) == true, failures < options.claimAttempts else {
                    throw error
                }
                try? await Task.sleep(nanoseconds: UInt64(options.retry.delay(afterFailures: failures) * 1_000_000_000))
            }
        }
    }

    // MARK: User attributes

    /// Tells Waymark who the user is: sets their attributes (`nil` removes one), which rules read
    /// as `user.<name>`.
    ///
    /// ```swift
    /// try await waymark.identify(
    ///     attributes: ["plan": "plus", "cityTier": 2, "codUser": true, "firstOrderAt": .time(firstOrder),
    ///                  "appBuild": .version(Version([5, 2, 1]))],
    ///     userHash: hashFromYourBackend)
    /// ```
    ///
    /// The engine on the device sees them at once, offline too. With `userHash` (the HMAC-SHA256
    /// of the user id with the app's identity secret, from the app's backend; by default the one
    /// given to `start(…, userHash:)` or to an earlier identify) the server keeps them
    /// as well, for targeting and the eligibility debugger, and the catalog is fetched again for them;
    /// the answer is every attribute the server keeps for the user. Without it, or when the server
    /// cannot be reached after ``Options/claimAttempts`` tries, they stay on this device: call it
    /// again at the next start. Throws, changing nothing, for an attribute the server would refuse
    /// (a name that is not a name of the rule language, `id`, `locale`, text over 512 bytes...).
    @discardableResult
    public func identify(attributes: [String: ContextValue?], userHash: String? = nil) async throws(WaymarkClientError) -> IdentifiedUser? {
        let problems = attributes.sorted { $0.key < $1.key }.compactMap { AttributeLimits.problem(name: $0.key, value: $0.value) }
        if let problem = problems.first
            ?? (attributes.count > AttributeLimits.count ? "at most \(AttributeLimits.count) attributes at once" : nil)
        {
            throw WaymarkClientError(status: nil, code: "bad_request", message: problem)
        }
        var values: [String: ContextValue?] = [:]
        for (name, value) in attributes { values["user." + name] = value }
        engine.setContext(values)
        guard let userHash = userHash ?? state.withLock({ $0.userHash }) else { return nil }
        let request = IdentifyRequest(user: user, userHash: userHash, attributes: attributes)
        let body = (try? JSONEncoder().encode(request)) ?? Data()
        let answer = try await post("v1/identify", body, accepting: [200])
        let identified = try transport.decode(IdentifiedUser.self, from: answer)
        state.withLock { $0.userHash = userHash }
        await refresh()
        return identified
    }

    // MARK: Progress that follows the user

    /// Shares the user's progress with tips with their other devices: sends what this device has
    /// to the server (`POST /v1/progress`, with the identity proof the client was started or
    /// identified with) and merges the answer, the join of every device's, into the engine, so a
    /// tip the user closed or saw enough of on another phone does not come back here. Without a
    /// proof it does nothing and answers nil. The client calls it at start, after the engine
    /// changed (in the background loop) and at ``stop()``; merging is a join, so a call that
    /// fails changes nothing and a later one catches up. The answer also carries the user's tour
    /// progress, for apps that draw tours.
    @discardableResult
    public func syncProgress() async throws(WaymarkClientError) -> SyncedProgress? {
        guard
            let (userHash, changes, tours, checklists) = state.withLock({ state in
                state.userHash.map { ($0, state.progressChanges, state.tours.progress, state.checklists.progress) }
            })
        else { return nil }
        let listening = state.withLock { $0.listening }
        let request = ProgressRequest(
            user: user, userHash: userHash,
            progress: UserProgress(tips: engine.progress, tours: tours, checklists: checklists, listening: listening))
        let body = (try? JSONEncoder().encode(request)) ?? Data()
        let answer = try await post("v1/progress", body, accepting: [200])
        let synced = try transport.decode(SyncedProgress.self, from: answer)
        let changedMeanwhile = state.withLock { $0.progressChanges != changes }
        let (merged, kept) = state.withLock { state in
            state.tours.merge(synced.progress.tours)
            state.checklists.merge(synced.progress.checklists)
            return (
                state.tours.progress,
                state.checklists.kept
            )
        }
        tourFile.save(merged)
        checklistFile.save(kept)
        // The latest choice of the listener's mode among the user's devices.
        if let remote = synced.progress.listening {
            let latest = state.withLock { state -> ListeningChoice? in
                let latest = max(state.listening ?? remote, remote)
                guard latest != state.listening else { return nil }
                state.listening = latest
                return latest
            }
            if let latest { listeningFile.save(latest) }
        }
        engine.merge(synced.progress.tips)
        // What the merge changed the server already has; what the engine did meanwhile it has not.
        state.withLock { $0.progressShared = changedMeanwhile ? changes : $0.progressChanges }
        return synced
    }

    /// Whether the user hears every tip as it appears (the listener's mode): their own choice, made
    /// here or on another device (shared by ``syncProgress()``, the latest holding), else the
    /// catalog's default for their locale (`DeliveredCatalog.listen`: `hi` covers `hi-IN`). An app
    /// that draws tips speaks each one (its narration, else the platform's voice) once it is seen
    /// while this is true, as the web SDK does.
    public var listensToTips: Bool {
        state.withLock { state in
            state.listening?.on ?? Self.listens(byDefault: state.entry?.catalog.listen ?? [], locale: context.locale)
        }
    }

    /// The user turned the listener's mode on or off: kept on the device and shared with their
    /// other devices by the next ``syncProgress()``; their choice always wins over the catalog's default.
    public func setListening(_ on: Bool) {
        let choice = ListeningChoice(on: on, at: Int64((options.clock().timeIntervalSince1970 * 1000).rounded()))
        state.withLock { state in
            state.listening = choice
            state.progressChanges += 1
        }
        listeningFile.save(choice)
    }

    /// Whether a locale (`hi-IN`) is one of the catalog's listening locales (`hi`).
    static func listens(byDefault locales: [String], locale: String?) -> Bool {
        guard let locale = locale?.lowercased().replacingOccurrences(of: "_", with: "-") else { return false }
        return locales.contains { listed in
            let listed = listed.lowercased()
            return locale == listed || locale.hasPrefix(listed + "-")
        }
    }

    /// The user's progress with each tour the app draws, by id: the furthest page reached (from
    /// 0) and how it ended, if it did, here and, once shared, on their other devices (a tour
    /// drawn by waymark.js in a browser counts too). Open a tour at its `page`; one that ended
    /// (`TourProgress.ended`) does not open by its trigger again.
    public var tourProgress: [String: TourProgress] { state.withLock { $0.tours.progress } }

    /// Tells the client the user reached `page` of a tour (from 0) or finished it (read it to its
    /// end), for ``tourProgress`` and the user's other devices (shared with the next
    /// ``syncProgress()``). Progress only grows: an earlier page changes nothing.
    public func tourProgressed(_ tour: String, page: Int, finished: Bool = false) {
        if finished { return tourEnded(tour, page: page, .finished) }
        saveTours { $0.reached(tour, page: page) }
    }

    /// Tells the client the user ended a tour at `page`: finished (its last page's Done) or
    /// dismissed (its close button, the back gesture). It does not open by its trigger again,
    /// and another may. A page's buttons end it by themselves (``press(action:tour:page:)``).
    public func tourEnded(_ tour: String, page: Int, _ ending: TourEnding) {
        saveTours { $0.ended(tour, page: page, ending) }
        openDueTour()
    }

    /// Changes the tours' progress, keeping it and counting it as progress to share when it grew.
    func saveTours(_ change: (inout TourGate) -> Bool) {
        let changed = state.withLock { state -> [String: TourProgress]? in
            guard change(&state.tours) else { return nil }
            state.progressChanges += 1
            return state.tours.progress
        }
        if let changed { tourFile.save(changed) }
    }

    // MARK: Background work

    private func startBackgroundWork() {
        let uploads = Task<Void, Never> { [weak self] in await self?.runUploadsAndRefreshes() }
        let clock = Task { [engine] in await engine.run() }
        state.withLock { $0.tasks = [uploads, clock] }
    }

    private func runUploadsAndRefreshes() async {
        var nextRefresh = options.clock().addingTimeInterval(options.refreshInterval)
        while !Task.isCancelled {
            let failures = state.withLock { $0.failures }
            let wait = failures == 0 ? options.flushInterval : options.retry.delay(afterFailures: failures)
            try? await Task.sleep(nanoseconds: UInt64(max(wait, 0.01) * 1_000_000_000))
            if Task.isCancelled { break }
            // Requests run in tasks of their own, which `stop()` does not cancel: cancelling an
            // URLSession request in flight can deadlock swift-corelibs-foundation (the canceller
            // holds the task's status lock while URLSession's queue, finishing the request, waits
            // for it), which hung this loop's tests on Linux.
            if queue.count > 0 { _ = await Task { try? await self.flush() }.value }
            if state.withLock({ $0.progressChanges != $0.progressShared && $0.userHash != nil }) {
                _ = await Task { try? await self.syncProgress() }.value
            }
            if options.clock() >= nextRefresh {
                _ = await Task { await self.refresh() }.value
                nextRefresh = options.clock().addingTimeInterval(options.refreshInterval)
            }
        }
    }

    /// Stops the background work, tries one last upload, and saves the engine's state and what the
    /// tour triggers and checklists have seen. Call it
    /// when the app goes to the background.
    public func stop() async {
        let tasks = state.withLock { state in
            defer { state.tasks = [] }
            return state.tasks
        }
        for task in tasks { task.cancel() }
        _ = try? await flush()
        if state.withLock({ $0.progressChanges != $0.progressShared }) { _ = try? await syncProgress() }
        try? engine.persist()
        // What the tour triggers and checklist rules have seen, kept once here rather than on
        // every event (a done item is kept as it happens).
        saveTriggers()
        checklistFile.save(state.withLock { $0.checklists.kept })
    }
}

/// What a client shares between its calls and its background work.
struct ClientState {
    var entry: CatalogCache.Entry?
    /// The catalog's checklists and the user's progress with them (``WaymarkClient/checklists``).
    var checklists = ChecklistRun([], progress: [:], offered: [])
    /// The catalog's tour triggers, the user's progress with tours (``WaymarkClient/tourProgress``)
    /// and the tour open now, if the client or the app opened one.
    var tours = TourGate(tours: [])
    /// The user's own choice of the listener's mode (``WaymarkClient/listensToTips``), if they made one.
    var listening: ListeningChoice?
    /// The user's identity proof, once ``WaymarkClient/identify(attributes:userHash:)`` gave one.
    var userHash: String?
    /// Failed uploads in a row: the background loop backs off by it.
    var failures = 0
    /// With ``WaymarkClient/Options/countsTipsWhenSeen``, the `tip_shown` events of tips shown
    /// and not yet seen, by tip: sent when the renderer says the tip came into sight.
    var unseen: [String: [String: ContextValue]] = [:]
    /// The screen the app last recorded (`screen`), and the tips whose anchor was reported
    /// missing on it: ``WaymarkClient/anchorNotFound(tip:)`` reports once per tip and screen view.
    var screen: String?
    var anchorsMissed: Set<String> = []
    /// The screens ``WaymarkClient/reportAnchors(screen:anchors:areas:)`` reported, and the UTC
    /// day (days since 1970) it was.
    var reportedScreens: [String: Int] = [:]
    /// How many times the engine showed, paused or finished tips, and how many of those the
    /// server has heard of (``WaymarkClient/syncProgress()``): while they differ there is
    /// progress to share.
    var progressChanges = 0
    var progressShared = 0
    var flushScheduled = false
    var tasks: [Task<Void, Never>] = []
}

/// Queues events, including the tip lifecycle events the SDK sends by itself from the engine's
/// commands: tip_shown, tip_closed and tip_dismissed, with the tip's variant for A/B results.
struct Lifecycle: Sendable {
    let queue: EventQueue
    let state: Locked<ClientState>
    let user: String
    let properties: [String: ContextValue]
    /// Whether `tip_shown` waits until the renderer says the tip was seen (``seen(_:at:)``).
    let countsWhenSeen: Bool
    /// The app's hook for guidance events, told of each as it is queued.
    let onGuidanceEvent: (@Sendable (GuidanceEvent) -> Void)?

    func record(_ commands: [RenderCommand]) {
        if !commands.isEmpty { state.withLock { $0.progressChanges += 1 } }
        for command in commands {
            if countsWhenSeen, command.action == .hide { _ = state.withLock { $0.unseen.removeValue(forKey: command.tip) } }
            let name: String
            switch (command.action, command.reason) {
            case (.show, _): name = "tip_shown"
            case (.hide, .closed): name = "tip_closed"
            case (.hide, .dismissed): name = "tip_dismissed"
            default: continue
            }
            var properties = self.properties
            properties["tip"] = .string(command.tip)
            properties["container"] = .string(command.container)
            let shown = state.withLock { state in
                properties["variant"] = state.entry?.catalog.tips.first { $0.id == command.tip }?.variant.map(ContextValue.string)
                guard countsWhenSeen, command.action == .show else { return true }
                state.unseen[command.tip] = properties
                return false
            }
            if shown { enqueue(name, target: command.tip, properties: properties, at: command.time) }
        }
    }

    /// The renderer saw the tip: its `tip_shown`, if it waited for that, is sent now.
    func seen(_ tip: String, at time: Date) {
        guard let properties = state.withLock({ $0.unseen.removeValue(forKey: tip) }) else { return }
        enqueue("tip_shown", target: tip, properties: properties, at: time)
    }

    func enqueue(_ name: String, target: String?, properties: [String: ContextValue], at time: Date) {
        // JSON has no NaN or infinity: such a number stays with the engine and is not sent.
        let properties = properties.filter { _, value in
            if case .number(let number) = value { return number.isFinite }
            return true
        }
        let id = EventID.make(at: time)
        queue.append(
            IncomingEvent(
                id: id, user: user, name: name, target: target, timestamp: Timestamp.format(time),
                properties: properties.isEmpty ? nil : properties
            )
        )
        if let onGuidanceEvent, IncomingEvent.guidanceNames.contains(name) {
            onGuidanceEvent(GuidanceEvent(id: id, name: name, target: target, time: time, properties: properties))
        }
    }
}

/// One thing the guidance did, for the app's own analytics (``WaymarkClient/Options/onGuidanceEvent``):
/// the event as Waymark's server gets it. `tip_shown` with `tip`, `container` and `variant`;
/// `page_read_to_bottom` with `tour`; `help_searched` with `query` and `results`; and the
/// app's standard properties (`platform`, `appVersion`, `locale`) on every one.
///
/// ```swift
/// options.onGuidanceEvent = { event in
///     Analytics.logEvent("waymark_" + event.name, parameters: event.properties.mapValues(\.description))
/// }
/// ```
public struct GuidanceEvent: Hashable, Sendable {
    /// The event's id, the same the server stores: a receiver of both can join them.
    public var id: String
    /// One of `IncomingEvent.guidanceNames`.
    public var name: String
    /// The tip, tour, checklist or article it is about, where it has one.
    public var target: String?
    /// When it happened.
    public var time: Date
    /// Its properties, the app's standard ones among them.
    public var properties: [String: ContextValue]
}
