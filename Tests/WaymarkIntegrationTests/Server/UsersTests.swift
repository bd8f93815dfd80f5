import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOFoundationEssentialsCompat
import Testing
import WaymarkAPI
import WaymarkAnalytics
import WaymarkEngine
import WaymarkRules
import WaymarkServer
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// User attributes over HTTP: `POST /v1/identify` keeps them, typed, for a proven user, and the
/// catalog's targeting reads them for a request that proves the same user.
@Suite(.timeLimit(.minutes(5))) struct UsersTests {
    static let catalog = """
        tips:
          - id: cod-offer
            container: home
            trigger: activation
            targeting: user.codUser == true AND user.cityTier >= 2
            content: { title: Pay on delivery, body: Cash is fine. }
          - id: welcome-back
            container: home
            trigger: activation
            targeting: user.firstOrderAt < 2026-01-01 AND user.appBuild >= v5.2
            content: { title: Welcome back, body: Good to see you. }
          - id: everyone
            container: cart
            trigger: activation
            content: { title: Hello, body: For all. }
        """

    let server = ServerTests()

    static func identify(
        _ client: any TestClientProtocol, _ app: Provisioning.NewApp, user: String = "u42", hash: String? = nil, _ attributes: String
    ) async throws -> TestResponse {
        let proof = hash ?? Secrets.userHash(user: user, identitySecret: app.identitySecret)
        return try await client.execute(
            uri: "/v1/identify", method: .post, headers: ServerTests.auth(app.clientKey),
            body: ByteBuffer(string: #"{"user":"\#(user)","userHash":"\#(proof)","attributes":\#(attributes)}"#))
    }

    static func errorMessage(_ response: TestResponse) throws -> String {
        (try ServerTests.json(response)["error"] as? [String: Any])?["message"] as? String ?? ""
    }

    /// What `send` answers for `body` is a 400 whose message says `message`.
    static func expectRefused(_ body: String, saying message: String, _ send: (String) async throws -> TestResponse) async throws {
        let response = try await send(body)
        #expect(response.status == .badRequest, "\(body)")
        let said = try errorMessage(response)
        #expect(said.contains(message), "\(body): \(said)")
    }

    @Test(arguments: StoreUnderTest.available)
    func identifyKeepsTypedAttributesForAProvenUser(_ kind: StoreUnderTest) async throws {
        try await server.withServer(kind) { client, app, other, store in
            let first = try await Self.identify(
                client, app,
                #"{"plan":"plus","cityTier":2,"codUser":true,"firstOrderAt":{"time":"2025-06-01T10:30:00+05:30"},"appBuild":{"version":"5.2.1"},"trial":null}"#
            )
            #expect(first.status == .ok)
            let answer = try JSONDecoder().decode(IdentifiedUser.self, from: Data(buffer: first.body))
            #expect(answer.user == "u42")
            #expect(
                Dictionary(uniqueKeysWithValues: answer.attributes.map { ($0.name, $0.value) }) == [
                    "plan": "plus", "cityTier": 2, "codUser": true,
                    "firstOrderAt": .time(milliseconds: RuleTime.parse("2025-06-01T05:00:00Z")!),
                    "appBuild": .version(Version([5, 2, 1])),
                ])
            #expect(answer.attributes.allSatisfy { Timestamp.parse($0.changedAt) != nil })
            // Null removes; what is not named stays.
            let second = try await Self.identify(client, app, #"{"plan":null,"cityTier":3}"#)
            let names = try JSONDecoder().decode(IdentifiedUser.self, from: Data(buffer: second.body)).attributes.map(\.name)
            #expect(names == ["appBuild", "cityTier", "codUser", "firstOrderAt"])
            #expect(try await store.attributes(app: app.appId, user: "u42").first { $0.name == "cityTier" }?.value == .number(3))
            // Another app's keys reach only that app's users.
            #expect(try await Self.identify(client, other, #"{"plan":"gold"}"#).status == .ok)
            #expect(try await store.attributes(app: app.appId, user: "u42").count == 4)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func badIdentifiesAreRefusedClearlyAndChangeNothing(_ kind: StoreUnderTest) async throws {
        try await server.withServer(kind) { client, app, other, store in
            let wrongProof = Secrets.userHash(user: "u42", identitySecret: other.identitySecret)
            let refused = try await Self.identify(client, app, hash: wrongProof, #"{"plan":"plus"}"#)
            #expect(refused.status == .forbidden)
            #expect(try Self.errorMessage(refused).contains("userHash"))
            // The proof comes first: without it, nothing says which attribute would be refused.
            #expect(
                try await Self.identify(client, app, user: "", hash: wrongProof, #"{"and":{"time":"2026-02-30"}}"#).status == .forbidden)
            for (attributes, message) in [
                (#"{"user.plan":"x"}"#, "a name is 1 to 64 letters"), (#"{"and":"x"}"#, "keyword"), (#"{"id":"x"}"#, "set by the SDK"),
                (#"{"plan":"\#(String(repeating: "x", count: 513))"}"#, "at most 512 bytes"),
                (#"{"at":{"time":"2026-02-30"}}"#, "invalid time"), (#"{"at":{"time":"2026-01-15","version":"1"}}"#, "typed value"),
                (#"{"at":{"time":"2026-01-15","extra":1}}"#, "no other member"),
                (#"{"b":{"version":"5.x"}}"#, "invalid version"), (#"{"list":[1,2]}"#, "a context value"),
                (#"{"n":1e999}"#, "a context value"),
            ] {
                try await Self.expectRefused(attributes, saying: message) { try await Self.identify(client, app, $0) }
            }
            try await Self.expectRefused(#"{"user":"u42","userHash":"x","attributes":{},"admin":true}"#, saying: "unknown field \"admin\"")
            {
                try await client.execute(
                    uri: "/v1/identify", method: .post, headers: ServerTests.auth(app.clientKey), body: ByteBuffer(string: $0))
            }
            let many = (0..<51).map { #""a\#($0)":\#($0)"# }.joined(separator: ",")
            #expect(try await Self.identify(client, app, "{\(many)}").status == .badRequest)
            #expect(try await store.attributes(app: app.appId, user: "u42").isEmpty)

            // Fifty fit; the fifty-first is refused, and nothing of that request is kept.
            let fifty = (0..<50).map { #""a\#($0)":\#($0)"# }.joined(separator: ",")
            #expect(try await Self.identify(client, app, "{\(fifty)}").status == .ok)
            let over = try await Self.identify(client, app, #"{"a0":"changed","b":1}"#)
            #expect(over.status == .unprocessableContent)
            #expect(try Self.errorMessage(over).contains("at most 50 attributes"))
            #expect(try await store.attributes(app: app.appId, user: "u42").first { $0.name == "a0" }?.value == .number(0))
            #expect(try await Self.identify(client, app, #"{"a0":null,"b":1}"#).status == .ok)
        }
    }

    static func sendProgress(
        _ client: any TestClientProtocol, _ app: Provisioning.NewApp, user: String = "u42", hash: String? = nil, _ progress: String
    ) async throws -> TestResponse {
        let proof = hash ?? Secrets.userHash(user: user, identitySecret: app.identitySecret)
        return try await client.execute(
            uri: "/v1/progress", method: .post, headers: ServerTests.auth(app.clientKey),
            body: ByteBuffer(string: #"{"user":"\#(user)","userHash":"\#(proof)","progress":\#(progress)}"#))
    }

    @Test(arguments: StoreUnderTest.available)
    func progressFromEachDeviceMergesIntoTheUsers(_ kind: StoreUnderTest) async throws {
        try await server.withServer(kind) { client, app, other, store in
            let phone = try await Self.sendProgress(
                client, app, #"{"tips":{"welcome":{"shown":1,"displayedMillis":4000,"finished":"closed"}},"tours":{"shop":{"page":1}}}"#)
            #expect(phone.status == .ok)
            // The second device knows other things; the answer is the join of both.
            let tablet = try await Self.sendProgress(
                client, app,
                #"{"tips":{"welcome":{"shown":2,"finished":"maxDisplayDuration"},"search":{"shown":1,"displayedMillis":300}},"tours":{"shop":{"page":0,"finished":true}}}"#
            )
            let joined = UserProgress(
                tips: [
                    "welcome": TipProgress(shown: 2, displayedMillis: 4000, finished: .closed),
                    "search": TipProgress(shown: 1, displayedMillis: 300),
                ],
                tours: ["shop": TourProgress(page: 1, finished: true)])
            #expect(
                try JSONDecoder().decode(SyncedProgress.self, from: Data(buffer: tablet.body))
                    == SyncedProgress(user: "u42", progress: joined))
            // A device with nothing yet gets everything; sending it all again changes nothing.
            let fresh = try await Self.sendProgress(client, app, "{}")
            #expect(try JSONDecoder().decode(SyncedProgress.self, from: Data(buffer: fresh.body)).progress == joined)
            let stored = try #require(try await store.progress(app: app.appId, user: "u42"))
            #expect(try JSONDecoder().decode(UserProgress.self, from: Data(stored.utf8)) == joined)
            // Another app's keys reach only that app's users; another user is apart.
            #expect(try await Self.sendProgress(client, other, #"{"tips":{"welcome":{"shown":9}}}"#).status == .ok)
            #expect(try await store.progress(app: app.appId, user: "u7") == nil)
            let again = try await Self.sendProgress(client, app, "{}")
            #expect(try JSONDecoder().decode(SyncedProgress.self, from: Data(buffer: again.body)).progress == joined)
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains("waymark_progress_merges_total 5"), "\(metrics)")
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func badProgressIsRefusedClearlyAndChangesNothing(_ kind: StoreUnderTest) async throws {
        try await server.withServer(kind) { client, app, other, store in
            let wrongProof = Secrets.userHash(user: "u42", identitySecret: other.identitySecret)
            let refused = try await Self.sendProgress(client, app, hash: wrongProof, #"{"tips":{"a":{"shown":1}}}"#)
            #expect(refused.status == .forbidden)
            #expect(try Self.errorMessage(refused).contains("userHash"))
            // The proof comes first: without it, nothing says what is wrong with the progress.
            #expect(try await Self.sendProgress(client, app, hash: wrongProof, #"{"tips":{"a":{"shown":-1}}}"#).status == .forbidden)
            let longID = String(repeating: "x", count: 257)
            for (progress, message) in [
                (#"{"tips":{"a":{"shown":-1}}}"#, "must not be negative"),
                (#"{"tips":{"a":{"displayedMillis":-5}}}"#, "must not be negative"),
                (#"{"tips":{"a":{"finished":"forgotten"}}}"#, "progress.tips.a.finished"),
                (#"{"tips":{"a":{"shwon":1}}}"#, "unexpected key \"shwon\""),
                (#"{"tips":[]}"#, "progress.tips"), (#"{"tours":{"t":{"page":-1}}}"#, "must not be negative"),
                (#"{"levels":{}}"#, "unexpected key"),
                (#"{"tips":{"":{"shown":1}}}"#, "an id is text of 1 to 256 bytes"),
                (#"{"tips":{"\#(longID)":{"shown":1}}}"#, "an id is text"),
            ] {
                try await Self.expectRefused(progress, saying: message) { try await Self.sendProgress(client, app, $0) }
            }
            try await Self.expectRefused(#"{"user":"u42","userHash":"x","progress":{},"admin":true}"#, saying: "unknown field \"admin\"") {
                try await client.execute(
                    uri: "/v1/progress", method: .post, headers: ServerTests.auth(app.clientKey), body: ByteBuffer(string: $0))
            }
            let tooMany = (0..<1_001).map { #""t\#($0)":{"shown":1}"# }.joined(separator: ",")
            #expect(try await Self.sendProgress(client, app, #"{"tips":{\#(tooMany)}}"#).status == .badRequest)
            #expect(try await store.progress(app: app.appId, user: "u42") == nil)

            // The server keeps 5,000 per user; past that it keeps what it had.
            for batch in 0..<5 {
                let tips = (0..<1_000).map { #""b\#(batch)-\#($0)":{"shown":1}"# }.joined(separator: ",")
                #expect(try await Self.sendProgress(client, app, #"{"tips":{\#(tips)}}"#).status == .ok)
            }
            let over = try await Self.sendProgress(client, app, #"{"tips":{"one-more":{"shown":1}},"tours":{"b0-1":{"page":1}}}"#)
            #expect(over.status == .unprocessableContent)
            #expect(try Self.errorMessage(over).contains("at most 5000"))
            let stored = try #require(try await store.progress(app: app.appId, user: "u42"))
            #expect(try JSONDecoder().decode(UserProgress.self, from: Data(stored.utf8)).count == 5_000)
            #expect(try await Self.sendProgress(client, app, #"{"tips":{"b0-1":{"shown":3}}}"#).status == .ok, "what it knows still merges")

            // A stored document that no longer reads is a server fault, and is kept as it is.
            _ = try await store.updateProgress(app: app.appId, user: "u9", at: Date()) { _ in "not progress" }
            let unreadable = try await Self.sendProgress(client, app, user: "u9", #"{"tips":{"a":{"shown":1}}}"#)
            #expect(unreadable.status == .internalServerError)
            #expect(try await store.progress(app: app.appId, user: "u9") == "not progress")
        }
    }

    static let segmentedCatalog = """
        segments:
          - { name: cod-users, rule: 'user.codUser == true' }
          - { name: big-spenders, rule: 'count(purchase where amount >= 10000) >= 1 within 30d' }
        tips:
          - { id: cod-offer, container: home, trigger: activation, targeting: 'segment:cod-users', content: { title: Pay on delivery } }
          - { id: emi-offer, container: cart, trigger: activation, targeting: 'segment:big-spenders', content: { title: Pay monthly } }
          - { id: everyone, container: list, trigger: activation, content: { title: Hello } }
        """

    @Test(arguments: StoreUnderTest.available)
    func targetingReadsTheSegmentsOfAProvenUser(_ kind: StoreUnderTest) async throws {
        try await server.withServer(kind) { client, app, _, store in
            try await ServerTests.publish(Self.segmentedCatalog, client, app)
            func tips(user: String = "u42", proven: Bool = true) async throws -> [String] {
                var headers = ServerTests.auth(app.clientKey)
                if proven { headers[.init("Waymark-User-Hash")!] = Secrets.userHash(user: user, identitySecret: app.identitySecret) }
                let response = try await client.execute(uri: "/v1/catalog?user=\(user)", method: .get, headers: headers)
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                return try JSONDecoder().decode(DeliveredCatalog.self, from: Data(buffer: response.body)).tips.map(\.id)
            }
            #expect(try await tips() == ["everyone"])
            // A segment of attributes alone holds as soon as the attributes do.
            _ = try await Self.identify(client, app, #"{"codUser":true}"#)
            #expect(try await tips() == ["cod-offer", "everyone"])
            #expect(try await tips(proven: false) == ["everyone"], "an unproven user is in no segment")
            // A segment of history holds once the refresher has replayed the purchase.
            let minuteAgo = Timestamp.format(Date().millisecondsSince1970 - 60_000)
            let events = try await client.execute(
                uri: "/v1/events", method: .post, headers: ServerTests.auth(app.clientKey),
                body: ByteBuffer(
                    string:
                        #"{"events":[{"id":"\#(UUID().uuidString.lowercased())","user":"u42","name":"purchase","timestamp":"\#(minuteAgo)","properties":{"amount":12000}}]}"#
                ))
            #expect(events.status == .ok)
            #expect(try await tips() == ["cod-offer", "everyone"])
            var logger = Logger(label: "test")
            logger.logLevel = .warning
            #expect(try await SegmentRefresher(store: store, logger: logger).refresh(app: app.appId) == ["big-spenders": ["u42"]])
            #expect(try await tips() == ["cod-offer", "emi-offer", "everyone"])
            #expect(try await tips(user: "u7") == ["everyone"])
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func targetingReadsTheAttributesOfAProvenUser(_ kind: StoreUnderTest) async throws {
        try await server.withServer(kind) { client, app, other, _ in
            try await ServerTests.publish(Self.catalog, client, app)

            func tips(user: String = "u42", hash: String?? = nil) async throws -> (ids: [String], etag: String?) {
                var headers = ServerTests.auth(app.clientKey)
                if let hash = hash ?? Secrets.userHash(user: user, identitySecret: app.identitySecret) {
                    headers[.init("Waymark-User-Hash")!] = hash
                }
                let response = try await client.execute(uri: "/v1/catalog?platform=android&user=\(user)", method: .get, headers: headers)
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let catalog = try JSONDecoder().decode(DeliveredCatalog.self, from: Data(buffer: response.body))
                return (catalog.tips.map(\.id), response.headers[.eTag])
            }
            // Before any identify, and without a proof, rules on attributes are false.
            #expect(try await tips().ids == ["everyone"])
            _ = try await Self.identify(
                client, app, #"{"codUser":true,"cityTier":2,"firstOrderAt":{"time":"2025-12-31T23:59:59Z"},"appBuild":{"version":"5.10"}}"#)
            let proven = try await tips()
            #expect(proven.ids == ["cod-offer", "welcome-back", "everyone"])
            #expect(try await tips(hash: .some(nil)).ids == ["everyone"], "no proof, no attributes")
            let wrong = try await client.execute(
                uri: "/v1/catalog?user=u42", method: .get,
                headers: [
                    .authorization: "Bearer \(app.clientKey)",
                    .init("Waymark-User-Hash")!: Secrets.userHash(user: "u42", identitySecret: other.identitySecret),
                ])
            #expect(wrong.status == .forbidden)
            // Another user with another proof has none of u42's attributes.
            #expect(try await tips(user: "u7").ids == ["everyone"])
            // A change in the attributes is a change in the catalog, and in its tag.
            _ = try await Self.identify(client, app, #"{"cityTier":1}"#)
            let after = try await tips()
            #expect(after.ids == ["welcome-back", "everyone"])
            #expect(after.etag != proven.etag)
        }
    }

    @Test func targetingMayReadUserAttributesButNotDeeperPaths() async throws {
        try await server.withServer { client, app, _, _ in
            let cases: [(String, Bool)] = [
                (#"user.plan == "plus""#, true), ("user.signedUpAt >= 2026-01-01 OR user.build < v2", true), ("user.a.b == 1", false),
                ("account.plan == 1", false),
            ]
            for (targeting, accepted) in cases {
                let document = Self.catalog.replacingOccurrences(of: "user.codUser == true AND user.cityTier >= 2", with: targeting)
                let put = try await client.execute(
                    uri: "/v1/admin/catalog/draft", method: .put, headers: ServerTests.auth(app.secretKey),
                    body: ByteBuffer(string: document))
                #expect((put.status == .ok) == accepted, "\(targeting): \(String(buffer: put.body))")
            }
        }
    }
}
