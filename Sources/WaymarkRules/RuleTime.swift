import WaymarkSupport

/// Moments as the rule language writes them: a date (`2026-01-15`, midnight UTC) or an RFC 3339
/// date-time (`2026-01-15T10:30:00Z`, `2026-01-15T16:00:00+05:30`, with an optional fraction of
/// a second), held as whole milliseconds since 1970-01-01T00:00:00Z (finer digits are dropped).
///
/// Years run from 0000 to 9999, after the offset is applied. Date-times are read and written by
/// `Timestamp` (WaymarkSupport), the same as event times; the language adds the date alone and
/// refuses a space between date and time.
public enum RuleTime {
    /// The first moment the language can write: 0000-01-01T00:00:00Z.
    public static let earliest: Int64 = -62_167_219_200_000
    /// The last: 9999-12-31T23:59:59.999Z.
    public static let latest: Int64 = 253_402_300_799_999

    /// Milliseconds since 1970 for a date or an RFC 3339 date-time; `nil` for anything else.
    ///
    /// ```swift
    /// RuleTime.parse("2026-01-15")                 // 1768435200000
    /// RuleTime.parse("2026-01-15T05:30:00+05:30")  // the same moment
    /// ```
    public static func parse(_ text: some StringProtocol) -> Int64? {
        var text = String(text)
        guard !text.utf8.contains(UInt8(ascii: " ")) else { return nil }
        // A date alone is its midnight in UTC.
        if text.utf8.count == 10 { text += "T00:00:00Z" }
        guard let millis = Timestamp.parse(text), (earliest...latest).contains(millis) else { return nil }
        return millis
    }

    /// The moment as the language prints it, in UTC: a date alone at midnight (`2026-01-15`), else
    /// `2026-01-15T10:30:00Z`, with milliseconds only when there are any (`…:00.250Z`).
    public static func format(_ millis: Int64) -> String {
        let text = Timestamp.format(millis)
        return millis % 86_400_000 == 0 ? String(text.prefix(10)) : text
    }
}
