import WaymarkCatalog
import WaymarkStore

/// One checklist in a period: who opened it, who did each item, who completed it and how long it
/// took them, and the credits it granted.
public struct ChecklistReport: Hashable, Sendable {
    /// One item's completions.
    public struct Item: Hashable, Sendable {
        public var item: String
        /// Distinct users who did it.
        public var users: Int
    }

    public var checklist: String
    /// Users who had it: opened its panel, did one of its items (often in the app, without
    /// opening the panel) or completed it; the funnel's denominator.
    public var users: Int
    /// Users who opened its panel.
    public var opened: Int
    /// The items in catalog order, then items since removed that users did.
    public var items: [Item]
    /// Users who completed it.
    public var completed: Int
    /// The median time from being offered to being completed, in seconds, over the completions
    /// that say (on the device that completed it); nil without any.
    public var medianSeconds: Double?
    /// Credits its completions granted.
    public var credits: Int

    /// Completed among those who did at least its first item.
    public var completion: Proportion { Proportion(completed, of: items.first?.users ?? 0) }
}

extension Analytics {
    static let checklistEvents = ["checklist_opened", "checklist_item_done", "checklist_completed"]

    /// The catalog's checklists, each with its completion funnel item by item.
    public func checklists(app: String, catalog: Catalog, period: Period) async throws -> [ChecklistReport] {
        guard !catalog.checklists.isEmpty else { return [] }
        async let rows = store.tally(
            app: app, TallyQuery(period: period, names: Self.checklistEvents, by: [.target, .property("item")]))
        async let durations = store.tally(
            app: app, TallyQuery(period: period, names: ["checklist_completed"], by: [.target, .property("seconds")]))
        async let grants = store.grantTotals(app: app, period: period)
        async let had = store.tally(app: app, TallyQuery(period: period, names: Self.checklistEvents, byName: false, by: [.target]))
        var users: [String: Int] = [:]
        for row in try await had {
            if let checklist = row.keys[0] { users[checklist] = row.users }
        }
        var opened: [String: Int] = [:]
        var completed: [String: Int] = [:]
        var done: [String: [String: Int]] = [:]
        for row in try await rows {
            guard let checklist = row.keys[0] else { continue }
            switch row.name {
            case "checklist_opened": opened[checklist, default: 0] += row.users
            case "checklist_completed": completed[checklist, default: 0] += row.users
            default: if let item = row.keys[1] { done[checklist, default: [:]][item] = row.users }
            }
        }
        var seconds: [String: [(value: Double, count: Int)]] = [:]
        for row in try await durations {
            guard let checklist = row.keys[0], let value = row.keys[1].flatMap(Double.init), value >= 0 else { continue }
            seconds[checklist, default: []].append((value, row.events))
        }
        var credits: [String: Int] = [:]
        for grant in try await grants {
            if let checklist = Grant.checklist(ofTour: grant.tour) { credits[checklist, default: 0] += grant.credits }
        }
        return catalog.checklists.map { checklist in
            var items = checklist.items.map { ChecklistReport.Item(item: $0.id, users: done[checklist.id]?[$0.id] ?? 0) }
            let known = Set(checklist.items.map(\.id))
            items += (done[checklist.id] ?? [:]).filter { !known.contains($0.key) }.sorted { $0.key < $1.key }.map {
                ChecklistReport.Item(item: $0.key, users: $0.value)
            }
            return ChecklistReport(
                checklist: checklist.id, users: users[checklist.id] ?? 0, opened: opened[checklist.id] ?? 0, items: items,
                completed: completed[checklist.id] ?? 0,
                medianSeconds: Self.median(seconds[checklist.id] ?? []), credits: credits[checklist.id] ?? 0)
        }
    }

    /// The median of values each counted `count` times; nil for none.
    static func median(_ values: [(value: Double, count: Int)]) -> Double? {
        let sorted = values.sorted { $0.value < $1.value }
        let total = sorted.reduce(0) { $0 + $1.count }
        guard total > 0 else { return nil }
        func at(_ rank: Int) -> Double {
            var seen = 0
            for entry in sorted {
                seen += entry.count
                if seen > rank { return entry.value }
            }
            return sorted.last!.value
        }
        return total % 2 == 1 ? at(total / 2) : (at(total / 2 - 1) + at(total / 2)) / 2
    }
}
