import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import WaymarkServer
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// Each app keeps its events as long as it says (forever unless it says otherwise), and the
/// retention service removes older ones in small batches.
@Suite(.timeLimit(.minutes(5))) struct RetentionTests {
    @Test(arguments: StoreUnderTest.available)
    func oldEventsGoInBatchesOfOneAppAtATime(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            for app in ["a", "b"] {
                try await StoreContractTests.makeApp(app, in: store)
                _ = try await store.insertEvents(ExportTests.events(app: app, count: 25))
            }
            let t0 = ExportTests.t0
            #expect(try await store.deleteEvents(app: "a", before: t0 + 10, limit: 4) == 4)
            let left = try await store.events(app: "a", period: Period(from: 0, to: Int64.max), user: nil, after: nil, limit: 100)
            #expect(left.first?.timestamp == t0 + 4, "the oldest go first")
            #expect(try await store.deleteEvents(app: "a", before: t0 + 10, limit: 100) == 6)
            #expect(try await store.deleteEvents(app: "a", before: t0 + 10, limit: 100) == 0)
            #expect(try await store.eventCount(app: "a") == 15)
            #expect(try await store.eventCount(app: "b") == 25)

            #expect(try await store.eventRetentions().isEmpty, "everything is kept unless an app says otherwise")
            for days in [30, 7] {
                try await EventRetention.set(app: "a", days: days, actor: .cli, at: Date(), in: store)
            }
            #expect(try await store.eventRetentions() == ["a": 7])
            try await EventRetention.set(app: "a", days: nil, actor: .cli, at: Date(), in: store)
            #expect(try await store.eventRetentions().isEmpty)
            let audit = try await store.auditLog(app: "a", limit: 5)
            #expect(
                audit.map { "\($0.before ?? "") > \($0.after ?? "")" } == ["7 days > forever", "30 days > 7 days", "forever > 30 days"])
        }
    }

    /// The service, on the server's clock: an app's events older than its days go, a thousand at
    /// a time; its newer ones and another app's stay.
    @Test(arguments: StoreUnderTest.available)
    func theServiceRemovesWhatIsPastEachAppsRetention(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            let now = Date(millisecondsSince1970: ExportTests.t0 + 40 * 86_400_000)
            for app in ["a", "b"] {
                try await StoreContractTests.makeApp(app, in: store)
                // 2,500 events 40 days old, then 10 from the last day.
                var events = ExportTests.events(app: app, count: 2_510)
                for index in 2_500..<2_510 { events[index].timestamp = now.millisecondsSince1970 - 86_400_000 + Int64(index) }
                _ = try await store.insertEvents(events)
            }
            try await EventRetention.set(app: "a", days: 30, actor: .cli, at: now, in: store)
            let service = EventRetention(store: store, logger: Logger(label: "test"), pause: .zero, now: { now })
            #expect(try await service.sweep() == ["a": 2_500])
            #expect(try await service.sweep().isEmpty)
            #expect(try await store.eventCount(app: "a") == 10)
            #expect(try await store.eventCount(app: "b") == 2_510)
        }
    }

    /// (What the store keeps is tested on both databases above.)
    @Test func theAdminAPISetsItAndTheCommandLineToo() async throws {
        try await ServerTests().withServer(.sqlite) { client, app, _, store async throws in
            func call(_ method: HTTPRequest.Method, _ body: String? = nil, key: String = app.secretKey) async throws -> TestResponse {
                try await client.execute(
                    uri: "/v1/admin/retention", method: method, headers: ServerTests.auth(key), body: body.map { ByteBuffer(string: $0) })
            }
            #expect(String(buffer: try await call(.get).body) == #"{"days":null}"#)
            #expect(try await call(.put, #"{"days":90}"#).status == .ok)
            #expect(String(buffer: try await call(.get).body) == #"{"days":90}"#)
            for bad in [#"{"days":0}"#, #"{"days":36501}"#, "{}", #"{"days":"30"}"#, #"{"days":30,"keep":1}"#] {
                #expect(try await call(.put, bad).status == .badRequest, "\(bad)")
            }
            #expect(try await call(.put, #"{"days":1}"#, key: app.clientKey).status == .unauthorized)
            #expect(try await call(.put, #"{"days":null}"#).status == .ok)
            #expect(try await store.eventRetentions().isEmpty)
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-retention-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try WaymarkBinary.run(["apps", "create", "Shop", "--data-dir", directory.path])
        let appID = try #require(
            (try JSONSerialization.jsonObject(with: Data(made.output.utf8)) as? [String: Any])?["appId"] as? String, "\(made.errors)")
        let set = try WaymarkBinary.run(["apps", "retention", "--app", appID, "--days", "30", "--data-dir", directory.path])
        #expect(set.output == "\(appID) keeps its events 30 days.\n", "\(made.output) \(set.errors)")
        #expect(try WaymarkBinary.run(["apps", "retention", "--app", appID, "--data-dir", directory.path]).status != 0)
        let forever = try WaymarkBinary.run(["apps", "retention", "--app", appID, "--forever", "--data-dir", directory.path])
        #expect(forever.output == "\(appID) keeps its events forever.\n")
    }
}
