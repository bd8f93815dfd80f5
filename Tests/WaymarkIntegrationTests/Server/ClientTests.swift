import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Testing
import WaymarkAPI
import WaymarkAnalytics
import WaymarkApplication
import WaymarkCatalog
import WaymarkClient
import WaymarkEngine
import WaymarkNarration
import WaymarkRules
import WaymarkServer
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A Waymark server on loopback that can be stopped and started again on the same port and
/// database, as a phone sees a server go away and come back.
final class LiveServer: Sendable {
    let store: any Store
    let directory: URL
    let shop: Provisioning.NewApp
    private let running = Locked<(group: ServiceGroup, task: Task<Void, any Error>)?>(nil)
    private let boundPort = Locked(0)

    var port: Int { boundPort.withLock { $0 } }
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Runs `body` with a server started on a fresh database of that kind, with the shop app and
    /// its catalog published, and a directory for the phones; stops and removes it all afterwards.
    /// With `narrating`, the server speaks the catalog in the background as `waymark serve` does.
    static func with(_ kind: StoreUnderTest, narrating: Bool = false, _ body: @Sendable (LiveServer) async throws -> Void) async throws {
        try await kind.with { store, _ in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-client-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let shop = try await Provisioning.createApp(name: "Shop", in: store)
            try await Provisioning.publish(
                try CatalogDocument.parse(ServerTests.shop, file: "shop.yaml"), app: shop.appId, note: "test", in: store)
            let server = LiveServer(store: store, directory: directory, shop: shop, narrating: narrating)
            try await server.run(port: 0)
            do {
                try await body(server)
            } catch {
                try? await server.stop()
                throw error
            }
            try await server.stop()
        }
    }

    private let narrating: Bool

    private init(store: any Store, directory: URL, shop: Provisioning.NewApp, narrating: Bool) {
        self.store = store
        self.directory = directory
        self.shop = shop
        self.narrating = narrating
    }

    /// Starts the server (port 0: any free port) and returns once it listens.
    func run(port: Int) async throws {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let (listening, signal) = AsyncStream.makeStream(of: Int.self)
        let synthesizer = narrating ? try ESpeakSynthesizer.onPath().get() : nil
        let application = buildApplication(
            .init(port: port, synthesizer: synthesizer), store: store, logger: logger, onServerRunning: { port in signal.yield(port) }
        )
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let task = Task { try await group.run() }
        running.withLock { $0 = (group, task) }
        for await port in listening {
            boundPort.withLock { $0 = port }
            break
        }
    }

    func stop() async throws {
        guard
            let (group, task) = running.withLock({ state in
                defer { state = nil }
                return state
            })
        else { return }
        await group.triggerGracefulShutdown()
        try await task.value
    }

}

