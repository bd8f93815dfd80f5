import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import Testing
import WaymarkAnalytics
import WaymarkRules
import WaymarkSQLite
import WaymarkServer
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// One user's data, as a file and erased: through the admin API (secret key, one app's users)
/// and the command line, on both databases, with analytics no longer counting an erased user.
@Suite(.timeLimit(.minutes(5))) struct DataRightsTests {
    /// Events (from the export's maker: users u0, u1, u2), attributes, progress, a segment and a
    /// grant for u1 and u2.
    static func fill(_ store: any Store, app: String) async throws {
        _ = try await store.insertEvents(ExportTests.events(app: app, count: 300))
        for user in ["u1", "u2"] {
            _ = try await store.updateAttributes(
                app: app, user: user, ["plan": .string("plus"), "cityTier": .number(2)], at: Date(), limit: 50)
            _ = try await store.updateProgress(app: app, user: user, at: Date()) { _ in #"{"tips":{"search":{"shown":1}}}"# }
            _ = try await store.claim(
                Grant(id: "g-\(user)", app: app, user: user, tour: "shop-tour", page: "checkout", credits: 5, grantedAt: Date())
            ) { _ in 5 }
        }
        try await store.replaceSegmentMembers(app: app, ["buyers": ["u1", "u2"]])
    }

    @Test(arguments: StoreUnderTest.available)
    func aUsersDataLeavesAsAFileAndIsErasedWhole(_ kind: StoreUnderTest) async throws {
        try await ServerTests().withServer(kind) { client, app, other, store in
            try await Self.fill(store, app: app.appId)
            func call(_ method: HTTPRequest.Method, _ user: String, key: String = app.secretKey) async throws -> TestResponse {
                try await client.execute(uri: "/v1/admin/users/\(user)", method: method, headers: ServerTests.auth(key))
            }
            let file = try await call(.get, "u1")
            #expect(file.status == .ok && file.headers[.contentType] == "application/json; charset=utf-8")
            let data = try #require(try JSONSerialization.jsonObject(with: Data(buffer: file.body)) as? [String: Any])
            #expect(data["user"] as? String == "u1" && data["balance"] as? Int == 5 && data["segments"] as? [String] == ["buyers"])
            #expect((data["attributes"] as? [[String: Any]])?.compactMap { $0["name"] as? String }.sorted() == ["cityTier", "plan"])
            #expect(((data["progress"] as? [String: Any])?["tips"] as? [String: Any])?["search"] != nil)
            #expect((data["grants"] as? [[String: Any]])?.first?["page"] as? String == "checkout")
            let events = try #require(data["events"] as? [[String: Any]])
            #expect(events.count == 100 && events.allSatisfy { $0["user"] as? String == "u1" })
            #expect(try await call(.get, "nobody").status == .notFound, "the app keeps nothing about them")

            let period = Period(from: 0, to: Int64.max)
            let before = try await Analytics(store: store).engagement(app: app.appId, period: period).platforms.map(\.users)
            #expect(before == [3, 3], "three users on each of two platforms (android, and events without one)")
            #expect(try await call(.delete, "u1", key: app.clientKey).status == .unauthorized)
            #expect(try await call(.delete, "u1", key: other.secretKey).status == .ok, "another app's key erases nothing here")
            let erased = try await call(.delete, "u1")
            #expect(erased.status == .ok)
            let counts = try #require(try ServerTests.json(erased)["erased"] as? [String: Int])
            #expect(counts == ["events": 100, "grants": 1, "attributes": 2, "progress": 1, "segments": 1])

            #expect(try await store.events(app: app.appId, period: period, user: "u1", after: nil, limit: 10).isEmpty)
            #expect(try await store.attributes(app: app.appId, user: "u1").isEmpty)
            #expect(try await store.progress(app: app.appId, user: "u1") == nil)
            #expect(try await store.segments(app: app.appId, user: "u1").isEmpty)
            #expect(try await store.balance(app: app.appId, user: "u1") == 0)
            #expect(try await store.eventCount(app: app.appId) == 200, "the others' events stay")
            let kept = try await store.attributes(app: app.appId, user: "u2")
            #expect(try await store.balance(app: app.appId, user: "u2") == 5 && !kept.isEmpty)
            let after = try await Analytics(store: store).engagement(app: app.appId, period: period).platforms.map(\.users)
            #expect(after == [2, 2], "analytics no longer count them")

            // The audit log says it happened and how much, not who.
            let entry = try #require(try await store.auditLog(app: app.appId, limit: 5).first { $0.action == .userErase })
            #expect(entry.actor.description.hasPrefix("key:"))
            #expect(entry.after == "events: 100, grants: 1, attributes: 2, progress: 1, segment memberships: 1")
            #expect(![entry.object, entry.before ?? "", entry.after ?? ""].contains { $0.contains("u1") })
            let again = try ServerTests.json(try await call(.delete, "u1"))["erased"] as? [String: Int]
            #expect(again?.values.allSatisfy { $0 == 0 } == true, "erasing again finds nothing")
            #expect(try await call(.get, "u1").status == .notFound, "an erased user is no longer known")
        }
    }

    @Test func theCommandLineWritesTheFileAndErases() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-rights-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            let store = try SQLiteStore(path: directory.appendingPathComponent("waymark.sqlite").path)
            try await store.createApp(AppRecord(id: "shop", name: "Shop", identitySecret: "s", createdAt: Date()))
            try await Self.fill(store, app: "shop")
        }
        let file = try WaymarkBinary.run(["user-data", "--data-dir", directory.path, "--app", "shop", "--user", "u2"])
        let data = try #require(try JSONSerialization.jsonObject(with: Data(file.output.utf8)) as? [String: Any])
        #expect((data["events"] as? [Any])?.count == 100 && data["balance"] as? Int == 5)
        let refused = try WaymarkBinary.run(["erase-user", "--data-dir", directory.path, "--app", "shop", "--user", "u2"])
        #expect(refused.status != 0 && refused.errors.contains("add --yes"))
        let erased = try WaymarkBinary.run(["erase-user", "--data-dir", directory.path, "--app", "shop", "--user", "u2", "--yes"])
        #expect(erased.output == "Erased events: 100, grants: 1, attributes: 2, progress: 1, segment memberships: 1.\n", "\(erased.errors)")
        let store = try SQLiteStore(path: directory.appendingPathComponent("waymark.sqlite").path)
        #expect(try await store.eventCount(app: "shop") == 200)
        #expect(try await store.auditLog(app: "shop", limit: 1).first?.actor == .cli)
    }
}
