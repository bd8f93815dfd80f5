import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import Testing
import WaymarkCatalog
import WaymarkServer
import WaymarkStore
import WaymarkTestSupport

/// The draft through the admin API: one object at a time, revisions, and sanitizing on save.
@Suite(.timeLimit(.minutes(5))) struct AuthoringTests {
    let server = ServerTests()
    static let auth = ServerTests.auth

    static let tip = """
        id: cart-tip
        container: cart
        trigger: tap:add-to-cart
        content:
          title: Your cart
          html: <p onclick="steal()">Review it <b>here</b><script>alert(1)</script></p><img src=x onerror=alert(1)>
        """

    @Test(arguments: StoreUnderTest.available)
    func tipsAreCreatedReadReplacedAndDeletedOneByOne(_ kind: StoreUnderTest) async throws {
        try await server.withServer(kind) { client, app, other, _ in
            let uri = "/v1/admin/catalog/draft/tips/cart-tip"
            let created = try await client.execute(
                uri: uri, method: .put, headers: Self.auth(app.secretKey), body: ByteBuffer(string: Self.tip))
            #expect(created.status == .created)
            #expect(created.headers[.eTag] == "\"r1\"")
            let saved = String(buffer: created.body)
            #expect(saved.contains("<p>Review it <b>here</b></p>"))
            #expect(!saved.contains("script") && !saved.contains("onclick") && !saved.contains("onerror"))

            let read = try await client.execute(uri: uri, method: .get, headers: Self.auth(app.secretKey))
            #expect(read.status == .ok && String(buffer: read.body) == saved)
            let list = try await client.execute(uri: "/v1/admin/catalog/draft/tips", method: .get, headers: Self.auth(app.secretKey))
            #expect(String(buffer: list.body) == #"["cart-tip"]"#)

            let changed = Self.tip.replacingOccurrences(of: "Your cart", with: "The cart")
            let replaced = try await client.execute(
                uri: uri, method: .put, headers: Self.auth(app.secretKey), body: ByteBuffer(string: changed))
            #expect(replaced.status == .ok && String(buffer: replaced.body).contains("The cart"))

            // Another app's key sees nothing, the same way as for an id that does not exist.
            let theirs = try await client.execute(uri: uri, method: .get, headers: Self.auth(other.secretKey))
            let missing = try await client.execute(
                uri: "/v1/admin/catalog/draft/tips/nothing", method: .get, headers: Self.auth(app.secretKey))
            #expect(theirs.status == .notFound && missing.status == .notFound)
            #expect(String(buffer: theirs.body) == String(buffer: missing.body))
            #expect(try await client.execute(uri: uri, method: .delete, headers: Self.auth(other.secretKey)).status == .notFound)
            #expect(try await client.execute(uri: uri, method: .get, headers: Self.auth(app.clientKey)).status == .unauthorized)

            #expect(try await client.execute(uri: uri, method: .delete, headers: Self.auth(app.secretKey)).status == .noContent)
            #expect(try await client.execute(uri: uri, method: .delete, headers: Self.auth(app.secretKey)).status == .notFound)
            #expect(
                try await client.execute(uri: "/v1/admin/catalog/draft/widgets/x", method: .get, headers: Self.auth(app.secretKey)).status
                    == .notFound)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func aBadObjectIsRefusedWithPositionsInTheBody(_ kind: StoreUnderTest) async throws {
        try await server.withServer(kind) { client, app, _, _ in
            let uri = "/v1/admin/catalog/draft/tips/cart-tip"
            let badRule = Self.tip.replacingOccurrences(of: "tap:add-to-cart", with: "tap:add-to-cart AND")
            let refused = try await client.execute(
                uri: uri, method: .put, headers: Self.auth(app.secretKey), body: ByteBuffer(string: badRule))
            #expect(refused.status == .unprocessableContent)
            let error = try #require(try ServerTests.json(refused)["error"] as? [String: Any])
            let diagnostics = try #require(error["diagnostics"] as? [String])
            #expect(diagnostics.first?.contains("--> body:3:") == true)

            let otherID = Self.tip.replacingOccurrences(of: "id: cart-tip", with: "id: another")
            let mismatch = try await client.execute(
                uri: uri, method: .put, headers: Self.auth(app.secretKey), body: ByteBuffer(string: otherID))
            #expect(mismatch.status == .unprocessableContent)
            #expect(
                try await client.execute(uri: "/v1/admin/catalog/draft", method: .get, headers: Self.auth(app.secretKey)).status
                    == .notFound)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func mediaATourUsesCannotBeDeleted(_ kind: StoreUnderTest) async throws {
        try await server.withServer(kind) { client, app, _, _ in
            try await ServerTests.publishShop(client, app)
            let before = String(
                buffer: try await client.execute(uri: "/v1/admin/catalog/draft", method: .get, headers: Self.auth(app.secretKey)).body)
            let media = try CatalogDocument.parse(before, file: "draft").media[0].id
            let refused = try await client.execute(
                uri: "/v1/admin/catalog/draft/media/\(media)", method: .delete, headers: Self.auth(app.secretKey))
            #expect(refused.status == .unprocessableContent)
            #expect(String(buffer: refused.body).contains("no media with the id"))
            let after = String(
                buffer: try await client.execute(uri: "/v1/admin/catalog/draft", method: .get, headers: Self.auth(app.secretKey)).body)
            #expect(after == before)
        }
    }

    /// A draft whose tip names an anchor no screen has shown the SDKs is saved, and the answer
    /// (which `waymark push` prints) says so with the name it most likely meant.
    @Test(arguments: StoreUnderTest.available)
    func aDraftNamingAnUnseenAnchorIsSavedWithAWarning(_ kind: StoreUnderTest) async throws {
        try await server.withServer(kind) { client, app, _, store in
            let tip = Self.tip.replacingOccurrences(of: "container: cart", with: "container: cart\nanchor: add-to-cart-buton")
            let typo = "tips:\n  - " + tip.split(separator: "\n").joined(separator: "\n    ") + "\n"
            func put() async throws -> [String] {
                let saved = try await client.execute(
                    uri: "/v1/admin/catalog/draft", method: .put, headers: Self.auth(app.secretKey), body: ByteBuffer(string: typo))
                #expect(saved.status == .ok)
                return try #require(try ServerTests.json(saved)["warnings"] as? [String])
            }
            #expect(try await put() == [], "nothing reported yet: nothing to compare with")
            try await store.recordSightings(
                SightingBatch(app: app.appId, platform: "web", screen: "product", anchors: ["add-to-cart-button"], areas: ["cart"]),
                at: Date(), limit: 100)
            let warnings = try await put()
            #expect(
                warnings == [
                    "tip cart-tip: no screen has the anchor \"add-to-cart-buton\" yet: did you mean \"add-to-cart-button\"?"
                ])
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func aWholeDocumentSavedOverAnotherChangeIsRefused(_ kind: StoreUnderTest) async throws {
        try await server.withServer(kind) { client, app, _, _ in
            try await ServerTests.publishShop(client, app)
            let draft = try await client.execute(uri: "/v1/admin/catalog/draft", method: .get, headers: Self.auth(app.secretKey))
            let etag = try #require(draft.headers[.eTag])
            var headers = Self.auth(app.secretKey)
            headers[.ifMatch] = etag
            let first = try await client.execute(uri: "/v1/admin/catalog/draft", method: .put, headers: headers, body: draft.body)
            #expect(first.status == .ok && first.headers[.eTag] != etag)
            let second = try await client.execute(uri: "/v1/admin/catalog/draft", method: .put, headers: headers, body: draft.body)
            #expect(second.status == .preconditionFailed)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func parallelChangesToDifferentTipsAreAllKept(_ kind: StoreUnderTest) async throws {
        try await server.withServer(kind) { client, app, _, _ in
            try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        let tip = Self.tip.replacingOccurrences(of: "cart-tip", with: "tip-\(index)")
                        return try await client.executeAlone(
                            uri: "/v1/admin/catalog/draft/tips/tip-\(index)", method: .put, headers: Self.auth(app.secretKey),
                            body: ByteBuffer(string: tip)
                        ).status
                    }
                }
                for try await status in group { #expect(status == .created) }
            }
            let list = try await client.execute(uri: "/v1/admin/catalog/draft/tips", method: .get, headers: Self.auth(app.secretKey))
            let ids = try JSONDecoder().decode([String].self, from: Data(buffer: list.body))
            #expect(Set(ids) == Set((0..<10).map { "tip-\($0)" }))
        }
    }
}
