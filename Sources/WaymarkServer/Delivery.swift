import CoreMetrics
import Foundation
import Hummingbird
import Logging
import WaymarkAPI
import WaymarkCatalog
import WaymarkDelivery
import WaymarkNarration
import WaymarkStore
import WaymarkSupport

/// The live catalog of each app, parsed once per published version: a hot catalog costs no
/// database work on SQLite, one version-number read on a shared database. Publishing or rolling
/// back through this server replaces the entry. An entry whose narration is still being made is
/// built again every ``narrationRecheck`` until it has all of it.
final class LiveCatalogs: Sendable {
    struct Entry: Sendable {
        var resolver: Resolver
        /// What the catalog says aloud, kept for looking at its narration again.
        var plan: NarrationPlan
        /// When to look again for narration still missing; nil: nothing is missing.
        var recheckAt: ContinuousClock.Instant?
        /// What the store knew of the catalog's narration when it was built (see ``WaymarkServer/narration(app:plan:)``).
        var narrationFingerprint: Int
    }

    static let narrationRecheck: Duration = .seconds(2)

    private let entries = Locked<[String: Entry]>([:])

    func get(_ app: String) -> Entry? { entries.withLock { $0[app] } }

    /// Keeps the newer of the cached and the given entry.
    func offer(_ app: String, _ entry: Entry) {
        entries.withLock { if ($0[app]?.resolver.version ?? 0) <= entry.resolver.version { $0[app] = entry } }
    }

    /// Looks at the app's narration again on the next request (one was forgotten, to be made again).
    func recheckNow(_ app: String) {
        entries.withLock { entries in entries[app]?.recheckAt = .now }
    }

    /// Keeps the entry as it is, nothing being new since the last look: looks again later while
    /// narration is `waiting`, else no more.
    func keep(_ app: String, version: Int, waiting: Bool) {
        entries.withLock { entries in
            if entries[app]?.resolver.version == version { entries[app]?.recheckAt = waiting ? .now + Self.narrationRecheck : nil }
        }
    }
}

extension WaymarkServer {
    /// `GET /v1/catalog?platform=&model=&appVersion=&locale=&user=`: the live catalog resolved for
    /// this client (and the user's attributes and segments, with `Waymark-User-Hash`), with a strong ETag;
    /// `If-None-Match` with it answers 304. A preview's token gets the draft instead (``previewCatalog(_:key:)``).
    func catalog(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let query = request.uri.queryParameters
        func parameter(_ name: String) throws -> String? {
            guard let value = query.get(name) else { return nil }
            guard value.count <= 256 else { throw APIError.badRequest("\(name) is longer than 256 characters") }
            return value.isEmpty ? nil : value
        }
        var client = ClientContext(
            platform: try parameter("platform"), model: try parameter("model"), appVersion: try parameter("appVersion"),
            locale: try parameter("locale"), user: try parameter("user")
        )
        if key.kind == .preview { return try await previewCatalog(client, key: key) }
        guard let live = try await liveCatalog(app: key.app) else {
            throw APIError(.notFound, .notPublished, "this app has not published a catalog yet")
        }
        try await identity(of: &client, request, key: key, catalog: live)
        // Deciding is cheap and names the bytes, so the ETag comes before (and without) any JSON.
        let resolution = live.decide(for: client)
        let etag = resolution.etag
        var headers: HTTPFields = [:]
        headers[.eTag] = etag
        headers[.cacheControl] = "private, max-age=60, stale-if-error=604800"
        headers[.vary] = "Authorization"
        // A page on another origin reads the ETag to send it back as If-None-Match.
        headers[.accessControlExposeHeaders] = "ETag"
        if request.headers.ifNoneMatchNames(etag) {
            metrics.catalogNotModified.increment()
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json; charset=utf-8"
        let json = {
            var body = ByteBuffer()
            let length = live.jsonByteCount(resolution)
            body.writeWithUnsafeMutableBytes(minimumWritableBytes: length) { live.writeJSON(resolution, into: $0) }
            return body
        }
        guard ContentCoding.acceptsGzip(request) else {
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: json()))
        }
        // The ETag names the bytes, so the compressed bytes are kept under it.
        let body = compressedCatalogs.body(etag: etag, make: json, compressed: { metrics.catalogCompressions.increment() })
        headers[.contentEncoding] = "gzip"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    func liveCatalog(app: String) async throws -> Resolver? {
        if let entry = live.get(app) {
            // Another server may have published since: on a shared database the cache holds only
            // while its version is the live one (one indexed read, no document, begun after this
            // request arrived and shared with the requests that arrived with it).
            let current =
                store.isShared
                ? try await liveVersionReads.value(app) { [store] app in try await store.liveVersionNumber(app: app) }
                : entry.resolver.version
            if current == entry.resolver.version {
                guard let recheckAt = entry.recheckAt, recheckAt <= .now else {
                    metrics.catalogCacheHits.increment()
                    return entry.resolver
                }
                // Narration was missing: the same catalog, with what has been made since (if anything was).
                return try await cacheLive(app: app, catalog: entry.resolver.catalog, version: entry.resolver.version, cached: entry)
            }
        }
        metrics.catalogCacheMisses.increment()
        return try await liveLoads.value(app) { app in
            guard let version = try await store.liveVersion(app: app) else { return nil }
            return try await cacheLive(version)
        }
    }

    @discardableResult
    func cacheLive(_ version: CatalogVersion) async throws -> Resolver {
        let catalog: Catalog
        do {
            catalog = try CatalogDocument.parse(version.document, file: "version \(version.number)")
        } catch {
            // Documents are checked before they are stored; one that no longer reads is a bug.
            logger.error("a published catalog does not read", metadata: ["app": "\(version.app)", "error": "\(error)"])
            throw APIError(.internalServerError, .internal, "the published catalog cannot be read")
        }
        return try await cacheLive(app: version.app, catalog: catalog, version: version.number)
    }

    /// Builds the resolver with the narration the store has, asks the narrator for what is
    /// missing, and caches it; keeps the `cached` resolver when the store knows nothing new.
    private func cacheLive(app: String, catalog: Catalog, version: Int, cached: LiveCatalogs.Entry? = nil) async throws -> Resolver {
        let plan = cached?.plan ?? NarrationPlan(catalog)
        let narration = try await narration(app: app, plan: plan)
        // Missing narration may come from this server's narrator or, on a shared database, another's.
        let waiting = !narration.missing.isEmpty && (narrator != nil || store.isShared)
        if let cached, cached.narrationFingerprint == narration.fingerprint {
            live.keep(app, version: version, waiting: waiting)
            return cached.resolver
        }
        let resolver = Resolver(catalog: catalog, version: version, narration: narration.lookup)
        live.offer(
            app,
            LiveCatalogs.Entry(
                resolver: resolver, plan: plan, recheckAt: waiting ? .now + LiveCatalogs.narrationRecheck : nil,
                narrationFingerprint: narration.fingerprint
            )
        )
        return resolver
    }
}
