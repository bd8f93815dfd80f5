import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import Testing
import WaymarkDelivery
import WaymarkServer
import WaymarkStore
import WaymarkTestSupport

/// The page builder over HTTP: a builder's token shows the draft, saves the one tip it was made
/// for, and nothing else, and stops working when it ends or expires.
@Suite(.timeLimit(.minutes(5))) struct BuilderTests {
    static let auth = ServerTests.auth

    static let draft = """
        locales: [hi]
        tips:
          - id: cart-tip
            container: cart
            anchor: cart-link
            trigger: screen:cart
            dismissal: tap:checkout
            content:
              title: Your cart
              body: Review it here
              locales:
                hi:
                  title: आपकी कार्ट
                  body: यहाँ देखें
            actions:
              - id: later
                label: Later
                do: dismiss
          - id: other-tip
            container: home
            trigger: screen:home
            content:
              title: Welcome
        """

    static func post(_ client: any TestClientProtocol, _ uri: String, _ token: String, _ body: String) async throws -> TestResponse {
        try await client.execute(uri: uri, method: .post, headers: auth(token), body: ByteBuffer(string: body))
    }

    static func builder(_ client: any TestClientProtocol, _ app: Provisioning.NewApp, tip: String, minutes: Int? = nil) async throws
        -> String
    {
        let body = #"{"url":"https://shop.example/#/cart","tip":"\#(tip)""# + (minutes.map { #","minutes":\#($0)"# } ?? "") + "}"
        let made = try await PreviewTests.makePreview(client, app, body: body)
        #expect(made.status == .created, "\(String(buffer: made.body))")
        let json = try ServerTests.json(made)
        #expect(json["tip"] as? String == tip)
        let token = try #require(json["token"] as? String)
        #expect(json["link"] as? String == "https://shop.example/?waymark-preview=\(token)#/cart")
        return token
    }

    static func draftTip(_ client: any TestClientProtocol, _ app: Provisioning.NewApp, _ id: String) async throws -> String {
        let response = try await client.execute(uri: "/v1/admin/catalog/draft/tips/\(id)", method: .get, headers: auth(app.secretKey))
        return String(buffer: response.body)
    }

    @Test(arguments: StoreUnderTest.available)
    func aBuilderSavesItsTipAndNothingElse(_ kind: StoreUnderTest) async throws {
        try await PreviewTests().withServer(kind) { client, shop, other, store, clock in
            let saved = try await client.execute(
                uri: "/v1/admin/catalog/draft", method: .put, headers: Self.auth(shop.secretKey), body: ByteBuffer(string: Self.draft))
            #expect(saved.status == .ok)
            let token = try await Self.builder(client, shop, tip: "cart-tip")

            // The catalog is the draft, marked as a builder's: the SDK loads its builder.
            let catalog = try ServerTests.json(
                try await client.execute(uri: "/v1/catalog?user=u1", method: .get, headers: Self.auth(token)))
            #expect((catalog["preview"] as? [String: Any])?["builder"] as? Bool == true)

            // What the builder starts from: the tip as the draft has it, in every locale.
            let session = try ServerTests.json(try await client.execute(uri: "/v1/builder", method: .get, headers: Self.auth(token)))
            #expect(session["tip"] as? String == "cart-tip" && session["exists"] as? Bool == true)
            #expect(session["locales"] as? [String] == ["default", "hi"])
            #expect(session["anchor"] as? String == "cart-link" && session["container"] as? String == "cart")
            #expect(session["console"] as? String == "/console/apps/\(shop.appId)/tips/cart-tip")
            let content = try #require(session["content"] as? [String: [String: String]])
            #expect(content["default"] == ["title": "Your cart", "text": "Review it here", "button": "Later"])
            #expect(content["hi"] == ["title": "आपकी कार्ट", "text": "यहाँ देखें", "button": ""])
            // The SDK's own words in Hindi, for the sample tip as a Hindi reader sees it.
            let ui = try #require(session["ui"] as? [String: [String: String]])
            #expect(ui.keys.sorted() == ["hi"] && ui["hi"]?["readAloud"] == InterfaceText.strings(forLocale: "hi")?["readAloud"])
            #expect(ui["hi"]?["readAloud"] != InterfaceText.english["readAloud"])

            // Saving: the picked element, the words in each locale; the rules stay as they were.
            let body = """
                {"selector":"#products > li:nth-of-type(2) > button","container":"products","screen":"products",
                 "content":{"default":{"title":"Add it","text":"Tap **here**","button":"Got it"},"hi":{"title":"जोड़ें","text":"यहाँ दबाएँ","button":"ठीक है"}}}
                """
            let answer = try await Self.post(client, "/v1/builder/tip", token, body)
            #expect(answer.status == .ok, "\(String(buffer: answer.body))")
            #expect(try ServerTests.json(answer)["created"] as? Bool == false)
            let yaml = try await Self.draftTip(client, shop, "cart-tip")
            for expected in [
                "selector: '#products > li:nth-of-type(2) > button'", "container: products", "trigger: screen:cart",
                "dismissal: tap:checkout", "title: Add it", "body: Tap **here**", "title: जोड़ें", "label: Got it", "ठीक है",
            ] {
                #expect(yaml.contains(expected), "\(expected) in \(yaml)")
            }
            #expect(!yaml.contains("anchor:"), "the selector replaced the anchor")

            // The audit log names the author who opened the builder (here the admin key).
            let audit = try await store.auditLog(app: shop.appId, limit: 10)
            #expect(audit.contains { $0.object.contains("cart-tip") && $0.actor.description.hasPrefix("key:") })

            // Bad input: a clear error, nothing saved.
            for (bad, status) in [
                (##"{"anchor":"a","selector":"#b","content":{}}"##, HTTPResponse.Status.unprocessableContent),
                (##"{"selector":"#a >> b","content":{}}"##, .unprocessableContent),
                (#"{"content":{"fr":{"title":"Salut"}}}"#, .unprocessableContent),
                (#"{"content":{},"extra":1}"#, .badRequest),
                ("not json", .badRequest),
            ] {
                #expect(try await Self.post(client, "/v1/builder/tip", token, bad).status == status, "\(bad)")
            }
            #expect(try await Self.draftTip(client, shop, "cart-tip") == yaml)

            // The token does nothing a client key or an admin key does beyond that.
            #expect(
                try await client.execute(uri: "/v1/admin/catalog/draft", method: .get, headers: Self.auth(token)).status == .unauthorized)
            #expect(try await Self.post(client, "/v1/identify", token, #"{"user":"u1","attributes":{}}"#).status == .forbidden)
            // The app's own keys and a plain preview's token are not builders.
            for key in [shop.clientKey, shop.secretKey] {
                let refused = try await Self.post(client, "/v1/builder/tip", key, #"{"content":{}}"#)
                #expect(refused.status == .forbidden && String(buffer: refused.body).contains("not_builder"))
            }
            let preview = try ServerTests.json(try await PreviewTests.makePreview(client, shop, body: #"{"url":"https://shop.example/"}"#))
            let previewToken = try #require(preview["token"] as? String)
            #expect(try await Self.post(client, "/v1/builder/tip", previewToken, #"{"content":{}}"#).status == .forbidden)
            #expect(try await client.execute(uri: "/v1/builder", method: .get, headers: Self.auth(previewToken)).status == .forbidden)

            // Another app's builder cannot reach this app's draft: its tip is its own app's.
            _ = try await client.execute(
                uri: "/v1/admin/catalog/draft", method: .put, headers: Self.auth(other.secretKey),
                body: ByteBuffer(string: "tips: []\n"))
            let otherToken = try await Self.builder(client, other, tip: "cart-tip")
            let made = try await Self.post(
                client, "/v1/builder/tip", otherToken, #"{"screen":"cart","content":{"default":{"title":"Theirs"}}}"#)
            #expect(try ServerTests.json(made)["created"] as? Bool == true)
            #expect(try await Self.draftTip(client, shop, "cart-tip") == yaml)

            // Done: the token stops at once, for saving and for the catalog's draft.
            #expect(try await Self.post(client, "/v1/builder/end", token, "{}").status == .noContent)
            let ended = try await Self.post(client, "/v1/builder/tip", token, body)
            #expect(ended.status == .forbidden && String(buffer: ended.body).contains("preview_ended"))
            let after = try ServerTests.json(try await client.execute(uri: "/v1/catalog?user=u1", method: .get, headers: Self.auth(token)))
            #expect((after["preview"] as? [String: Any])?["ended"] as? Bool == true)
            _ = clock
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func aBuilderMakesANewTipAndExpires(_ kind: StoreUnderTest) async throws {
        try await PreviewTests().withServer(kind) { client, shop, _, _, clock in
            // No draft yet: the builder makes the first one.
            for (bad, field) in [
                (#"{"url":"https://shop.example/","tip":"no spaces"}"#, "tip"),
                (#"{"url":"myshop://home","tip":"t"}"#, "url"),
                (#"{"url":"https://shop.example/","tip":"t","minutes":61}"#, "minutes"),
            ] {
                let refused = try await PreviewTests.makePreview(client, shop, body: bad)
                #expect(refused.status == .unprocessableContent && String(buffer: refused.body).contains(field), "\(bad)")
            }
            let token = try await Self.builder(client, shop, tip: "search-help", minutes: 10)
            let session = try ServerTests.json(try await client.execute(uri: "/v1/builder", method: .get, headers: Self.auth(token)))
            #expect(session["exists"] as? Bool == false && session["locales"] as? [String] == ["default"])

            let untitled = try await Self.post(
                client, "/v1/builder/tip", token, #"{"anchor":"search-button","screen":"home","content":{}}"#)
            #expect(untitled.status == .unprocessableContent, "a new tip needs a title")
            let made = try await Self.post(
                client, "/v1/builder/tip", token,
                #"{"anchor":"search-button","container":"home","screen":"home","content":{"default":{"title":"Find it","text":"Search here","button":"OK"}}}"#
            )
            #expect(made.status == .ok, "\(String(buffer: made.body))")
            #expect(try ServerTests.json(made)["created"] as? Bool == true)
            let yaml = try await Self.draftTip(client, shop, "search-help")
            for expected in ["anchor: search-button", "container: home", "trigger: screen:home", "title: Find it", "label: OK"] {
                #expect(yaml.contains(expected), "\(expected) in \(yaml)")
            }

            // Ten minutes later the token is refused.
            clock.advance(601)
            #expect(try await client.execute(uri: "/v1/builder", method: .get, headers: Self.auth(token)).status == .forbidden)
        }
    }
}
