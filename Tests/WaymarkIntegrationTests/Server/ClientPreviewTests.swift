import Foundation
import Testing
import WaymarkAPI
import WaymarkClient
import WaymarkServer
import WaymarkStore
import WaymarkTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension ClientTests {
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
            #expect(client.record("activation").map(\.tip) == ["draft-only"])
            #expect(try await client.flush().accepted == 2, "activation and tip_shown")
            #expect(try await server.store.eventCount(app: server.shop.appId) == 0)
            let id = try #require(made["id"] as? String)
            #expect(try await server.store.previewEvents(preview: id, limit: 10).map(\.name).sorted() == ["activation", "tip_shown"])
            #expect(!FileManager.default.fileExists(atPath: directory.path), "a preview keeps nothing on the phone")

            _ = try await Self.admin(server, "DELETE", "/v1/admin/previews/\(id)", body: "")
            _ = await client.refresh()
            #expect(client.preview?.ended == true)
            #expect(client.catalog?.tips.isEmpty == true)
            await client.stop()
        }
    }
}
