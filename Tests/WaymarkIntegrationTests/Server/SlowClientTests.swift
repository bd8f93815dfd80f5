import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import WaymarkApplication
import WaymarkServer
import WaymarkStore
import WaymarkTestSupport

/// Clients that hold a connection without finishing a request, through plain sockets against a
/// live server with short ``ConnectionLimits``: each is closed; a client that is only slow within
/// the limits is answered; a body too large is answered 413 with the JSON error and the connection
/// closed, in whatever order the client writes and reads.
@Suite(.timeLimit(.minutes(5))) struct SlowClientTests {
    /// One second for each limit, a second more for every 2,000 bytes of body, two for lingering.
    static let limits = ConnectionLimits(
        idle: .seconds(1), header: .seconds(1), body: .seconds(1), bodyMinimumRate: 2000, linger: .seconds(1), lingerTotal: .seconds(2))
    /// How long a test waits for what the limits make happen within a few seconds: long enough for
    /// a loaded machine, never asserted as a duration.
    static let patience: TimeInterval = 30

    func withServer(_ body: @Sendable (_ port: Int, _ app: Provisioning.NewApp) async throws -> Void) async throws {
        try await StoreUnderTest.sqlite.with { store, _ in
            let app = try await Provisioning.createApp(name: "Shop", in: store)
            var logger = Logger(label: "test")
            logger.logLevel = .warning
            let application = buildApplication(.init(port: 0, connectionLimits: Self.limits), store: store, logger: logger)
            try await application.test(.live) { client in try await body(try #require(client.port), app) }
        }
    }

    /// Ticks a slow client waits between two bytes: a quarter of a second each.
    static func pause() async throws { try await Task.sleep(for: .milliseconds(250)) }

    /// Sends `piece(n)` every quarter of a second until the server closes the connection (true)
    /// or ``patience`` runs out (false).
    static func isCutOff(_ connection: RawConnection, _ piece: (Int) -> String) async throws -> Bool {
        let start = Date()
        var sent = 0
        while Date().timeIntervalSince(start) < patience {
            try await pause()
            sent += 1
            if await !connection.send(piece(sent)) { return true }
        }
        return false
    }

    @Test func aConnectionThatSendsNothingIsClosed() async throws {
        try await withServer { port, _ in
            let silent = try RawConnection(port: port)
            #expect(await silent.isClosed(within: Self.patience))
            // After an answer, a kept-alive connection is closed once idle as well.
            let kept = try RawConnection(port: port)
            await kept.send("GET /healthz HTTP/1.1\r\nHost: waymark\r\n\r\n")
            let (bytes, closed) = await kept.readUntilClosed(within: Self.patience)
            #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 200") && closed)
        }
    }

    @Test func headersThatNeverEndAreCutOffWhileTheyTrickle() async throws {
        try await withServer { port, _ in
            let connection = try RawConnection(port: port)
            await connection.send("GET /healthz HTTP/1.1\r\nHost: waymark\r\n")
            // A header line every quarter of a second: bytes keep coming, the headers never end.
            #expect(try await Self.isCutOff(connection) { "X-Slow: \($0)\r\n" }, "closed while the headers trickled")
            let (bytes, closed) = await connection.readUntilClosed(within: Self.patience)
            #expect(closed && bytes.isEmpty, "no answer to a request that never arrived")
        }
    }

    @Test func aBodyDrippedAByteAtATimeIsCutOffAndAFastEnoughOneIsAnswered() async throws {
        try await withServer { port, app in
            let head =
                "POST /v1/events HTTP/1.1\r\nHost: waymark\r\nAuthorization: Bearer \(app.clientKey)\r\n"
                + "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
            let dripping = try RawConnection(port: port)
            await dripping.send(head + "{")
            #expect(try await Self.isCutOff(dripping) { _ in " " }, "closed while the body dripped")

            // 60,000 bytes in twelve parts a quarter of a second apart: 3 s in all, slower than the
            // body limit alone allows, well within what its rate adds (30 s). The first part goes
            // with the head, so each later part finds 2.5 s more credit than the 0.25 s it takes:
            // a loaded machine's pauses do not cut it off.
            let batch = #"{"events":[]}"#
            let parts = Array(Array((batch + String(repeating: " ", count: 60_000 - batch.utf8.count)).utf8).chunked(5000))
            let steady = try RawConnection(port: port)
            #expect(await steady.send(Array(head.replacingOccurrences(of: "100000", with: "60000").utf8) + parts[0]))
            for part in parts.dropFirst() {
                try await Self.pause()
                #expect(await steady.send(part))
            }
            let (answer, _) = await steady.readUntilClosed(within: 5)
            #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 200"), "\(String(decoding: answer, as: UTF8.self))")
        }
    }

    /// Eight megabytes to each route that reads a body, written whole before anything is read
    /// (as Python's urllib does), with and without `Connection: close`; then written in part and
    /// the answer read before the rest.
    @Test func aBodyTooLargeIsAnswered413InJSONAndTheConnectionClosed() async throws {
        try await withServer { port, app in
            let routes = [
                ("POST", "/v1/events", app.clientKey), ("POST", "/v1/identify", app.clientKey), ("POST", "/v1/progress", app.clientKey),
                ("POST", "/v1/rewards/claims", app.clientKey), ("PUT", "/v1/admin/catalog/draft", app.secretKey),
                ("POST", "/v1/admin/webhooks", app.secretKey), ("PUT", "/v1/admin/retention", app.secretKey),
            ]
            let size = 8 << 20
            let body = [UInt8](repeating: UInt8(ascii: " "), count: size)
            for (method, path, key) in routes {
                for closing in [true, false] {
                    let connection = try RawConnection(port: port)
                    let head =
                        "\(method) \(path) HTTP/1.1\r\n"
                        + "Host: waymark\r\nAuthorization: Bearer \(key)\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(size)\r\n\(closing ? "Connection: close\r\n" : "")\r\n"
                    #expect(await connection.send(Array(head.utf8) + body), "\(path): the whole body was taken")
                    let (bytes, closed) = await connection.readUntilClosed(within: Self.patience)
                    let answer = String(decoding: bytes, as: UTF8.self)
                    #expect(answer.hasPrefix("HTTP/1.1 413"), "\(path): \(answer)")
                    #expect(answer.contains(#"{"error":{"code":"body_too_large""#), "\(path): \(answer)")
                    #expect(closed, "\(path): closed after the answer")
                }
            }
            // Reading before the rest is written: the answer comes, then the close.
            let early = try RawConnection(port: port)
            await early.send(
                "POST /v1/events HTTP/1.1\r\nHost: waymark\r\nAuthorization: Bearer \(app.clientKey)\r\nContent-Length: \(size)\r\n\r\n")
            await early.send(Array(body.prefix(1 << 20)))
            let (bytes, closed) = await early.readUntilClosed(within: Self.patience)
            #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 413") && closed)
        }
    }
}

extension Array {
    /// The array in consecutive parts of `size` elements (the last may be shorter).
    func chunked(_ size: Int) -> [[Element]] {
        stride(from: 0, to: count, by: size).map { Array(self[$0..<Swift.min($0 + size, count)]) }
    }
}
