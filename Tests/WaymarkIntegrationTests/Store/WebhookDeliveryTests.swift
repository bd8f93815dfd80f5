import Foundation
import HTTPTypes
import Hummingbird
import Testing
import WaymarkPostgres
import WaymarkSQLite
import WaymarkServer
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// Webhook deliveries through `waymark serve` processes: none lost when a server is killed
/// (`kill -9`) before its delivery got through, and none sent twice at once by two servers on one
/// PostgreSQL database.
@Suite(.timeLimit(.minutes(5))) struct WebhookDeliveryTests {
    /// A port nothing listens on now: one a receiver had and gave back.
    static func freePort() async throws -> Int {
        let found = Locked(0)
        try await WebhookReceiver().run { url in found.withLock { $0 = URL(string: url)?.port ?? 0 } }
        return found.withLock { $0 }
    }

    static func app(_ storage: [String]) throws -> (id: String, secret: String, client: String) {
        let made = try JSONSerialization.jsonObject(with: Data(try TwoServersTests.run(["apps", "create", "Shop"] + storage).utf8))
        let app = try #require(made as? [String: Any])
        return (try #require(app["appId"] as? String), try #require(app["secretKey"] as? String), try #require(app["clientKey"] as? String))
    }

    static func addEndpoint(_ server: String, secret: String, url: String) async throws -> String {
        let (status, body) = try await TwoServersTests.request(
            "POST", server + "/v1/admin/webhooks", key: secret, body: #"{"url":"\#(url)"}"#)
        #expect(status == 201, "\(body)")
        let endpoint = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
        return try #require(endpoint?["secret"] as? String)
    }

    @Test(arguments: StoreUnderTest.available)
    func aDeliveryOutlivesAKilledServer(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, location in
            let storage =
                switch location {
                case .sqlite(let path): ["--data-dir", (path as NSString).deletingLastPathComponent]
                case .postgres(let url): ["--database", url]
                }
            let app = try Self.app(storage)
            let port = try await Self.freePort()
            let options = storage + ["--webhook-targets", "any", "--webhook-first-retry", "0.3"]

            // The change is made while the receiver is down; the server is killed with its
            // delivery still to do.
            let first = try await ServerProcess(options)
            let secret = try await Self.addEndpoint(first.url, secret: app.secret, url: "http://127.0.0.1:\(port)/hook")
            _ = try TwoServersTests.run(["push", "examples/shop.yaml", "--publish", "--server", first.url, "--key", app.secret])
            #expect(try await eventually(within: 20) { first.logText.contains("a webhook delivery failed") })
            kill(first.process.processIdentifier, SIGKILL)
            first.process.waitUntilExit()
            first.stop()
            let waiting = try await store.webhookDeliveries(app: app.id, endpoint: nil, limit: 10)
            #expect(waiting.count == 1 && waiting.first?.state == .pending && waiting.first?.type == "catalog.published")

            // Another server on the same data sends it once the receiver is up: at its next retry,
            // or, when the kill came during an attempt, once that attempt's lease (60 s) runs out.
            let receiver = WebhookReceiver()
            try await receiver.run(port: port) { _ in
                let second = try await ServerProcess(options)
                defer { second.stop() }
                #expect(try await eventually(within: 90) { !receiver.deliveries.isEmpty })
                let delivery = try #require(receiver.deliveries.first)
                #expect(delivery.id == waiting.first?.event && delivery.type == "catalog.published")
                let signature = delivery.headers[HTTPField.Name("Waymark-Signature")!] ?? ""
                #expect(WebhookSignature.verify(signature, body: delivery.body, secret: secret, now: Date()))
                #expect(
                    try await eventually(within: 10) {
                        try await store.webhookDeliveries(app: app.id, endpoint: nil, limit: 10).first?.state == .delivered
                    })
            }
        }
    }

    @Test(.enabled(if: StoreUnderTest.available.contains(.postgres)))
    func twoServersSendEachDeliveryOnce() async throws {
        try await PostgresDatabase.withFresh(url: try StoreUnderTest.requirePostgresURL()) { store, database in
            let app = try Self.app(["--database", database])
            // A slow receiver: each answer takes 50 ms, so that both servers poll while deliveries are out.
            let receiver = WebhookReceiver { _, _ in
                Thread.sleep(forTimeInterval: 0.05)
                return .ok
            }
            try await receiver.run { url in
                let options = ["--database", database, "--webhook-targets", "any"]
                let servers = [try await ServerProcess(options), try await ServerProcess(options)]
                defer { for server in servers { server.stop() } }
                _ = try await Self.addEndpoint(servers[0].url, secret: app.secret, url: url)
                // Forty survey answers, uploaded in batches of four through either server.
                let time = ISO8601DateFormatter().string(from: Date())
                let ids = (0..<40).map { _ in UUID().uuidString.lowercased() }
                for (index, start) in stride(from: 0, to: ids.count, by: 4).enumerated() {
                    let events = ids[start..<start + 4].map {
                        #"{"id":"\#($0)","user":"u\#(index)","name":"survey_answered","target":"nps","timestamp":"\#(time)","properties":{"score":9}}"#
                    }
                    let (status, _) = try await TwoServersTests.request(
                        "POST", servers[index % 2].url + "/v1/events", key: app.client,
                        body: #"{"events":[\#(events.joined(separator: ","))]}"#)
                    #expect(status == 200)
                }
                #expect(try await eventually(within: 60) { receiver.deliveries.count >= ids.count })
                try await Task.sleep(for: .seconds(1))  // room for a second sending, if there were one
                let answered = receiver.deliveries.compactMap { $0.data["event"] as? String }
                #expect(answered.count == ids.count && Set(answered) == Set(ids), "each answer's notice delivered once")
                let logs = servers.map(\.logText)
                #expect(!logs.contains { $0.contains("lease ran out") })
                // Each answer is recorded just after the receiver gave it.
                #expect(
                    try await eventually(within: 10) {
                        let delivered = try await store.webhookDeliveries(app: app.id, endpoint: nil, limit: 100)
                        return delivered.count == ids.count && delivered.allSatisfy { $0.state == .delivered && $0.attempts == 1 }
                    })
            }
        }
    }
}
