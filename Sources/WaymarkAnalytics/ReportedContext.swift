import Foundation
import WaymarkRules
import WaymarkStore

/// The context an event's properties report (every SDK sends `platform`, `appVersion`, `locale`,
/// and the web SDK `model`), as targeting rules and breakdowns read it.
struct ReportedContext {
    /// The text properties.
    var properties: [String: String] = [:]
    /// Every property, typed as it was sent, as rules over an event's properties read them.
    var typed: [String: ContextValue] = [:]

    init(properties json: String?) {
        guard let json, let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return }
        for (key, value) in object {
            if let text = value as? String {
                properties[key] = text
                typed[key] = .string(text)
            } else if let number = value as? NSNumber {
                // JSONSerialization reads `true` and `false` as numbers of the C type `char`.
                typed[key] = String(cString: number.objCType) == "c" ? .bool(number.boolValue) : .number(number.doubleValue)
            }
        }
    }

    static let paths = [
        ("device.platform", "platform"), ("device.model", "model"), ("app.version", "appVersion"), ("user.locale", "locale"),
    ]

    func values(user: String) -> [String: ContextValue] {
        var values: [String: ContextValue] = ["user.id": .string(user)]
        for (path, key) in Self.paths {
            values[path] = properties[key].map(ContextValue.string)
        }
        return values
    }

    /// Every path reported, unset: a context line clears what the new properties no longer report.
    static let cleared = Dictionary(uniqueKeysWithValues: paths.map { ($0.0, ContextValue?.none) })

    var platformVersion: PlatformVersion { PlatformVersion(platform: properties["platform"], appVersion: properties["appVersion"]) }
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
    public func forEachEvent(app: String, period: Period, user: String? = nil, _ body: (StoredEvent) throws -> Void) async throws {
        try await forEachPage(app: app, period: period, user: user) { page in
            for event in page { try body(event) }
        }
    }

    /// The events of the period in time order, a page at a time; the next page is read while
    /// `body` works on this one, so a replay costs about the larger of reading and replaying.
    public func forEachPage(
        app: String, period: Period, user: String? = nil, pageSize: Int = eventPageSize, _ body: ([StoredEvent]) throws -> Void
    ) async throws {
        let store = self
        func read(after cursor: EventCursor?) -> Task<[StoredEvent], any Error> {
            Task { try await store.events(app: app, period: period, user: user, after: cursor, limit: pageSize) }
        }
        var next = read(after: nil)
        while true {
            let page = try await next.value
            let full = page.count == pageSize
            if full, let last = page.last { next = read(after: EventCursor(after: last)) }
            do {
                try body(page)
            } catch {
                next.cancel()
                throw error
            }
            guard full else { return }
        }
    }
}

/// How many events a replay reads per query.
public let eventPageSize = 20_000
