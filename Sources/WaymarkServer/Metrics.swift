import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus
import WaymarkSupport

/// What the server counts, served at `GET /metrics` in Prometheus' text format. The metrics are
/// swift-metrics values made by a Prometheus factory over this server's own registry, so two
/// servers in one process (tests) count apart; the composition root may also bootstrap
/// `MetricsSystem` with the same registry to show libraries' metrics beside them.
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory

    /// Per route, method and status: a request counter and a duration histogram.
    private let requests = Locked<[RequestKey: (Metrics.Counter, Metrics.Timer)]>([:])

    private struct RequestKey: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    let eventsAccepted: Metrics.Counter
    let eventsDuplicate: Metrics.Counter
    let eventsRejected: Metrics.Counter
    /// A catalog request found its app's parsed live catalog in memory (no database work) or not.
    let catalogCacheHits: Metrics.Counter
    let catalogCacheMisses: Metrics.Counter
    let catalogNotModified: Metrics.Counter
    /// A catalog body was gzip-compressed: once per distinct answer while it stays in the cache.
    let catalogCompressions: Metrics.Counter
    let rewardsGranted: Metrics.Counter
    /// A user's attributes were set through `POST /v1/identify`.
    let identifies: Metrics.Counter
    /// A device's progress was merged into its user's through `POST /v1/progress`.
    let progressMerges: Metrics.Counter

    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        // Requests here take well under 5 ms, the factory's smallest bucket.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
            .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
        ]
        self.factory = factory
        func counter(_ name: String, _ dimensions: [(String, String)] = []) -> Metrics.Counter {
            Metrics.Counter(label: name, dimensions: dimensions, factory: factory)
        }
        eventsAccepted = counter("waymark_events_total", [("outcome", "accepted")])
        eventsDuplicate = counter("waymark_events_total", [("outcome", "duplicate")])
        eventsRejected = counter("waymark_events_total", [("outcome", "rejected")])
        catalogCacheHits = counter("waymark_catalog_cache_total", [("result", "hit")])
        catalogCacheMisses = counter("waymark_catalog_cache_total", [("result", "miss")])
        catalogNotModified = counter("waymark_catalog_not_modified_total")
        catalogCompressions = counter("waymark_catalog_compressions_total")
        rewardsGranted = counter("waymark_rewards_granted_total")
        identifies = counter("waymark_identifies_total")
        progressMerges = counter("waymark_progress_merges_total")
    }

    /// The Prometheus text exposition of everything counted.
    public func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }

    func recordRequest(route: String, method: String, status: Int, nanoseconds: UInt64) {
        let key = RequestKey(route: route, method: method, status: status)
        let (counter, timer) = requests.withLock { requests in
            if let found = requests[key] { return found }
            let dimensions = [("route", route), ("method", method), ("status", String(status))]
            let made = (
                Metrics.Counter(label: "waymark_http_requests_total", dimensions: dimensions, factory: factory),
                Metrics.Timer(label: "waymark_http_request_duration_seconds", dimensions: dimensions, factory: factory)
            )
            requests[key] = made
            return made
        }
        counter.increment()
        timer.recordNanoseconds(Int64(clamping: nanoseconds))
    }
}

/// Counts each request and its duration by route (the pattern, such as `/v1/admin/keys/:id`, so
/// ids do not make new series), and logs it at debug level with the same facts.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        let status: Int
        do {
            let response = try await next(request, context)
            status = Int(response.status.code)
            finish(request, context, status, start)
            return response
        } catch {
            status = Int((error as? any HTTPResponseError)?.status.code ?? 500)
            finish(request, context, status, start)
            throw error
        }
    }

    private func finish(_ request: Request, _ context: Context, _ status: Int, _ start: UInt64) {
        let elapsed = DispatchTime.now().uptimeNanoseconds - start
        // Paths no route matched are counted together (Hummingbird names them "NotFound"), so
        // scanners cannot make unbounded series.
        let route = context.endpointPath ?? "NotFound"
        metrics.recordRequest(route: route, method: request.method.rawValue, status: status, nanoseconds: elapsed)
        context.logger.debug(
            "request",
            metadata: [
                "method": "\(request.method.rawValue)", "route": "\(route)", "status": "\(status)",
                "duration_ms": "\(Double(elapsed / 1000) / 1000)",
            ]
        )
    }
}
