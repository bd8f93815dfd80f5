import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOFoundationEssentialsCompat
import ServiceLifecycle
import Testing
import WaymarkApplication
import WaymarkServer
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// A receiver of webhooks on a port of its own, as an app's backend would run one: it keeps every
/// delivery and answers each with the status `answer` gives for the delivery's attempt number at
/// its URL (1, 2, …).
final class WebhookReceiver: Sendable {
    struct Delivery: Sendable {
        var uri: String
        var headers: HTTPFields
        var body: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
        var id: String { headers[HTTPField.Name("Waymark-Event-Id")!] ?? "" }
        var type: String { json["type"] as? String ?? "" }
        var data: [String: Any] { json["data"] as? [String: Any] ?? [:] }
    }

    let received = Locked<[Delivery]>([])
    let answer: @Sendable (_ event: String, _ attempt: Int) -> HTTPResponse.Status

    init(answer: @escaping @Sendable (_ event: String, _ attempt: Int) -> HTTPResponse.Status = { _, _ in .ok }) {
        self.answer = answer
    }

    var deliveries: [Delivery] { received.withLock { $0 } }

    func of(_ type: String) -> [Delivery] { deliveries.filter { $0.type == type } }

    /// Runs the receiver while `body` runs, given its URL.
    func run(port: Int = 0, _ body: @Sendable (String) async throws -> Void) async throws {
        let router = Router()
        router.post("/hook") { request, _ -> Response in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            let delivery = Delivery(uri: request.uri.description, headers: request.headers, body: String(buffer: buffer))
            let attempt = self.received.withLock { received in
                received.append(delivery)
                return received.filter { $0.id == delivery.id && $0.uri == delivery.uri }.count
            }
            return Response(status: self.answer(delivery.id, attempt), body: .init(byteBuffer: ByteBuffer(string: "answer \(attempt)")))
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "receiver")
        logger.logLevel = .warning
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) }, logger: logger)
        let services = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            var ports = stream.makeAsyncIterator()
            let port = await ports.next() ?? 0
            do {
                try await body("http://127.0.0.1:\(port)/hook")
            } catch {
                await services.triggerGracefulShutdown()
                throw error
            }
            await services.triggerGracefulShutdown()
        }
    }
}

