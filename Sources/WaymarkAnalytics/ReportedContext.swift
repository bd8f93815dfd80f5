import Foundation
import WaymarkRules
import WaymarkStore

/// The context an event's properties report (every SDK sends `platform`, `appVersion`, `locale`,
/// and the web SDK `model`), as targeting rules and breakdowns read it.
struct ReportedContext {
    var properties: [String: String] = [:]

    init(properties json: String?) {
        guard let json, let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return }
        for (key, value) in object {
            if let text = value as? String { properties[key] = text }
        }
    }

    static let paths = [("device.platform", "platform"), ("device.model", "model"), ("app.version", "appVersion"), ("user.locale", "locale")]

    func values(user: String) -> [String: ContextValue] {
        var values: [String: ContextValue] = ["user.id": .string(user)]
        for (path, key) in Self.paths {
            values[path] = properties[key].map(ContextValue.string)
        }
        return values
    }

    /// Every path reported, unset: a context line clears what the new properties no longer report.
    static let cleared = Dictionary(uniqueKeysWithValues: paths.map { ($0.0, ContextValue?.none) })

    var segment: Segment { Segment(platform: properties["platform"], appVersion: properties["appVersion"]) }
}

/// Parsed properties by their text: the same few texts (platform, version, locale, and a tip's id)
/// come back in most events, and parsing JSON costs more than looking it up.
struct ContextCache {
    private var parsed: [String: ReportedContext] = [:]

    mutating func context(_ properties: String?) -> ReportedContext {
        guard let properties else { return ReportedContext(properties: nil) }
        if let known = parsed[properties] { return known }
        let context = ReportedContext(properties: properties)
        if parsed.count >= 10_000 { parsed.removeAll(keepingCapacity: true) }
        parsed[properties] = context
        return context
    }
}

extension AnalyticsStore {
    /// Every event of the period (one user's when `user` is set), in time order, read a page at a
    /// time so that memory does not grow with the period.
    func forEachEvent(app: String, period: Period, user: String? = nil, _ body: (StoredEvent) throws -> Void) async throws {
        var cursor: EventCursor?
        while true {
            let page = try await events(app: app, period: period, user: user, after: cursor, limit: eventPageSize)
            for event in page { try body(event) }
            guard page.count == eventPageSize, let last = page.last else { return }
            cursor = EventCursor(after: last)
        }
    }
}

/// How many events a replay reads per query.
let eventPageSize = 10_000
