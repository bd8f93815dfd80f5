import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import WaymarkAnalytics
import WaymarkClickHouse
import WaymarkConsole
import WaymarkNarration
import WaymarkServer
import WaymarkStore

/// How a Waymark server is put together: where it listens, and the parts that differ between
/// `waymark serve`, `waymark demo` and the tests.
///
/// ```swift
/// var configuration = WaymarkConfiguration(host: "0.0.0.0", port: 8080)
/// configuration.synthesizer = try? ESpeakSynthesizer.onPath().get()
/// try await withStore(.sqlite(dataDirectory: "waymark-data"), logger: logger) { store in
///     try await buildApplication(configuration, store: store, logger: logger).runService()
/// }
/// ```
public struct WaymarkConfiguration: Sendable {
    /// The address to listen on.
    public var host: String
    /// The port to listen on; 0 picks a free one, which `onServerRunning` is told.
    public var port: Int
    /// What speaks tips without a recording; nil makes no narration.
    public var synthesizer: (any Synthesizer)?
    /// The load balancers whose `X-Forwarded-For` names the client.
    public var trustedProxies: TrustedProxies
    /// How often expired console sessions and old failed logins are removed, and events past their
    /// app's retention (``WaymarkServer/EventRetention``).
    public var sweepInterval: Duration
    /// How often the segment refresher looks for a newly published catalog (see
    /// ``WaymarkAnalytics/SegmentRefresher``); nil runs none, for tests that refresh by hand.
    public var segmentRefreshInterval: Duration?
    /// How often the struggle refresher looks for days to read (see
    /// ``WaymarkAnalytics/StruggleRefresher``); nil runs none.
    public var struggleRefreshInterval: Duration?
    /// How often the events of days that ended are folded into the reports' daily rollups (see
    /// ``WaymarkAnalytics/RollupFolder``); nil folds none, and the reports read the events.
    public var rollupInterval: Duration?
    /// The ClickHouse the reports read their tallies from, which the store's analytics outbox is
    /// shipped to (``WaymarkClickHouse/ClickHouseShipper``); nil keeps the analytics in the store,
    /// read from its daily rollups. The store folds its rollups either way.
    public var analytics: ClickHouseURL?
    /// Whether webhook endpoints may be on this machine or a private network; for a demo and
    /// tests, never production (see ``WaymarkServer/WebhookEndpoints``).
    public var webhooksToPrivateNetworks: Bool
    /// How long after a failed webhook attempt the first retry comes; each later wait doubles
    /// (see ``WaymarkServer/WebhookSender``).
    public var webhookFirstRetry: TimeInterval
    /// How often the webhook sender looks for due deliveries.
    public var webhookPoll: Duration
    /// How long the server waits for slow clients before it closes their connections.
    public var connectionLimits: ConnectionLimits
    /// How long a console page waits for figures counted in the background (eligible counts, a
    /// segment's members, a backtest) before it shows the rest without them and reloads; zero
    /// shows only figures already counted.
    public var countingPatience: Duration
    /// The clock of sessions, event clamping and grants; tests move their own.
    public var now: @Sendable () -> Date

    public init(
        host: String = "127.0.0.1", port: Int = 8080, synthesizer: (any Synthesizer)? = nil, trustedProxies: TrustedProxies = .none,
        sweepInterval: Duration = .seconds(3600), segmentRefreshInterval: Duration? = .seconds(60),
        struggleRefreshInterval: Duration? = .seconds(300), rollupInterval: Duration? = .seconds(300), analytics: ClickHouseURL? = nil,
        webhooksToPrivateNetworks: Bool = false,
        webhookFirstRetry: TimeInterval = 30, webhookPoll: Duration = .seconds(1), connectionLimits: ConnectionLimits = ConnectionLimits(),
        countingPatience: Duration = .seconds(1), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.connectionLimits = connectionLimits
        self.host = host
        self.port = port
        self.synthesizer = synthesizer
        self.trustedProxies = trustedProxies
        self.sweepInterval = sweepInterval
        self.segmentRefreshInterval = segmentRefreshInterval
        self.struggleRefreshInterval = struggleRefreshInterval
        self.rollupInterval = rollupInterval
        self.analytics = analytics
        self.webhooksToPrivateNetworks = webhooksToPrivateNetworks
        self.webhookFirstRetry = webhookFirstRetry
        self.webhookPoll = webhookPoll
        self.countingPatience = countingPatience
        self.now = now
    }
}

