import Foundation
import Testing
import WaymarkAPI
import WaymarkClient
import WaymarkEngine
import WaymarkServer
import WaymarkStore
import WaymarkTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ClientTests {
    /// A PNG of one pixel: what a test's app draws.
    static let png = Array(
        Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!)

    /// A request of the admin API with the shop's secret key: the answer's JSON object.
    static func admin(_ server: LiveServer, _ method: String, _ path: String, body: String) async throws -> [String: Any] {
        var request = URLRequest(url: server.url.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("Bearer \(server.shop.secretKey)", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(body.utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        return data.isEmpty ? [:] : try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The app wires its deep link to a preview: the client shows the draft to a user its
    /// targeting leaves out, keeps nothing on disk, its events stay out of the app's, and it sees
    /// the preview end.
    @Test(arguments: StoreUnderTest.available)
    func aPreviewLinkOpensTheDraftAndEnds(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let draft = """
                theme: { surface: "#ffffff", text: "#1f2933", accent: "#0b5cad", focus: "#b35c00", font: Noto Sans }
                tips:
                  - id: draft-only
                    container: home
                    trigger: activation
                    targeting: user.id == "nobody"
                    rollout: 0
                    content: { title: Only in the preview }
                """
            _ = try await Self.admin(server, "PUT", "/v1/admin/catalog/draft", body: draft)
            let made = try await Self.admin(server, "POST", "/v1/admin/previews", body: #"{"url":"myshop://home?tab=1"}"#)
            let link = try #require((made["link"] as? String).flatMap(URL.init(string:)))
            #expect(WaymarkClient.previewToken(in: link) == made["token"] as? String)
            #expect(WaymarkClient.previewToken(in: URL(string: "myshop://home?tab=1")!) == nil)
            await #expect(throws: WaymarkClientError.self) {
                try await WaymarkClient.startPreview(link: URL(string: "myshop://home")!, server: server.url, user: "u1")
            }

            let directory = server.directory.appendingPathComponent("previewing-phone")
            let client = try await WaymarkClient.startPreview(
                link: link, server: server.url, user: "u1", context: Self.context, options: Self.options(directory))
            #expect(client.preview?.expires == made["expiresAt"] as? String)
            #expect(client.preview?.ended == nil)
            #expect(client.catalog?.tips.map(\.id) == ["draft-only"])
            // The draft's look, as tokens for the app's own views.
            #expect(client.theme?.colors.accent == "#0b5cad" && client.theme?.font == "Noto Sans" && client.theme?.radius == 10)
            #expect(client.record("activation").map(\.tip) == ["draft-only"])
            #expect(try await client.flush().accepted == 2, "activation and tip_shown")
            #expect(try await server.store.eventCount(app: server.shop.appId) == 0)
            let id = try #require(made["id"] as? String)
            #expect(try await server.store.previewEvents(preview: id, limit: 10).map(\.name).sorted() == ["activation", "tip_shown"])
            #expect(!FileManager.default.fileExists(atPath: directory.path), "a preview keeps nothing on the phone")

            // Paired, the app sends its screens with where their anchors are; its own client cannot.
            let capture = ScreenCapture(
                platform: "ios", screen: "product", width: 390, height: 844, image: Self.png,
                anchors: [ScreenCapture.Frame(name: "add-to-cart", x: 16, y: 760, width: 358, height: 48)],
                areas: [ScreenCapture.Frame(name: "product", x: 0, y: 0, width: 390, height: 844)])
            let captureID = try await client.sendCapture(capture)
            let captures = try #require(try await Self.admin(server, "GET", "/v1/admin/captures", body: "")["captures"] as? [[String: Any]])
            #expect(captures.map { $0["id"] as? String } == [captureID])
            #expect((captures.first?["anchors"] as? [[String: Any]])?.first?["name"] as? String == "add-to-cart")
            let stored = try await server.store.capture(app: server.shop.appId, id: captureID)
            #expect(stored?.image == Self.png && stored?.imageType == "image/png")
            let own = await Self.start(server, server.directory.appendingPathComponent("own-phone"))
            await #expect(
                throws: WaymarkClientError(
                    status: 403, code: "not_paired",
                    message: "captures are sent while paired with the console: open a preview link on the device first")
            ) {
                try await own.sendCapture(capture)
            }
            await own.stop()
            var wrong = capture
            wrong.image = Array("<svg onload=alert(1)>".utf8)
            await #expect(throws: WaymarkClientError.self) { try await client.sendCapture(wrong) }

            _ = try await Self.admin(server, "POST", "/v1/admin/previews/\(id)/end", body: "")
            _ = await client.refresh()
            #expect(client.preview?.ended == true)
            #expect(client.catalog?.tips.isEmpty == true)
            await client.stop()
        }
    }
}
