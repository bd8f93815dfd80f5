import Foundation
import Testing
import WaymarkAnalytics
import WaymarkClickHouse
import WaymarkSQLite
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// `waymark serve --analytics` ships every event it stores to ClickHouse, and loses none when the
/// server, ClickHouse or both are killed (kill -9): what the store acknowledged reaches ClickHouse
/// once, after both are back. ClickHouse here is one of the test's own, which it can kill.
@Suite(.timeLimit(.minutes(5)), .enabled(if: ClickHouseDatabase.isAvailable), .serialized) struct ClickHouseShippingTests {
    /// A ClickHouse server of the test's own (scripts/clickhouse-cluster), in a folder removed after;
    /// with `certificates`, offering HTTPS too at `secureURL` (for localhost).
    final class OwnClickHouse {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-ch-\(UUID().uuidString)")
        var url = ""
        var secureURL = ""

        static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../scripts/clickhouse-cluster").standardized.path

        init(certificates: TestCertificates? = nil) throws {
            let said = try Self.cluster(["start", folder.path] + (certificates.map { [$0.server, $0.serverKey] } ?? []))
            func value(_ name: String) -> String {
                said.split(separator: "\n").first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) } ?? ""
            }
            url = value("WAYMARK_TEST_CLICKHOUSE")
            secureURL = value("WAYMARK_TEST_CLICKHOUSES")
            #expect(!url.isEmpty && (certificates == nil || !secureURL.isEmpty), "clickhouse-cluster said: \(said)")
        }

        @discardableResult
        static func cluster(_ arguments: String...) throws -> String { try cluster(arguments) }

        @discardableResult
        static func cluster(_ arguments: [String]) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: script)
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw StoreError(.unavailable, "clickhouse-cluster \(arguments) failed") }
            return String(decoding: data, as: UTF8.self)
        }

        func crash() throws { try Self.cluster("crash", folder.path) }
        func restart() throws { try Self.cluster("restart", folder.path) }
        func remove() { _ = try? Self.cluster("stop", folder.path) }
    }

    /// `count` events of one user as an upload's body, and their ids.
    static func batch(_ count: Int, user: String) -> (Data, [String]) {
        let now = ISO8601DateFormatter().string(from: Date())
        let ids = (0..<count).map { _ in UUID().uuidString.lowercased() }
        let events = ids.map { #"{"id":"\#($0)","user":"\#(user)","name":"tip_shown","target":"buy","timestamp":"\#(now)"}"# }
        return (Data(#"{"events":[\#(events.joined(separator: ","))]}"#.utf8), ids)
    }

    /// A fresh data directory with one app: the directory, the app's id and its client key.
    static func dataDirectory() throws -> (URL, String, String) {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-clickhouse-\(UUID().uuidString)")
        let made =
            try JSONSerialization.jsonObject(
                with: Data(try TwoServersTests.run(["apps", "create", "Shop", "--data-dir", data.path]).utf8)) as? [String: Any]
        return (data, try #require(made?["appId"] as? String), try #require(made?["clientKey"] as? String))
    }

    static func kill(_ server: ServerProcess) {
        Foundation.kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
    }

    @Test func killedOnEitherSideOrBothEveryEventReachesClickHouseOnce() async throws {
        let clickHouse = try OwnClickHouse()
        defer { clickHouse.remove() }
        let (data, app, key) = try Self.dataDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let arguments = ["--data-dir", data.path, "--analytics", clickHouse.url, "--narration", "off"]
        let ledger = DurabilityTests.Ledger()
        func upload(_ server: ServerProcess, batches: Int, user: String) async throws {
            for _ in 0..<batches {
                try await DurabilityTests.send(Self.batch(50, user: user).0, to: server.url, key: key, into: ledger)
            }
        }

        // The server is killed as soon as its uploads are acknowledged, some shipped and some not.
        var server = try await ServerProcess(arguments)
        try await upload(server, batches: 10, user: "before")
        Self.kill(server)
        server = try await ServerProcess(arguments)
        try await upload(server, batches: 10, user: "restarted")
        // ClickHouse is killed: the server keeps taking events into its outbox.
        try clickHouse.crash()
        try await upload(server, batches: 10, user: "clickhouse-away")
        let felt = try await eventually(within: 30) { server.logText.contains("could not ship the analytics outbox to ClickHouse") }
        #expect(felt, "the shipper found ClickHouse away: \(server.logText)")
        // And then the server too, before ClickHouse is back.
        Self.kill(server)
        try clickHouse.restart()
        server = try await ServerProcess(arguments)
        defer { server.stop() }
        try await upload(server, batches: 4, user: "both-back")

        let analytics = ClickHouseAnalytics(ClickHouse(url: try ClickHouseURL(clickHouse.url)))
        let total = 34 * 50
        #expect(ledger.acknowledgedIDs.count == total)
        let arrived = try await eventually(within: 120, every: .milliseconds(250)) {
            try? await analytics.count(app: app) == total ? true : nil
        }
        let stored = try await analytics.count(app: app)
        #expect(arrived == true, "every acknowledged event reached ClickHouse: \(stored) of \(total)")
        let ids = try await analytics.clickHouse.rows("SELECT id FROM events WHERE app = \(ClickHouse.literal(app))").compactMap {
            $0.first ?? nil
        }
        #expect(ids.count == total && Set(ids) == ledger.acknowledgedIDs, "each once")
        let password = try #require(URLComponents(string: clickHouse.url)?.password)
        #expect(!server.logText.contains(password), "the log never has the password")
    }

    /// An installation that turns ClickHouse on copies what it had with `waymark backfill-analytics`,
    /// which goes on from where it stopped when run again.
    @Test func theBackfillCopiesWhatTheDatabaseHadOnce() async throws {
        try await ClickHouseDatabase.with { analytics, url in
            let (data, app, key) = try Self.dataDirectory()
            defer { try? FileManager.default.removeItem(at: data) }
            // A server without ClickHouse takes 150 events.
            let server = try await ServerProcess(["--data-dir", data.path, "--narration", "off"])
            let ledger = DurabilityTests.Ledger()
            for _ in 0..<3 { try await DurabilityTests.send(Self.batch(50, user: "u").0, to: server.url, key: key, into: ledger) }
            server.stop()
            // The URL's password stays out of what the command says.
            let password = try #require(URLComponents(string: Self.testURL(url))?.password)
            let first = try WaymarkBinary.run(["backfill-analytics", "--data-dir", data.path, "--analytics", Self.testURL(url)])
            #expect(first.status == 0 && first.output.contains("\(app): 150 events copied"), "\(first.output) \(first.errors)")
            #expect(!first.output.contains(password) && !first.errors.contains(password))
            #expect(try await analytics.count(app: app) == 150)
            let again = try WaymarkBinary.run(["backfill-analytics", "--data-dir", data.path, "--analytics", Self.testURL(url)])
            #expect(again.status == 0 && again.output.contains("\(app): 0 events copied"), "\(again.output) \(again.errors)")
            // The outbox is kept now: a server without --analytics says it is not shipping it.
            let unshipped = try await ServerProcess(["--data-dir", data.path, "--narration", "off"])
            try await DurabilityTests.send(Self.batch(5, user: "u").0, to: unshipped.url, key: key, into: ledger)
            unshipped.stop()
            let restarted = try await ServerProcess(["--data-dir", data.path, "--narration", "off"])
            let said = restarted.logText
            restarted.stop()
            #expect(said.contains("this server was given no --analytics") && said.contains("\"waiting\":\"5\""), "\(said)")
            let nowhere = try WaymarkBinary.run([
                "backfill-analytics", "--data-dir", data.path, "--analytics", "clickhouse://u:p@127.0.0.1:9/x",
            ])
            #expect(nowhere.status != 0 && nowhere.errors.contains("cannot be reached"), "\(nowhere.errors)")
            let none = try WaymarkBinary.run(["backfill-analytics", "--data-dir", data.path])
            #expect(none.status != 0 && none.errors.contains("--analytics"), "\(none.errors)")
            // Leaving ClickHouse: the outbox goes, and a server without --analytics no longer warns.
            let stopped = try WaymarkBinary.run(["stop-analytics-outbox", "--data-dir", data.path])
            #expect(stopped.status == 0 && stopped.output.contains("5 entries that waited"), "\(stopped.output) \(stopped.errors)")
            let quiet = try await ServerProcess(["--data-dir", data.path, "--narration", "off"])
            try await DurabilityTests.send(Self.batch(5, user: "v").0, to: quiet.url, key: key, into: ledger)
            let log = quiet.logText
            quiet.stop()
            #expect(!log.contains("this server was given no --analytics"), "\(log)")
            let left = try WaymarkBinary.run(["stop-analytics-outbox", "--data-dir", data.path])
            #expect(left.status == 0 && left.output.contains(" 0 entries"), "\(left.output) \(left.errors)")
        }
    }

    /// A server counting in ClickHouse still folds the database's rollups, and keeps the live
    /// segments' members and the eligible counts day by day from them: a breakdown by a segment
    /// reads the kept days instead of replaying the period.
    @Test func theDatabaseKeepsTheDaysBesideClickHouse() async throws {
        try await ClickHouseDatabase.with { analytics, url in
            let data = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-clickhouse-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: data) }
            let made =
                try JSONSerialization.jsonObject(
                    with: Data(try TwoServersTests.run(["apps", "create", "Shop", "--data-dir", data.path]).utf8)) as? [String: Any]
            let app = try #require(made?["appId"] as? String)
            let (key, secret) = (try #require(made?["clientKey"] as? String), try #require(made?["secretKey"] as? String))
            let catalog = data.appendingPathComponent("catalog.yaml")
            try """
            segments:
              - { name: tappers, rule: "tap:a" }
            tips:
              - { id: hint, container: home, trigger: "tap:a", content: { title: Hint } }
            """.write(to: catalog, atomically: true, encoding: .utf8)
            let arguments = ["--data-dir", data.path, "--analytics", Self.testURL(url), "--narration", "off"]
            // Events of two days that ended, taken by a server counting in ClickHouse.
            let today = Period.startOfDay(Int64(Date().timeIntervalSince1970 * 1000))
            let period = Period(from: today - 3 * Period.day, to: today - Period.day)
            var server = try await ServerProcess(arguments)
            _ = try TwoServersTests.run(["push", catalog.path, "--publish", "--server", server.url, "--key", secret])
            let formatter = ISO8601DateFormatter()
            let events = [("u1", 0, "tap:a"), ("u2", 1, "tap:a"), ("u3", 1, "screen:home")].map { user, day, name in
                let at = formatter.string(
                    from: Date(timeIntervalSince1970: Double(period.from + Int64(day) * Period.day + 3_600_000) / 1000))
                let parts = name.split(separator: ":")
                return
                    #"{"id":"\#(UUID().uuidString.lowercased())","user":"\#(user)","name":"\#(parts[0])","target":"\#(parts[1])","timestamp":"\#(at)"}"#
            }
            try await DurabilityTests.send(
                Data(#"{"events":[\#(events.joined(separator: ","))]}"#.utf8), to: server.url, key: key, into: DurabilityTests.Ledger())
            // The folder's first run, at start, finds the days.
            server.stop()
            server = try await ServerProcess(arguments)
            defer { server.stop() }

            let store = try SQLiteStore(path: data.appendingPathComponent("waymark.sqlite").path)
            let eligibility = try #require(try await Eligibility.live(app: app, store: store))
            let members = try await eventually(within: 60, every: .milliseconds(250)) {
                try? await eligibility.segmentMembers(store: store, app: app, period: period, replaying: 0)
            }
            #expect(members == ["tappers": ["u1", "u2"]], "the kept days answer, with no day replayed")
            let shipped = try await eventually(within: 30, every: .milliseconds(250)) {
                try? await analytics.count(app: app) == 3 ? true : nil
            }
            #expect(shipped == true, "and ClickHouse has the events")
        }
    }

    /// The URL of a test database, with its password.
    static func testURL(_ url: ClickHouseURL) -> String {
        "clickhouse://\(url.user):\(url.password)@\(url.host):\(url.port)/\(url.database)"
    }
}
