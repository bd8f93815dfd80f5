import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOFoundationEssentialsCompat
import Testing
import WaymarkApplication
import WaymarkServer
import WaymarkStore
import WaymarkTestSupport

/// Draft previews over HTTP: a link's token reads the draft for everyone and without limits, its
/// events stay out of the app's, and it stops working when ended or expired.
@Suite(.timeLimit(.minutes(5))) struct PreviewTests {
    static let auth = ServerTests.auth

    static let draft = """
        frequency: daily
        tips:
          - id: cart-tip
            container: cart
            trigger: tap:add-to-cart
            targeting: app.version >= v9.0
            rollout: 10
            policy:
              maxDisplayCount: 1
            content:
              title: Your cart
              body: Review it here
        """

    func withServer(
        _ kind: StoreUnderTest,
        _ body:
            @Sendable (any TestClientProtocol, Provisioning.NewApp, Provisioning.NewApp, any Store, ConsoleTests.Clock) async throws -> Void
    ) async throws {
        try await kind.with { store, _ in
            let shop = try await Provisioning.createApp(name: "Shop", in: store)
            let other = try await Provisioning.createApp(name: "Other", in: store)
            var logger = Logger(label: "test")
            logger.logLevel = .warning
            let clock = ConsoleTests.Clock()
            let application = buildApplication(.init(port: 0, now: { clock.now }), store: store, logger: logger)
            try await application.test(.live) { client in try await body(client, shop, other, store, clock) }
        }
    }

    static func makePreview(_ client: any TestClientProtocol, _ app: Provisioning.NewApp, body: String) async throws -> TestResponse {
        try await client.execute(uri: "/v1/admin/previews", method: .post, headers: auth(app.secretKey), body: ByteBuffer(string: body))
    }

    @Test(arguments: StoreUnderTest.available)
    func aPreviewShowsTheDraftToEveryoneAndKeepsItsEventsApart(_ kind: StoreUnderTest) async throws {
        try await withServer(kind) { client, shop, other, store, clock in
            #expect(try await Self.makePreview(client, shop, body: #"{"url":"https://shop.example/"}"#).status == .notFound, "no draft yet")
            let saved = try await client.execute(
                uri: "/v1/admin/catalog/draft", method: .put, headers: Self.auth(shop.secretKey), body: ByteBuffer(string: Self.draft))
            #expect(saved.status == .ok)

            let made = try await Self.makePreview(client, shop, body: #"{"url":"https://shop.example/start?x=1#top","minutes":20}"#)
            #expect(made.status == .created, "\(String(buffer: made.body))")
            let preview = try ServerTests.json(made)
            let token = try #require(preview["token"] as? String)
            let id = try #require(preview["id"] as? String)
            #expect(token.hasPrefix("wm_preview_") && token.count == 59)
            #expect(preview["link"] as? String == "https://shop.example/start?x=1&waymark-preview=\(token)#top")
            #expect(preview["active"] as? Bool == true)

            // Nothing is published: the app's own key gets no catalog, the preview gets the draft.
            #expect(try await client.execute(uri: "/v1/catalog", method: .get, headers: Self.auth(shop.clientKey)).status == .notFound)
            let catalog = try await client.execute(
                uri: "/v1/catalog?appVersion=1.0&user=u1", method: .get, headers: Self.auth(token))
            #expect(catalog.status == .ok)
            #expect(catalog.headers[.cacheControl] == "no-store")
            let json = try ServerTests.json(catalog)
            #expect(json["frequency"] as? String == "immediate")
            let tips = try #require(json["tips"] as? [[String: Any]])
            #expect(tips.map { $0["id"] as? String } == ["cart-tip"], "targeting and rollout are bypassed")
            #expect((tips.first?["policy"] as? [String: Any])?["maxDisplayCount"] == nil, "display limits are bypassed")
            let mark = try #require(json["preview"] as? [String: Any])
            #expect(mark["expires"] as? String == preview["expiresAt"] as? String)
            #expect(mark["ended"] == nil)

            // Its events are kept with the preview, never with the app's.
            let id1 = "018f4b2a-0000-7000-8000-000000000001"
            let events =
                #"{"events":[{"id":"\#(id1)","user":"u1","name":"tip_shown","target":"cart-tip","timestamp":"2026-11-27T10:00:00Z","properties":{"platform":"web"}}]}"#
            let sent = try await client.execute(
                uri: "/v1/events", method: .post, headers: Self.auth(token), body: ByteBuffer(string: events))
            #expect(String(buffer: sent.body).contains(#""status":"accepted""#))
            #expect(try await store.eventCount(app: shop.appId) == 0)
            let seen = try ServerTests.json(
                try await client.execute(uri: "/v1/admin/previews/\(id)/events", method: .get, headers: Self.auth(shop.secretKey)))
            let entries = try #require(seen["events"] as? [[String: Any]])
            #expect(entries.map { $0["name"] as? String } == ["tip_shown"])
            #expect((entries.first?["properties"] as? [String: Any])?["platform"] as? String == "web")

            // What only the app's users do is refused; the admin API does not know the token.
            for path in ["/v1/rewards/claims", "/v1/identify", "/v1/progress"] {
                let answer = try await client.execute(uri: path, method: .post, headers: Self.auth(token), body: ByteBuffer(string: "{}"))
                #expect(answer.status == .forbidden, "\(path)")
                #expect(String(buffer: answer.body).contains("in_preview"), "\(path)")
            }
            #expect(try await client.execute(uri: "/v1/admin/previews", method: .get, headers: Self.auth(token)).status == .unauthorized)
            // Another app neither sees nor ends it.
            let others = try ServerTests.json(
                try await client.execute(uri: "/v1/admin/previews", method: .get, headers: Self.auth(other.secretKey)))
            #expect((others["previews"] as? [Any])?.isEmpty == true)
            #expect(
                try await client.execute(uri: "/v1/admin/previews/\(id)/end", method: .post, headers: Self.auth(other.secretKey)).status
                    == .notFound)

            // Ended: the catalog is an ended, empty preview and events are refused one by one.
            #expect(
                try await client.execute(uri: "/v1/admin/previews/\(id)/end", method: .post, headers: Self.auth(shop.secretKey)).status
                    == .noContent)
            #expect(
                try await client.execute(uri: "/v1/admin/previews/\(id)/end", method: .post, headers: Self.auth(shop.secretKey)).status
                    == .notFound)
            let ended = try ServerTests.json(try await client.execute(uri: "/v1/catalog", method: .get, headers: Self.auth(token)))
            #expect((ended["tips"] as? [Any])?.isEmpty == true)
            #expect((ended["preview"] as? [String: Any])?["ended"] as? Bool == true)
            let late = try await client.execute(
                uri: "/v1/events", method: .post, headers: Self.auth(token),
                body: ByteBuffer(string: events.replacingOccurrences(of: "0001\"", with: "0002\"")))
            #expect(String(buffer: late.body).contains(#""reason":"the preview ended""#))

            // Another one expires on its own; a day after, the next new preview removes it.
            let second = try ServerTests.json(try await Self.makePreview(client, shop, body: #"{"url":"myshop://home"}"#))
            let secondToken = try #require(second["token"] as? String)
            #expect(second["link"] as? String == "myshop://home?waymark-preview=\(secondToken)")
            clock.advance(31 * 60)
            let expired = try ServerTests.json(try await client.execute(uri: "/v1/catalog", method: .get, headers: Self.auth(secondToken)))
            #expect((expired["preview"] as? [String: Any])?["ended"] as? Bool == true)
            #expect(try await store.previews(app: shop.appId).count == 2)
            clock.advance(86_400)
            _ = try await Self.makePreview(client, shop, body: #"{"url":"https://shop.example/"}"#)
            #expect(try await store.previews(app: shop.appId).count == 1)
            #expect(try await store.previewEvents(preview: id, limit: 10).isEmpty)
            #expect(try await client.execute(uri: "/v1/catalog", method: .get, headers: Self.auth(token)).status == .unauthorized)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func aPreviewRefusesAddressesThatRunInsteadOfOpening(_ kind: StoreUnderTest) async throws {
        try await withServer(kind) { client, shop, _, _, _ in
            _ = try await client.execute(
                uri: "/v1/admin/catalog/draft", method: .put, headers: Self.auth(shop.secretKey), body: ByteBuffer(string: Self.draft))
            for (body, field) in [
                (#"{"url":"javascript:alert(1)"}"#, "url"), (#"{"url":"data:text/html,hi"}"#, "url"), (#"{"url":"shop.example"}"#, "url"),
                (#"{"url":"https://shop example/"}"#, "url"), (#"{"url":""}"#, "url"),
                (#"{"url":"https://shop.example/","minutes":2}"#, "minutes"),
            ] {
                let answer = try await Self.makePreview(client, shop, body: body)
                #expect(answer.status == .unprocessableContent, "\(body)")
                #expect(
                    (try ServerTests.json(answer)["error"] as? [String: Any])?["field"] as? String == field,
                    "\(body): \(String(buffer: answer.body))")
            }
            #expect(try await Self.makePreview(client, shop, body: #"{"url":"https://shop.example/","extra":1}"#).status == .badRequest)
            let unknown = try await client.execute(
                uri: "/v1/catalog", method: .get, headers: Self.auth("wm_preview_" + String(repeating: "0", count: 48)))
            #expect(unknown.status == .unauthorized)
        }
    }
}
