import Foundation
import WaymarkAPI
import WaymarkEngine
import WaymarkRules
import WaymarkSupport

/// The catalog's tour triggers as the client runs them, as the web SDK does: when a tour's trigger
/// holds, the tour opens (the app's ``WaymarkClient/Options/onTour`` is told), unless the user
/// finished it or another tour is open.
struct TourTriggers: Sendable {
    /// The tours that open by a trigger, in catalog order.
    private(set) var tours: [DeliveredTour]
    private var evaluator: Evaluator

    init(_ tours: [DeliveredTour], restoring snapshot: EvaluatorSnapshot? = nil) {
        self.tours = tours.filter { $0.trigger != nil }
        evaluator = Evaluator(rules: self.tours.compactMap(\.trigger), restoring: snapshot)
    }

    /// What the triggers have seen, to keep across restarts.
    var snapshot: EvaluatorSnapshot { evaluator.snapshot() }

    mutating func record(_ name: String, target: String?, properties: [String: ContextValue], at time: Date) {
        evaluator.record(name, target: target, properties: properties, at: time)
    }

    mutating func setContext(_ values: [String: ContextValue?], at time: Date) {
        for (path, value) in values { evaluator.setContext(path, to: value, at: time) }
    }

    /// The first tour whose trigger holds that `closed` does not rule out.
    func due(unless closed: (String) -> Bool) -> DeliveredTour? {
        tours.indices.first { evaluator.value(ofRule: $0) && !closed(tours[$0].id) }.map { tours[$0] }
    }
}

extension WaymarkClient {
    /// A tour whose trigger held, for the app to open at `page` (from 0: the furthest the user
    /// reached, here or on their other devices).
    public struct TourStart: Hashable, Sendable {
        /// The tour, as delivered.
        public var tour: DeliveredTour
        /// The page to open it at.
        public var page: Int
    }

    /// The user opened a page of a tour: sends `page_viewed` (target: the page; `tour`, `page`),
    /// from which the server measures reading time for a page's credit.
    @discardableResult
    public func pageViewed(tour: String, page: String) -> [RenderCommand] {
        record(DeliveredPage.viewedEvent, target: page, properties: ["tour": .string(tour), "page": .string(page)])
    }

    /// The user reached the bottom of a page: sends `page_read_to_bottom`. Claim the page's credit
    /// after it (``claim(tour:page:userHash:)`` sends it first).
    @discardableResult
    public func pageRead(tour: String, page: String) -> [RenderCommand] {
        record(DeliveredPage.readEvent, target: page, properties: ["tour": .string(tour), "page": .string(page)])
    }

    /// Tells the client the app opened a tour itself (`Waymark.startTour` on the web): no other
    /// opens by its trigger until it is finished (``tourProgressed(_:page:finished:)``).
    public func tourOpened(_ id: String) {
        state.withLock { $0.openTour = id }
    }

    /// Opens the first tour whose trigger holds, unless one is open or the user finished it.
    func openDueTour() {
        guard options.onTour != nil else { return }
        let start = state.withLock { state -> TourStart? in
            guard state.openTour == nil, let tour = state.triggers.due(unless: { state.tours[$0]?.finished == true }) else { return nil }
            state.openTour = tour.id
            return TourStart(tour: tour, page: min(state.tours[tour.id]?.page ?? 0, max(tour.pages.count - 1, 0)))
        }
        if let start { options.onTour?(start) }
    }

    /// Keeps what the tour triggers have seen (at ``stop()``).
    func saveTriggers() {
        triggerFile.save(state.withLock { $0.triggers.snapshot })
    }
}
