import Foundation
import WaymarkRules

/// The rule language's semantics written as plainly as possible: every question is answered by
/// scanning the whole history. Slow on purpose; it is the specification that ``Evaluator`` is
/// tested against, and a readable statement of what each construct means.
public struct ReferenceEvaluator: Sendable {
    /// One recorded event.
    public struct Event: Hashable, Sendable {
        /// The event's name.
        public var name: String
        /// The event's target, if it has one.
        public var target: String?
        /// The event's properties.
        public var properties: [String: ContextValue]
        /// When it happened, after the evaluator made times monotonic.
        public var time: Date

        /// An event named `name` on `target` with `properties` at `time`.
        public init(name: String, target: String? = nil, properties: [String: ContextValue] = [:], time: Date) {
            self.name = name
            self.target = target
            self.properties = properties
            self.time = time
        }

        /// Whether the event matches a rule's event pattern.
        func matches(_ pattern: EventPattern) -> Bool {
            pattern.matches(name: name, target: target, properties: properties)
        }
    }

    /// Every event, in arrival order, with times made monotonic as the engine makes them.
    public private(set) var history: [Event] = []
    /// The context values set so far, by path.
    public private(set) var context: [String: ContextValue] = [:]
    /// The latest time seen.
    public private(set) var now: Date?

    /// An evaluator with no history.
    public init() {}

    /// Records an event; a time before the latest seen counts as the latest.
    public mutating func record(
        _ name: String, target: String? = nil, properties: [String: ContextValue] = [:], at time: Date
    ) {
        let time = advance(to: time)
        history.append(Event(name: name, target: target, properties: properties, time: time))
    }

    /// Sets a context value (`nil` removes it) at `time`.
    public mutating func setContext(_ path: String, to value: ContextValue?, at time: Date) {
        advance(to: time)
        context[path] = value
    }

    /// Moves the clock forward (never back) and returns the current time.
    @discardableResult
    public mutating func advance(to time: Date) -> Date {
        let millis = max(time.millis, now?.millis ?? .min)
        now = Date(millis: millis)
        return now!
    }

    /// The value of a rule now.
    public func value(of rule: Rule) -> Bool {
        let now = self.now?.millis ?? 0
        switch rule {
        case .constant(let value):
            return value
        case .not(let operand):
            return !value(of: operand)
        case .and(let operands):
            return operands.allSatisfy { value(of: $0) }
        case .or(let operands):
            return operands.contains { value(of: $0) }
        case .sequence(let events, let window) where events.count == 1:
            return history.contains { event in
                event.matches(events[0]) && inWindow(event, window, now)
            }
        case .sequence(let events, let window):
            return sequenceOccurred(events, window: window)
        case .count(let event, let comparator, let threshold, let window):
            let count = history.filter {
                $0.matches(event) && inWindow($0, window, now)
            }.count
            return comparator.holds(count, threshold)
        case .compare(let path, let comparator, let literal):
            return literal.compared(with: context[path.description], by: comparator)
        case .oneOf(let path, let literals):
            return literals.contains { $0.matches(context[path.description]) }
        }
    }

    private func inWindow(_ event: Event, _ window: Window?, _ now: Millis) -> Bool {
        guard let window else { return true }
        return now - event.time.millis <= window.milliseconds
    }

    /// Whether some events matched the stages in order, each after the previous in arrival order,
    /// with at most `window` between the first and the last. For each possible first event, taking
    /// every later stage at its earliest match gives the earliest possible last event.
    private func sequenceOccurred(_ events: [EventPattern], window: Window?) -> Bool {
        for start in history.indices where history[start].matches(events[0]) {
            var stage = 1
            var position = start + 1
            while stage < events.count && position < history.count {
                if history[position].matches(events[stage]) {
                    stage += 1
                    if stage == events.count { break }
                }
                position += 1
            }
            if stage == events.count {
                guard let window else { return true }
                if history[position].time.millis - history[start].time.millis <= window.milliseconds { return true }
            }
        }
        return false
    }
}
