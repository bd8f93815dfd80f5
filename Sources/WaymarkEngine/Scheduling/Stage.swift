/// One arbiter for everything an SDK draws on a screen: from the surfaces that want it, their kinds,
/// priorities, order and measured rectangles, which show and which wait (until the screen is free).
/// The web SDK applies it to what it draws; an app that draws its own tips, tours and panels asks it
/// the same question and gets the same answer (`conformance/stage/cases.json`).
///
/// In order of rank (panel, modal, tip, marker, dock), then higher priority, then earlier order:
/// panels (what the user opened) show; one modal (a tour, a modal tip, a spotlight) shows when no
/// panel is open, and while it does nothing else does; a tip or a marker shows when it overlaps
/// nothing that shows; the dock of launcher buttons shows when no modal does and it overlaps
/// nothing that shows. A surface without a rectangle is away (its anchor is gone or off the
/// screen): it neither shows nor stands in the way.
public enum Stage {
    /// What a surface is, in the order the stage serves them.
    public enum Kind: String, Sendable, Codable, Comparable {
        /// What the user opened: a checklist's or the help's panel, an open tour. Always shows.
        case panel
        /// What takes the whole screen: a modal tip (a survey), a spotlight, a tour the stage
        /// arranges. One at a time, and nothing beside it.
        case modal
        /// A tip beside its anchor, or a banner.
        case tip
        /// A hotspot's marker, before its tip is opened.
        case marker
        /// The bar of launcher buttons.
        case dock

        var rank: Int {
            switch self {
            case .panel: 0
            case .modal: 1
            case .tip: 2
            case .marker: 3
            case .dock: 4
            }
        }

        public static func < (a: Kind, b: Kind) -> Bool { a.rank < b.rank }
    }

    /// A rectangle on the screen, in points or CSS pixels.
    public struct Box: Sendable, Codable, Hashable {
        /// The left edge.
        public var left: Double
        /// The top edge.
        public var top: Double
        /// The right edge.
        public var right: Double
        /// The bottom edge.
        public var bottom: Double

        /// The rectangle between these edges.
        public init(left: Double, top: Double, right: Double, bottom: Double) {
            self.left = left
            self.top = top
            self.right = right
            self.bottom = bottom
        }

        /// Whether the two share an area (touching edges do not).
        public func overlaps(_ other: Box) -> Bool {
            left < other.right && other.left < right && top < other.bottom && other.top < bottom
        }
    }

    /// Something that wants the screen.
    public struct Surface: Sendable, Codable, Hashable {
        /// What names it in the answer (a tip's id, "help", "tour").
        public var id: String
        /// What it is.
        public var kind: Kind
        /// Higher goes first within a kind (a tip's priority).
        public var priority: Int
        /// Earlier goes first among equals (when it asked for the screen).
        public var order: Int
        /// Where it is; nil while it is away.
        public var box: Box?

        /// A surface of `kind` at `box`, with a priority and an order among equals.
        public init(id: String, kind: Kind, priority: Int = 0, order: Int = 0, box: Box?) {
            self.id = id
            self.kind = kind
            self.priority = priority
            self.order = order
            self.box = box
        }
    }

    /// The ids of the surfaces that show; the others wait.
    public static func arrange(_ surfaces: [Surface]) -> Set<String> {
        let sorted = surfaces.sorted { ($0.kind.rank, -$0.priority, $0.order) < ($1.kind.rank, -$1.priority, $1.order) }
        var shown: [(id: String, box: Box)] = []
        var modal = false
        for surface in sorted {
            guard let box = surface.box else { continue }
            let free = !shown.contains { box.overlaps($0.box) }
            let show = surface.kind == .panel || (!modal && (surface.kind == .modal ? shown.isEmpty : free))
            guard show else { continue }
            shown.append((surface.id, box))
            modal = modal || surface.kind == .modal
        }
        return Set(shown.map(\.id))
    }
}
