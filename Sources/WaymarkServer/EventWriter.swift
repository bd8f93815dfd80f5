import Foundation
import WaymarkStore
import WaymarkSupport

/// Group commit for events: uploads that arrive while transactions are being written wait, and
/// are then written together in the next one, so each still gets its answer only after its events
/// are committed, but many uploads share one commit. With one upload at a time it is one
/// transaction per upload, as without it. The webhook notices of new survey answers and completed
/// checklists (``WebhookNotices/forEvent(_:)``), and of the guidance events of apps with an
/// endpoint that takes them (``WebhookNotices/guidance(_:apps:)``), are written in the same
/// transactions.
///
/// SQLite has one writer, so one transaction is written at a time; a database that takes several
/// writers at once (``Store/isShared``: PostgreSQL) gets up to ``writers`` transactions in flight,
/// so that one's commit waits for the disk while the next is inserted.
final class EventWriter: Sendable {
    private struct Waiting {
        var events: [StoredEvent]
        var continuation: CheckedContinuation<[Bool], any Error>
    }

    private struct State {
        var waiting: [Waiting] = []
        var writing = 0
    }

    let store: any Store
    /// The most events one transaction takes (uploads are never split).
    let limit: Int
    /// Which apps have an endpoint that takes `guidance.events`.
    let subscribers: GuidanceSubscribers
    /// The most transactions written at once.
    let writers: Int
    private let state = Locked(State())

    init(store: any Store, limit: Int = 5_000, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.limit = limit
        subscribers = GuidanceSubscribers(store: store, now: now)
        writers = store.isShared ? 4 : 1
    }

    /// Stores the events; per event, whether it was new. Returns once they are committed.
    func insert(_ events: [StoredEvent]) async throws -> [Bool] {
        guard !events.isEmpty else { return [] }
        return try await withCheckedThrowingContinuation { continuation in
            let start = state.withLock { state in
                state.waiting.append(Waiting(events: events, continuation: continuation))
                if state.writing == writers { return false }
                state.writing += 1
                return true
            }
            if start { Task { await self.drain() } }
        }
    }

    /// One writer: writes what is waiting, transaction after transaction, until nothing is.
    private func drain() async {
        while true {
            let group = state.withLock { state -> [Waiting] in
                var taken: [Waiting] = []
                var count = 0
                while let next = state.waiting.first, taken.isEmpty || count + next.events.count <= limit {
                    taken.append(state.waiting.removeFirst())
                    count += next.events.count
                }
                if taken.isEmpty { state.writing -= 1 }
                return taken
            }
            if group.isEmpty { return }
            do {
                let events = group.flatMap(\.events)
                let apps = try await subscribers.apps(among: Set(events.map(\.app)))
                let inserted = try await store.insertEvents(
                    events, notices: { new in new.compactMap(WebhookNotices.forEvent) + WebhookNotices.guidance(new, apps: apps) })
                var offset = 0
                for upload in group {
                    upload.continuation.resume(returning: Array(inserted[offset..<(offset + upload.events.count)]))
                    offset += upload.events.count
                }
            } catch {
                for upload in group { upload.continuation.resume(throwing: error) }
            }
        }
    }
}

/// Which apps have a webhook endpoint that takes `guidance.events`, read from the store at most
/// once per ``lifetime`` per app: an endpoint added or removed (here or through another server)
/// takes effect within it. Uploads of the other apps keep the store's fastest way in.
final class GuidanceSubscribers: Sendable {
    static let lifetime: TimeInterval = 10
    let store: any Store
    let now: @Sendable () -> Date
    private let known = Locked<[String: (subscribed: Bool, at: Date)]>([:])

    init(store: any Store, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// Those of `apps` with such an endpoint.
    func apps(among apps: Set<String>) async throws -> Set<String> {
        let time = now()
        let stale = known.withLock { known in
            apps.filter { app in known[app].map { time.timeIntervalSince($0.at) >= Self.lifetime } ?? true }
        }
        for app in stale {
            let subscribed = try await store.webhookEndpoints(app: app).contains { $0.types.contains(WebhookType.guidanceEvents.rawValue) }
            known.withLock { $0[app] = (subscribed, time) }
        }
        return known.withLock { known in apps.filter { known[$0]?.subscribed == true } }
    }
}
