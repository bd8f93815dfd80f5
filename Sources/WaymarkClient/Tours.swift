import Foundation
import WaymarkAPI
import WaymarkEngine
import WaymarkRules
import WaymarkSupport

extension WaymarkClient {
    /// A tour whose trigger held, for the app to open at `page` (from 0: the furthest the user
    /// reached, here or on their other devices).
    public struct TourStart: Hashable, Sendable {
        /// The tour, as delivered.
        public var tour: DeliveredTour
        /// The page to open it at.
        public var page: Int
    }

    /// The catalog's tours as the tour gate reads them.
    static func gated(_ tours: [DeliveredTour]) -> [TourGate.Tour] {
        tours.map { TourGate.Tour(id: $0.id, trigger: $0.trigger, pages: $0.pages.count) }
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
    /// opens by its trigger until it ends (``tourEnded(_:page:_:)``) or is left
    /// (``tourLeft()``).
    public func tourOpened(_ id: String) {
        state.withLock { $0.tours.opened(id) }
    }

    /// Tells the client the open tour went away without the user ending it (the app closed its
    /// panel, the user left the screen): its trigger opens it again, where they were.
    public func tourLeft() {
        state.withLock { $0.tours.left() }
    }

    /// Opens the first tour whose trigger holds, unless one is open or the user ended it.
    func openDueTour() {
        guard options.onTour != nil else { return }
        let start = state.withLock { state -> TourStart? in
            guard let opening = state.tours.openDue(), let tour = state.entry?.catalog.tours.first(where: { $0.id == opening.tour })
            else { return nil }
            return TourStart(tour: tour, page: opening.page)
        }
        if let start { options.onTour?(start) }
    }

    /// Keeps what the tour triggers have seen (at ``stop()``).
    func saveTriggers() {
        triggerFile.save(state.withLock { $0.tours.snapshot })
    }
}
