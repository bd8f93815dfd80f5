import Foundation
import WaymarkCatalog
import WaymarkDelivery
import WaymarkEngine
import WaymarkRules
import WaymarkStore

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
    /// The user's last reported context and their attributes, as text by path (`app.version`,
    /// `user.plan`).
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
        var reported = ReportedContext(properties: nil)
        var contexts = ContextCache()
        // The attributes the server keeps for the user: what targeting and the device's rules read
        // as user.<name> (as they are now; their history is not kept).
        var attributes: [String: ContextValue] = [:]
        for attribute in try await store.attributes(app: app, user: user) { attributes["user." + attribute.name] = attribute.value }
        // And the segments targeting names that the user was in during the period.
        let targeted = try await TargetedUsers(
            rules: catalog.tips.compactMap(\.targeting.rule), segments: catalog.segments, store: store, app: app, period: period,
            user: user)
        attributes.merge(targeted.values(of: user).filter { $0.key.hasPrefix("segment.") }) { own, _ in own }
        func values(_ context: ReportedContext) -> [String: ContextValue] {
            context.values(user: user).merging(attributes) { reported, _ in reported }
        }
        func add(_ time: Date, _ input: EventScript.Input) { script.append(.init(number: script.count + 1, time: time, input: input)) }
        try await store.forEachEvent(app: app, period: period, user: user) { event in
            let time = Date(millisecondsSince1970: event.timestamp)
            let next = contexts.context(event.properties)
            if script.isEmpty || next.values(user: user) != reported.values(user: user) {
                reported = next
                add(time, .context(values(next).mapValues { $0 }.merging(ReportedContext.cleared) { set, _ in set }))
            }
            switch event.name {
            case "tip_closed":
                if let target = event.target { add(time, .close(tip: target)) }
            case "tip_shown", "tip_dismissed", "tip_action":
                // What the engine itself reported, not input to it.
                break
            default:
                add(time, .event(name: event.name, target: event.target, properties: next.typed))
            }
        }
        let context = values(reported)
        // The device had the tips its context was targeted with; the traced one is kept to explain it.
        let delivered = catalog.tips.filter { $0.id == id || Resolver.admits($0.targeting, id: $0.id, context: context, user: user) }
        var engine = Engine(tips: delivered.map(\.tip), configuration: .init(frequency: catalog.frequency))
        var steps: [EligibilityTrace.Step] = []
        let events = script.count { if case .event = $0.input { true } else { false } }
        for line in script {
            let commands = Replay.play(line, on: &engine).filter { $0.tip == id }
            steps.append(
                .init(
                    time: line.time, input: Self.describe(line.input),
                    outcome: commands.isEmpty ? nil : commands.map(Self.describe).joined(separator: ", ")))
        }
        return EligibilityTrace(
            user: user, tip: id, events: events,
            targeted: Resolver.admits(tip.targeting, id: id, context: context, user: user),
            context: reported.properties.filter { key, _ in ReportedContext.paths.contains { $0.1 == key } }
                .merging(attributes.mapValues(\.plainText)) { reported, _ in reported },
            explanation: engine.explain(tip: id)!,
            steps: Array(steps.suffix(EligibilityTrace.maximumSteps))
        )
    }

    static func describe(_ input: EventScript.Input) -> String {
        switch input {
        case .event(let name, let target, let properties):
            // The app's own properties, which rules may test; what every event reports is in the context lines.
            ([target.map { "\(name):\($0)" } ?? name]
                + properties.filter { key, _ in !ReportedContext.paths.contains { $0.1 == key } }.sorted { $0.key < $1.key }.map {
                    "\($0.key)=\(Self.describe($0.value))"
                }).joined(separator: " ")
        case .tick: "time passes"
        case .context(let values):
            "context "
                + values.sorted { $0.key < $1.key }.compactMap { path, value in value.map { "\(path)=\(Self.describe($0))" } }.joined(
                    separator: " ")
        case .container(let container, let visible): "\(container) \(visible ? "shown" : "hidden")"
        case .close(let tip): "close \(tip)"
        case .tip(let tip, let visible): "\(tip) \(visible ? "in sight" : "out of sight")"
        }
    }

    static func describe(_ value: ContextValue) -> String {
        switch value {
        case .string(let text): text
        case .number(let number): String(number)
        case .bool, .time, .version: value.literal.description
        }
    }

    static func describe(_ command: RenderCommand) -> String {
        var text = "\(command.action.rawValue) in \(command.container)"
        if let reason = command.reason { text += " (\(reason.rawValue))" }
        return text
    }
}
