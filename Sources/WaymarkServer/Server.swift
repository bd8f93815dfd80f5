import Foundation
import Hummingbird
import HummingbirdAuth
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import WaymarkAPI
import WaymarkCatalog
import WaymarkDelivery
import WaymarkNarration
import WaymarkStore
import WaymarkSupport

/// The request context: what every handler knows besides the request.
public struct WaymarkRequestContext: AuthRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The peer's IP address: the client's, or a load balancer's (see ``WaymarkServer/clientAddress(_:_:)``).
    public let remoteAddress: String?
    /// The key the request was authenticated with (see ``KeyAuthenticator``); nil on routes that need none.
    public var identity: KeyRecord?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
        identity = nil
    }

    /// Admin documents can be large; event batches have their own, smaller limit.
    public var maxUploadSize: Int { 1 << 20 }
}

/// The Waymark HTTP API: authoring, delivery, events and rewards, over any ``Store``. Its routes
/// come from ``router()``; `buildApplication` in WaymarkApplication puts it together with the
/// console and the background services.
public struct WaymarkServer: Sendable {
    public let store: any Store
    let logger: Logger
    let live: LiveCatalogs
    /// On a shared database, the reads of an app's live version number, shared by the requests
    /// waiting at once (see ``SharedReads``).
    let liveVersionReads = SharedReads<Int?>()
    /// Loads of an app's live catalog into the cache, shared likewise: after a publication, or at
    /// start, the requests arriving together wait for one load instead of each reading and
    /// compiling the catalog.
    let liveLoads = SharedReads<Resolver?>()
    /// Catalog answers kept gzip-compressed by their ETag: a hot catalog is compressed once.
    let compressedCatalogs = CompressedBodies()
    let keys: KeyCache
    let metrics: ServerMetrics
    let eventWriter: EventWriter
    /// Makes narration in the background; nil when this server makes none (espeak-ng missing).
    let narrator: Narrator?
    /// The load balancers whose `X-Forwarded-For` names the client (see ``clientAddress(_:_:)``).
    let trustedProxies: TrustedProxies
    /// Whether webhook endpoints may be on this machine or a private network (see
    /// ``WebhookEndpoints/problem(url:privateNetworks:)``): for a demo and tests, not production.
    public let webhooksToPrivateNetworks: Bool
    /// The clock, injectable for tests of clamping and grant times.
    let now: @Sendable () -> Date

    public init(
        store: any Store, logger: Logger, metrics: ServerMetrics = ServerMetrics(), narrator: Narrator? = nil,
        trustedProxies: TrustedProxies = .none, webhooksToPrivateNetworks: Bool = false, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.webhooksToPrivateNetworks = webhooksToPrivateNetworks
        self.trustedProxies = trustedProxies
        self.narrator = narrator
        self.logger = logger
        self.metrics = metrics
        self.now = now
        eventWriter = EventWriter(store: store)
        live = LiveCatalogs()
        keys = KeyCache(lifetime: store.isShared ? KeyCache.sharedLifetime : nil)
    }

    /// The OpenAPI 3.1 description of this API (`Resources/openapi.yaml`).
    public static let openAPIDocument: String = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { return "" }
        return text
    }()

    /// The API's routes and middleware. The client endpoints (catalog, events, claims) take client
    /// and secret keys and answer CORS requests from any origin; the admin API takes secret keys;
    /// health, metrics, the description, the SDK and narration audio need none.
    public func router() -> Router<WaymarkRequestContext> {
        let router = Router(context: WaymarkRequestContext.self)
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        router.add(middleware: ResponseCompressionMiddleware())
        router.add(middleware: ErrorLoggingMiddleware(logger: logger))
        router.add(middleware: NULRefusingMiddleware())
        router.get("/healthz") { _, _ in "ok\n" }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: self.metrics.exposition()))
            )
        }
        router.get("/openapi.yaml") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: WaymarkServer.openAPIDocument))
            )
        }
        router.get("/sdk/waymark.js") { request, _ in self.webSDK(request, version: nil) }
        router.get("/sdk/src/:module") { request, context in
            self.webSDKModule(request, name: context.parameters.get("module") ?? "")
        }
        router.get("/sdk/:version/:file") { request, context in
            self.webSDK(request, version: context.parameters.get("version") ?? "", file: context.parameters.get("file") ?? "")
        }
        router.get("/v1/narration/:app/:key") { request, context in try await self.narrationAudio(request, context) }

        let client = router.group("/v1")
            .add(middleware: Self.clientCORS)
            .add(middleware: KeyAuthenticator(server: self, kinds: [.client, .secret]))
        client.get("/catalog") { request, context in try await self.catalog(request, context) }
        client.post("/events") { request, context in try await self.events(request, context) }
        client.post("/rewards/claims") { request, context in try await self.claim(request, context) }
        client.post("/identify") { request, context in try await self.identify(request, context) }
        client.post("/progress") { request, context in try await self.progress(request, context) }
        // Preflights carry no key: CORSMiddleware answers them on routes of their own.
        let preflight = router.group("/v1").add(middleware: Self.clientCORS)
        for path in ["/catalog", "/events", "/rewards/claims", "/identify", "/progress"] {
            preflight.on(RouterPath(path), method: .options) { _, _ in Response(status: .noContent) }
        }

        let admin = router.group("/v1/admin").add(middleware: KeyAuthenticator(server: self, kinds: [.secret]))
        admin.get("/catalog/draft") { _, context in try await self.getDraft(context) }
        admin.put("/catalog/draft") { request, context in try await self.putDraft(request, context) }
        admin.get("/catalog/draft/:kind") { _, context in try await self.listObjects(context) }
        admin.get("/catalog/draft/:kind/:id") { _, context in try await self.getObject(context) }
        admin.put("/catalog/draft/:kind/:id") { request, context in try await self.putObject(request, context) }
        admin.delete("/catalog/draft/:kind/:id") { _, context in try await self.deleteObject(context) }
        admin.post("/catalog/publish") { _, context in try await self.publish(context) }
        admin.post("/catalog/rollback") { request, context in try await self.rollback(request, context) }
        admin.get("/catalog/versions") { _, context in try await self.versions(context) }
        admin.get("/catalog/versions/:number") { _, context in try await self.version(context) }
        admin.get("/keys") { _, context in try await self.listKeys(context) }
        admin.post("/keys") { request, context in try await self.createKey(request, context) }
        admin.delete("/keys/:id") { _, context in try await self.revokeKey(context) }
        admin.get("/users/:user/grants") { _, context in try await self.userGrants(context) }
        admin.get("/users/:user") { _, context in try await self.userData(context) }
        admin.delete("/users/:user") { _, context in try await self.eraseUser(context) }
        admin.get("/grants") { request, context in try await self.grantPage(request, context) }
        admin.get("/events") { request, context in try await self.exportEvents(request, context) }
        admin.get("/retention") { _, context in try await self.retention(context) }
        admin.put("/retention") { request, context in try await self.setRetention(request, context) }
        admin.get("/webhooks") { _, context in try await self.listWebhooks(context) }
        admin.post("/webhooks") { request, context in try await self.createWebhook(request, context) }
        admin.get("/webhook-deliveries") { request, context in try await self.webhookDeliveries(request, context) }
        admin.delete("/webhooks/:id") { _, context in try await self.deleteWebhook(context) }
        admin.post("/webhooks/:id/rotate") { request, context in try await self.rotateWebhook(request, context) }
        admin.post("/webhooks/:id/deliveries/:event/resend") { _, context in try await self.resendWebhook(context) }
        return router
    }

    /// Cross-origin access to the client endpoints, so that waymark.js works in pages served from
    /// anywhere. Keys travel in the Authorization header, never in cookies, so any origin may call;
    /// the admin API and the console get no CORS headers. (The catalog's answer names its ETag in
    /// `Access-Control-Expose-Headers` itself: CORSMiddleware sends that on preflights only.)
    static let clientCORS = CORSMiddleware<WaymarkRequestContext>(
        allowOrigin: .all, allowHeaders: [.authorization, .contentType, .ifNoneMatch, .waymarkUserHash],
        allowMethods: [.get, .post, .options],
        maxAge: .seconds(86_400)
    )

    func app(of key: KeyRecord) async throws -> AppRecord {
        guard let app = try await store.app(id: key.app) else { throw APIError.unauthorized }
        return app
    }
}

