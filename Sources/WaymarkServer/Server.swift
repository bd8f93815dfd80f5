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
        eventWriter = EventWriter(store: store, now: now)
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
        addRoutes(to: router)
        return router
    }

    /// Adds the API's routes to `router`, each with what it needs stated as a type (see
    /// ``APIRoutes``), and lists them.
    @discardableResult
    public func addRoutes(to router: Router<WaymarkRequestContext>) -> [RouteNeed] {
        let routes = APIRoutes(router: router, server: self)
        routes.get("/healthz", NoKey.self) { _, _ in "ok\n" }
        routes.get("/metrics", NoKey.self) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: self.metrics.exposition()))
            )
        }
        routes.get("/openapi.yaml", NoKey.self) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: WaymarkServer.openAPIDocument))
            )
        }
        routes.get("/sdk/waymark.js", NoKey.self) { request, _ in self.webSDK(request, version: nil) }
        routes.get("/sdk/src/:module", NoKey.self) { request, context in
            self.webSDKModule(request, name: context.parameters.get("module") ?? "")
        }
        routes.get("/sdk/:version/:file", NoKey.self) { request, context in
            self.webSDK(request, version: context.parameters.get("version") ?? "", file: context.parameters.get("file") ?? "")
        }
        routes.get("/v1/narration/:app/:key", NoKey.self) { request, context in try await self.narrationAudio(request, context) }

        routes.get("/v1/catalog", ClientKey.self) { request, context in try await self.catalog(request, context) }
        routes.post("/v1/events", ClientKey.self) { request, context in try await self.events(request, context) }
        routes.post("/v1/rewards/claims", ClientKey.self) { request, context in try await self.claim(request, context) }
        routes.post("/v1/identify", ClientKey.self) { request, context in try await self.identify(request, context) }
        routes.post("/v1/progress", ClientKey.self) { request, context in try await self.progress(request, context) }
        routes.post("/v1/anchors", ClientKey.self) { request, context in try await self.anchors(request, context) }
        routes.post("/v1/captures", ClientKey.self) { request, context in try await self.captures(request, context) }
        routes.get("/v1/builder", ClientKey.self) { _, context in try await self.builderSession(context) }
        routes.post("/v1/builder/tip", ClientKey.self) { request, context in try await self.saveBuilderTip(request, context) }
        routes.post("/v1/builder/end", ClientKey.self) { _, context in try await self.endBuilder(context) }
        // Preflights carry no key: CORSMiddleware answers them on routes of their own.
        for path in [
            "/catalog", "/events", "/rewards/claims", "/identify", "/progress", "/anchors", "/captures", "/builder", "/builder/tip",
            "/builder/end",
        ] {
            routes.on("/v1" + path, .options, Preflight.self) { _, _ in Response(status: .noContent) }
        }

        routes.get("/v1/admin/catalog/draft", SecretKey.self) { _, context in try await self.getDraft(context) }
        routes.put("/v1/admin/catalog/draft", SecretKey.self) { request, context in try await self.putDraft(request, context) }
        routes.get("/v1/admin/catalog/draft/:kind", SecretKey.self) { _, context in try await self.listObjects(context) }
        routes.get("/v1/admin/catalog/draft/:kind/:id", SecretKey.self) { _, context in try await self.getObject(context) }
        routes.put("/v1/admin/catalog/draft/:kind/:id", SecretKey.self) { request, context in try await self.putObject(request, context) }
        routes.delete("/v1/admin/catalog/draft/:kind/:id", SecretKey.self) { _, context in try await self.deleteObject(context) }
        routes.post("/v1/admin/catalog/publish", SecretKey.self) { _, context in try await self.publish(context) }
        routes.post("/v1/admin/catalog/rollback", SecretKey.self) { request, context in try await self.rollback(request, context) }
        routes.get("/v1/admin/catalog/versions", SecretKey.self) { _, context in try await self.versions(context) }
        routes.get("/v1/admin/catalog/versions/:number", SecretKey.self) { _, context in try await self.version(context) }
        routes.get("/v1/admin/keys", SecretKey.self) { _, context in try await self.listKeys(context) }
        routes.post("/v1/admin/keys", SecretKey.self) { request, context in try await self.createKey(request, context) }
        routes.delete("/v1/admin/keys/:id", SecretKey.self) { _, context in try await self.revokeKey(context) }
        routes.get("/v1/admin/users/:user/grants", SecretKey.self) { _, context in try await self.userGrants(context) }
        routes.get("/v1/admin/users/:user", SecretKey.self) { _, context in try await self.userData(context) }
        routes.delete("/v1/admin/users/:user", SecretKey.self) { _, context in try await self.eraseUser(context) }
        routes.get("/v1/admin/grants", SecretKey.self) { request, context in try await self.grantPage(request, context) }
        routes.get("/v1/admin/events", SecretKey.self) { request, context in try await self.exportEvents(request, context) }
        routes.get("/v1/admin/anchors", SecretKey.self) { _, context in try await self.listSightings(context) }
        routes.get("/v1/admin/struggles", SecretKey.self) { request, context in try await self.listProblems(request, context) }
        routes.get("/v1/admin/captures", SecretKey.self) { _, context in try await self.listCaptures(context) }
        routes.get("/v1/admin/captures/:id/image", SecretKey.self) { _, context in try await self.captureImage(context) }
        routes.get("/v1/admin/previews", SecretKey.self) { _, context in try await self.listPreviews(context) }
        routes.post("/v1/admin/previews", SecretKey.self) { request, context in try await self.createPreview(request, context) }
        routes.post("/v1/admin/previews/:id/end", SecretKey.self) { _, context in try await self.endPreview(context) }
        routes.get("/v1/admin/previews/:id/events", SecretKey.self) { _, context in try await self.previewEventList(context) }
        routes.get("/v1/admin/retention", SecretKey.self) { _, context in try await self.retention(context) }
        routes.put("/v1/admin/retention", SecretKey.self) { request, context in try await self.setRetention(request, context) }
        routes.get("/v1/admin/webhooks", SecretKey.self) { _, context in try await self.listWebhooks(context) }
        routes.post("/v1/admin/webhooks", SecretKey.self) { request, context in try await self.createWebhook(request, context) }
        routes.get("/v1/admin/webhook-deliveries", SecretKey.self) { request, context in try await self.webhookDeliveries(request, context)
        }
        routes.delete("/v1/admin/webhooks/:id", SecretKey.self) { _, context in try await self.deleteWebhook(context) }
        routes.post("/v1/admin/webhooks/:id/rotate", SecretKey.self) { request, context in try await self.rotateWebhook(request, context) }
        routes.post("/v1/admin/webhooks/:id/deliveries/:event/resend", SecretKey.self) { _, context in try await self.resendWebhook(context)
        }
        return routes.registered
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
