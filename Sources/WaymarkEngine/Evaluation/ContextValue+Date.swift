import Foundation
import WaymarkRules

/// Times from Foundation's dates.
extension ContextValue {
    /// A time value of a `Date`, to the millisecond: `"firstOrderAt": .time(order.date)`.
    public static func time(_ date: Date) -> ContextValue {
        .time(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }
}