/// Logs unexpected errors (storage failures and bugs) and answers them without their details.
struct ErrorLoggingMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch is NIOTooManyBytesError {
            // A body over the route's limit (`collect(upTo:)`), answered as every other error is;
            // the connection closes after it (see ConnectionLimits).
            throw APIError(
                .contentTooLarge, .bodyTooLarge, "the body is larger than this request may be", headers: [.connection: "close"])
        } catch let error as any HTTPResponseError {
            throw error
        } catch let error as HTTPParserError {
            // The client's request broke off (a connection closed mid-body, by the client or for
            // its slowness): no fault of the server's, and nobody to answer.
            logger.debug("a request broke off", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            throw APIError.badRequest("the request broke off before its end")
        } catch let error as StoreError where error.code == .invalidValue {
            logger.info("the database refused a value", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            throw APIError.badRequest("a value of the request is one the database cannot store (a NUL character, say); nothing was stored")
        } catch let error as StoreError {
            logger.error("storage failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            throw APIError(.serviceUnavailable, .storageUnavailable, "the database failed; nothing was stored, retry later")
        } catch {
            logger.error("request failed", metadata: ["error": "\(error)", "path": "\(request.uri.path)"])
            throw APIError(.internalServerError, .internal, "the server failed; nothing was stored")
        }
    }
}

/// Refuses, with a 400, a request whose path or query holds a NUL character (`%00`): no route
/// takes one, and PostgreSQL cannot store one, so the answer is the same on every store.
struct NULRefusingMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let target = request.uri.description
        if target.contains("%00") || target.contains("\u{0}") {
            throw APIError.badRequest("the path or query has a NUL character (%00)")
        }
        return try await next(request, context)
    }
}

/// Valid keys as presented, so that a request costs no database read and no hashing for its key
/// (the database holds only hashes; this memory holds keys that arrive with every request anyway).
/// Revoking through this server drops the entry at once. When other servers share the database
/// (``Store/isShared``), a key they revoke must stop working here too, so entries are kept only
/// ``sharedLifetime`` and then read again.
final class KeyCache: Sendable {
    /// How long a server on a shared database trusts a key it has read: the longest a key revoked
    /// through another server still works on this one.
    static let sharedLifetime: Duration = .seconds(5)

    private let entries = Locked<[String: (record: KeyRecord, until: ContinuousClock.Instant?)]>([:])
    private let lifetime: Duration?

    /// - Parameter lifetime: how long an entry is trusted; nil: until this server revokes it.
    init(lifetime: Duration?) { self.lifetime = lifetime }

    func get(_ key: String) -> KeyRecord? {
        entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            if let until = entry.until, until < .now {
                entries[key] = nil
                return nil
            }
            return entry.record
        }
    }

    func put(_ key: String, _ record: KeyRecord) {
        let until = lifetime.map { ContinuousClock.now + $0 }
        entries.withLock { if $0.count < 100_000 { $0[key] = (record, until) } }
    }

    func drop(keyID: String) { entries.withLock { $0 = $0.filter { $0.value.record.id != keyID } } }
}
