import Foundation
import Logging
import ServiceLifecycle
import WaymarkCatalog
import WaymarkStore

/// Keeps the members of every app's history segments (those whose rule reads events) for
/// delivery to read by user: who is in each at the moment of the refresh, stored in place of the
/// last. It starts from the states kept with the live catalog's eligible days (``Eligibility``),
/// replaying only the days after them; until those days are kept (just after a publication), a
/// ``SegmentReplay`` of the whole history answers the same. Segments of attributes alone need
/// none of this: delivery decides them from the attributes it reads anyway.
///
/// It looks every `interval` at each app's live version and refreshes an app whose version
/// changed since its last refresh (a new segment has members within one interval of
/// publishing), and every app at least once per `period`.
public struct SegmentRefresher: Service {
    let store: any Store
    let logger: Logger
    let interval: Duration
    let period: Duration
    let now: @Sendable () -> Date

    public init(
        store: any Store, logger: Logger, interval: Duration = .seconds(60), period: Duration = .seconds(600),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.logger = logger
        self.interval = interval
        self.period = period
        self.now = now
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            // Per app: the live version last refreshed, and when.
            var refreshed: [String: (version: Int, at: Date)] = [:]
            while !Task.isCancelled {
                do {
                    for app in try await store.apps() {
                        let version = try await store.liveVersionNumber(app: app.id)
                        let time = now()
                        guard let version else { continue }
                        if let last = refreshed[app.id], last.version == version, time.timeIntervalSince(last.at) < period / .seconds(1) {
                            continue
                        }
                        do {
                            let members = try await refresh(app: app.id)
                            refreshed[app.id] = (version, time)
                            if !members.isEmpty {
                                logger.debug(
                                    "refreshed segment members",
                                    metadata: ["app": "\(app.id)", "members": "\(members.mapValues(\.count))"])
                            }
                        } catch {
                            logger.warning("could not refresh segment members", metadata: ["app": "\(app.id)", "error": "\(error)"])
                        }
                    }
                } catch {
                    logger.warning("could not read the apps to refresh their segments", metadata: ["error": "\(error)"])
                }
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }

    /// Decides who is in each of the app's live catalog's history segments now and stores it (an
    /// app without any then has no members stored); returns them by segment.
    @discardableResult
    public func refresh(app: String) async throws -> [String: Set<String>] {
        let document = try await store.liveVersion(app: app)?.document
        let catalog = try document.map { try CatalogDocument.parse($0, file: "live catalog") }
        let segments = (catalog?.segments ?? []).filter(\.readsHistory)
        var members: [String: Set<String>] = [:]
        if !segments.isEmpty {
            let time = now().millisecondsSince1970
            if let live = try await Eligibility.live(app: app, store: store),
                let kept = try await live.segmentMembers(at: time, store: store, app: app)
            {
                for segment in segments { members[segment.name] = kept[segment.name] }
            } else {
                let outcome = try await SegmentReplay(segments: segments).run(store: store, app: app, .at(time))
                for (segment, users) in zip(segments, outcome.members) { members[segment.name] = users }
            }
        }
        try await store.replaceSegmentMembers(app: app, members)
        return members
    }
}
