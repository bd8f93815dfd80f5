import Foundation
import WaymarkAPI
import WaymarkEngine
import WaymarkSupport

/// Tips from a delivered catalog, for the engine.
extension Tip {
    /// The engine's view of a delivered tip: where and when it shows, not what it says.
    public init(_ tip: DeliveredTip) {
        self.init(
            id: tip.id, container: tip.container, anchor: tip.anchor, trigger: tip.trigger, dismissal: tip.dismissal,
            priority: tip.priority, group: tip.group, order: tip.order,
            policy: DisplayPolicy(
                maxDisplayCount: tip.policy.maxDisplayCount, maxDisplayDuration: tip.policy.maxDisplayDuration,
                expiresAt: tip.policy.expiresAt.flatMap(Timestamp.date)
            )
        )
    }
}
