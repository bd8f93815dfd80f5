import Foundation
import PostgresNIO
import Testing
import WaymarkAPI
import WaymarkStore
import WaymarkTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// PostgreSQL stopped as by a power cut in the middle of ingestion: every event a server had
/// acknowledged is there after recovery, and the clients' retries store the rest exactly once.
@Suite(.enabled(if: StoreUnderTest.available.contains(.postgres)), .timeLimit(.minutes(5)))
struct DurabilityTests {
    /// A PostgreSQL cluster of this test's own (the shared one keeps serving the other tests).
    final class Cluster {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-durability-\(UUID().uuidString)").path
        private(set) var url = ""

        init() throws {
            let printed = try Self.script("start", directory)
            url = String(
                printed.split(separator: "\n").first { $0.hasPrefix("WAYMARK_TEST_POSTGRES=") }?.dropFirst("WAYMARK_TEST_POSTGRES=".count)
                    ?? "")
        }

        func crash() throws { _ = try Self.script("crash", directory) }
        func restart() throws { _ = try Self.script("restart", directory) }
        func remove() { _ = try? Self.script("stop", directory) }

        struct Failed: Error, CustomStringConvertible {
            var description: String
        }

        static func script(_ command: String, _ directory: String) throws -> String {
            // Into files, not pipes: the server it starts inherits the descriptors, so a pipe would never end.
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-cluster-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            defer { try? FileManager.default.removeItem(at: output) }
            let process = Process()
            process.executableURL = WaymarkBinary.root.appendingPathComponent("scripts/postgres-cluster")
            process.arguments = [command, directory]
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = process.standardOutput
            try process.run()
            process.waitUntilExit()
            let printed = try String(contentsOf: output, encoding: .utf8)
            guard process.terminationStatus == 0 else { throw Failed(description: "postgres-cluster \(command): \(printed)") }
            return printed
        }
    }

    /// What the senders saw, shared between them.
    final class Ledger: @unchecked Sendable {
        private let lock = NSLock()
        private var acknowledged: Set<String> = []
        private var accepted: [String: Int] = [:]
        private var failures = 0

        func record(_ results: [EventResult]) {
            lock.withLock {
                for result in results {
                    guard let id = result.id else { continue }
                    acknowledged.insert(id)
                    if result.status == .accepted { accepted[id, default: 0] += 1 }
                }
            }
        }

        func failed() { lock.withLock { failures += 1 } }
        var acknowledgedIDs: Set<String> { lock.withLock { acknowledged } }
        var acceptedCounts: [String: Int] { lock.withLock { accepted } }
        var failureCount: Int { lock.withLock { failures } }
    }

    /// Sends the batch until a server answers it, as the SDKs' upload queues do; records the answer.
    static func send(_ batch: Data, to url: String, key: String, into ledger: Ledger) async throws {
        var request = URLRequest(url: try #require(URL(string: url + "/v1/events")))
        request.httpMethod = "POST"
        request.httpBody = batch
        request.timeoutInterval = 60
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        for _ in 0..<300 {
            if let (data, response) = try? await URLSession.shared.data(for: request) {
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                if status == 200 {
                    ledger.record(try JSONDecoder().decode(EventBatchResult.self, from: data).results)
                    return
                }
                // Only a server or database failure is worth sending again.
                guard status >= 500 else {
                    Issue.record("the upload was refused: \(status) \(String(decoding: data, as: UTF8.self))")
                    throw Cluster.Failed(description: "refused")
                }
            }
            ledger.failed()
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("a batch was never acknowledged")
        throw Cluster.Failed(description: "never acknowledged")
    }

    @Test func aCrashMidIngestionLosesNoAcknowledgedEventAndRetriesStoreTheRestOnce() async throws {
        let cluster = try Cluster()
        defer { cluster.remove() }
        let made = try JSONSerialization.jsonObject(
            with: Data(try TwoServersTests.run(["apps", "create", "Shop", "--database", cluster.url]).utf8))
        let key = try #require((made as? [String: Any])?["clientKey"] as? String)
        let server = try await ServerProcess(["--database", cluster.url])
        defer { server.stop() }
        let url = server.url

        // Four phones, each sending 40 batches of 25 events, one every 50 ms (so that most are
        // still to come when the database stops).
        let now = ISO8601DateFormatter().string(from: Date())
        let phones = (0..<4).map { phone in
            (0..<40).map { _ in
                let events = (0..<25).map { _ in
                    #"{"id":"\#(UUID().uuidString.lowercased())","user":"u\#(phone)","name":"tap","target":"buy","timestamp":"\#(now)"}"#
                }
                return Data(#"{"events":[\#(events.joined(separator: ","))]}"#.utf8)
            }
        }
        let ledger = Ledger()
        var beforeCrash: Set<String> = []
        try await withThrowingTaskGroup(of: Void.self) { group in
            for batches in phones {
                group.addTask {
                    for batch in batches {
                        try await Self.send(batch, to: url, key: key, into: ledger)
                        try await Task.sleep(for: .milliseconds(50))
                    }
                }
            }
            // A quarter in, the database stops dead; it comes back after longer than a server
            // waits for a connection (5 s), so uploads meanwhile are refused (503) and sent again.
            let deadline = ContinuousClock.now + .seconds(120)
            while ledger.acknowledgedIDs.count < 1_000 {
                guard ContinuousClock.now < deadline else {
                    throw Cluster.Failed(description: "the first 1,000 events were not acknowledged in 2 minutes")
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            try cluster.crash()
            beforeCrash = ledger.acknowledgedIDs
            try await Task.sleep(for: .seconds(7))
            try cluster.restart()
            try await group.waitForAll()
        }

        let total = 4 * 40 * 25
        #expect(ledger.failureCount > 0, "the crash was felt by the senders")
        #expect(ledger.acknowledgedIDs.count == total)
        let accepted = ledger.acceptedCounts
        #expect(accepted.count == total && accepted.values.allSatisfy { $0 == 1 }, "each event accepted exactly once")
        // What the database holds, read directly: every event once, those acknowledged before the crash among them.
        let stored = try await PostgresDatabase.withClient(url: cluster.url) { client in
            var ids: [String] = []
            for try await id in try await client.query("SELECT id::TEXT FROM events").decode(String.self) { ids.append(id) }
            return ids
        }
        #expect(stored.count == total && Set(stored).count == total)
        #expect(beforeCrash.count >= 1_000 && beforeCrash.isSubset(of: Set(stored)), "no acknowledged event lost")
    }
}
