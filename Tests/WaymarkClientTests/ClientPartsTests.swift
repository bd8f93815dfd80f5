import Foundation
import Testing
import WaymarkAPI
import WaymarkSupport

@testable import WaymarkClient

/// The SDK's parts that need no server; the client against a live server is tested in
/// WaymarkServerTests/ClientTests.swift.
@Suite struct ClientPartsTests {
    @Test func retriesBackOffExponentiallyWithinACap() {
        let policy = RetryPolicy(initialDelay: 2, maximumDelay: 60)
        #expect(policy.delay(afterFailures: 1, jitter: 0) == 1)
        #expect(policy.delay(afterFailures: 1, jitter: 1) == 2)
        #expect(policy.delay(afterFailures: 3, jitter: 1) == 8)
        #expect(policy.delay(afterFailures: 30, jitter: 1) == 60)
        #expect(policy.delay(afterFailures: 1000, jitter: 0) == 30)
        for _ in 0..<100 { #expect((8...16).contains(policy.delay(afterFailures: 4))) }
    }

    static func event(_ n: Int) -> IncomingEvent {
        IncomingEvent(id: EventID.make(), user: "u1", name: "tap", target: "b\(n)", timestamp: "2026-11-22T10:00:00Z")
    }

    static func temporaryFile() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("events.jsonl")
    }

    @Test func queuedEventsSurviveARestartAndLeaveOnlyWhenAnswered() throws {
        let url = try Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let queue = EventQueue(url: url)
        let events = (0..<5).map(Self.event)
        events.forEach(queue.append)
        let batch = queue.takeBatch(size: 3)
        #expect(batch == Array(events.prefix(3)))
        // A second upload meanwhile takes only what is not in flight.
        #expect(queue.takeBatch(size: 10) == Array(events.suffix(2)))
        queue.finish(Array(events.suffix(2)), answered: [])
        // The server answered for two of the three; the third goes again.
        queue.finish(batch, answered: [events[0].id, events[1].id])
        #expect(queue.count == 3)
        let reopened = EventQueue(url: url)
        #expect(reopened.takeBatch(size: 10) == Array(events.suffix(3)))
    }

    @Test func aLineCutShortByACrashIsSkipped() throws {
        let url = try Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let queue = EventQueue(url: url)
        (0..<3).map(Self.event).forEach(queue.append)
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"id\":\"0190".utf8))
        try handle.close()
        let reopened = EventQueue(url: url)
        #expect(reopened.count == 3)
        reopened.append(Self.event(9))
        #expect(EventQueue(url: url).count == 4)
    }

    @Test func aFullQueueDropsTheOldestFirst() {
        let queue = EventQueue(url: nil, limit: 3)
        let events = (0..<5).map(Self.event)
        events.forEach(queue.append)
        #expect(queue.count == 3)
        #expect(queue.dropped == 2)
        #expect(queue.takeBatch(size: 10) == Array(events.suffix(3)))
    }
}

@Suite struct HelpSearchTests {
    @Test func searchComparesTextAsTheWebSDKDoes() {
        // ज़ as one code point (U+095B) and as ज + nukta fold alike; case, joiners and spaces do not count.
        #expect(HelpSearch.fold("\u{095B}\u{094D}\u{092F}\u{093E}") == HelpSearch.fold("\u{091C}\u{093C}\u{094D}\u{092F}\u{093E}"))
        #expect(HelpSearch.fold("  Cash\u{200D} on\tDELIVERY ") == "cash on delivery")
        #expect(HelpSearch.fold("ﬁle") == "file", "compatibility forms")
        #expect(HelpSearch.matches(HelpSearch.fold("Paying cash on delivery"), "delivery cash"))
        #expect(!HelpSearch.matches(HelpSearch.fold("Paying cash on delivery"), "gift"))
        let article = DeliveredArticle(
            id: "a", content: DeliveredContent(locale: "hi", title: "भुगतान", html: "<p>नकद &amp; <b>UPI</b></p>"), keywords: ["COD"])
        #expect(HelpSearch.text(of: article) == "भुगतान नकद & upi cod")
    }
}
