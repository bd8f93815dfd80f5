import Foundation
import WaymarkCatalog
import WaymarkDelivery
import WaymarkEngine
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

/// Why a tip was or was not shown to one user: their recorded events replayed through the engine
/// with the catalog's tips, as their device ran them, then the same term-by-term explanation as
/// `waymark explain`.
public struct EligibilityTrace: Sendable {
    public struct Step: Hashable, Sendable {
        public var time: Date
        /// `tap:search`, `context device.platform=web ...`, `close search-tip`.
        public var input: String
        /// What the engine did with the tip at that moment: `show in home`, `hide (dismissed)`.
        public var outcome: String?
    }

    public var user: String
    public var tip: String
    public var events: Int
    /// Whether the tip's targeting admits the user's last reported context; a tip that does not is
    /// never delivered to the user's device.
    public var targeted: Bool
    public var context: [String: String]
    public var explanation: TipExplanation
    /// The inputs, the most recent last, at most ``maximumSteps``.
    public var steps: [Step]

    public static let maximumSteps = 500
}

extension Analytics {
    /// The trace of one user and one tip of the catalog over the period; nil when the catalog has no
    /// such tip.
    public func explain(app: String, catalog: Catalog, user: String, tip id: String, period: Period) async throws -> EligibilityTrace? {
        guard let tip = catalog.tips.first(where: { $0.id == id }) else { return nil }
        var script: [EventScript.Line] = []
        var lastProperties: String??
        var reported = ReportedContext(properties: nil)
        var cursor: EventCursor?
        while true {
            let page = try await store.events(app: app, period: period, user: user, after: cursor, limit: Backtest.pageSize)
            for event in page {
                let time = Date(millisecondsSince1970: event.timestamp)
                if lastProperties != .some(event.properties) {
                    lastProperties = .some(event.properties)
                    let next = ReportedContext(properties: event.properties)
                    if next.values(user: user) != reported.values(user: user) || script.isEmpty {
                        reported = next
                        script.append(.init(number: script.count + 1, time: time, input: .context(next.values(user: user).mapValues { $0 }.merging(ReportedContext.cleared) { set, _ in set })))
                    }
                }
                switch event.name {
                case "tip_closed":
                    if let target = event.target { script.append(.init(number: script.count + 1, time: time, input: .close(tip: target))) }
                case "tip_shown", "tip_dismissed", "tip_action":
                    // What the engine itself reported, not input to it.
                    continue
                default:
                    script.append(.init(number: script.count + 1, time: time, input: .event(name: event.name, target: event.target)))
                }
            }
            guard page.count == Backtest.pageSize, let last = page.last else { break }
            cursor = EventCursor(after: last)
        }
        let context = reported.values(user: user)
        // The device had the tips its context was targeted with; the traced one is kept to explain it.
        let delivered = catalog.tips.filter { $0.id == id || Resolver.admits($0.targeting, id: $0.id, context: context, user: user) }
        var engine = Engine(tips: delivered.map(\.tip), configuration: .init(frequency: catalog.frequency))
        var steps: [EligibilityTrace.Step] = []
        let events = script.count { if case .event = $0.input { true } else { false } }
        for line in script {
            let commands = Replay.play(line, on: &engine).filter { $0.tip == id }
            steps.append(.init(time: line.time, input: Self.describe(line.input), outcome: commands.isEmpty ? nil : commands.map(Self.describe).joined(separator: ", ")))
        }
        return EligibilityTrace(
            user: user, tip: id, events: events,
            targeted: Resolver.admits(tip.targeting, id: id, context: context, user: user),
            context: reported.properties.filter { key, _ in ReportedContext.paths.contains { $0.1 == key } },
            explanation: engine.explain(tip: id)!,
            steps: Array(steps.suffix(EligibilityTrace.maximumSteps))
        )
    }

    static func describe(_ input: EventScript.Input) -> String {
        switch input {
        case .event(let name, let target): target.map { "\(name):\($0)" } ?? name
        case .tick: "time passes"
        case .context(let values):
            "context " + values.sorted { $0.key < $1.key }.compactMap { path, value in value.map { "\(path)=\(Self.describe($0))" } }.joined(separator: " ")
        case .container(let container, let visible): "\(container) \(visible ? "shown" : "hidden")"
        case .close(let tip): "close \(tip)"
        }
    }

    static func describe(_ value: ContextValue) -> String {
        switch value {
        case .string(let text): text
        case .number(let number): String(number)
        case .bool(let flag): String(flag)
        }
    }

    static func describe(_ command: RenderCommand) -> String {
        var text = "\(command.action.rawValue) in \(command.container)"
        if let reason = command.reason { text += " (\(reason.rawValue))" }
        return text
    }
}
