import Foundation
import Testing
import WaymarkPostgres
import WaymarkServer
import WaymarkStore
import WaymarkTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Several `waymark serve` processes on one PostgreSQL database, as behind a load balancer: what
/// one is told, the other knows at once.
@Suite(.enabled(if: StoreUnderTest.available.contains(.postgres)), .timeLimit(.minutes(5)))
struct TwoServersTests {
    static let root = WaymarkBinary.root

    /// Runs `waymark` to its end; returns its standard output, and its errors when it is expected
    /// to fail (exit status 1).
    static func run(_ arguments: [String], expectFailure: Bool = false) throws -> String {
        let run = try WaymarkBinary.run(arguments)
        #expect(run.status == (expectFailure ? 1 : 0), "waymark \(arguments.first ?? ""): \(run.errors)")
        return run.output + (expectFailure ? run.errors : "")
    }

    static func request(_ method: String, _ url: String, key: String, body: String? = nil) async throws -> (Int, String) {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test func whatOneServerIsToldTheOtherKnows() async throws {
        try await PostgresDatabase.withFresh(url: try StoreUnderTest.requirePostgresURL()) { store, database in
            let made =
                try JSONSerialization.jsonObject(with: Data(try Self.run(["apps", "create", "Shop", "--database", database]).utf8))
                as? [String: Any]
            let app = try #require(made?["appId"] as? String)
            let secret = try #require(made?["secretKey"] as? String)
            let client = try #require(made?["clientKey"] as? String)
            let identity = try #require(made?["identitySecret"] as? String)
            let first = try await ServerProcess(["--database", database])
            defer { first.stop() }
            let second = try await ServerProcess(["--database", database])
            defer { second.stop() }

            // Nothing is live yet; then a push through the first server is delivered by the second.
            #expect(try await Self.request("GET", second.url + "/v1/catalog?platform=web", key: client).0 == 404)
            _ = try Self.run(["push", "examples/shop.yaml", "--publish", "--server", first.url, "--key", secret])
            let (status, catalog) = try await Self.request("GET", second.url + "/v1/catalog?platform=web", key: client)
            #expect(status == 200 && catalog.contains("search-tip"), "\(status) \(catalog.prefix(200))")
            // The second server has the catalog cached now; the next version, published through
            // the first, still reaches it on the next request.
            let shop = try String(contentsOf: Self.root.appendingPathComponent("examples/shop.yaml"), encoding: .utf8)
            let changed = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-two-servers-\(UUID().uuidString).yaml")
            // The tip and the checklist item that shows it.
            try shop.replacingOccurrences(of: "id: search-tip", with: "id: find-tip").replacingOccurrences(
                of: "tip: search-tip", with: "tip: find-tip"
            )
            .write(to: changed, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: changed) }
            _ = try Self.run(["push", changed.path, "--publish", "--server", first.url, "--key", secret])
            let (_, next) = try await Self.request("GET", second.url + "/v1/catalog?platform=web", key: client)
            #expect(next.contains("find-tip") && !next.contains("search-tip"), "\(next.prefix(200))")

            // The same batch sent to both is stored once.
            let now = ISO8601DateFormatter().string(from: Date())
            let ids = (0..<20).map { _ in UUID().uuidString.lowercased() }
            // The last is the checkout page read to its bottom, which its credit claimed below needs.
            let events = ids.enumerated().map { index, id in
                index < 19
                    ? #"{"id":"\#(id)","user":"u1","name":"tap","target":"search","timestamp":"\#(now)"}"#
                    : #"{"id":"\#(id)","user":"u1","name":"page_read_to_bottom","target":"checkout","timestamp":"\#(now)","properties":{"tour":"shop-tour","page":"checkout"}}"#
            }
            let batch = #"{"events":[\#(events.joined(separator: ","))]}"#
            let (firstURL, secondURL) = (first.url, second.url)
            async let one = Self.request("POST", firstURL + "/v1/events", key: client, body: batch)
            async let two = Self.request("POST", secondURL + "/v1/events", key: client, body: batch)
            let answers = try await [one, two]
            #expect(answers.allSatisfy { $0.0 == 200 }, "\(answers.map(\.0))")
            let accepted = answers.map { $0.1.components(separatedBy: #""accepted""#).count - 1 }.reduce(0, +)
            #expect(accepted == 20, "each event accepted by exactly one server: \(answers.map { $0.1.prefix(300) })")
            #expect(try await store.eventCount(app: app) == 20)

            // A reward claimed through both at the same moment is granted once.
            let claim =
                #"{"user":"u1","userHash":"\#(Secrets.userHash(user: "u1", identitySecret: identity))","tour":"shop-tour","page":"checkout"}"#
            let claims = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<10 {
                    let url = (index % 2 == 0 ? firstURL : secondURL) + "/v1/rewards/claims"
                    group.addTask { try await Self.request("POST", url, key: client, body: claim) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(claims.filter { $0.0 == 201 }.count == 1, "\(claims.map(\.0))")
            #expect(claims.allSatisfy { $0.0 == 201 || $0.0 == 200 })
            #expect(try await store.balance(app: app, user: "u1") == 5)

            // A key revoked through the first server stops working on the second within its
            // key cache's lifetime (5 s on a shared database), though the second had just used it.
            let (created, madeKey) = try await Self.request("POST", firstURL + "/v1/admin/keys", key: secret, body: #"{"kind":"client"}"#)
            #expect(created == 201)
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(madeKey.utf8)) as? [String: Any])
            let newKey = try #require(summary["key"] as? String)
            let keyID = try #require(summary["id"] as? String)
            #expect(try await Self.request("GET", secondURL + "/v1/catalog?platform=web", key: newKey).0 == 200)
            #expect(try await Self.request("DELETE", firstURL + "/v1/admin/keys/" + keyID, key: secret).0 == 204)
            #expect(try await Self.request("GET", firstURL + "/v1/catalog?platform=web", key: newKey).0 == 401, "at once where revoked")
            let revoked = ContinuousClock.now
            var refused = 200
            while refused != 401, ContinuousClock.now - revoked < .seconds(15) {
                try await Task.sleep(for: .milliseconds(200))
                refused = try await Self.request("GET", secondURL + "/v1/catalog?platform=web", key: newKey).0
            }
            let took = ContinuousClock.now - revoked
            #expect(refused == 401, "the second server still took the revoked key after \(took)")
        }
    }
}
