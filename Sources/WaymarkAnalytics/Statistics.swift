import Foundation

/// A share of successes among trials, with its 95% confidence interval.
///
/// The interval is Wilson's score interval, which stays inside 0...1 and behaves with small counts
/// and with rates near 0 or 1, where the textbook normal interval does not.
public struct Proportion: Hashable, Sendable {
    public var successes: Int
    public var trials: Int

    public init(_ successes: Int, of trials: Int) {
        self.successes = successes
        self.trials = trials
    }

    /// nil without trials.
    public var rate: Double? { trials > 0 ? Double(successes) / Double(trials) : nil }

    /// The 95% interval, nil without trials.
    public var interval: ClosedRange<Double>? {
        guard trials > 0 else { return nil }
        let n = Double(trials)
        let p = Double(successes) / n
        let z = Statistics.z95
        let denominator = 1 + z * z / n
        let centre = (p + z * z / (2 * n)) / denominator
        let half = z * (p * (1 - p) / n + z * z / (4 * n * n)).squareRoot() / denominator
        return max(0, centre - half)...min(1, centre + half)
    }
}

public enum Statistics {
    /// The two-sided 95% quantile of the normal distribution.
    public static let z95 = 1.959963984540054

    /// The two-sided p-value of the pooled two-proportion z-test: how likely a difference at least
    /// this large would be if both groups had the same rate. nil when either group has no trials
    /// or when nobody (or everybody) succeeded in both, where the test says nothing.
    public static func twoProportionPValue(_ a: Proportion, _ b: Proportion) -> Double? {
        guard a.trials > 0, b.trials > 0 else { return nil }
        let pooled = Double(a.successes + b.successes) / Double(a.trials + b.trials)
        let variance = pooled * (1 - pooled) * (1 / Double(a.trials) + 1 / Double(b.trials))
        guard variance > 0 else { return nil }
        let z = (Double(a.successes) / Double(a.trials) - Double(b.successes) / Double(b.trials)) / variance.squareRoot()
        return erfc(abs(z) / 2.0.squareRoot())
    }

    /// Whether a comparison of two groups has enough data for the normal approximation behind the
    /// z-test: at least 5 successes and 5 failures in each.
    public static func enoughForTest(_ groups: [Proportion]) -> Bool {
        groups.count >= 2 && groups.allSatisfy { $0.successes >= 5 && $0.trials - $0.successes >= 5 }
    }
}
