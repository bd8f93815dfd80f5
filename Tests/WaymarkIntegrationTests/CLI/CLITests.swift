import CompressNIO
import Foundation
import NIOCore
import Testing
import WaymarkCatalog
import WaymarkEngine
import WaymarkServer
import WaymarkStore
import WaymarkTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs the real `waymark` binary, as a user would.
@Suite(.timeLimit(.minutes(5)))
struct CLITests {
    static let root = WaymarkBinary.root

    typealias Run = WaymarkBinary.Run

    func waymark(_ arguments: String...) throws -> Run {
        try waymark(arguments)
    }

    func binary() throws -> URL { try WaymarkBinary.url() }

    func waymark(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        try WaymarkBinary.run(arguments, environment: environment)
    }

    /// A new file in the temporary directory holding `text`; the caller removes it with ``remove(_:)``.
    func temporaryFile(_ text: String, _ suffix: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-\(UUID().uuidString)\(suffix)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func remove(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

    /// The runner itself: a program that writes more errors than a pipe holds (64 KiB) before its
    /// output still finishes, and both are kept.
    @Test func runsAProgramThatWritesALotOfErrorsFirst() throws {
        let run = try WaymarkBinary.run(
            program: URL(fileURLWithPath: "/bin/sh"), ["-c", "head -c 300000 /dev/zero | tr '\\0' e >&2; echo done"])
        #expect(run.status == 0 && run.output == "done\n" && run.errors.utf8.count == 300_000)
    }

    /// A load balancer's address that is not one stops the server before it starts, saying which.
    @Test func aTrustedProxyThatIsNoAddressIsAClearError() throws {
        let run = try waymark("serve", "--port", "0", "--trusted-proxies", "10.0.0.0/8, balancer.internal")
        #expect(
            run.status != 0
                && run.errors.contains(
                    "trusted proxies: not an IP address or a range such as 10.0.0.0/8 or fd00::/8: \"balancer.internal\""),
            "\(run.errors)")
    }

    /// A database that is not PostgreSQL, or that does not answer, is a clear error, not a hang
    /// (the connection pool itself retries for ever); the password is not printed.
    @Test func aWrongOrUnreachableDatabaseIsAClearError() throws {
        let wrong = try waymark("apps", "list", "--database", "mysql://x")
        #expect(wrong.status == 1 && wrong.errors.contains("not a postgres://"))
        let unreachable = try waymark("apps", "list", "--database", "postgres://nobody:hunter2@127.0.0.1:1/nothing", "--log-level", "error")
        #expect(unreachable.status == 1)
        #expect(
            unreachable.errors.contains("cannot reach the database at postgres://nobody:***@127.0.0.1:1/nothing"), "\(unreachable.errors)")
        #expect(!unreachable.errors.contains("hunter2"))
    }

