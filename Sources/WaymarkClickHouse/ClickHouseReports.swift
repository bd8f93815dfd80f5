import Foundation
import WaymarkRules
import WaymarkStore

/// What the console's reports read when ClickHouse is the analytics store: tallies from
/// ClickHouse, and everything else (replays, credits, users' attributes and segments) from the
/// store of record. A tally ClickHouse does not answer (by a property it does not keep), or
/// cannot answer now, comes from the store of record too, so a report shows the same numbers,
/// only sooner.
public struct ClickHouseReports: AnalyticsStore, UserStore {
    let store: any Store
    let analytics: ClickHouseAnalytics

    public init(store: any Store, analytics: ClickHouseAnalytics) {
        self.store = store
        self.analytics = analytics
    }

    public func tally(app: String, _ query: TallyQuery) async throws(StoreError) -> [TallyRow] {
        do {
            if let rows = try await analytics.tally(app: app, query) { return rows }
        } catch  where error.code == .unavailable {
            // ClickHouse is away: the store of record counts the same, more slowly.
        }
        return try await store.tally(app: app, query)
    }

    public func events(app: String, period: Period, user: String?, after cursor: EventCursor?, limit: Int) async throws(StoreError)
        -> [StoredEvent]
    {
        try await store.events(app: app, period: period, user: user, after: cursor, limit: limit)
    }

    public func grantTotals(app: String, period: Period) async throws(StoreError) -> [GrantTotal] {
        try await store.grantTotals(app: app, period: period)
    }

    public func rollUp(app: String, before: Int64, limit: Int) async throws(StoreError) -> Int {
        try await store.rollUp(app: app, before: before, limit: limit)
    }

    public func updateAttributes(
        app: String, user: String, _ changes: [String: ContextValue?], at time: Date, limit: Int
    ) async throws(StoreError) -> [UserAttribute]? {
        try await store.updateAttributes(app: app, user: user, changes, at: time, limit: limit)
    }

    public func attributes(app: String, user: String) async throws(StoreError) -> [UserAttribute] {
        try await store.attributes(app: app, user: user)
    }

    public func attributeSummary(app: String, examples: Int) async throws(StoreError) -> [AttributeSummary] {
        try await store.attributeSummary(app: app, examples: examples)
    }

    public func attributes(app: String, named names: [String]) async throws(StoreError) -> [String: [String: ContextValue]] {
        try await store.attributes(app: app, named: names)
    }

    public func replaceSegmentMembers(app: String, _ members: [String: Set<String>]) async throws(StoreError) {
        try await store.replaceSegmentMembers(app: app, members)
    }

    public func segments(app: String, user: String) async throws(StoreError) -> [String] {
        try await store.segments(app: app, user: user)
    }

    public func segmentMembers(app: String) async throws(StoreError) -> [String: Set<String>] {
        try await store.segmentMembers(app: app)
    }

    public func eraseUser(
        app: String, user: String, audit: @escaping @Sendable (UserErasure) -> AuditEntry,
        notice: @escaping @Sendable (UserErasure) -> WebhookNotice?
    ) async throws(StoreError) -> UserErasure {
        try await store.eraseUser(app: app, user: user, audit: audit, notice: notice)
    }

    public func progress(app: String, user: String) async throws(StoreError) -> String? {
        try await store.progress(app: app, user: user)
    }

    public func updateProgress(
        app: String, user: String, at time: Date, _ update: @escaping @Sendable (String?) -> String?
    ) async throws(StoreError) -> String? {
        try await store.updateProgress(app: app, user: user, at: time, update)
    }
}
