import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOFoundationEssentialsCompat
import Testing
import WaymarkAPI
import WaymarkApplication
import WaymarkCatalog
import WaymarkNarration
import WaymarkRules
import WaymarkServer
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// The server over HTTP on a real port, on a fresh database of each store under test.
@Suite(.timeLimit(.minutes(5))) struct ServerTests {
    static let shop = try! String(
        contentsOf: WaymarkBinary.root.appendingPathComponent("Sources/waymark/Resources/shop.yaml"), encoding: .utf8
    )

    /// A server on a fresh database with two apps; runs `body` against it live. With a
    /// `synthesizer`, the server speaks narration in the background as `waymark serve` does.
    func withServer(
        _ kind: StoreUnderTest = .sqlite, synthesizer: (any Synthesizer)? = nil,
        _ body: @Sendable (any TestClientProtocol, Provisioning.NewApp, Provisioning.NewApp, any Store) async throws -> Void
    ) async throws {
        try await kind.with { store, _ in
            let shopApp = try await Provisioning.createApp(name: "Shop", in: store)
            let otherApp = try await Provisioning.createApp(name: "Other", in: store)
            var logger = Logger(label: "test")
            logger.logLevel = .warning
            let application = buildApplication(.init(port: 0, synthesizer: synthesizer), store: store, logger: logger)
            try await application.test(.live) { client in try await body(client, shopApp, otherApp, store) }
        }
    }

    static func auth(_ key: String) -> HTTPFields { [.authorization: "Bearer \(key)"] }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
    }

    static func publishShop(_ client: any TestClientProtocol, _ app: Provisioning.NewApp) async throws {
        try await publish(shop, client, app)
    }

    /// Saves the document as the app's draft and publishes it, through the admin API.
    static func publish(_ document: String, _ client: any TestClientProtocol, _ app: Provisioning.NewApp) async throws {
        let put = try await client.execute(
            uri: "/v1/admin/catalog/draft", method: .put, headers: auth(app.secretKey), body: ByteBuffer(string: document))
        #expect(put.status == .ok, "\(String(buffer: put.body))")
        let publish = try await client.execute(uri: "/v1/admin/catalog/publish", method: .post, headers: auth(app.secretKey))
        #expect(publish.status == .created)
    }

    @Test(arguments: StoreUnderTest.available)
    func publishesAndDeliversWithETags(_ kind: StoreUnderTest) async throws {
        try await withServer(kind) { client, app, _, _ in
            let before = try await client.execute(uri: "/v1/catalog", method: .get, headers: Self.auth(app.clientKey))
            #expect(before.status == .notFound)
            try await Self.publishShop(client, app)
            let uri = "/v1/catalog?platform=ios&model=iPad13,1&appVersion=1.4&locale=hi-IN&user=u1"
            let first = try await client.execute(uri: uri, method: .get, headers: Self.auth(app.clientKey))
            #expect(first.status == .ok)
            let etag = try #require(first.headers[.eTag])
            #expect(first.headers[.cacheControl]?.contains("max-age") == true)
            let catalog = try JSONDecoder().decode(DeliveredCatalog.self, from: Data(buffer: first.body))
            #expect(catalog.version == 1)
            let welcome = try #require(catalog.tips.first { $0.id == "welcome" })
            #expect(welcome.content.locale == "hi")
            #expect(welcome.trigger.description == "activation")
            let tour = try #require(catalog.tours.first)
            #expect(tour.pages.map(\.id) == ["browse", "search", "checkout"])
            #expect(tour.pages[0].media?.url == "https://media.example.com/browse-ipad.mp4")
            #expect(tour.pages[2].media?.url == "https://media.example.com/checkout-hi.mp4")
            var conditional = Self.auth(app.clientKey)
            conditional[.ifNoneMatch] = etag
            let again = try await client.execute(uri: uri, method: .get, headers: conditional)
            #expect(again.status == .notModified)
            #expect(again.headers[.eTag] == etag)
            // Another client context is another body, so another tag.
            let other = try await client.execute(uri: "/v1/catalog?locale=ta", method: .get, headers: conditional)
            #expect(other.status == .ok)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func keysAreScopedToTheirAppAndKind(_ kind: StoreUnderTest) async throws {
        try await withServer(kind) { client, app, other, _ in
            try await Self.publishShop(client, app)
            // No key, a made-up key, a client key on the admin API: 401.
            #expect(try await client.execute(uri: "/v1/catalog", method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/v1/catalog", method: .get, headers: Self.auth("wm_pk_nope")).status == .unauthorized)
            #expect(
                try await client.execute(uri: "/v1/admin/catalog/draft", method: .get, headers: Self.auth(app.clientKey)).status
                    == .unauthorized)
            // The other app's keys see nothing of this app's: the same 404 as for a missing object.
            let theirs = try await client.execute(uri: "/v1/admin/catalog/versions/1", method: .get, headers: Self.auth(other.secretKey))
            let missing = try await client.execute(uri: "/v1/admin/catalog/versions/99", method: .get, headers: Self.auth(app.secretKey))
            #expect(theirs.status == .notFound && missing.status == .notFound)
            #expect(String(buffer: theirs.body) == String(buffer: missing.body))
            #expect(try await client.execute(uri: "/v1/catalog", method: .get, headers: Self.auth(other.clientKey)).status == .notFound)
            // A revoked key stops working at once.
            let made = try await client.execute(
                uri: "/v1/admin/keys", method: .post, headers: Self.auth(app.secretKey), body: ByteBuffer(string: #"{"kind":"client"}"#)
            )
            #expect(made.status == .created)
            let fields = try Self.json(made)
            let newKey = try #require(fields["key"] as? String)
            let id = try #require(fields["id"] as? String)
            #expect(try await client.execute(uri: "/v1/catalog", method: .get, headers: Self.auth(newKey)).status == .ok)
            #expect(
                try await client.execute(uri: "/v1/admin/keys/\(id)", method: .delete, headers: Self.auth(other.secretKey)).status
                    == .notFound)
            #expect(
                try await client.execute(uri: "/v1/admin/keys/\(id)", method: .delete, headers: Self.auth(app.secretKey)).status
                    == .noContent)
            #expect(try await client.execute(uri: "/v1/catalog", method: .get, headers: Self.auth(newKey)).status == .unauthorized)
            // Listing keys never shows a key or its hash.
            let list = try await client.execute(uri: "/v1/admin/keys", method: .get, headers: Self.auth(app.secretKey))
            #expect(!String(buffer: list.body).contains("wm_pk_") && !String(buffer: list.body).contains("hash"))
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func aBadCatalogIsRefusedWithPositionsAndChangesNothing(_ kind: StoreUnderTest) async throws {
        try await withServer(kind) { client, app, _, _ in
            try await Self.publishShop(client, app)
            let bad = "tips:\n  - id: t\n    container: home\n    trigger: (tap AND scroll))\n    content: { title: T }\n"
            let put = try await client.execute(
                uri: "/v1/admin/catalog/draft", method: .put, headers: Self.auth(app.secretKey), body: ByteBuffer(string: bad))
            #expect(put.status == .unprocessableContent)
            let error = try #require(try Self.json(put)["error"] as? [String: Any])
            let diagnostics = try #require(error["diagnostics"] as? [String])
            #expect(diagnostics.first?.contains("--> draft:4:30") == true)
            #expect(diagnostics.first?.contains("unexpected \")\"") == true)
            let draft = try await client.execute(uri: "/v1/admin/catalog/draft", method: .get, headers: Self.auth(app.secretKey))
            #expect(try CatalogDocument.parse(String(buffer: draft.body), file: "draft") == CatalogDocument.parse(Self.shop, file: "shop"))
            let notUTF8 = try await client.execute(
                uri: "/v1/admin/catalog/draft", method: .put, headers: Self.auth(app.secretKey), body: ByteBuffer(bytes: [0xff, 0xfe])
            )
            #expect(notUTF8.status == .badRequest)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func rollbackRepublishesAnEarlierVersion(_ kind: StoreUnderTest) async throws {
        try await withServer(kind) { client, app, _, _ in
            try await Self.publishShop(client, app)
            let v1 = try JSONDecoder().decode(
                DeliveredCatalog.self,
                from: Data(buffer: try await client.execute(uri: "/v1/catalog", method: .get, headers: Self.auth(app.clientKey)).body)
            )
            let smaller = "tips:\n  - id: only\n    container: home\n    trigger: scroll\n    content: { title: Only }\n"
            #expect(
                try await client.execute(
                    uri: "/v1/admin/catalog/draft", method: .put, headers: Self.auth(app.secretKey), body: ByteBuffer(string: smaller)
                ).status == .ok)
            #expect(
                try await client.execute(uri: "/v1/admin/catalog/publish", method: .post, headers: Self.auth(app.secretKey)).status
                    == .created)
            let v2 = try await client.execute(uri: "/v1/catalog", method: .get, headers: Self.auth(app.clientKey))
            #expect(try JSONDecoder().decode(DeliveredCatalog.self, from: Data(buffer: v2.body)).tips.map(\.id) == ["only"])
            let rollback = try await client.execute(
                uri: "/v1/admin/catalog/rollback", method: .post, headers: Self.auth(app.secretKey),
                body: ByteBuffer(string: #"{"version":1}"#)
            )
            #expect(rollback.status == .created)
            #expect(try Self.json(rollback)["version"] as? Int == 3)
            let v3 = try JSONDecoder().decode(
                DeliveredCatalog.self,
                from: Data(buffer: try await client.execute(uri: "/v1/catalog", method: .get, headers: Self.auth(app.clientKey)).body)
            )
            #expect(v3.version == 3)
            #expect(v3.tips == v1.tips && v3.tours == v1.tours)
            let versions = try await client.execute(uri: "/v1/admin/catalog/versions", method: .get, headers: Self.auth(app.secretKey))
            #expect(String(buffer: versions.body).contains("rollback to 1"))
        }
    }

    /// Sends what an SDK sends for a page the user opened and, `seconds` later, read to the bottom.
    static func read(
        _ client: any TestClientProtocol, _ app: Provisioning.NewApp, user: String = "u1", tour: String = "shop-tour",
        page: String = "checkout",
        seconds: Int = 30, bottom: Bool = true
    ) async throws {
        func event(_ name: String, at second: Int) -> String {
            let time = Timestamp.format(Date(timeIntervalSince1970: 1_795_000_000 + Double(second)))
            return
                #"{"id":"\#(UUID().uuidString.lowercased())","user":"\#(user)","name":"\#(name)","target":"\#(page)","timestamp":"\#(time)","properties":{"tour":"\#(tour)","page":"\#(page)"}}"#
        }
        let events = [event("page_viewed", at: 0)] + (bottom ? [event("page_read_to_bottom", at: seconds)] : [])
        let response = try await client.execute(
            uri: "/v1/events", method: .post, headers: auth(app.clientKey),
            body: ByteBuffer(string: #"{"events":[\#(events.joined(separator: ","))]}"#))
        #expect(response.status == .ok)
    }

    static func event(_ id: String, name: String = "tap", target: String? = "search", timestamp: String = "2026-11-20T10:00:00Z") -> String
    {
        let targetField = target.map { #","target":"\#($0)""# } ?? ""
        return #"{"id":"\#(id)","user":"u1","name":"\#(name)"\#(targetField),"timestamp":"\#(timestamp)"}"#
    }

    @Test(arguments: StoreUnderTest.available)
    func eventsAreStoredOnceAndEachIsAnsweredAlone(_ kind: StoreUnderTest) async throws {
        try await withServer(kind) { client, app, other, store in
            let ids = (0..<3).map { _ in UUID().uuidString.lowercased() }
            let body =
                #"{"events":[\#(Self.event(ids[0])),\#(Self.event(ids[1], timestamp: "2099-01-01T00:00:00Z")),{"id":"\#(ids[2])","user":"u1","name":"tap","color":"red","timestamp":"2026-11-20T10:00:00Z"},\#(Self.event(ids[0])),{"id":"x","user":"u1","name":"tap","timestamp":"2026-11-20T10:00:00Z"},{"id":"\#(UUID().uuidString)","user":"u1","name":"bad name","timestamp":"2026-11-20T10:00:00Z"}]}"#
            let response = try await client.execute(
                uri: "/v1/events", method: .post, headers: Self.auth(app.clientKey), body: ByteBuffer(string: body))
            #expect(response.status == .ok)
            let results = try JSONDecoder().decode(EventBatchResult.self, from: Data(buffer: response.body)).results
            #expect(results.map(\.status) == [.accepted, .accepted, .rejected, .duplicate, .rejected, .rejected])
            #expect(results[1].clamped == true)
            #expect(results[2].reason == "unknown field \"color\"")
            #expect(try await store.eventCount(app: app.appId) == 2)
            // A retried upload stores nothing twice, for good.
            let retry = try await client.execute(
                uri: "/v1/events", method: .post, headers: Self.auth(app.clientKey),
                body: ByteBuffer(string: #"{"events":[\#(Self.event(ids[0]))]}"#))
            #expect(try JSONDecoder().decode(EventBatchResult.self, from: Data(buffer: retry.body)).results.map(\.status) == [.duplicate])
            // Another app's events are its own: the same id is new there.
            let theirs = try await client.execute(
                uri: "/v1/events", method: .post, headers: Self.auth(other.clientKey),
                body: ByteBuffer(string: #"{"events":[\#(Self.event(ids[0]))]}"#))
            #expect(try JSONDecoder().decode(EventBatchResult.self, from: Data(buffer: theirs.body)).results.map(\.status) == [.accepted])
            #expect(try await store.eventCount(app: app.appId) == 2)

            // NUL, which PostgreSQL's text cannot hold, is refused per event; the rest of the upload is stored.
            let nul =
                #"{"events":[{"id":"\#(UUID().uuidString)","user":"u\u0000","name":"tap","timestamp":"2026-11-20T10:00:00Z"},{"id":"\#(UUID().uuidString)","user":"u1","name":"tap","timestamp":"2026-11-20T10:00:00Z","properties":{"k":"v\u0000"}},\#(Self.event(UUID().uuidString))]}"#
            let nulResults = try JSONDecoder().decode(
                EventBatchResult.self,
                from: Data(
                    buffer: try await client.execute(
                        uri: "/v1/events", method: .post, headers: Self.auth(app.clientKey), body: ByteBuffer(string: nul)
                    ).body)
            ).results
            #expect(nulResults.map(\.status) == [.rejected, .rejected, .accepted])
            #expect(nulResults[0].reason == "user must be text of 1 to 256 bytes, without NUL")
            #expect(try await store.eventCount(app: app.appId) == 3)

            _ = try await client.execute(
                uri: "/v1/events", method: .post, headers: Self.auth("wm_ck_wrong"), body: ByteBuffer(string: body))
            _ = try await client.execute(uri: "/wp-login.php", method: .get)
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains(#"waymark_events_total{outcome="accepted"} 4"#), "\(metrics)")
            #expect(metrics.contains(#"waymark_events_total{outcome="duplicate"} 2"#))
            #expect(metrics.contains(#"waymark_events_total{outcome="rejected"} 5"#))
            #expect(metrics.contains(#"waymark_http_requests_total{route="/v1/events",method="POST",status="200"} 4"#))
            #expect(metrics.contains(#"waymark_http_requests_total{route="/v1/events",method="POST",status="401"} 1"#))
            // Paths no route matches are one series, whatever scanners try.
            #expect(metrics.contains(#"waymark_http_requests_total{route="NotFound",method="GET",status="404"} 1"#))
        }
    }

    /// Uploads at the same time share transactions (group commit); each still gets its own
    /// answer, and an id sent by two uploads at once is accepted in exactly one of them.
    @Test(arguments: StoreUnderTest.available)
    func parallelUploadsAreEachAnsweredAndStoredOnce(_ kind: StoreUnderTest) async throws {
        try await withServer(kind) { client, app, _, store in
            let shared = (0..<10).map { _ in UUID().uuidString.lowercased() }
            let statuses = try await withThrowingTaskGroup(of: [EventResult].self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        let ids = shared + (0..<40).map { _ in UUID().uuidString.lowercased() }
                        let body = #"{"events":[\#(ids.map { Self.event($0) }.joined(separator: ","))]}"#
                        let response = try await client.executeAlone(
                            uri: "/v1/events", method: .post, headers: Self.auth(app.clientKey), body: ByteBuffer(string: body))
                        return try JSONDecoder().decode(EventBatchResult.self, from: Data(buffer: response.body ?? ByteBuffer())).results
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(statuses.count == 20 * 50)
            for id in shared {
                #expect(statuses.filter { $0.id == id && $0.status == .accepted }.count == 1)
                #expect(statuses.filter { $0.id == id && $0.status == .duplicate }.count == 19)
            }
            #expect(statuses.filter { $0.status == .accepted }.count == 10 + 20 * 40)
            #expect(try await store.eventCount(app: app.appId) == 10 + 20 * 40)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func badEventBodiesGetClearErrorsAndStoreNothing(_ kind: StoreUnderTest) async throws {
        try await withServer(kind) { client, app, _, store in
            func post(_ body: ByteBuffer) async throws -> TestResponse {
                try await client.execute(uri: "/v1/events", method: .post, headers: Self.auth(app.clientKey), body: body)
            }
            #expect(try await post(ByteBuffer(string: "{\"events\": [")).status == .badRequest)
            #expect(try await post(ByteBuffer(string: "[1, 2]")).status == .badRequest)
            #expect(try await post(ByteBuffer(string: #"{"events": [], "extra": 1}"#)).status == .badRequest)
            #expect(
                try await post(ByteBuffer(bytes: Array(#"{"events":[{"id":""#.utf8) + [0xc3, 0x28] + Array(#""}]}"#.utf8))).status
                    == .badRequest)
            #expect(try await post(ByteBuffer(string: String(repeating: "[", count: 100_000))).status == .badRequest)
            let tooBig = #"{"events":[\#(Array(repeating: Self.event(UUID().uuidString), count: 5000).joined(separator: ","))]}"#
            // A body too large closes its connection after the answer: sent on one of its own.
            let refused = try await client.executeAlone(
                uri: "/v1/events", method: .post, headers: Self.auth(app.clientKey), body: ByteBuffer(string: tooBig))
            #expect(refused.status == .contentTooLarge)
            let tooMany = #"{"events":[\#((0..<501).map { _ in Self.event(UUID().uuidString) }.joined(separator: ","))]}"#
            let tooManyAnswer = try await post(ByteBuffer(string: tooMany))
            #expect(tooManyAnswer.status == .badRequest)
            #expect(try HTTPEdgeTests.errorCode(tooManyAnswer) == "too_many_events")
            let error = try Self.json(try await post(ByteBuffer(string: "nope")))["error"] as? [String: Any]
            #expect(error?["code"] as? String == "bad_request")
            #expect(try await store.eventCount(app: app.appId) == 0)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func aRewardIsGrantedOnceWithAValidProof(_ kind: StoreUnderTest) async throws {
        try await withServer(kind) { client, app, _, store in
            try await Self.publishShop(client, app)
            func claim(user: String = "u1", hash: String? = nil, page: String = "checkout") async throws -> TestResponse {
                let proof = hash ?? Secrets.userHash(user: user, identitySecret: app.identitySecret)
                let body = #"{"user":"\#(user)","userHash":"\#(proof)","tour":"shop-tour","page":"\#(page)"}"#
                return try await client.execute(
                    uri: "/v1/rewards/claims", method: .post, headers: Self.auth(app.clientKey), body: ByteBuffer(string: body))
            }
            #expect(try await claim(hash: String(repeating: "0", count: 64)).status == .forbidden)
            #expect(try await claim(hash: Secrets.userHash(user: "u2", identitySecret: app.identitySecret)).status == .forbidden)
            #expect(try await claim(page: "browse").status == .notFound)
            try await Self.read(client, app)
            // Eight claims at the same moment: one grant.
            let responses = try await withThrowingTaskGroup(of: (HTTPResponse.Status, String).self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        let proof = Secrets.userHash(user: "u1", identitySecret: app.identitySecret)
                        let response = try await client.executeAlone(
                            uri: "/v1/rewards/claims", method: .post, headers: Self.auth(app.clientKey),
                            body: ByteBuffer(string: #"{"user":"u1","userHash":"\#(proof)","tour":"shop-tour","page":"checkout"}"#))
                        let answer = try JSONSerialization.jsonObject(with: Data(buffer: response.body ?? ByteBuffer())) as? [String: Any]
                        return (response.status, answer?["grantId"] as? String ?? "")
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.filter { $0.0 == .created }.count == 1)
            #expect(Set(responses.map(\.1)).count == 1)
            let later = try Self.json(try await claim())
            #expect(later["credits"] as? Int == 5 && later["balance"] as? Int == 5 && later["created"] as? Bool == false)
            #expect(try await store.balance(app: app.appId, user: "u1") == 5)

            // A completed checklist's credits, once, beside the page's; a claim names one or the other.
            func claimChecklist(_ id: String, extra: String = "") async throws -> TestResponse {
                let proof = Secrets.userHash(user: "u1", identitySecret: app.identitySecret)
                return try await client.execute(
                    uri: "/v1/rewards/claims", method: .post, headers: Self.auth(app.clientKey),
                    body: ByteBuffer(string: #"{"user":"u1","userHash":"\#(proof)","checklist":"\#(id)"\#(extra)}"#))
            }
            #expect(try await claimChecklist("nothing").status == .notFound)
            #expect(try await claimChecklist("first-steps", extra: #","tour":"shop-tour""#).status == .badRequest)
            let first = try await claimChecklist("first-steps")
            #expect(first.status == .created)
            let grant = try Self.json(first)
            #expect(grant["checklist"] as? String == "first-steps" && grant["tour"] == nil && grant["credits"] as? Int == 10)
            #expect(grant["balance"] as? Int == 15)
            #expect(try await claimChecklist("first-steps").status == .ok)
            #expect(try await store.balance(app: app.appId, user: "u1") == 15)
        }
    }

    /// A page's credit needs the user's own page events on the server: the page read to its
    /// bottom and, where the page asks for it, read that long from opening it. Refusals say why;
    /// a catalog may go without the check, but not for a page with a minimum reading time.
    @Test(arguments: StoreUnderTest.available)
    func aPagesCreditNeedsTheUsersOwnReading(_ kind: StoreUnderTest) async throws {
        try await withServer(kind) { client, app, _, _ in
            func catalog(requireReading: Bool) -> String {
                """
                tips: []
                tours:
                  - id: tour
                    pages:
                      - { id: a, content: { title: A }, reward: 1 }
                      - { id: b, content: { title: B }, reward: 2, minReadingSeconds: 20 }
                      - { id: c, content: { title: C }, reward: 3 }
                  - id: other
                    pages: [{ id: a, content: { title: A } }]
                rewards: { requireReading: \(requireReading) }
                """
            }
            try await Self.publish(catalog(requireReading: true), client, app)
            func claim(_ page: String, user: String = "u1") async throws -> (HTTPResponse.Status, code: String?, message: String?) {
                let proof = Secrets.userHash(user: user, identitySecret: app.identitySecret)
                let response = try await client.execute(
                    uri: "/v1/rewards/claims", method: .post, headers: Self.auth(app.clientKey),
                    body: ByteBuffer(string: #"{"user":"\#(user)","userHash":"\#(proof)","tour":"tour","page":"\#(page)"}"#))
                let error = try Self.json(response)["error"] as? [String: Any]
                return (response.status, error?["code"] as? String, error?["message"] as? String)
            }
            let unread = try await claim("a")
            #expect(unread.0 == .conflict && unread.code == "not_read")
            #expect(unread.message?.contains("no page_read_to_bottom of page a of tour tour") == true)
            // Opened but not read; read by someone else; read in another tour: still not read.
            try await Self.read(client, app, tour: "tour", page: "a", bottom: false)
            try await Self.read(client, app, user: "u2", tour: "tour", page: "a")
            try await Self.read(client, app, tour: "other", page: "a")
            #expect(try await claim("a").code == "not_read")
            try await Self.read(client, app, tour: "tour", page: "a", seconds: 2)
            #expect(try await claim("a").0 == .created, "no minimum: the bottom is enough")

            try await Self.read(client, app, tour: "tour", page: "b", seconds: 5)
            let quick = try await claim("b")
            #expect(quick.0 == .forbidden && quick.code == "read_too_quickly")
            #expect(quick.message == "this page's credit needs 20 s of reading; it was read in 5 s")
            try await Self.read(client, app, tour: "tour", page: "b", seconds: 25)
            #expect(try await claim("b").0 == .created, "read long enough once")

            // Without the check, a proof is enough, but a page's minimum reading time still holds.
            try await Self.publish(catalog(requireReading: false), client, app)
            #expect(try await claim("c").0 == .created)
            #expect(try await claim("b", user: "u3").code == "not_read")
        }
    }

    /// The app's backend reads a user's grants and balance, and pages through the ledger in the
    /// order grants were made, with its secret key and only its own app's. (The ledger's order on
    /// both databases is the store contract's `theLedgerIsReadInTheOrderGrantsWereMade`.)
    @Test func theBackendReadsTheLedger() async throws {
        try await withServer(.sqlite) { client, app, other, _ in
            try await Self.publishShop(client, app)
            try await Self.read(client, app, user: "u/1")
            for (user, body) in [("u/1", #""tour":"shop-tour","page":"checkout""#), ("u2", #""checklist":"first-steps""#)] {
                let proof = Secrets.userHash(user: user, identitySecret: app.identitySecret)
                let claim = try await client.execute(
                    uri: "/v1/rewards/claims", method: .post, headers: Self.auth(app.clientKey),
                    body: ByteBuffer(string: #"{"user":"\#(user)","userHash":"\#(proof)",\#(body)}"#))
                #expect(claim.status == .created)
            }
            func get(_ uri: String, key: String = app.secretKey) async throws -> TestResponse {
                try await client.execute(uri: uri, method: .get, headers: Self.auth(key))
            }
            let user = try JSONDecoder().decode(UserGrants.self, from: Data(buffer: try await get("/v1/admin/users/u%2F1/grants").body))
            #expect(user.user == "u/1" && user.balance == 5)
            #expect(user.grants.map { "\($0.sequence) \($0.tour ?? "") \($0.page ?? "") \($0.credits)" } == ["1 shop-tour checkout 5"])
            #expect(try await get("/v1/admin/users/nobody/grants").status == .notFound, "the ledger has no grant of them")

            var pages: [GrantPage] = []
            var after: Int64 = 0
            var more = true
            while more && pages.count < 10 {
                let response = try await get("/v1/admin/grants?after=\(after)&limit=1")
                #expect(response.status == .ok)
                let page = try JSONDecoder().decode(GrantPage.self, from: Data(buffer: response.body))
                pages.append(page)
                after = page.next
                more = !page.grants.isEmpty
            }
            #expect(pages.map { $0.grants.map(\.user) } == [["u/1"], ["u2"], []])
            #expect(pages.map(\.next) == [1, 2, 2])
            let checklist = try #require(pages.dropFirst().first?.grants.first)
            #expect(checklist.checklist == "first-steps" && checklist.tour == nil)

            #expect(try await get("/v1/admin/grants", key: app.clientKey).status == .unauthorized)
            #expect(try await get("/v1/admin/users/u2/grants", key: app.clientKey).status == .unauthorized)
            let others = try JSONDecoder().decode(
                GrantPage.self, from: Data(buffer: try await get("/v1/admin/grants", key: other.secretKey).body))
            #expect(others.grants.isEmpty && others.next == 0, "another app's ledger is its own")
            for bad in ["limit=0", "limit=1001", "after=-1", "after=x"] {
                let response = try await get("/v1/admin/grants?\(bad)")
                #expect(response.status == .badRequest, "\(bad)")
                #expect(try Self.json(response)["error"] != nil)
            }
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func healthz(_ kind: StoreUnderTest) async throws {
        try await withServer(kind) { client, _, _, _ in
            let response = try await client.execute(uri: "/healthz", method: .get)
            #expect(response.status == .ok)
        }
    }
}

extension TestClientProtocol {
    /// Sends the request on a connection of its own and closes it, as another device would. The
    /// live test client's own connection pipelines its requests, one answered after another, so
    /// requests meant to reach the server at the same time go through this. It waits up to a
    /// minute for the answer: a shared machine running the whole suite can be that slow.
    func executeAlone(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil)
        async throws -> TestClient.Response
    {
        let port = try #require(port, "a live server")
        let connection = TestClient(host: "localhost", port: port, configuration: .init(timeout: .seconds(60)))
        connection.connect()
        do {
            let response = try await connection.execute(.init(uri, method: method, authority: "localhost", headers: headers, body: body))
            try await connection.shutdown()
            return response
        } catch {
            try? await connection.shutdown()
            throw error
        }
    }
}
