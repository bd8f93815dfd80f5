import Foundation
import Testing
import WaymarkClient
import WaymarkEngine
import WaymarkServer
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// The Swift client's bridge to the web SDK in a WKWebView, spoken as the page speaks it (the
/// page's messages), against a real server: the page draws what the client decides for the page's
/// containers, the app the rest, and what the user does in the page joins the app's one history in
/// order. The Android core's bridge is played by the web SDK itself in Tests/browser/test_bridge.py.
@Suite(.timeLimit(.minutes(5))) struct WebViewBridgeTests {
    /// A client joined to a page that is only its messages: what it was sent, and what the app drew.
    final class Joined: Sendable {
        let client: WaymarkClient
        let bridge: WebViewBridge
        let toPage = Locked<[String]>([])
        let drawn = Locked<[String]>([])
        let loop: Task<Void, Never>

        init(_ client: WaymarkClient) {
            self.client = client
            let toPage = self.toPage
            let drawn = self.drawn
            bridge = WebViewBridge(client: client) { message in
                let json = try! JSONSerialization.jsonObject(with: Data(message.utf8)) as! [String: Any]
                if json["type"] as? String == "catalog" { return toPage.withLock { $0.append("catalog") } }
                for command in json["commands"] as! [[String: Any]] {
                    let reason = (command["reason"] as? String).map { " " + $0 } ?? ""
                    toPage.withLock { $0.append("\(command["action"]!) \(command["tip"]!)\(reason)") }
                }
            }
            let bridge = self.bridge
            loop = Task {
                for await command in client.commands where !bridge.take(command) {
                    drawn.withLock { $0.append("\(command.action.rawValue) \(command.tip)") }
                }
            }
        }

        /// Waits until the app's render loop has handed on every command so far.
        func settled(_ condition: @escaping @Sendable () -> Bool) async -> Bool {
            (try? await eventually(within: 10) { condition() }) ?? false
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func thePageDrawsItsContainersTipsAndTheAppItsOwn(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let joined = Joined(await ClientTests.start(server, server.directory.appendingPathComponent("phone"), user: "asha"))
            let (client, bridge) = (joined.client, joined.bridge)
            #expect(bridge.receive(#"{"type":"hello","screen":"shop"}"#))
            #expect(joined.toPage.withLock { $0 } == ["catalog"])
            #expect(bridge.receive(#"{"type":"container","container":"home","visible":true}"#))
            client.record("activation")
            #expect(await joined.settled { joined.drawn.withLock { $0 }.contains("show welcome") }, "the banner is the app's")
            #expect(bridge.receive(#"{"type":"event","name":"tap","target":"search-hint","properties":{"from":"page","n":2,"new":true}}"#))
            #expect(await joined.settled { joined.toPage.withLock { $0 } == ["catalog", "show search-tip"] })
            #expect(!joined.drawn.withLock { $0 }.contains("show search-tip"))
            // Closed in the page: closed in the one engine.
            #expect(bridge.receive(#"{"type":"close","tip":"search-tip"}"#))
            #expect(await joined.settled { joined.toPage.withLock { $0 }.last == "hide search-tip closed" })
            #expect(client.engine.phase(of: "search-tip") == .finished(.closed))
            // A tip whose anchor the page lacks is reported once a screen view, for the console.
            #expect(bridge.receive(#"{"type":"anchorMissing","tip":"search-tip"}"#))
            #expect(bridge.receive(#"{"type":"anchorMissing","tip":"search-tip"}"#))
            #expect(!bridge.receive(#"{"type":"anchorMissing","tip":"no-such-tip"}"#))
            client.record("checkout_started")

            _ = try await client.flush()
            let stored = try await server.store.events(
                app: server.shop.appId, period: Period(from: 0, to: Int64.max), user: "asha", after: nil, limit: 100)
            let sequence = stored.filter {
                ["activation", "checkout_started"].contains($0.name) || ["search-hint", "search-tip"].contains($0.target)
            }
            .map { $0.name + ($0.target.map { " " + $0 } ?? "") }
            #expect(
                sequence == [
                    "activation", "tap search-hint", "tip_shown search-tip", "tip_closed search-tip", "anchor_missing search-tip",
                    "checkout_started",
                ])
            let tap = try #require(stored.first { $0.target == "search-hint" })
            let properties = try #require(tap.properties)
            #expect(
                properties.contains(#""from":"page""#) && properties.contains(#""n":2"#) && properties.contains(#""new":true"#),
                "\(properties)")

            // What does not read changes nothing.
            for bad in [
                "", "not json", "[]", #"{"type":"fly"}"#, #"{"type":"event"}"#, #"{"type":"close"}"#,
                #"{"type":"press","tip":"welcome","action":"no-such-button"}"#, #"{"type":"answer","survey":"welcome","score":3}"#,
            ] {
                #expect(!bridge.receive(bad), "\(bad)")
            }
            #expect(client.queuedEvents == 0)
            joined.loop.cancel()
            await client.stop()
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func aContainerThePageTakesOverShowsItsTipThereAndAReloadStartsAfresh(_ kind: StoreUnderTest) async throws {
        try await LiveServer.with(kind) { server in
            let joined = Joined(await ClientTests.start(server, server.directory.appendingPathComponent("phone"), user: "ravi"))
            let (client, bridge) = (joined.client, joined.bridge)
            client.record("activation")
            client.record("tap", target: "search-hint")
            #expect(await joined.settled { joined.drawn.withLock { $0 }.contains("show search-tip") }, "before the page, the app had it")
            bridge.receive(#"{"type":"hello"}"#)
            bridge.receive(#"{"type":"container","container":"home","visible":true}"#)
            #expect(await joined.settled { joined.toPage.withLock { $0 }.last == "resume search-tip" })
            #expect(joined.toPage.withLock { $0 }.prefix(3) == ["catalog", "show search-tip", "pause search-tip"])
            // A reload: the page knows nothing; its container's tip pauses until it says it shows.
            bridge.receive(#"{"type":"hello"}"#)
            #expect(client.engine.phase(of: "search-tip") == .paused)
            joined.toPage.withLock { $0 = [] }
            bridge.receive(#"{"type":"container","container":"home","visible":true}"#)
            #expect(await joined.settled { joined.toPage.withLock { $0 }.last == "resume search-tip" })
            #expect(joined.toPage.withLock { $0 }.contains("show search-tip"), "drawn again")
            // The WebView goes: the tip pauses, and the page is told nothing more.
            bridge.detach()
            #expect(client.engine.phase(of: "search-tip") == .paused)
            joined.loop.cancel()
            await client.stop()
        }
    }
}