/// The one place where a Waymark server is assembled: the HTTP API and the console on one router,
/// with the background services that run and stop with it (the console's session sweeper, event
/// retention, the webhook sender, the segment and struggle refreshers, the rollup folder or, with
/// ClickHouse, the analytics shipper, and the narrator when there is a synthesizer). `waymark serve`, `waymark
/// demo` and the HTTP tests all call it.
///
/// - Parameters:
///   - store: an open store (see ``withStore(_:logger:_:)``).
///   - metrics: the counters `/metrics` shows; the process's `MetricsSystem`, bootstrapped by the
///     executable, may report into the same registry.
///   - routes: routes added after Waymark's own (the demo shop's pages).
///   - services: further background work that runs and stops with the server.
///   - onServerRunning: told the port once the server listens.
public func buildApplication(
    _ configuration: WaymarkConfiguration, store: any Store, logger: Logger, metrics: ServerMetrics = ServerMetrics(),
    routes: (Router<WaymarkRequestContext>) -> Void = { _ in }, services: [any Service] = [],
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let narrator = configuration.synthesizer.map { Narrator(store: store, synthesizer: $0, logger: logger, now: configuration.now) }
    let server = WaymarkServer(
        store: store, logger: logger, metrics: metrics, narrator: narrator, trustedProxies: configuration.trustedProxies,
        webhooksToPrivateNetworks: configuration.webhooksToPrivateNetworks, now: configuration.now
    )
    // With ClickHouse, the reports read their tallies there, from the outbox the shipper sends.
    let clickHouse = configuration.analytics.map { ClickHouseAnalytics(ClickHouse(url: $0)) }
    let reports = clickHouse.map { ClickHouseReports(store: store, analytics: $0) }
    let console = WaymarkConsole(
        server: server, reports: reports, countingPatience: configuration.countingPatience, now: configuration.now)
    let router = buildRouter(server: server, console: console, routes: routes)
    let sweeper = SessionSweeper(store: store, logger: logger, interval: configuration.sweepInterval, now: configuration.now)
    let retention = EventRetention(store: store, logger: logger, interval: configuration.sweepInterval, now: configuration.now)
    let webhooks = WebhookSender(
        store: store, logger: logger, poll: configuration.webhookPoll, firstRetry: configuration.webhookFirstRetry,
        privateNetworks: configuration.webhooksToPrivateNetworks, now: configuration.now)
    let refresher = configuration.segmentRefreshInterval.map {
        SegmentRefresher(store: store, logger: logger, interval: $0, now: configuration.now)
    }
    let struggles = configuration.struggleRefreshInterval.map {
        StruggleRefresher(store: store, logger: logger, interval: $0, now: configuration.now)
    }
    // With ClickHouse too, the store folds its rollups: the eligible days and the live segments'
    // members it keeps start from them, and a tally ClickHouse cannot answer reads them.
    let rollups = configuration.rollupInterval.map { RollupFolder(store: store, logger: logger, interval: $0, now: configuration.now) }
    var background: [any Service] = [sweeper, retention, webhooks]
    if let clickHouse { background.append(ClickHouseShipper(store: store, analytics: clickHouse, logger: logger)) }
    if let rollups { background.append(rollups) }
    if let refresher { background.append(refresher) }
    if let struggles { background.append(struggles) }
    if let narrator { background.append(narrator) }
    let port = configuration.port
    return Application(
        router: router,
        server: .http1(limits: configuration.connectionLimits),
        configuration: .init(address: .hostname(configuration.host, port: port), serverName: "waymark"),
        services: background + services,
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
        logger: logger
    )
}

/// The router of the HTTP API, the console, and any further `routes`; a method a path does not
/// have is answered 405 with `Allow`.
public func buildRouter(
    server: WaymarkServer, console: WaymarkConsole, routes: (Router<WaymarkRequestContext>) -> Void = { _ in }
) -> Router<WaymarkRequestContext> {
    let router = server.router()
    console.register(on: router)
    routes(router)
    router.add(middleware: MethodNotAllowedMiddleware(routes: router.routes))
    return router
}
