import Foundation
import WaymarkRules

/// How a tour ended: what the user said with the button that closed it.
public enum TourEnding: String, Sendable, Codable, Hashable {
    /// Read to the end (the last page's Done), or left through a button that leads where the tour
    /// points (a route, another tour).
    case finished
    /// Closed: its ×, Esc, a `dismiss` button.
    case dismissed

    /// What pressing a button of `kind` on a tour page does to the tour: a `dismiss` button
    /// dismisses it, a `route` or `tour` button finishes it (the user goes where it leads); `next`
    /// moves it on and `url` opens a web page beside it, so neither ends it.
    public static func ofButton(_ kind: String) -> TourEnding? {
        switch kind {
        case "dismiss": .dismissed
        case "route", "tour": .finished
        default: nil
        }
    }
}

/// Which tour opens by its trigger, and when, as every SDK decides it (docs/rules.md#tours).
///
/// One tour is open at a time. When none is, the first tour in catalog order whose trigger holds
/// and that has not ended opens, at the furthest page the user reached. A tour that ended, finished
/// or dismissed, here or on another of the user's devices, never opens by its trigger again, even
/// while that trigger still holds; the app (or a button) may still open it. A tour left open, the
/// app closed or the page reloaded under it, has not ended: its trigger opens it again where the
/// user was. The gate is pure: callers tell it what the user did and ask it what opens.
/// `conformance/engine/tours.json` holds the cases every SDK plays.
public struct TourGate: Sendable {
    /// A tour as the gate needs it: its id, its trigger (nil: only the app opens it) and how many
    /// pages it has.
    public struct Tour: Sendable, Hashable {
        /// The tour's id in the catalog.
        public var id: String
        /// When it opens by itself; nil: only when the app opens it.
        public var trigger: Rule?
        /// How many pages it has.
        public var pages: Int

        /// A tour with this trigger and number of pages.
        public init(id: String, trigger: Rule?, pages: Int) {
            self.id = id
            self.trigger = trigger
            self.pages = pages
        }
    }

    /// A tour to open, at a page (from 0).
    public struct Opening: Sendable, Hashable {
        /// The tour's id.
        public var tour: String
        /// The page to open it at, from 0: the furthest the user reached, within its pages.
        public var page: Int
    }

    /// The tours that open by a trigger, in catalog order.
    private let triggered: [Tour]
    /// Every tour's number of pages, by id.
    private let pages: [String: Int]
    private var evaluator: Evaluator
    /// The user's progress with each tour, by id: what is shared with their other devices.
    public private(set) var progress: [String: TourProgress]
    /// The tour open now, if the gate or the app opened one.
    public private(set) var open: String?

    /// The gate on `tours`, going on from `progress` and what the triggers had seen (`snapshot`).
    public init(tours: [Tour], progress: [String: TourProgress] = [:], restoring snapshot: EvaluatorSnapshot? = nil) {
        triggered = tours.filter { $0.trigger != nil }
        pages = Dictionary(tours.map { ($0.id, $0.pages) }, uniquingKeysWith: { first, _ in first })
        evaluator = Evaluator(rules: triggered.compactMap(\.trigger), restoring: snapshot)
        self.progress = progress
    }

    /// The gate on a newer catalog's tours, keeping the progress, the open tour and what the
    /// triggers have seen.
    public func replacingTours(_ tours: [Tour]) -> TourGate {
        var gate = TourGate(tours: tours, progress: progress, restoring: snapshot)
        gate.open = open
        return gate
    }

    /// What the triggers have seen, to keep across restarts.
    public var snapshot: EvaluatorSnapshot { evaluator.snapshot() }

    /// An event the user did, for the triggers.
    public mutating func record(_ name: String, target: String?, properties: [String: ContextValue], at time: Date) {
        evaluator.record(name, target: target, properties: properties, at: time)
    }

    /// Context values the triggers compare (nil removes one).
    public mutating func setContext(_ values: [String: ContextValue?], at time: Date) {
        for (path, value) in values { evaluator.setContext(path, to: value, at: time) }
    }

    /// Whether the tour ended, finished or dismissed, here or elsewhere.
    public func hasEnded(_ tour: String) -> Bool { progress[tour]?.ended == true }

    /// The app (or a button) opened `tour`: no other opens by its trigger while it is open.
    public mutating func opened(_ tour: String) { open = tour }

    /// The user reached `page` of `tour`. Answers whether the progress grew.
    @discardableResult
    public mutating func reached(_ tour: String, page: Int) -> Bool {
        merge([tour: TourProgress(page: max(0, page))])
    }

    /// The user ended `tour` at `page`, as `ending` says. Answers whether the progress grew.
    @discardableResult
    public mutating func ended(_ tour: String, page: Int, _ ending: TourEnding) -> Bool {
        if open == tour { open = nil }
        return merge([tour: TourProgress(page: max(0, page), finished: ending == .finished, dismissed: ending == .dismissed)])
    }

    /// The user pressed a button of `kind` on `page` of `tour` (leading to `to`): `next` moves on,
    /// or finishes the tour on its last page; the others end it as ``TourEnding/ofButton(_:)``
    /// says, and a `tour` button's tour is open. Answers whether the progress grew.
    @discardableResult
    public mutating func pressed(_ tour: String, page: Int, kind: String, to: String?) -> Bool {
        if kind == "next" {
            return page + 1 < pages[tour] ?? 0 ? reached(tour, page: page + 1) : ended(tour, page: page, .finished)
        }
        guard let ending = TourEnding.ofButton(kind) else { return false }
        let grew = ended(tour, page: page, ending)
        if kind == "tour", let to { opened(to) }
        return grew
    }

    /// The open tour went away without ending (the app closed it, another replaced it).
    public mutating func left() { open = nil }

    /// Takes in progress from the user's other devices (a join). Answers whether it grew; an open
    /// tour that ended elsewhere is no longer open.
    @discardableResult
    public mutating func merge(_ other: [String: TourProgress]) -> Bool {
        let merged = progress.merging(other) { $0.merged(with: $1) }
        defer { progress = merged }
        if let open, merged[open]?.ended == true { self.open = nil }
        return merged != progress
    }

    /// The tour to open now, if any, marked open: none while one is open; else the first whose
    /// trigger holds and that has not ended, at the furthest page reached.
    public mutating func openDue() -> Opening? {
        guard open == nil,
            let index = triggered.indices.first(where: { evaluator.value(ofRule: $0) && !hasEnded(triggered[$0].id) })
        else { return nil }
        let tour = triggered[index]
        open = tour.id
        return Opening(tour: tour.id, page: min(progress[tour.id]?.page ?? 0, max(tour.pages - 1, 0)))
    }
}
