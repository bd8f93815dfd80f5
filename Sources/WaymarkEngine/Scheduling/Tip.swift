import Foundation
import WaymarkRules

/// A tip as the engine schedules it: where it shows, when (its rules), and how often (its policy).
/// Content (title, body, media) is the renderer's business and not the engine's.
public struct Tip: Hashable, Sendable {
    /// The tip's id, unique in its catalog.
    public var id: String
    /// The screen area the tip shows in; at most one tip per container at a time.
    public var container: String
    /// The element the tip points at, passed on to the renderer.
    public var anchor: String?
    /// The tip may show while this rule is true.
    public var trigger: Rule
    /// The tip finishes for good when this rule becomes true: the user did what it teaches.
    public var dismissal: Rule?
    /// Higher shows first when several tips want the same container.
    public var priority: Int
    /// Tips of one group form an ordered tour: a tip waits until every tip of its group with a
    /// lower `order` finished.
    public var group: String?
    /// The tip's place in its group's tour.
    public var order: Int
    /// How often and how long it may show.
    public var policy: DisplayPolicy

    /// A tip shown in `container` while `trigger` holds, until `dismissal` does.
    public init(
        id: String, container: String, anchor: String? = nil, trigger: Rule, dismissal: Rule? = nil,
        priority: Int = 0, group: String? = nil, order: Int = 0, policy: DisplayPolicy = DisplayPolicy()
    ) {
        self.id = id
        self.container = container
        self.anchor = anchor
        self.trigger = trigger
        self.dismissal = dismissal
        self.priority = priority
        self.group = group
        self.order = order
        self.policy = policy
    }
}

/// How often and how long a tip may show.
public struct DisplayPolicy: Hashable, Sendable {
    /// How many times the tip may appear (a show, or a resume after its container was hidden);
    /// when its container is hidden after the last one, the tip finishes instead of pausing.
    public var maxDisplayCount: Int?
    /// How long the tip may be visible in all, in seconds; paused time does not count.
    public var maxDisplayDuration: TimeInterval?
    /// After this moment the tip never shows, and finishes if it is showing.
    public var expiresAt: Date?

    /// A policy with these limits; `nil` is no limit.
    public init(maxDisplayCount: Int? = nil, maxDisplayDuration: TimeInterval? = nil, expiresAt: Date? = nil) {
        self.maxDisplayCount = maxDisplayCount
        self.maxDisplayDuration = maxDisplayDuration
        self.expiresAt = expiresAt
    }
}

/// The least time between two tips appearing (a resume does not count), over all containers, as
/// Apple's TipKit has it.
public enum DisplayFrequency: String, Hashable, Sendable, CaseIterable, Codable {
    /// No least time: a tip may appear as soon as its rules say.
    case immediate
    /// At most one tip appearing an hour.
    case hourly
    /// At most one a day.
    case daily
    /// At most one a week.
    case weekly
    /// At most one in 30 days.
    case monthly

    var milliseconds: Int64 {
        switch self {
        case .immediate: 0
        case .hourly: 3_600_000
        case .daily: 86_400_000
        case .weekly: 604_800_000
        case .monthly: 2_592_000_000
        }
    }
}

/// Where a tip is in its lifecycle: waiting -> active <-> paused -> finished.
public enum TipPhase: Hashable, Sendable {
    /// Its trigger has not held yet, or another tip holds its container.
    case waiting
    /// It is showing.
    case active
    /// Its container is hidden; it resumes as it was when the container shows again.
    case paused
    /// It will not show again, for this reason.
    case finished(FinishReason)
}

/// Why a tip finished. A finished tip never shows again.
public enum FinishReason: String, Hashable, Sendable, Codable, CaseIterable {
    /// Its dismissal rule became true.
    case dismissed
    /// The user closed it.
    case closed
    /// It appeared as many times as its policy allows.
    case maxDisplayCount
    /// It was visible as long as its policy allows.
    case maxDisplayDuration
    /// Its expiry date passed.
    case expired
    /// A new catalog does not have it.
    case removed
}

/// What a renderer must do: the engine decides, renderers (web, Apple, terminal) only draw.
public struct RenderCommand: Hashable, Sendable {
    /// What to do with the tip.
    public enum Action: String, Hashable, Sendable, Codable {
        /// Draw the tip now.
        case show
        /// Remove it for good; ``RenderCommand/reason`` says why.
        case hide
        /// Hide it for now, keeping its state: its container was hidden.
        case pause
        /// Draw it again as it was before the pause.
        case resume
    }

    /// What to do.
    public var action: Action
    /// The tip's id; its content is in the catalog.
    public var tip: String
    /// The screen area it shows in.
    public var container: String
    /// The element it points at, if any.
    public var anchor: String?
    /// Why a tip is hidden (`hide`): how it finished.
    public var reason: FinishReason?
    /// When the engine decided it.
    public var time: Date

    /// A command to `action` the tip `tip` in `container`.
    public init(
        action: Action, tip: String, container: String, anchor: String? = nil, reason: FinishReason? = nil,
        time: Date
    ) {
        self.action = action
        self.tip = tip
        self.container = container
        self.anchor = anchor
        self.reason = reason
        self.time = time
    }
}
