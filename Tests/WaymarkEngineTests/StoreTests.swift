import Foundation
import Testing
import WaymarkRules
import WaymarkSupport

@testable import WaymarkEngine

struct StoreTests {
    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aLiveEngineSurvivesARestart() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileEngineStore(url: directory.appendingPathComponent("engine.json"))
        let tips = [Tip(id: "t", container: "home", trigger: try Rule(parsing: "count(tap) >= 2"))]
        let clock = Locked(Date(timeIntervalSince1970: 1_767_225_600))
        let now: @Sendable () -> Date = { clock.withLock { $0 } }

        let first = try LiveEngine(tips: tips, store: store, clock: now)
        first.record("tap")
        try first.persist()
        let second = try LiveEngine(tips: tips, store: store, clock: now)
        #expect(second.record("tap").map(\.action) == [.show], "the first tap was remembered")
        // The saved state has the tip active, so a third engine draws it again on start.
        let third = try LiveEngine(tips: tips, store: store, clock: now)
        var iterator = third.commands.makeAsyncIterator()
        #expect(await iterator.next()?.action == .show)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["engine.json"], "no temporary file left")
    }

    @Test func aDamagedFileIsAClearError() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("engine.json")
        try Data("{\"evaluator\":".utf8).write(to: url)
        #expect(throws: EngineStoreError.self) { try FileEngineStore(url: url).load() }
        #expect(try FileEngineStore(url: directory.appendingPathComponent("none.json")).load() == nil)
    }

    @Test func commandsArePublishedAsAStream() async throws {
        let clock = Locked(Date(timeIntervalSince1970: 1_767_225_600))
        let live = try LiveEngine(
            tips: [Tip(id: "t", container: "home", trigger: try Rule(parsing: "go"), dismissal: try Rule(parsing: "stop"))],
            clock: { clock.withLock { $0 } }
        )
        live.record("go")
        live.record("stop")
        var iterator = live.commands.makeAsyncIterator()
        #expect(await iterator.next()?.action == .show)
        #expect(await iterator.next()?.reason == .dismissed)
    }

    /// `run()` sleeps until the next change it knows of (none here: an hour); a tap then shows a
    /// tip that may stay 50 ms, so the engine must wake early to hide it. The deadline below only
    /// bounds a hang; it measures nothing.
    @Test func runWakesEarlyWhenACallBringsTheNextChangeForward() async throws {
        let live = try LiveEngine(
            tips: [Tip(id: "t", container: "home", trigger: try Rule(parsing: "tap"), policy: DisplayPolicy(maxDisplayDuration: 0.05))]
        )
        let clock = Task { await live.run() }
        defer { clock.cancel() }
        try await Task.sleep(nanoseconds: 50_000_000)
        let observed = Locked<[RenderCommand]>([])
        let reader = Task {
            for await command in live.commands {
                observed.withLock { $0.append(command) }
                if command.action == .hide { return }
            }
        }
        live.record("tap")
        let deadline = Date().addingTimeInterval(30)
        while observed.withLock({ $0.count }) < 2, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        reader.cancel()
        #expect(observed.withLock { $0.map(\.action) } == [.show, .hide])
        #expect(observed.withLock { $0.last?.reason } == .maxDisplayDuration)
    }

    @Test func timestampsReadAndWriteRFC3339() {
        #expect(Timestamp.parse("2026-01-01T00:00:00Z") == 1_767_225_600_000)
        #expect(Timestamp.parse("2026-01-01T05:30:00.5+05:30") == 1_767_225_600_500)
        #expect(Timestamp.parse("1969-12-31T23:59:59.999Z") == -1)
        #expect(Timestamp.format(-1) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.format(1_767_225_600_250) == "2026-01-01T00:00:00.250Z")
        for bad in ["2026-01-01", "2026-02-30T00:00:00Z", "2026-01-01T00:00:00", "2026-01-01T24:00:00Z", "x", ""] {
            #expect(Timestamp.parse(bad) == nil, "\(bad)")
        }
    }
}