/// Signed webhooks from the change to the receiver: written in the change's transaction, sent by
/// the server's sender with retries, listed with their answers and sent again on request.
@Suite(.timeLimit(.minutes(5))) struct WebhookTests {
    /// A live server on a fresh database whose sender polls every 50 ms and retries after 0.2 s
    /// (doubling), endpoints on this machine allowed.
    func withServer(
        _ kind: StoreUnderTest,
        _ body: @Sendable (any TestClientProtocol, Provisioning.NewApp, any Store, StoreUnderTest.Location) async throws -> Void
    ) async throws {
        try await kind.with { store, location in
            let app = try await Provisioning.createApp(name: "Shop", in: store)
            var logger = Logger(label: "test")
            logger.logLevel = .warning
            let configuration = WaymarkConfiguration(
                port: 0, webhooksToPrivateNetworks: true, webhookFirstRetry: 0.2, webhookPoll: .milliseconds(50))
            try await buildApplication(configuration, store: store, logger: logger).test(.live) { client in
                try await body(client, app, store, location)
            }
        }
    }

    static func createEndpoint(
        _ client: any TestClientProtocol, _ app: Provisioning.NewApp, url: String, types: [String]? = nil
    ) async throws -> (id: String, secret: String) {
        let typesField = types.map { #","types":[\#($0.map { "\"\($0)\"" }.joined(separator: ","))]"# } ?? ""
        let response = try await client.execute(
            uri: "/v1/admin/webhooks", method: .post, headers: ServerTests.auth(app.secretKey),
            body: ByteBuffer(string: #"{"url":"\#(url)"\#(typesField)}"#))
        #expect(response.status == .created, "\(String(buffer: response.body))")
        let json = try ServerTests.json(response)
        return (try #require(json["id"] as? String), try #require(json["secret"] as? String))
    }

    @Test(arguments: StoreUnderTest.available)
    func changesReachTheEndpointSignedAndOnce(_ kind: StoreUnderTest) async throws {
        let receiver = WebhookReceiver()
        try await receiver.run { url in
            try await withServer(kind) { client, app, store, _ in
                let endpoint = try await Self.createEndpoint(client, app, url: url)
                #expect(endpoint.secret.hasPrefix("whsec_"))
                // Publishing, a verified credit, a survey answer (sent twice: one notice) and a
                // checklist completed, then erasing the user.
                try await ServerTests.publishShop(client, app)
                try await ServerTests.read(client, app)
                let proof = Secrets.userHash(user: "u1", identitySecret: app.identitySecret)
                let claim = try await client.execute(
                    uri: "/v1/rewards/claims", method: .post, headers: ServerTests.auth(app.clientKey),
                    body: ByteBuffer(string: #"{"user":"u1","userHash":"\#(proof)","tour":"shop-tour","page":"checkout"}"#))
                #expect(claim.status == .created)
                let answerID = UUID().uuidString.lowercased()
                let events = [
                    #"{"id":"\#(answerID)","user":"u1","name":"survey_answered","target":"checkout-survey","timestamp":"2026-11-20T10:00:00Z","properties":{"score":9,"comment":"quick"}}"#,
                    #"{"id":"\#(UUID().uuidString.lowercased())","user":"u1","name":"checklist_completed","target":"getting-started","timestamp":"2026-11-20T10:01:00Z"}"#,
                    ServerTests.event(UUID().uuidString.lowercased()),
                ]
                for batch in [events, [events[0]]] {
                    let response = try await client.execute(
                        uri: "/v1/events", method: .post, headers: ServerTests.auth(app.clientKey),
                        body: ByteBuffer(string: #"{"events":[\#(batch.joined(separator: ","))]}"#))
                    #expect(response.status == .ok)
                }
                #expect(try await eventually(within: 20) { receiver.deliveries.count >= 4 })
                let erase = try await client.execute(uri: "/v1/admin/users/u1", method: .delete, headers: ServerTests.auth(app.secretKey))
                #expect(erase.status == .ok)

                let types = ["catalog.published", "credit.granted", "survey.answered", "checklist.completed", "user.erased"]
                #expect(try await eventually(within: 20) { receiver.deliveries.count >= types.count })
                #expect(receiver.deliveries.map(\.type).sorted() == types.sorted(), "\(receiver.deliveries.map(\.type))")
                for delivery in receiver.deliveries {
                    let signature = try #require(delivery.headers[HTTPField.Name("Waymark-Signature")!])
                    #expect(WebhookSignature.verify(signature, body: delivery.body, secret: endpoint.secret, now: Date()))
                    #expect(!WebhookSignature.verify(signature, body: delivery.body + " ", secret: endpoint.secret, now: Date()))
                    #expect(delivery.json["id"] as? String == delivery.id && delivery.id.hasPrefix("evt_"))
                    #expect(delivery.json["app"] as? String == app.appId)
                }
                let grant = try #require(receiver.of("credit.granted").first?.data)
                #expect(grant["balance"] as? Int == 5 && (grant["grant"] as? [String: Any])?["page"] as? String == "checkout")
                let survey = try #require(receiver.of("survey.answered").first?.data)
                #expect(survey["survey"] as? String == "checkout-survey" && survey["event"] as? String == answerID)
                #expect((survey["answer"] as? [String: Any])?["score"] as? Int == 9)
                #expect(receiver.of("checklist.completed").first?.data["checklist"] as? String == "getting-started")
                #expect(receiver.of("catalog.published").first?.data["version"] as? Int == 1)
                let erased = try #require(receiver.of("user.erased").first?.data)
                #expect(erased["user"] as? String == "u1" && (erased["erased"] as? [String: Any])?["grants"] as? Int == 1)

                // The erasure took the user's own deliveries with it; its notice stays, delivered. (The
                // sender records an answer after the receiver gave it, so the listing may lag a moment.)
                var deliveries: [[String: Any]] = []
                #expect(
                    try await eventually(within: 10) {
                        let listed = try await client.execute(
                            uri: "/v1/admin/webhook-deliveries", method: .get, headers: ServerTests.auth(app.secretKey))
                        deliveries = try JSONSerialization.jsonObject(with: Data(buffer: listed.body)) as? [[String: Any]] ?? []
                        return deliveries.count == 2
                            && deliveries.allSatisfy { $0["state"] as? String == "delivered" && $0["lastStatus"] as? Int == 200 }
                    }, "\(deliveries)")
                #expect(Set(deliveries.compactMap { $0["type"] as? String }) == ["catalog.published", "user.erased"])
                #expect(try await store.webhookDeliveries(app: app.appId, endpoint: nil, limit: 10).count == 2)
            }
        }
    }

    /// An endpoint that names `guidance.events` gets each upload's guidance events in one signed
    /// delivery, and a repeat of the upload adds none; one that takes every type gets none of them.
    @Test(arguments: StoreUnderTest.available)
    func guidanceEventsReachAnEndpointThatNamesThemBatched(_ kind: StoreUnderTest) async throws {
        let receiver = WebhookReceiver()
        try await receiver.run { url in
            try await withServer(kind) { client, app, _, _ in
                let guidance = try await Self.createEndpoint(client, app, url: url + "?guidance", types: ["guidance.events"])
                _ = try await Self.createEndpoint(client, app, url: url + "?all")
                let ids = (0..<4).map { _ in UUID().uuidString.lowercased() }
                let events = [
                    #"{"id":"\#(ids[0])","user":"u1","name":"tip_shown","target":"welcome","timestamp":"2026-11-20T10:00:00Z","properties":{"tip":"welcome","locale":"hi-IN"}}"#,
                    ServerTests.event(ids[1]),
                    #"{"id":"\#(ids[2])","user":"u2","name":"page_read_to_bottom","target":"checkout","timestamp":"2026-11-20T10:00:05Z","properties":{"tour":"shop-tour"}}"#,
                    #"{"id":"\#(ids[3])","user":"u1","name":"help_searched","timestamp":"2026-11-20T10:00:09Z","properties":{"query":"ऑर्डर रद्द","results":0}}"#,
                ]
                for _ in 0..<2 {
                    let response = try await client.execute(
                        uri: "/v1/events", method: .post, headers: ServerTests.auth(app.clientKey),
                        body: ByteBuffer(string: #"{"events":[\#(events.joined(separator: ","))]}"#))
                    #expect(response.status == .ok)
                }
                #expect(try await eventually(within: 20) { !receiver.of("guidance.events").isEmpty })
                // Time for a wrong second delivery to arrive, were one sent.
                _ = try await eventually(within: 1) { receiver.of("guidance.events").count > 1 }
                let deliveries = receiver.of("guidance.events")
                #expect(deliveries.count == 1 && deliveries[0].uri.hasSuffix("?guidance"), "\(deliveries.map(\.uri))")
                let delivery = try #require(deliveries.first)
                let signature = try #require(delivery.headers[HTTPField.Name("Waymark-Signature")!])
                #expect(WebhookSignature.verify(signature, body: delivery.body, secret: guidance.secret, now: Date()))
                let sent = try #require(delivery.data["events"] as? [[String: Any]])
                #expect(sent.map { $0["id"] as? String } == [ids[0], ids[2], ids[3]], "the guidance events, not the tap")
                #expect(sent.map { $0["name"] as? String } == ["tip_shown", "page_read_to_bottom", "help_searched"])
                #expect(sent[0]["user"] as? String == "u1" && sent[0]["target"] as? String == "welcome")
                #expect((sent[0]["properties"] as? [String: Any])?["locale"] as? String == "hi-IN")
                #expect((sent[2]["properties"] as? [String: Any])?["query"] as? String == "ऑर्डर रद्द")
                #expect(sent[2]["time"] as? String == "2026-11-20T10:00:09Z" && sent[2]["target"] is NSNull, "\(sent[2])")
                #expect(receiver.deliveries.allSatisfy { !$0.uri.hasSuffix("?all") || $0.type != "guidance.events" })
            }
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func failedDeliveriesAreRetriedListedAndSentAgain(_ kind: StoreUnderTest) async throws {
        // The first two attempts of each delivery get a 503.
        let receiver = WebhookReceiver { _, attempt in attempt <= 2 ? .serviceUnavailable : .ok }
        try await receiver.run { url in
            try await withServer(kind) { client, app, _, _ in
                let only = try await Self.createEndpoint(client, app, url: url, types: ["catalog.published"])
                let all = try await Self.createEndpoint(client, app, url: url + "?all")
                try await ServerTests.publishShop(client, app)
                #expect(try await eventually(within: 20) { receiver.deliveries.filter { $0.type == "catalog.published" }.count >= 6 })
                func listed(_ endpoint: String? = nil) async throws -> [[String: Any]] {
                    let query = endpoint.map { "?endpoint=\($0)" } ?? ""
                    let response = try await client.execute(
                        uri: "/v1/admin/webhook-deliveries\(query)", method: .get, headers: ServerTests.auth(app.secretKey))
                    return try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [[String: Any]])
                }
                #expect(try await eventually(within: 10) { try await listed().allSatisfy { $0["state"] as? String == "delivered" } })
                let deliveries = try await listed()
                #expect(deliveries.count == 2, "one per endpoint")
                #expect(deliveries.allSatisfy { $0["attempts"] as? Int == 3 && $0["lastAnswer"] as? String == "answer 3" })
                #expect(Set(receiver.deliveries.map(\.id)).count == 1, "one notice, the same id at every attempt and endpoint")
                #expect(try await listed(only.id).count == 1)

                // The credit is not for the endpoint that takes only publications.
                try await ServerTests.read(client, app)
                let proof = Secrets.userHash(user: "u1", identitySecret: app.identitySecret)
                _ = try await client.execute(
                    uri: "/v1/rewards/claims", method: .post, headers: ServerTests.auth(app.clientKey),
                    body: ByteBuffer(string: #"{"user":"u1","userHash":"\#(proof)","tour":"shop-tour","page":"checkout"}"#))
                #expect(try await eventually(within: 20) { try await listed(all.id).count == 2 })
                #expect(try await listed(only.id).count == 1)

                // Sent again on request, with the same id.
                let event = try #require(deliveries.first { $0["endpoint"] as? String == only.id }?["event"] as? String)
                let before = receiver.deliveries.count
                let resend = try await client.execute(
                    uri: "/v1/admin/webhooks/\(only.id)/deliveries/\(event)/resend", method: .post, headers: ServerTests.auth(app.secretKey)
                )
                #expect(resend.status == .accepted)
                #expect(try await eventually(within: 20) { receiver.deliveries.dropFirst(before).contains { $0.id == event } })
                let missing = try await client.execute(
                    uri: "/v1/admin/webhooks/\(only.id)/deliveries/evt_nope/resend", method: .post, headers: ServerTests.auth(app.secretKey)
                )
                #expect(missing.status == .notFound)
            }
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func secretsRotateWithBothValidMeanwhile(_ kind: StoreUnderTest) async throws {
        let receiver = WebhookReceiver()
        try await receiver.run { url in
            try await withServer(kind) { client, app, _, _ in
                let endpoint = try await Self.createEndpoint(client, app, url: url)
                let rotated = try await client.execute(
                    uri: "/v1/admin/webhooks/\(endpoint.id)/rotate", method: .post, headers: ServerTests.auth(app.secretKey),
                    body: ByteBuffer(string: #"{"previousValidHours":2}"#))
                #expect(rotated.status == .ok)
                let summary = try ServerTests.json(rotated)
                let newSecret = try #require(summary["secret"] as? String)
                #expect(newSecret != endpoint.secret && summary["previousSecretValidUntil"] is String)
                try await ServerTests.publishShop(client, app)
                #expect(try await eventually(within: 20) { !receiver.deliveries.isEmpty })
                let delivery = try #require(receiver.deliveries.first)
                let signature = try #require(delivery.headers[HTTPField.Name("Waymark-Signature")!])
                #expect(signature.components(separatedBy: "v1=").count == 3, "two signatures: \(signature)")
                for secret in [endpoint.secret, newSecret] {
                    #expect(WebhookSignature.verify(signature, body: delivery.body, secret: secret, now: Date()))
                }
                #expect(!WebhookSignature.verify(signature, body: delivery.body, secret: "whsec_other", now: Date()))

                // The listing never shows a secret; bad bodies and other apps' ids are refused.
                let list = try await client.execute(uri: "/v1/admin/webhooks", method: .get, headers: ServerTests.auth(app.secretKey))
                #expect(!String(buffer: list.body).contains("whsec_") && String(buffer: list.body).contains(endpoint.id))
                for body in [
                    #"{"url":"ftp://example.com/x"}"#, #"{"url":"http://10.0.0.1/x"}"#, #"{"url":"https://example.com","types":["nope"]}"#,
                    #"{"url":"https://example.com","extra":1}"#, "[]",
                ] {
                    let refused = try await client.execute(
                        uri: "/v1/admin/webhooks", method: .post, headers: ServerTests.auth(app.secretKey), body: ByteBuffer(string: body))
                    // 10.0.0.1 is allowed on this server (endpoints on private networks are, for the test).
                    let expected: HTTPResponse.Status =
                        body.contains("10.0.0.1") ? .created : body.contains("ftp") ? .unprocessableContent : .badRequest
                    #expect(refused.status == expected, "\(body)")
                }
                for body in [#"{"url":"https://example.com","types":null}"#, #"{"url":"https://example.com/ok","types":[]}"#] {
                    let created = try await client.execute(
                        uri: "/v1/admin/webhooks", method: .post, headers: ServerTests.auth(app.secretKey), body: ByteBuffer(string: body))
                    #expect(created.status == (body.contains("null") ? .badRequest : .created), "\(body)")
                }
                let rotation = try await client.execute(
                    uri: "/v1/admin/webhooks/\(endpoint.id)/rotate", method: .post, headers: ServerTests.auth(app.secretKey),
                    body: ByteBuffer(string: #"{"previousValidHours":1000}"#))
                #expect(rotation.status == .badRequest)
                let deleted = try await client.execute(
                    uri: "/v1/admin/webhooks/\(endpoint.id)", method: .delete, headers: ServerTests.auth(app.secretKey))
                #expect(deleted.status == .noContent)
                let again = try await client.execute(
                    uri: "/v1/admin/webhooks/\(endpoint.id)", method: .delete, headers: ServerTests.auth(app.secretKey))
                #expect(again.status == .notFound)
            }
        }
    }

    /// A grant's time is one time wherever it is shown: in the claim's answer, in its
    /// `credit.granted` notice and in the grants API, which reads it back from the store.
    @Test(arguments: StoreUnderTest.available)
    func aGrantsTimeIsTheSameInItsAnswerItsNoticeAndTheLedger(_ kind: StoreUnderTest) async throws {
        let receiver = WebhookReceiver()
        try await receiver.run { url in
            try await withServer(kind) { client, app, _, _ in
                _ = try await Self.createEndpoint(client, app, url: url, types: ["credit.granted"])
                try await ServerTests.publishShop(client, app)
                var answered: [String: String] = [:]
                for index in 0..<20 {
                    let user = "reader\(index)"
                    try await ServerTests.read(client, app, user: user)
                    let proof = Secrets.userHash(user: user, identitySecret: app.identitySecret)
                    let claim = try await client.execute(
                        uri: "/v1/rewards/claims", method: .post, headers: ServerTests.auth(app.clientKey),
                        body: ByteBuffer(string: #"{"user":"\#(user)","userHash":"\#(proof)","tour":"shop-tour","page":"checkout"}"#))
                    #expect(claim.status == .created)
                    answered[user] = try ServerTests.json(claim)["grantedAt"] as? String
                }
                #expect(try await eventually(within: 20) { receiver.of("credit.granted").count == 20 })
                for delivery in receiver.of("credit.granted") {
                    let grant = try #require(delivery.data["grant"] as? [String: Any])
                    let user = try #require(grant["user"] as? String)
                    let ledger = try await client.execute(
                        uri: "/v1/admin/users/\(user)/grants", method: .get, headers: ServerTests.auth(app.secretKey))
                    let stored = try #require((try ServerTests.json(ledger)["grants"] as? [[String: Any]])?.first?["grantedAt"] as? String)
                    #expect(
                        answered[user] == stored && grant["grantedAt"] as? String == stored, "\(user): \(answered[user] ?? "") \(stored)")
                }
            }
        }
    }

    /// A NUL character, which PostgreSQL cannot store, is a client's mistake on every store: 400,
    /// never 503 `storage_unavailable` (which a retry could never mend).
    @Test(arguments: StoreUnderTest.available)
    func aNULCharacterIsABadRequestOnEveryStore(_ kind: StoreUnderTest) async throws {
        try await withServer(kind) { client, app, _, _ in
            for uri in ["/v1/admin/webhook-deliveries?endpoint=%00", "/v1/admin/users/a%00b/grants", "/v1/admin/webhooks/%00/rotate"] {
                let response = try await client.execute(
                    uri: uri, method: uri.hasSuffix("rotate") ? .post : .get, headers: ServerTests.auth(app.secretKey))
                #expect(response.status == .badRequest, "\(uri): \(String(buffer: response.body))")
            }
            let proof = Secrets.userHash(user: "a\u{0}b", identitySecret: app.identitySecret)
            let identify = try await client.execute(
                uri: "/v1/identify", method: .post, headers: ServerTests.auth(app.clientKey),
                body: ByteBuffer(string: #"{"user":"a\u0000b","userHash":"\#(proof)","attributes":{"plan":"x\u0000"}}"#))
            #expect([.ok, .badRequest].contains(identify.status), "\(String(buffer: identify.body))")
            #expect(kind == .sqlite || identify.status == .badRequest)
        }
    }

    /// Every URL a server would crash or misbehave on, given through the API and written straight
    /// into the database (as an operator's shell or an older server could): the API refuses each
    /// with 422 naming the field, and a stored one fails its delivery at once while the server
    /// goes on sending to a good endpoint.
    @Test(arguments: StoreUnderTest.available)
    func noStoredURLCanStopTheSender(_ kind: StoreUnderTest) async throws {
        let bad = [
            "http://127.0.0.1:65536/", "http://127.0.0.1:99999/hook", "https://example.com:70000/", "http://127.0.0.1:0/",
            "https://exa mple.com/", "https://example.com/\r\nX-Evil: 1", "https://example.com/\t", "http://[::1]:99999/",
            "http://2130706433/", "ftp://example.com/", "not a url", "",
        ]
        let receiver = WebhookReceiver()
        try await receiver.run { url in
            try await withServer(kind) { client, app, store, location in
                for text in bad {
                    let body = String(decoding: try JSONSerialization.data(withJSONObject: ["url": text]), as: UTF8.self)
                    let refused = try await client.execute(
                        uri: "/v1/admin/webhooks", method: .post, headers: ServerTests.auth(app.secretKey), body: ByteBuffer(string: body))
                    #expect(refused.status == .unprocessableContent, "\(text.debugDescription)")
                    let error = try ServerTests.json(refused)["error"] as? [String: Any]
                    #expect(error?["code"] as? String == "invalid_field" && error?["field"] as? String == "url", "\(error ?? [:])")
                }
                #expect(try await store.webhookEndpoints(app: app.appId).isEmpty)

                // Stored straight into the database: each endpoint made good, then its URL rewritten
                // (nine of them, with the good one the most an app may have).
                let stored = Array(bad.prefix(WebhookEndpoints.limit - 1))
                _ = try await Self.createEndpoint(client, app, url: url, types: ["catalog.published"])
                var broken: [String] = []
                for text in stored {
                    let endpoint = try await Self.createEndpoint(client, app, url: "https://example.com/x", types: ["catalog.published"])
                    let quoted = "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
                    try await location.execute(sql: "UPDATE webhook_endpoints SET url = \(quoted) WHERE id = '\(endpoint.id)'")
                    broken.append(endpoint.id)
                }
                #expect(Set(try await store.webhookEndpoints(app: app.appId).map(\.url)) == Set(stored + [url]))
                try await ServerTests.publishShop(client, app)
                #expect(try await eventually(within: 20) { receiver.of("catalog.published").count == 1 })
                #expect(
                    try await eventually(within: 20) {
                        let deliveries = try await store.webhookDeliveries(app: app.appId, endpoint: nil, limit: 50)
                        return deliveries.count == stored.count + 1
                            && deliveries.allSatisfy { $0.state == (broken.contains($0.endpoint) ? .failed : .delivered) }
                    })
                let failed = try await store.webhookDeliveries(app: app.appId, endpoint: broken[0], limit: 1)
                #expect(
                    failed.first?.attempts == 1 && failed.first?.lastError?.hasPrefix("not sent: url: the URL must have a port") == true)

                // The server is still up and sends what comes next.
                try await ServerTests.publishShop(client, app)
                #expect(try await eventually(within: 20) { receiver.of("catalog.published").count == 2 })
                let health = try await client.execute(uri: "/healthz", method: .get)
                #expect(health.status == .ok)
            }
        }
    }
}
