import Benchmark
import Foundation
import WaymarkAPI
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkDelivery
import WaymarkSQLite
import WaymarkStore

/// Resolving a 1,000-tip catalog for one client, as `GET /v1/catalog` does for a client context it
/// has not seen: targeting, rollout, variants, locale fallback and media. Target: at most 40 µs.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .microseconds,
        maxDuration: .seconds(20),
        maxIterations: 20_000
    )

    let resolver = Resolver(catalog: try! CatalogDocument.parse(largeCatalog(tips: 1_000), file: "bench"), version: 1)
    let clients = (0..<1_000).map { index in
        ClientContext(
            platform: ["ios", "android", "web"][index % 3], model: ["iPhone15,2", "iPad13,1", "Pixel 8"][index % 3],
            appVersion: ["1.2", "1.4", "2.0"][index % 3], locale: ["hi-IN", "ta", "en-GB", "fr"][index % 4], user: "user-\(index)"
        )
    }

    // What GET /v1/catalog does for a client: decide (and so know the ETag), then write the JSON.
    Benchmark("Resolve a 1,000-tip catalog for one client (decide)") { benchmark in
        var index = 0
        for _ in benchmark.scaledIterations {
            blackHole(resolver.decide(for: clients[index % clients.count]))
            index += 1
        }
    }

    Benchmark("Resolve and write the JSON of a 1,000-tip catalog for one client") { benchmark in
        var index = 0
        for _ in benchmark.scaledIterations {
            blackHole(resolver.json(resolver.decide(for: clients[index % clients.count])))
            index += 1
        }
    }

    // What reading a published version costs: the demo shop's catalog, as the server keeps it.
    let shop = try! String(
        contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../../Sources/waymark/Resources/shop.yaml"),
        encoding: .utf8)
    Benchmark(
        "Parse the demo shop's catalog (\(shop.utf8.count) bytes of YAML)",
        configuration: .init(timeUnits: .milliseconds, maxIterations: 200)
    ) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try CatalogDocument.parse(shop, file: "shop")) }
    }

    // What every report with eligible counts reads first: when each live tip was first
    // published, over every published version (an app that publishes most days has hundreds).
    let versions = 200
    let (store, documents) = try! publishedVersions(of: shop, count: versions)
    Benchmark(
        "When each tip was first published, over \(versions) versions of the demo shop's catalog",
        configuration: .init(timeUnits: .milliseconds, maxIterations: 50)
    ) { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try await Eligibility.firstPublished(app: "shop", store: store)) }
    }
    Benchmark(
        "Parsing those \(versions) versions (yardstick: each report without the memo)",
        configuration: .init(timeUnits: .milliseconds, maxIterations: 10)
    ) { benchmark in
        for _ in benchmark.scaledIterations { for document in documents { blackHole(try CatalogDocument.parse(document, file: "v")) } }
    }

    Benchmark("Resolve a 1,000-tip catalog to structs for one client (the Swift API)") { benchmark in
        var index = 0
        for _ in benchmark.scaledIterations {
            blackHole(resolver.resolve(for: clients[index % clients.count]))
            index += 1
        }
    }
}

/// A catalog of `tips` tips over 50 containers: a third targeted by platform and app version, a
/// fifth rolled out to half the users, a tenth with two A/B variants, each with a default text and
/// Hindi and Tamil translations; one three-page tour with media per device.
func largeCatalog(tips: Int) -> String {
    var yaml = "frequency: immediate\ntips:\n"
    for index in 0..<tips {
        yaml += """
              - id: tip-\(index)
                container: c\(index % 50)
                anchor: a\(index)
                trigger: tap:b\(index % 200) OR count(screen:s\(index % 30)) >= 2 within 10m
                dismissal: tap:done-\(index)
                priority: \(index % 7)
                renderer: tooltip
                content:
                  title: Tip number \(index)
                  body: This tip explains the **feature \(index)** in one sentence.
                  locales:
                    hi: { title: सुझाव \(index), body: यह सुझाव सुविधा \(index) समझाता है। }
                    ta: { title: குறிப்பு \(index), body: இந்த குறிப்பு அம்சம் \(index) ஐ விளக்குகிறது. }

            """
        if index % 3 == 0 { yaml += "    targeting: device.platform in [\"ios\", \"android\"] AND app.version >= v1.3\n" }
        if index % 5 == 0 { yaml += "    rollout: 50\n" }
        if index % 10 == 0 {
            yaml += """
                    variants:
                      - { id: a, content: { title: Short \(index), body: Tap here. } }
                      - { id: b, content: { title: Friendly \(index), body: Tap here when you are ready. } }

                """
        }
    }
    yaml += """
        tours:
          - id: tour
            pages:
              - { id: p1, content: { title: One, body: First page. }, media: video }
              - { id: p2, content: { title: Two, body: Second page. }, media: video }
              - { id: p3, content: { title: Three, body: Third page. }, media: video, reward: 5 }
        media:
          - id: video
            variants:
              - { url: "https://media.example.com/v-ipad.mp4", family: iPad }
              - { url: "https://media.example.com/v-hi.mp4", locale: hi, minAppVersion: "1.3" }
              - { url: "https://media.example.com/v.mp4" }

        """
    return yaml
}

/// A SQLite store in a temporary folder with `count` published versions of `document`, each a
/// little different (a comment naming its number), and the versions' texts.
func publishedVersions(of document: String, count: Int) throws -> (SQLiteStore, [String]) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-versions-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let store = try SQLiteStore(path: folder.appendingPathComponent("waymark.sqlite").path)
    let documents = (1...count).map { "# version \($0)\n" + document }
    let done = DispatchSemaphore(value: 0)
    Task {
        try await store.createApp(AppRecord(id: "shop", name: "shop", identitySecret: "secret", createdAt: Date()))
        for (number, text) in documents.enumerated() {
            _ = try await store.publish(
                app: "shop", document: text, at: Date(timeIntervalSince1970: 1_790_000_000 + Double(number) * 86_400), note: nil,
                audit: { _ in [] }, notice: { _ in nil })
        }
        done.signal()
    }
    done.wait()
    return (store, documents)
}