    /// `waymark sdk --out` lays the SDK out as the server serves it below /sdk/, for a CDN.
    @Test func sdkWritesEveryFileAsTheServerServesIt() throws {
        let printed = try waymark("sdk")
        // The minified copy mangles names; the parts' own strings say which module is where.
        #expect(printed.status == 0 && printed.errors.isEmpty && !printed.output.contains("page_read_to_bottom"), "\(printed.errors)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-sdk-\(UUID().uuidString)")
        defer { Self.remove(folder.path) }
        let run = try waymark("sdk", "--out", folder.path)
        #expect(run.status == 0, "\(run.errors)")
        let written = run.output.split(separator: "\n").map { String($0.dropFirst(folder.path.count + 1)) }
        let version = try #require(written.dropFirst().first?.split(separator: "/").first.map(String.init))
        #expect(
            written == ["waymark.js"]
                + [
                    "waymark.js", "bridge.js", "builder.js", "controls.js", "gestures.js", "identity.js", "kinds.js", "launcher.js",
                    "narration.js", "previewing.js", "sightings.js", "theme.js", "tours.js",
                ].map { "\(version)/\($0)" })
        // Beside each versioned file, its packed copies, for a server that sends them itself.
        for path in written.dropFirst() {
            let file = try Data(contentsOf: folder.appendingPathComponent(path))
            let gzip = try Data(contentsOf: folder.appendingPathComponent(path + ".gz"))
            var packed = ByteBuffer(bytes: gzip)
            #expect(try packed.decompress(with: .gzip()) == ByteBuffer(bytes: file), "\(path).gz unpacks to \(path)")
            let brotli = try Data(contentsOf: folder.appendingPathComponent(path + ".br"))
            #expect(!brotli.isEmpty && brotli.count < gzip.count, "\(path).br: \(brotli.count) bytes, gzip \(gzip.count)")
        }
        let main = try String(contentsOf: folder.appendingPathComponent("waymark.js"), encoding: .utf8)
        #expect(main == printed.output && main.contains("\"\(version)/\""), "the SDK names its version's folder")
        #expect(
            try String(contentsOf: folder.appendingPathComponent("\(version)/tours.js"), encoding: .utf8).contains("page_read_to_bottom"))
        #expect(try String(contentsOf: folder.appendingPathComponent("\(version)/controls.js"), encoding: .utf8).contains("wm-scale"))
        let unwritable = try waymark("sdk", "--out", "/proc/waymark-sdk")
        #expect(unwritable.status == 1 && unwritable.errors.contains("cannot write the SDK into /proc/waymark-sdk"), "\(unwritable.errors)")
    }

    /// `waymark demo --database` keeps the demo in PostgreSQL, and only in a database of its own.
    @Test(arguments: StoreUnderTest.available.filter { $0 == .postgres })
    func theDemoOnPostgreSQLStartsOnlyInAnEmptyDatabase(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, location in
            guard case .postgres(let url) = location else { return }
            _ = try await Provisioning.createApp(name: "Someone's shop", in: store)
            let run = try waymark("demo", "--port", "0", "--database", url, "--data-dir", NSTemporaryDirectory() + "waymark-\(UUID())")
            #expect(run.status == 1 && run.errors.contains("the database already holds apps"), "\(run.errors)")
            #expect(try await store.apps().count == 1, "nothing was added")
        }
    }

    @Test func simulateReplaysTheExample() throws {
        let run = try waymark("simulate", "examples/shop.yaml", "examples/session.jsonl")
        #expect(run.status == 0, "\(run.errors)")
        let lines = run.output.split(separator: "\n")
        #expect(lines.first == #"{"t":"2026-01-01T10:00:01Z","show":"welcome","container":"banner"}"#)
        #expect(
            lines.contains(
                #"{"t":"2026-01-01T10:00:09Z","hide":"search-tip","container":"home","anchor":"search-button","reason":"dismissed"}"#))
        #expect(lines.contains(#"{"t":"2026-01-01T10:00:40Z","pause":"cart-tip","container":"product","anchor":"add-to-cart"}"#))
        #expect(lines.contains(#"{"t":"2026-01-01T10:01:10Z","resume":"cart-tip","container":"product","anchor":"add-to-cart"}"#))
        #expect(try waymark("simulate", "examples/shop.yaml", "examples/session.jsonl").output == run.output, "deterministic")
    }

    @Test func lintPointsIntoTheFile() throws {
        let path = try temporaryFile("tips:\n  - id: a\n    container: home\n    trigger: (tap AND scroll))\n", ".yaml")
        defer { CLITests.remove(path) }
        let run = try waymark("lint", path)
        #expect(run.status == 1)
        #expect(run.errors.contains("\(path):4:30"), "\(run.errors)")
        #expect(run.errors.contains("^ expected AND, OR or the end of the rule"))
        let shop = try waymark("lint", "examples/shop.yaml")
        #expect(shop.status == 0 && shop.errors.isEmpty, "the demo is wholly in Hindi too: \(shop.errors)")
    }

    /// A catalog that declares its locales gets a warning for each content and button without
    /// one, naming it and pointing at it; the catalog is still usable.
    @Test func lintWarnsOfContentWithoutADeclaredLocale() throws {
        let path = try temporaryFile(
            """
            locales: [hi, ta]
            tips:
              - id: greet
                container: home
                trigger: activation
                content: { title: Hello, locales: { hi: { title: नमस्ते }, ta-IN: { title: வணக்கம் } } }
                variants:
                  - { id: short, content: { title: Hi, locales: { hi: { title: हाय } } } }
                actions:
                  - { id: go, label: Go, route: /go, locales: { ta: போ } }
            tours:
              - id: tour
                pages:
                  - { id: one, content: { title: One } }
            """, ".yaml")
        defer { CLITests.remove(path) }
        let run = try waymark("lint", path)
        #expect(run.status == 0)
        #expect(run.output == "\(path): ok, 1 tip, 3 warnings\n")
        #expect(run.errors.contains("warning: variant \"short\" has no ta content, which the catalog's locales promise\n --> \(path):8:31"))
        #expect(run.errors.contains("warning: button \"go\" has no hi label"))
        #expect(run.errors.contains("warning: page \"one\" has no hi, ta content"))
        #expect(!run.errors.contains("tip \"greet\""), "ta-IN counts for ta")
        #expect(!run.errors.contains("error"))
    }

    @Test func lintReadsJSONToo() throws {
        let path = try temporaryFile(#"{"tips": [{"id": "a", "container": "home", "trigger": "tap within 5x"}]}"#, ".json")
        defer { CLITests.remove(path) }
        let run = try waymark("lint", path)
        #expect(run.status == 1)
        #expect(run.errors.contains("\(path):1:67"), "\(run.errors)")
    }

    @Test func evalPrintsTheValueAfterEachLine() throws {
        let events = try temporaryFile(
            """
            {"t":"2026-01-01T10:00:00Z","event":"tap"}
            {"t":"2026-01-01T10:00:03Z","event":"tap","target":"x"}
            {"t":"2026-01-01T10:00:10.001Z"}
            {"t":"2026-01-01T10:00:11Z","context":{"app.version":"1.3.0"}}
            """, ".jsonl")
        defer { CLITests.remove(events) }
        let run = try waymark("eval", "count(tap) >= 2 within 10s OR app.version >= v1.3", events)
        #expect(run.status == 0, "\(run.errors)")
        #expect(
            run.output == """
                {"t":"2026-01-01T10:00:00Z","value":false}
                {"t":"2026-01-01T10:00:03Z","value":true}
                {"t":"2026-01-01T10:00:10.001Z","value":false}
                {"t":"2026-01-01T10:00:11Z","value":true}

                """)
        let bad = try waymark("eval", "(tap AND scroll))", events)
        #expect(bad.status == 1)
        #expect(bad.errors.contains("rule:1:17"))
    }

    /// The replay stops at the first bad line, so what it printed is right, and names every bad line.
    @Test func badEventLinesAreNamed() throws {
        let events = try temporaryFile(
            """
            {"t":"2026-01-01T10:00:00Z","event":"activation"}
            not json
            {"t":"yesterday"}
            {"t":"2026-01-01T10:00:05Z","event":"tap","target":"welcome-close"}

            """, ".jsonl")
        defer { CLITests.remove(events) }
        let run = try waymark("simulate", "examples/shop.yaml", events)
        #expect(run.status == 1)
        #expect(run.errors.contains("\(events):2:1") && run.errors.contains("\(events):3:1"), "\(run.errors)")
        #expect(run.output == #"{"t":"2026-01-01T10:00:00Z","show":"welcome","container":"banner"}"# + "\n")
        let eval = try waymark("eval", "tap", events)
        #expect(eval.status == 1)
        #expect(eval.output == #"{"t":"2026-01-01T10:00:00Z","value":false}"# + "\n")
    }

    /// Events carry typed properties in replays too: `eval` tests them by type.
    @Test func evalTestsEventsProperties() throws {
        let events = try temporaryFile(
            """
            {"t":"2026-01-01T10:00:00Z","event":"purchase","properties":{"amount":"799"}}
            {"t":"2026-01-01T10:00:01Z","event":"purchase","properties":{"amount":799,"cod":true}}
            {"t":"2026-01-01T10:00:02Z","container":"home","visible":false}
            """, ".jsonl")
        defer { CLITests.remove(events) }
        let run = try waymark("eval", "purchase where amount >= 500 AND cod == true", events)
        #expect(run.status == 1, "eval takes no container lines")
        #expect(
            run.output == """
                {"t":"2026-01-01T10:00:00Z","value":false}
                {"t":"2026-01-01T10:00:01Z","value":true}

                """)
        #expect(run.errors.hasPrefix("error: eval takes events, ticks and context lines only\n --> \(events):3:1"), "\(run.errors)")
    }

    @Test func explainSaysWhy() throws {
        let run = try waymark("explain", "examples/shop.yaml", "examples/session.jsonl", "cart-tip")
        #expect(run.status == 0)
        #expect(run.output.contains("tip cart-tip: finished:dismissed"), "\(run.output)")
        #expect(try waymark("explain", "examples/shop.yaml", "examples/session.jsonl", "nope").status == 1)
    }
}

