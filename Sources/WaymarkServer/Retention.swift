import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import WaymarkStore
import WaymarkSupport

/// Removes each app's events older than the days it keeps them (`PUT /v1/admin/retention`), a
/// thousand at a time with a pause between batches so that ingestion goes on meanwhile. An app
/// keeps everything unless it says otherwise. Each server of a shared database runs it; two
/// removing the same old events at once remove each once.
public struct EventRetention: Service {
    /// How many events one transaction removes.
    public static let batchSize = 1000
    /// The most days an app may keep events for: a hundred years.
    public static let maximumDays = 36_500

    let store: any Store
    let logger: Logger
    let interval: Duration
    let pause: Duration
    let now: @Sendable () -> Date

    /// Retention every `interval`, `pause` between batches, the cut-off read from `now`.
    public init(
        store: any Store, logger: Logger, interval: Duration = .seconds(3600), pause: Duration = .milliseconds(20),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.logger = logger
        self.interval = interval
        self.pause = pause
        self.now = now
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    for (app, removed) in try await sweep().sorted(by: { $0.key < $1.key }) {
                        logger.info("removed events past the app's retention", metadata: ["app": "\(app)", "events": "\(removed)"])
                    }
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning("could not remove events past their retention", metadata: ["error": "\(error)"])
                }
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }

    /// Removes, for every app with a retention, its events older than that many days before now;
    /// answers how many per app that had any.
    @discardableResult
    public func sweep() async throws -> [String: Int] {
        var removed: [String: Int] = [:]
        for (app, days) in try await store.eventRetentions() {
            let before = now().millisecondsSince1970 - Int64(days) * 86_400_000
            while true {
                try Task.checkCancellation()
                let count = try await store.deleteEvents(app: app, before: before, limit: Self.batchSize)
                if count > 0 { removed[app, default: 0] += count }
                if count < Self.batchSize { break }
                try await Task.sleep(for: pause)
            }
        }
        return removed
    }
}

/// `GET`/`PUT /v1/admin/retention`: `{"days": 365}`, or `{"days": null}` to keep events forever.
struct RetentionBody: Codable {
    private enum CodingKeys: String, CodingKey { case days }

    var days: Int?

    init(days: Int?) { self.days = days }

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(["days"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.days) else {
            throw DecodingError.keyNotFound(CodingKeys.days, .init(codingPath: [], debugDescription: "the body needs \"days\""))
        }
        days = try container.decodeIfPresent(Int.self, forKey: .days)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(days, forKey: .days)
    }
}

extension WaymarkServer {
    func retention(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        return jsonResponse(RetentionBody(days: try await store.eventRetentions()[key.app]))
    }

    /// Sets how many days the app keeps its events (1 to 36,500; null: forever), audited.
    func setRetention(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let days = try await request.decodeBody(as: RetentionBody.self, context: context).days
        try await setRetention(app: key.app, days: days, actor: .key(key.id))
        return jsonResponse(RetentionBody(days: days))
    }

    func setRetention(app: String, days: Int?, actor: AuditEntry.Actor) async throws {
        if let problem = EventRetention.problem(days: days) { throw APIError.badRequest(problem) }
        try await EventRetention.set(app: app, days: days, actor: actor, at: now(), in: store)
    }
}

extension EventRetention {
    /// What is wrong with keeping events `days` days (nil: forever), if anything.
    public static func problem(days: Int?) -> String? {
        guard let days, !(1...maximumDays).contains(days) else { return nil }
        return "days must be from 1 to \(maximumDays), or none to keep events forever"
    }

    /// Sets how many days the app keeps its events, audited with the old and new value; for the
    /// admin API, the console and the command line, each having checked ``problem(days:)``.
    public static func set(app: String, days: Int?, actor: AuditEntry.Actor, at time: Date, in store: any Store) async throws {
        let before = try await store.eventRetentions()[app]
        try await store.setEventRetention(
            app: app, days: days,
            audit: AuditEntry(
                app: app, actor: actor, at: time, action: .retentionSet, object: "event retention",
                before: before.map { "\($0) days" } ?? "forever", after: days.map { "\($0) days" } ?? "forever"))
    }
}
