import Foundation

/// When a pattern of events counts as a sign that people are lost (docs/struggles.md). The
/// defaults suit most apps; an app with slow screens (a payment that takes seconds) may want longer
/// windows, which its catalog sets under `struggles:`.
public struct StruggleThresholds: Hashable, Sendable, Codable {
    /// A rage tap: at least `rageTaps` taps on one element with at most `rageSeconds` from the first
    /// to the last.
    public var rageTaps = 3
    public var rageSeconds = 2.0
    /// A dead tap: no event but taps on the same element for `deadSeconds` after it, while the
    /// visit goes on (a tap that ends the visit may have left the app on purpose), and no other
    /// screen within `slowScreenSeconds` (a screen that comes late on a slow network still
    /// answered the tap).
    public var deadSeconds = 2.0
    public var slowScreenSeconds = 6.0
    /// A U-turn: a screen left for the one before it within `uTurnSeconds` of arriving.
    public var uTurnSeconds = 5.0
    /// Back and forth: `backAndForthReturns` returns to a screen from the same other screen in a
    /// visit, each after at most `backAndForthSeconds` there.
    public var backAndForthReturns = 2
    public var backAndForthSeconds = 30.0
    /// Idle: at least `idleSeconds` without an event on a screen before going to another.
    public var idleSeconds = 60.0
    /// A visit ends after `visitGapSeconds` without an event. (Not at `activation`: a web app of
    /// many pages sends one on every page it loads.)
    public var visitGapSeconds = 1800.0
    /// Stopped: a screen from which at least `stopNextShare` of visits went on to one screen, and
    /// at least `stopShare` ended, among at least `stopVisits` visits.
    public var stopNextShare = 0.4
    public var stopShare = 0.25
    public var stopVisits = 20

    public init() {}

    /// The settings a catalog's `struggles:` may change, by name, with the values each may take.
    public static let wholeSettings:
        [(name: String, path: any WritableKeyPath<StruggleThresholds, Int> & Sendable, range: ClosedRange<Int>)] =
            [
                ("rageTaps", \.rageTaps, 2...20), ("backAndForthReturns", \.backAndForthReturns, 1...20),
                ("stopVisits", \.stopVisits, 1...100_000),
            ]
    public static let numberSettings:
        [(name: String, path: any WritableKeyPath<StruggleThresholds, Double> & Sendable, range: ClosedRange<Double>)] = [
            ("rageSeconds", \.rageSeconds, 0.2...30), ("deadSeconds", \.deadSeconds, 0.2...60),
            ("slowScreenSeconds", \.slowScreenSeconds, 0.2...120),
            ("uTurnSeconds", \.uTurnSeconds, 0.5...120), ("backAndForthSeconds", \.backAndForthSeconds, 1...600),
            ("idleSeconds", \.idleSeconds, 5...3600), ("visitGapSeconds", \.visitGapSeconds, 60...86_400),
            ("stopNextShare", \.stopNextShare, 0...1),
            ("stopShare", \.stopShare, 0...1),
        ]

    /// A number as a catalog writes it: `90`, `0.4`, whatever the machine's locale.
    public static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
