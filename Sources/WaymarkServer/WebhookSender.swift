import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import WaymarkStore
import WaymarkSupport

/// Sends the outbox: leases due deliveries, posts each, signed, to its endpoint, and records the
/// answer. A 2xx answer delivers it; anything else (another status, a refused connection, no
/// answer within ``timeout``) makes it due again after a delay that doubles from ``firstRetry``
/// up to six hours, until ``maximumAttempts`` have failed (about two days with the default
/// first retry of 30 s). Redirects are not followed.
///
/// Every server runs one. A lease keeps a delivery to the server that took it for ``lease``, so
/// several servers on one PostgreSQL database never send one delivery at the same time; a server
/// killed while sending leaves the lease to run out, and the delivery is sent again: at least
/// once, with the same event id, which the receiver deduplicates on.
///
/// A delivery whose endpoint URL this server would not take (see
/// ``WebhookEndpoints/problem(url:privateNetworks:)``: a row written by other means than the API)
/// is not sent: its attempt fails at once and for good, with the reason, and the sender goes on.
public struct WebhookSender: Service {
    /// The most attempts a delivery gets before it is marked failed.
    public static let maximumAttempts = 16
    /// The longest wait between two attempts.
    public static let maximumDelay: TimeInterval = 6 * 3600
    /// How much of an answer's body is kept for the console.
    public static let answerLimit = 1024
    /// How long delivered and failed deliveries are listed before they are pruned.
    public static let keptFor: TimeInterval = 30 * 86_400

    let store: any Store
    let logger: Logger
    let poll: Duration
    let firstRetry: TimeInterval
    let lease: TimeInterval
    let timeout: TimeAmount
    let batch: Int
    let privateNetworks: Bool
    let now: @Sendable () -> Date

    /// A sender that looks for due deliveries every `poll`, and retries a failed one first after
    /// `firstRetry` seconds; it calls endpoints on this machine and private networks only when
    /// `privateNetworks` allows them, as the API takes them.
    public init(
        store: any Store, logger: Logger, poll: Duration = .seconds(1), firstRetry: TimeInterval = 30, lease: TimeInterval = 60,
        timeout: TimeAmount = .seconds(10), batch: Int = 16, privateNetworks: Bool = false, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.privateNetworks = privateNetworks
        self.store = store
        self.logger = logger
        self.poll = poll
        self.firstRetry = firstRetry
        self.lease = lease
        self.timeout = timeout
        self.batch = batch
        self.now = now
    }

    /// How long after its `attempts`-th failed attempt a delivery is tried again.
    public static func delay(afterAttempts attempts: Int, firstRetry: TimeInterval) -> TimeInterval {
        min(maximumDelay, firstRetry * pow(2, Double(max(0, min(attempts - 1, 30)))))
    }

    public func run() async throws {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(5), read: timeout))
        configuration.decompression = .disabled
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        await cancelWhenGracefulShutdown {
            var pruned = Date.distantPast
            while !Task.isCancelled {
                var sent = 0
                do {
                    sent = try await sendDue(with: client)
                    if now().timeIntervalSince(pruned) > 3600 {
                        pruned = now()
                        let gone = try await store.pruneWebhookDeliveries(before: pruned.addingTimeInterval(-Self.keptFor))
                        if gone > 0 { logger.info("pruned old webhook deliveries", metadata: ["deliveries": "\(gone)"]) }
                    }
                } catch is CancellationError {
                    break
                } catch {
                    logger.warning("could not send webhooks", metadata: ["error": "\(error)"])
                }
                // A full batch means more may be due: go on at once.
                if sent < batch {
                    do { try await Task.sleep(for: poll) } catch { break }
                }
            }
        }
        try? await client.shutdown()
    }

    /// Leases what is due and sends it, several at once; answers how many were leased.
    @discardableResult
    func sendDue(with client: HTTPClient) async throws -> Int {
        let time = now()
        // Whole milliseconds, as the store keeps them, so that the lease reads back equal.
        let until = Date(millisecondsSince1970: time.addingTimeInterval(lease).millisecondsSince1970)
        let due = try await store.leaseWebhookDeliveries(now: time, until: until, limit: batch)
        await withTaskGroup(of: Void.self) { group in
            for dispatch in due {
                group.addTask {
                    let attempt = await send(dispatch, with: client)
                    do {
                        if try await !store.recordWebhookAttempt(attempt, lease: until) {
                            logger.info("a webhook delivery's lease ran out before its answer", metadata: ["event": "\(dispatch.event)"])
                        }
                    } catch {
                        logger.warning("could not record a webhook attempt", metadata: ["error": "\(error)", "event": "\(dispatch.event)"])
                    }
                }
            }
        }
        return due.count
    }

    /// Posts one delivery and tells what became of it.
    func send(_ dispatch: WebhookDispatch, with client: HTTPClient) async -> WebhookAttempt {
        let sentAt = now()
        if let problem = WebhookEndpoints.problem(url: dispatch.endpoint.url, privateNetworks: privateNetworks) {
            logger.warning(
                "a webhook endpoint's URL is not one this server calls: its delivery failed",
                metadata: ["event": "\(dispatch.event)", "webhook.endpoint": "\(dispatch.endpoint.id)", "error": "\(problem.message)"])
            return WebhookAttempt(
                event: dispatch.event, endpoint: dispatch.endpoint.id, at: sentAt, status: nil, answer: nil,
                error: "not sent: \(problem.message)", state: .failed, nextAttemptAt: sentAt)
        }
        var request = HTTPClientRequest(url: dispatch.endpoint.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Waymark-Webhooks/1")
        request.headers.add(name: "Waymark-Event-Id", value: dispatch.event)
        request.headers.add(name: "Waymark-Event-Type", value: dispatch.type)
        request.headers.add(
            name: WebhookSignature.header,
            value: WebhookSignature.sign(dispatch.body, secrets: dispatch.endpoint.signingSecrets(at: sentAt), at: sentAt))
        request.body = .bytes(ByteBuffer(string: dispatch.body))
        var status: Int?
        var answer: String?
        var failure: String?
        do {
            let response = try await client.execute(request, timeout: timeout)
            status = Int(response.status.code)
            var kept = ByteBuffer()
            for try await var chunk in response.body {
                if let part = chunk.readSlice(length: min(chunk.readableBytes, Self.answerLimit - kept.readableBytes)) {
                    kept.writeImmutableBuffer(part)
                }
                // The rest is not read: an endpoint cannot keep the sender with an endless answer.
                if kept.readableBytes >= Self.answerLimit { break }
            }
            answer = String(decoding: kept.readableBytesView, as: UTF8.self)
        } catch {
            failure = "\(error)"
        }
        let attempts = dispatch.attempts + 1
        let delivered = status.map { (200..<300).contains($0) } ?? false
        let state: WebhookDelivery.State = delivered ? .delivered : attempts >= Self.maximumAttempts ? .failed : .pending
        let next = delivered ? sentAt : sentAt.addingTimeInterval(Self.delay(afterAttempts: attempts, firstRetry: firstRetry))
        if !delivered {
            logger.info(
                "a webhook delivery failed",
                metadata: ["event": "\(dispatch.event)", "status": "\(status.map(String.init) ?? failure ?? "")"])
        }
        return WebhookAttempt(
            event: dispatch.event, endpoint: dispatch.endpoint.id, at: sentAt, status: status, answer: answer, error: failure, state: state,
            nextAttemptAt: next)
    }
}