/// The Swift SDK against a live server: the server's own integration tests, driven through the
/// client apps link.
@Suite(.timeLimit(.minutes(5))) struct ClientTests {
    static let context = ClientContext(platform: "ios", model: "iPhone15,2", appVersion: "1.4", locale: "hi-IN")

    static func options(_ directory: URL, flushInterval: TimeInterval = 3600) -> WaymarkClient.Options {
        WaymarkClient.Options(
            directory: directory, flushInterval: flushInterval, retry: RetryPolicy(initialDelay: 0.05, maximumDelay: 0.2),
            claimAttempts: 2
        )
    }

    /// Publishes the demo shop's catalog with `tips` (YAML list items, as at the left margin)
    /// before its own.
    static func publishShop(_ server: LiveServer, note: String, addingTips tips: String) async throws {
        let indented = tips.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
        let catalog = ServerTests.shop.replacingOccurrences(of: "\ntips:\n", with: "\ntips:\n" + indented + "\n")
        try await Provisioning.publish(
            try CatalogDocument.parse(catalog, file: "shop.yaml"), app: server.shop.appId, note: note, in: server.store)
    }

    static func start(_ server: LiveServer, _ directory: URL, user: String = "u1", flushInterval: TimeInterval = 3600) async
        -> WaymarkClient
    {
        await WaymarkClient.start(
            key: server.shop.clientKey, server: server.url, user: user, context: context,
            options: options(directory, flushInterval: flushInterval)
        )
    }

    @Test(arguments: StoreUnderTest.available)
    func runsThePublishedCatalogAndUploadsWhatHappened(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let client = await Self.start(server, server.directory.appendingPathComponent("phone"))
            #expect(client.catalog?.version == 1)
            #expect(client.tip("welcome")?.content.locale == "hi")
            #expect(client.tour("shop-tour")?.pages.count == 3)

            #expect(client.record("activation").map(\.action) == [.show])
            let dismissed = client.record("tap", target: "welcome-close")
            #expect(dismissed.map(\.action) == [.hide])
            #expect(dismissed.first?.reason == .dismissed)
            // activation, tip_shown, tap, tip_dismissed.
            #expect(client.queuedEvents == 4)
            let report = try await client.flush()
            #expect(report.accepted == 4)
            #expect(report.remaining == 0)
            #expect(try await server.store.eventCount(app: server.shop.appId) == 4)

            // Nothing changed on the server: it says so with 304 instead of sending the catalog again.
            #expect(await client.refresh() == .notModified)
            await client.stop()
        }
    }

    /// The app's own analytics hear of every guidance event as it is queued, with the id the
    /// server stores it under, and of nothing else (not the user's taps or screens).
    @Test(arguments: StoreUnderTest.available)
    func guidanceEventsReachTheAppsOwnAnalytics(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let heard = Locked<[GuidanceEvent]>([])
            var options = Self.options(server.directory.appendingPathComponent("phone"))
            options.onGuidanceEvent = { event in heard.withLock { $0.append(event) } }
            let client = await WaymarkClient.start(
                key: server.shop.clientKey, server: server.url, user: "tracked", context: Self.context, options: options)
            _ = client.record("activation")
            _ = client.record("tap", target: "welcome-close")
            _ = try client.answer(survey: "checkout-survey", score: 4, comment: "ठीक है")
            let events = heard.withLock { $0 }
            #expect(events.map(\.name) == ["tip_shown", "tip_dismissed", "survey_answered"])
            #expect(events[0].target == "welcome" && events[0].properties["tip"] == .string("welcome"))
            #expect(events[0].properties["platform"] == .string("ios") && events[0].properties["locale"] == .string("hi-IN"))
            #expect(events[2].properties["comment"] == .string("ठीक है"))
            _ = try await client.flush()
            let stored = try await server.store.events(
                app: server.shop.appId, period: Period(from: 0, to: Int64.max), user: "tracked", after: nil, limit: 10)
            #expect(Set(events.map(\.id)).isSubset(of: Set(stored.map(\.id))), "the same ids as the server's")
            await client.stop()
        }
    }

    /// With `countsTipsWhenSeen` the app's renderer says when a tip came into sight, and only then is
    /// it counted: once, however often it comes back into sight; a tip dismissed unseen is never counted.
    @Test(arguments: StoreUnderTest.available)
    func aTipIsCountedWhenTheRendererSaysItWasSeen(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            var options = Self.options(server.directory.appendingPathComponent("phone"))
            options.countsTipsWhenSeen = true
            let client = await WaymarkClient.start(
                key: server.shop.clientKey, server: server.url, user: "seen", context: Self.context, options: options)
            #expect(client.record("activation").map(\.action) == [.show])
            #expect(client.queuedEvents == 1, "activation; the welcome tip is not seen yet")
            client.setTip("welcome", visible: true)
            client.setTip("welcome", visible: false)
            client.setTip("welcome", visible: true)
            #expect(client.queuedEvents == 2, "tip_shown, once")
            _ = client.record("tap", target: "welcome-close")
            let report = try await client.flush()
            #expect(report.accepted == 4)
            let names = try await server.store.events(
                app: server.shop.appId, period: Period(from: 0, to: Int64.max), user: "seen", after: nil, limit: 10
            ).map(\.name)
            #expect(names.filter { $0 == "tip_shown" }.count == 1)
            await client.stop()
        }
    }

    /// The app's renderer says a shown tip's anchor is not on the screen: the client sends it once
    /// per tip and screen view, and analytics count it. The app says what a screen has: the
    /// client sends it once a day, and the server keeps it for the console.
    @Test(arguments: StoreUnderTest.available)
    func whatAScreenHasAndMissesIsReported(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let client = await Self.start(server, server.directory.appendingPathComponent("phone"))
            #expect(client.record("screen", target: "products").map(\.tip) == ["product-list-tip"])
            #expect(client.anchorNotFound(tip: "product-list-tip"))
            #expect(!client.anchorNotFound(tip: "product-list-tip"), "once per screen view")
            #expect(!client.anchorNotFound(tip: "welcome"), "a banner has no anchor to miss")
            client.record("screen", target: "products")
            #expect(client.anchorNotFound(tip: "product-list-tip"), "a new view of the screen")
            #expect(try await client.flush().remaining == 0)
            let missing = try await Analytics(store: server.store).missingAnchors(
                app: server.shop.appId, period: Period(from: 0, to: Int64.max))
            #expect(missing == [MissingAnchor(tip: "product-list-tip", anchor: "product:visible", screen: "products", times: 2, users: 1)])

            // What the screen has, once a day; a name the server would refuse is left out.
            #expect(try await client.reportAnchors(screen: "products", anchors: ["product", "cart link", "product"], areas: ["products"]))
            #expect(try await !client.reportAnchors(screen: "products", anchors: ["product"], areas: []), "once a day")
            let seen = try await server.store.sightings(app: server.shop.appId)
            #expect(
                seen.map { "\($0.platform) \($0.screen) \($0.kind.rawValue) \($0.name) \($0.reports)" } == [
                    "ios products anchor product 1", "ios products area products 1",
                ])
            await #expect(throws: WaymarkClientError.self) {
                try await client.reportAnchors(screen: "product page", anchors: [], areas: [])
            }
            await client.stop()
        }
    }

    /// A tip that points by CSS selector is the web's: this client leaves it out and says why.
    @Test(arguments: StoreUnderTest.available)
    func aTipBySelectorIsLeftOutWithItsReason(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            try await Self.publishShop(
                server, note: "selector",
                addingTips: """
                    - id: pay-web
                      container: checkout
                      selector: "#checkout button.pay"
                      trigger: screen:checkout
                      content: { title: Pay here }
                    """)
            let client = await Self.start(server, server.directory.appendingPathComponent("phone"))
            #expect(client.tip("pay-web")?.selector == "#checkout button.pay", "delivered as it is")
            #expect(client.ignoredTips["pay-web"]?.contains("its anchor is the CSS selector \"#checkout button.pay\"") == true)
            #expect(client.ignoredTips.count == 1)
            #expect(!client.record("screen", target: "checkout").map(\.tip).contains("pay-web"))
            await client.stop()
        }
    }

    /// An app's own properties keep their types from `record` to the engine and to the database:
    /// a rule tests the amount as a number, and the server stores `799`, not `"799"`.
    @Test(arguments: StoreUnderTest.available)
    func typedPropertiesReachTheRulesAndTheServer(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            try await Self.publishShop(
                server, note: "cod",
                addingTips: """
                    - id: cod-big-order
                      container: banner
                      trigger: purchase where amount >= 500 AND cod == true
                      dismissal: tap:cod-close
                      content: { title: Keep cash ready, body: Your order is paid on delivery. }
                    """)
            let client = await Self.start(server, server.directory.appendingPathComponent("phone"))
            #expect(client.record("purchase", properties: ["amount": 499, "cod": true]).isEmpty)
            #expect(client.record("purchase", properties: ["amount": "799", "cod": true]).isEmpty, "text is not a number")
            #expect(
                client.record("purchase", properties: ["amount": 799.5, "cod": true, "ratio": .number(.nan)]).map(\.tip) == [
                    "cod-big-order"
                ])
            #expect(try await client.flush().accepted == 4)
            let stored = try await server.store.events(
                app: server.shop.appId, period: Period(from: 0, to: Int64.max), user: nil, after: nil, limit: 10)
            let purchases = stored.filter { $0.name == "purchase" }.compactMap(\.properties)
            #expect(purchases.count == 3)
            for (properties, expected) in zip(purchases, [#""amount":499,"#, #""amount":"799","#, #""amount":799.5,"#]) {
                #expect(properties.contains(expected) && properties.contains(#""cod":true"#), "\(properties)")
                #expect(!properties.contains("ratio"), "NaN cannot go in JSON")
            }
            await client.stop()
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func identifiedAttributesReachTheRulesTheServerAndTheUsersOtherDevice(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            try await Self.publishShop(
                server, note: "attributes",
                addingTips: """
                    - id: plus-offer
                      container: offers
                      trigger: activation AND user.plan == "plus" AND user.firstOrderAt < 2026-01-01
                      content: { title: Plus members, body: Free delivery today. }
                    - id: cod-targeted
                      container: cart
                      trigger: activation
                      targeting: user.codUser == true AND user.appBuild >= v5.2
                      content: { title: Cash on delivery, body: Keep change ready. }
                    """)
            let proof = Secrets.userHash(user: "u1", identitySecret: server.shop.identitySecret)
            let phone = await Self.start(server, server.directory.appendingPathComponent("phone"))
            #expect(phone.tip("cod-targeted") == nil)

            // On the device at once, without a proof: only the engine hears of them.
            #expect(try await phone.identify(attributes: ["plan": "plus"]) == nil)
            phone.record("activation")
            #expect(phone.engine.phase(of: "plus-offer") == .waiting, "no first order yet")
            let first = Date(timeIntervalSince1970: 1_760_000_000)
            #expect(try await phone.identify(attributes: ["firstOrderAt": .time(first)]) == nil)
            #expect(phone.engine.phase(of: "plus-offer") == .active, "the attribute completed the trigger")
            #expect(try await server.store.attributes(app: server.shop.appId, user: "u1").isEmpty)

            // With the proof the server keeps them, and targeting reads them.
            let answer = try #require(
                try await phone.identify(
                    attributes: ["codUser": true, "appBuild": .version(Version([5, 10])), "plan": "plus"], userHash: proof))
            #expect(answer.attributes.map(\.name) == ["appBuild", "codUser", "plan"])
            #expect(phone.tip("cod-targeted") != nil, "the catalog was fetched again for the new attributes")
            await #expect(throws: WaymarkClientError.self) { try await phone.identify(attributes: ["user.plan": "x"], userHash: proof) }
            let refused = await #expect(throws: WaymarkClientError.self) {
                try await phone.identify(attributes: ["plan": "gold"], userHash: String(repeating: "0", count: 64))
            }
            #expect(refused?.code == "bad_user_hash")

            // The same user's second device gets the targeted catalog from its first fetch.
            let tablet = await WaymarkClient.start(
                key: server.shop.clientKey, server: server.url, user: "u1", userHash: proof, context: Self.context,
                options: Self.options(server.directory.appendingPathComponent("tablet"), flushInterval: 3600))
            #expect(tablet.tip("cod-targeted") != nil)
            let stranger = await Self.start(server, server.directory.appendingPathComponent("other"), user: "u2")
            #expect(stranger.tip("cod-targeted") == nil)
            await phone.stop()
            await tablet.stop()
            await stranger.stop()
        }
    }

    /// The shop makes the listener's mode the default for Hindi; the user's own choice wins over
    /// it, is kept, and follows them to their other devices (the latest holding).
    @Test(arguments: StoreUnderTest.available)
    func theListenersModeIsTheCatalogsDefaultUntilTheUserChooses(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let proof = Secrets.userHash(user: "u1", identitySecret: server.shop.identitySecret)
            func device(_ name: String, locale: String = "hi-IN", userHash: String? = proof) async -> WaymarkClient {
                var context = Self.context
                context.locale = locale
                return await WaymarkClient.start(
                    key: server.shop.clientKey, server: server.url, user: "u1", userHash: userHash, context: context,
                    options: Self.options(server.directory.appendingPathComponent(name)))
            }
            let phone = await device("phone")
            #expect(phone.catalog?.listen == ["hi"])
            #expect(phone.listensToTips, "the default for hi-IN")
            phone.setListening(false)
            #expect(!phone.listensToTips)
            await phone.stop()
            // Kept on the phone; shared with the tablet, whose Hindi default it overrides.
            let again = await device("phone", userHash: nil)
            #expect(!again.listensToTips)
            await again.stop()
            let tablet = await device("tablet")
            #expect(!tablet.listensToTips)
            tablet.setListening(true)
            _ = try await tablet.syncProgress()
            await tablet.stop()
            let laptop = await device("laptop", locale: "en")
            #expect(laptop.listensToTips, "the latest choice, made on the tablet")
            await laptop.stop()
            let stranger = await device("kiosk", locale: "en", userHash: nil)
            #expect(!stranger.listensToTips, "no default for English")
            await stranger.stop()
        }
    }

    /// A tip the user closed on one phone stays closed on their tablet and after a reinstall; a
    /// device that cannot prove the user keeps its own.
    @Test(arguments: StoreUnderTest.available)
    func progressFollowsTheUserToTheirOtherDevices(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            try await Self.publishShop(
                server, note: "progress",
                addingTips: """
                    - id: hello
                      container: greeting
                      trigger: activation
                      content: { title: Hello, body: Welcome to the shop. }
                    - id: twice
                      container: offers
                      trigger: activation
                      policy: { maxDisplayCount: 2 }
                      content: { title: Offers, body: Two looks at most. }
                    """)
            let proof = Secrets.userHash(user: "u1", identitySecret: server.shop.identitySecret)
            func device(_ name: String, userHash: String? = proof) async -> WaymarkClient {
                await WaymarkClient.start(
                    key: server.shop.clientKey, server: server.url, user: "u1", userHash: userHash, context: Self.context,
                    options: Self.options(server.directory.appendingPathComponent(name)))
            }
            let phone = await device("phone")
            phone.record("activation")
            #expect(phone.engine.phase(of: "hello") == .active && phone.engine.phase(of: "twice") == .active)
            phone.close(tip: "hello")
            _ = phone.setContainer("offers", visible: false)
            // The app draws the tour: the user reached its third page.
            phone.tourProgressed("shop-tour", page: 2)
            phone.tourProgressed("shop-tour", page: 1)
            #expect(phone.tourProgress == ["shop-tour": TourProgress(page: 2)], "progress only grows")
            // Stopping shares what changed.
            await phone.stop()
            let stored = try #require(try await server.store.progress(app: server.shop.appId, user: "u1"))
            let kept = try JSONDecoder().decode(UserProgress.self, from: Data(stored.utf8))
            #expect(kept.tips["hello"]?.finished == .closed && kept.tips["twice"]?.shown == 1)

            // The tablet merges it at start: the closed tip stays closed, the other has one look left.
            let tablet = await device("tablet")
            #expect(tablet.engine.phase(of: "hello") == .finished(.closed))
            #expect(tablet.tourProgress == ["shop-tour": TourProgress(page: 2)])
            tablet.tourProgressed("shop-tour", page: 2, finished: true)
            tablet.record("activation")
            #expect(tablet.engine.phase(of: "hello") == .finished(.closed))
            #expect(tablet.engine.phase(of: "twice") == .active, "its second and last look")
            _ = tablet.setContainer("offers", visible: false)
            #expect(tablet.engine.phase(of: "twice") == .finished(.maxDisplayCount))
            let synced = try #require(try await tablet.syncProgress())
            #expect(synced.progress.tips["twice"]?.shown == 2 && synced.progress.tips["twice"]?.finished == .maxDisplayCount)

            // The phone, reinstalled, hears of both at start; a device without the proof keeps its own.
            let reinstalled = await device("phone-again")
            #expect(reinstalled.engine.phase(of: "hello") == .finished(.closed))
            #expect(reinstalled.engine.phase(of: "twice") == .finished(.maxDisplayCount))
            #expect(reinstalled.tourProgress == ["shop-tour": TourProgress(page: 2, finished: true)])
            let unproven = await device("kiosk", userHash: nil)
            #expect(try await unproven.syncProgress() == nil)
            unproven.record("activation")
            #expect(unproven.engine.phase(of: "hello") == .active)
            await tablet.stop()
            await reinstalled.stop()
            await unproven.stop()
        }
    }

    /// An Apple renderer gets the narration's absolute URL and length from the client, plays it from
    /// the server, and reports listening as waymark.js does.
    @Test func narrationIsThereToPlayAndListeningIsReported() async throws {
        try await LiveServer.with(.sqlite, narrating: true) { server in
            let directory = server.directory.appendingPathComponent("phone")
            let client = await Self.start(server, directory)
            // The server speaks in the background; a later refresh brings the narration.
            let made = try await eventually(within: 60, every: .milliseconds(300)) {
                if client.narration(tip: "checkout-survey") == nil { _ = await client.refresh() }
                return client.narration(tip: "checkout-survey")
            }
            let narration = try #require(made)
            #expect(narration.url.absoluteString.hasPrefix("\(server.url.absoluteString)/v1/narration/\(server.shop.appId)/"))
            #expect(narration.source == .generated && (narration.duration ?? 0) > 1)
            let (audio, response) = try await URLSession.shared.data(from: narration.url)
            #expect((response as? HTTPURLResponse)?.statusCode == 200 && audio.starts(with: Array("OggS".utf8)))

            client.narrationPlayed(tip: "checkout-survey")
            client.narrationCompleted(tip: "checkout-survey")
            #expect(try await client.flush().accepted == 2)
            let stored = try await server.store.events(
                app: server.shop.appId, period: Period(from: 0, to: .max), user: "u1", after: nil, limit: 10
            )
            #expect(stored.map(\.name) == ["narration_played", "narration_completed"])
            #expect(stored.first?.target == "checkout-survey")
            #expect(stored.first?.properties?.contains(#""contentLocale":"hi""#) == true)
            #expect(stored.first?.properties?.contains(#""source":"generated""#) == true)
            await client.stop()
        }
    }

    /// A survey's answer goes up as `survey_answered` with its score and comment, and hides the
    /// survey (its default dismissal); scores off the scale and tips that ask nothing are refused.
    @Test(arguments: StoreUnderTest.available)
    func aSurveyAnswerIsAnEventAndEndsTheSurvey(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let client = await Self.start(server, server.directory.appendingPathComponent("phone"))
            let survey = try #require(client.tip("checkout-survey")?.survey)
            #expect(survey == DeliveredSurvey(scale: "csat", min: 1, max: 5, comment: true))
            client.record("activation")
            #expect(client.record("tap", target: "checkout").contains { $0.tip == "checkout-survey" && $0.action == .show })
            #expect(throws: WaymarkClientError.self) { try client.answer(survey: "checkout-survey", score: 6) }
            #expect(throws: WaymarkClientError.self) { try client.answer(survey: "welcome", score: 3) }
            let long = String(repeating: "é", count: 300)
            let hidden = try client.answer(survey: "checkout-survey", score: 4, comment: "  " + long + "  ")
            #expect(hidden.map(\.action) == [.hide])
            #expect(hidden.first?.reason == .dismissed)
            _ = try await client.flush()
            let events = try await server.store.events(
                app: server.shop.appId, period: Period(from: 0, to: Int64.max), user: "u1", after: nil, limit: 100)
            let answer = try #require(events.first { $0.name == "survey_answered" })
            #expect(answer.target == "checkout-survey")
            let properties = try JSONDecoder().decode([String: String].self, from: Data((answer.properties ?? "{}").utf8))
            #expect(properties["score"] == "4")
            #expect(properties["comment"] == String(repeating: "é", count: 256))
            #expect(events.contains { $0.name == "tip_dismissed" && $0.target == "checkout-survey" })
            await client.stop()
        }
    }

    /// A button's press is an event the engine sees first (the welcome's dismissal reads it), the
    /// tip then closes, and a button that leads out of Waymark goes to the app's onAction hook.
    @Test(arguments: StoreUnderTest.available)
    func aPressedButtonIsAnEventAndLeadsWhereItSays(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let requests = Locked<[WaymarkClient.ActionRequest]>([])
            var options = Self.options(server.directory.appendingPathComponent("phone"))
            options.onAction = { request in requests.withLock { $0.append(request) } }
            let client = await WaymarkClient.start(
                key: server.shop.clientKey, server: server.url, user: "u1", context: Self.context, options: options)
            // The buttons come in the language of their content (Hindi here).
            #expect(client.tip("welcome")?.actions?.map(\.label) == ["टूर शुरू करें", "अभी नहीं"])
            #expect(client.record("activation").contains { $0.tip == "welcome" && $0.action == .show })
            #expect(throws: WaymarkClientError.self) { try client.press(action: "nothing", tip: "welcome") }
            let hidden = try client.press(action: "tour", tip: "welcome")
            #expect(hidden.map(\.reason) == [.dismissed], "the dismissal reads the press")
            #expect(
                requests.withLock { $0 } == [
                    WaymarkClient.ActionRequest(
                        action: DeliveredAction(id: "tour", label: "टूर शुरू करें", style: "primary", kind: "tour", to: "shop-tour"),
                        tip: "welcome")
                ])
            // A tour page's button: the event, and the route for the app to follow.
            let page = try client.press(action: "shop", tour: "shop-tour", page: "checkout")
            #expect(page.kind == "route" && page.to == "/products")
            #expect(requests.withLock { $0.last?.tour } == "shop-tour")
            #expect(throws: WaymarkClientError.self) { try client.press(action: "shop", tour: "shop-tour", page: "browse") }
            _ = try await client.flush()
            let events = try await server.store.events(
                app: server.shop.appId, period: Period(from: 0, to: Int64.max), user: "u1", after: nil, limit: 100)
            let presses = events.filter { $0.name == "tip_action" || $0.name == "tour_action" }
            #expect(presses.map(\.name) == ["tip_action", "tour_action"])
            #expect(presses.map(\.target) == ["welcome", "shop-tour"])
            let properties = try presses.map { try JSONDecoder().decode([String: String].self, from: Data(($0.properties ?? "{}").utf8)) }
            #expect(properties[0]["action"] == "tour" && properties[0]["kind"] == "tour" && properties[0]["to"] == "shop-tour")
            #expect(properties[1]["page"] == "checkout" && properties[1]["to"] == "/products")
            #expect(events.contains { $0.name == "tip_dismissed" && $0.target == "welcome" })
            await client.stop()
        }
    }

    /// A hotspot comes as a tip drawn as a marker; tapped open, it is an event rules read.
    @Test(arguments: StoreUnderTest.available)
    func aHotspotOpenedIsAnEvent(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let client = await Self.start(server, server.directory.appendingPathComponent("phone"))
            #expect(client.tip("cart-hotspot")?.renderer == "hotspot")
            #expect(client.record("tap", target: "add-to-cart").contains { $0.tip == "cart-hotspot" && $0.action == .show })
            client.hotspotOpened(tip: "cart-hotspot")
            _ = try await client.flush()
            let events = try await server.store.events(
                app: server.shop.appId, period: Period(from: 0, to: Int64.max), user: "u1", after: nil, limit: 100)
            #expect(events.contains { $0.name == "hotspot_opened" && $0.target == "cart-hotspot" })
            await client.stop()
        }
    }

    /// A checklist's items get done by what the user does, stay done across a restart, follow
    /// the user to another device, and a completed checklist pays once.
    @Test(arguments: StoreUnderTest.available)
    func checklistsProgressByTheRulesAndFollowTheUser(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let phone = server.directory.appendingPathComponent("phone")
            let userHash = Secrets.userHash(user: "u1", identitySecret: server.shop.identitySecret)
            var client = await WaymarkClient.start(
                key: server.shop.clientKey, server: server.url, user: "u1", userHash: userHash, context: Self.context,
                options: Self.options(phone))
            let first = try #require(client.checklists.first)
            #expect(first.checklist.id == "first-steps" && first.checklist.content.title == "शुरुआत करें")
            #expect(first.checklist.items.map(\.content.title).first == "कोई उत्पाद देखें")
            #expect(first.offered && first.done.isEmpty && first.fraction == (0, 4))
            client.record("screen", target: "product")
            client.record("screen", target: "search")
            #expect(client.checklists.first?.done == ["browse", "search"])
            await client.stop()
            // A restart keeps what was done.
            client = await WaymarkClient.start(
                key: server.shop.clientKey, server: server.url, user: "u1", userHash: userHash, context: Self.context,
                options: Self.options(phone))
            #expect(client.checklists.first?.done == ["browse", "search"])
            // Another device of the user gets it from the server.
            let tablet = await WaymarkClient.start(
                key: server.shop.clientKey, server: server.url, user: "u1", userHash: userHash, context: Self.context,
                options: Self.options(server.directory.appendingPathComponent("tablet")))
            #expect(tablet.checklists.first?.done == ["browse", "search"])
            await tablet.stop()
            client.record("tap", target: "add-to-cart")
            client.record("tap", target: "checkout")
            #expect(client.checklists.first?.completed == true)
            let grant = try await client.claim(checklist: "first-steps", userHash: userHash)
            #expect(grant.checklist == "first-steps" && grant.credits == 10 && grant.tour == nil)
            #expect(try await client.claim(checklist: "first-steps", userHash: userHash).created == false)
            _ = try await client.flush()
            let events = try await server.store.events(
                app: server.shop.appId, period: Period(from: 0, to: Int64.max), user: "u1", after: nil, limit: 200)
            #expect(events.filter { $0.name == "checklist_item_done" }.count == 4)
            #expect(events.filter { $0.name == "checklist_completed" }.map(\.target) == ["first-steps"])
            await client.stop()
        }
    }

    /// The help lists a screen's articles first and the tours of that screen or of every screen,
    /// finds Hindi as typed and any screen's tour, and its searches are events.
    @Test(arguments: StoreUnderTest.available)
    func theHelpListsSearchesAndTellsTheServer(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let client = await Self.start(server, server.directory.appendingPathComponent("phone"))
            let listing = client.helpOpened(screen: "cart")
            #expect(listing.articles.prefix(listing.forScreen).map(\.id) == ["delivery-times", "cash-on-delivery"])
            #expect(listing.articles.count == 3 && listing.tours.map(\.id) == ["shop-tour", "pay-tour"] && listing.checklists.count == 1)
            // The cart's tour is not listed on another screen, but a search there finds it.
            #expect(client.helpOpened(screen: "home").tours.map(\.id) == ["shop-tour"])
            #expect(client.searchHelp("भुगतान कैसे", screen: "home").tours.map(\.id) == ["pay-tour"])
            // ज़्यादातर typed with ज + nukta finds the texts written with ज़.
            let found = client.searchHelp("\u{091C}\u{093C}\u{094D}\u{092F}\u{093E}\u{0926}\u{093E}\u{0924}\u{0930}", screen: "cart")
            #expect(found.articles.map(\.id) == ["delivery-times", "returns"])
            #expect(client.searchHelp("gift wrap", screen: "cart").count == 0)
            client.articleOpened("returns")
            _ = try await client.flush()
            let events = try await server.store.events(
                app: server.shop.appId, period: Period(from: 0, to: Int64.max), user: "u1", after: nil, limit: 100)
            let searches = events.filter { $0.name == "help_searched" }
            #expect(searches.count == 3)
            #expect(searches.last?.properties?.contains(#""query":"gift wrap""#) == true)
            #expect(searches.last?.properties?.contains(#""results":0"#) == true)
            #expect(
                events.contains { $0.name == "help_opened" } && events.contains { $0.name == "article_opened" && $0.target == "returns" })
            await client.stop()
        }
    }

    /// A tour opens by its trigger as on the web: once, while no tour is open, and never again
    /// once the user finished it; the app is told where to open it.
    @Test(arguments: StoreUnderTest.available)
    func aTourOpensByItsTriggerOneAtATime(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let started = Locked<[WaymarkClient.TourStart]>([])
            var options = Self.options(server.directory.appendingPathComponent("phone"))
            options.onTour = { start in started.withLock { $0.append(start) } }
            let client = await WaymarkClient.start(
                key: server.shop.clientKey, server: server.url, user: "u1", context: Self.context, options: options)
            client.record("tap", target: "search")
            #expect(started.withLock { $0 }.isEmpty, "its trigger is tap:tour-start")
            client.tourProgressed("shop-tour", page: 1)
            client.record("tap", target: "tour-start")
            #expect(started.withLock { $0.map(\.tour.id) } == ["shop-tour"])
            #expect(started.withLock { $0.first?.page } == 1, "where the user got to")
            client.record("tap", target: "tour-start")
            #expect(started.withLock { $0.count } == 1, "it is open already")
            client.tourProgressed("shop-tour", page: 2, finished: true)
            client.record("tap", target: "tour-start")
            #expect(started.withLock { $0.count } == 1, "a finished tour does not open again")
            await client.stop()

            // Left through its own buttons, a tour ends as they say, and its trigger, which still
            // holds, does not open it again.
            for (user, ending) in [("u2", TourProgress(page: 2, finished: true)), ("u3", TourProgress(page: 0, dismissed: true))] {
                var otherOptions = Self.options(server.directory.appendingPathComponent(user))
                otherOptions.onTour = options.onTour
                let other = await WaymarkClient.start(
                    key: server.shop.clientKey, server: server.url, user: user, context: Self.context, options: otherOptions)
                other.record("tap", target: "tour-start")
                #expect(started.withLock { $0.count } == 2)
                if ending.finished {
                    // "Start shopping" on the last page: a route.
                    let pressed = try other.press(action: "shop", tour: "shop-tour", page: "checkout")
                    #expect(pressed.kind == "route")
                } else {
                    other.tourEnded("shop-tour", page: 0, .dismissed)
                }
                #expect(other.tourProgress["shop-tour"] == ending)
                other.record("tap", target: "tour-start")
                #expect(started.withLock { $0.count } == 2, "\(user): an ended tour does not open again")
                _ = started.withLock { $0.removeLast() }
                await other.stop()
            }
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func startsOfflineFromTheLastCatalogAndUploadsWhenTheServerIsBack(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let phone = server.directory.appendingPathComponent("phone")
            let first = await Self.start(server, phone)
            #expect(first.catalog?.version == 1)
            try await server.stop()

            first.record("screen", target: "home")
            await #expect(throws: WaymarkClientError.self) { try await first.flush() }
            #expect(first.queuedEvents == 1, "a failed upload keeps the events")
            await first.stop()

            // The app is started again while the server is still away: it runs from disk.
            let second = await Self.start(server, phone)
            #expect(second.catalog?.version == 1)
            guard case .failed(let error) = await second.refresh() else {
                Issue.record("the refresh should fail while the server is down")
                return
            }
            #expect(error.status == nil && error.isTransient)
            #expect(second.queuedEvents == 1, "events queued before the restart are still there")
            #expect(second.record("activation").map(\.tip) == ["welcome"])

            try await server.run(port: server.port)
            let report = try await second.flush()
            #expect(report.accepted == 3)  // screen, activation, tip_shown
            #expect(second.queuedEvents == 0)
            #expect(try await server.store.eventCount(app: server.shop.appId) == 3)
            await second.stop()
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func anUploadSentAgainAfterItsAnswerWasLostIsStoredOnce(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let phone = server.directory.appendingPathComponent("phone")
            let client = await Self.start(server, phone)
            for target in ["a", "b", "c"] { client.record("tap", target: target) }
            // As if the answer never came: the queue file is put back as it was before the upload.
            let queueFile = phone.appendingPathComponent("events.jsonl")
            let before = try Data(contentsOf: queueFile)
            #expect(try await client.flush().accepted == 3)
            await client.stop()
            try before.write(to: queueFile)

            let third = await Self.start(server, phone)
            let report = try await third.flush()
            #expect(report.duplicates == 3)
            #expect(report.accepted == 0)
            #expect(try await server.store.eventCount(app: server.shop.appId) == 3)
            await third.stop()
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func eventsAreUploadedInTheBackgroundAfterFailures(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let client = await Self.start(server, server.directory.appendingPathComponent("phone"), flushInterval: 0.1)
            try await server.stop()
            client.record("scroll")  // and tip_shown for the search tip
            try await Task.sleep(nanoseconds: 300_000_000)
            #expect(client.queuedEvents == 2, "nothing is lost while the server is away")
            try await server.run(port: server.port)
            // Bounded only to stop a hang: the client backs off at most 0.2 s here.
            let deadline = Date().addingTimeInterval(30)
            while try await server.store.eventCount(app: server.shop.appId) < 2, Date() < deadline {
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            #expect(try await server.store.eventCount(app: server.shop.appId) == 2)
            await client.stop()
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func aRewardIsClaimedOnceWithTheAppsProof(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let client = await Self.start(server, server.directory.appendingPathComponent("phone"), user: "reader")
            let proof = Secrets.userHash(user: "reader", identitySecret: server.shop.identitySecret)
            // The server grants a page's credit only once it has the page read to the bottom.
            client.pageViewed(tour: "shop-tour", page: "checkout")
            do throws(WaymarkClientError) {
                _ = try await client.claim(tour: "shop-tour", page: "checkout", userHash: proof)
                Issue.record("a page not read to its bottom earns nothing")
            } catch {
                #expect(error.status == 409 && error.code == "not_read")
            }
            // The claim sends the queued page_read_to_bottom first.
            client.pageRead(tour: "shop-tour", page: "checkout")
            #expect(client.queuedEvents == 1)
            let grant = try await client.claim(tour: "shop-tour", page: "checkout", userHash: proof)
            #expect(client.queuedEvents == 0)
            #expect(grant.created)
            #expect(grant.credits > 0)
            let again = try await client.claim(tour: "shop-tour", page: "checkout", userHash: proof)
            #expect(again.grantId == grant.grantId)
            #expect(!again.created)
            #expect(again.balance == grant.balance)

            let forged = Secrets.userHash(user: "someone-else", identitySecret: server.shop.identitySecret)
            do throws(WaymarkClientError) {
                _ = try await client.claim(tour: "shop-tour", page: "checkout", userHash: forged)
                Issue.record("a claim with another user's proof must fail")
            } catch {
                #expect(error.status == 403)
                #expect(error.code == "bad_user_hash")
                #expect(!error.isTransient)
            }
            try await server.stop()
            do throws(WaymarkClientError) {
                _ = try await client.claim(tour: "shop-tour", page: "checkout", userHash: proof)
                Issue.record("a claim without a server must fail")
            } catch {
                #expect(error.code == "unreachable")
            }
            await client.stop()
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func aWrongKeyIsAClearErrorAndKeepsTheEvents(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let client = await WaymarkClient.start(
                key: "wm_client_not-a-key", server: server.url, user: "u1", context: Self.context,
                options: Self.options(server.directory.appendingPathComponent("phone"))
            )
            #expect(client.catalog == nil)
            guard case .failed(let error) = await client.refresh() else {
                Issue.record("a wrong key must not get a catalog")
                return
            }
            #expect(error.status == 401)
            client.record("tap")
            await #expect(throws: WaymarkClientError.self) { try await client.flush() }
            #expect(client.queuedEvents == 1)
            await client.stop()
        }
    }
}