/// A real `waymark demo` process on a free port, stopped by ``stop()``.
struct DemoProcess {
    let process: Process
    let directory: URL
    /// DATA_DIR/demo.json: server, appId, clientKey, secretKey, identitySecret.
    let facts: [String: String]

    init(_ cli: CLITests, arguments: [String] = [], standardError: Any? = nil) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-demo-\(UUID().uuidString)")
        process = Process()
        process.executableURL = try cli.binary()
        process.arguments = ["demo", "--port", "0", "--data-dir", directory.path] + arguments
        process.standardOutput = FileHandle.nullDevice
        if let standardError { process.standardError = standardError }
        try process.run()
        let factsFile = directory.appendingPathComponent("demo.json")
        for _ in 0..<300 where !FileManager.default.fileExists(atPath: factsFile.path) {
            try await Task.sleep(for: .milliseconds(100))
        }
        facts = (try? JSONSerialization.jsonObject(with: Data(contentsOf: factsFile)) as? [String: String]) ?? [:]
    }

    func stop() {
        stopProcess(process)
        try? FileManager.default.removeItem(at: directory)
    }
}

/// `waymark push` and `pull` against a real `waymark demo` server.
@Suite(.timeLimit(.minutes(5))) struct PushPullTests {
    let cli = CLITests()

    @Test func pushPublishesAndPullGetsTheCatalogBack() async throws {
        let demo = try await DemoProcess(cli)
        defer { demo.stop() }
        let facts = demo.facts
        let environment = ["WAYMARK_SERVER": try #require(facts["server"]), "WAYMARK_KEY": try #require(facts["secretKey"])]

        let shop = try String(contentsOf: CLITests.root.appendingPathComponent("examples/shop.yaml"), encoding: .utf8)
        let changed = try cli.temporaryFile(shop.replacingOccurrences(of: "frequency: immediate", with: "frequency: hourly"), ".yaml")
        defer { CLITests.remove(changed) }
        let push = try cli.waymark(["push", changed, "--publish"], environment: environment)
        #expect(push.status == 0, "\(push.errors)")
        #expect(push.output.contains("published version 2"))

        let pulled = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-pulled-\(UUID().uuidString).yaml").path
        defer { CLITests.remove(pulled) }
        let pull = try cli.waymark(["pull", "--output", pulled], environment: environment)
        #expect(pull.status == 0, "\(pull.errors)")
        #expect(try CatalogDocument.load(path: pulled) == CatalogDocument.load(path: changed))
        let first = try cli.waymark(["pull", "--version", "1"], environment: environment)
        #expect(try CatalogDocument.parse(first.output, file: "v1").frequency == .immediate)

        let broken = try cli.temporaryFile(
            shop.replacingOccurrences(of: "trigger: ", with: "trigger: ((", options: [], range: nil), ".yaml")
        defer { CLITests.remove(broken) }
        let refused = try cli.waymark(["push", broken], environment: environment)
        #expect(refused.status == 1 && refused.errors.contains("\(broken):"))
        let wrongKey = try cli.waymark(["pull"], environment: environment.merging(["WAYMARK_KEY": "wm_sk_nope"]) { $1 })
        #expect(wrongKey.status == 1 && wrongKey.errors.contains("valid key"))
    }
}

/// What an operator sees of a running server: JSON logs and Prometheus metrics.
@Suite(.timeLimit(.minutes(5))) struct OperationsTests {
    let cli = CLITests()

    @Test func serveLogsTheAddressItListensOn() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServerProcess(["--data-dir", directory.path])
        defer { server.stop() }
        // Port 0 asks for any free port: the log names the one the server got.
        let address = server.url
        #expect(address.hasPrefix("http://127.0.0.1:") && !address.hasSuffix(":0"), "\(address)")
        let (body, _) = try await URLSession.shared.data(from: try #require(URL(string: address + "/healthz")))
        #expect(String(decoding: body, as: UTF8.self) == "ok\n")
    }

    @Test func theServerLogsJSONLinesAndServesMetrics() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-log-\(UUID().uuidString).jsonl")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        // Narration off: while speech is being made, a cached catalog is rebuilt every 2 s, which
        // counts as neither a hit nor a miss, and a slow machine would space the requests that far.
        let demo = try await DemoProcess(
            cli, arguments: ["--log-format", "json", "--log-level", "debug", "--narration", "off"],
            standardError: try FileHandle(forWritingTo: log))
        let server = try #require(demo.facts["server"])
        var catalog = URLRequest(url: try #require(URL(string: server + "/v1/catalog?platform=web")))
        catalog.setValue("Bearer \(try #require(demo.facts["clientKey"]))", forHTTPHeaderField: "Authorization")
        _ = try await URLSession.shared.data(for: catalog)
        _ = try await URLSession.shared.data(for: catalog)
        let (body, response) = try await URLSession.shared.data(from: try #require(URL(string: server + "/metrics")))
        demo.stop()

        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let metrics = String(decoding: body, as: UTF8.self)
        #expect(metrics.contains(#"waymark_http_requests_total{route="/v1/catalog",method="GET",status="200"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"waymark_catalog_cache_total{result="hit"} 1"#))
        #expect(metrics.contains(#"waymark_catalog_cache_total{result="miss"} 1"#))
        #expect(metrics.contains("waymark_http_request_duration_seconds_bucket"))

        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let objects = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], "not JSON: \($0)") }
        #expect(!objects.isEmpty)
        for object in objects {
            #expect(object["time"] is String && object["level"] is String && object["message"] is String)
        }
        let requests = objects.filter { $0["message"] as? String == "request" }
        #expect(
            requests.contains { $0["route"] as? String == "/v1/catalog" && $0["status"] as? String == "200" && $0["duration_ms"] != nil })
    }
}
