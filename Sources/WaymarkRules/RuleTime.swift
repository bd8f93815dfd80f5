/// Moments as the rule language writes them: a date (`2026-01-15`, midnight UTC) or an RFC 3339
/// date-time (`2026-01-15T10:30:00Z`, `2026-01-15T16:00:00+05:30`, with an optional fraction of
/// a second), held as whole milliseconds since 1970-01-01T00:00:00Z (finer digits are dropped).
///
/// Years run from 0000 to 9999, after the offset is applied. The module has no Foundation, so the
/// calendar arithmetic is here, in the proleptic Gregorian calendar every SDK uses.
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
        let bytes = Array(text.utf8)
        var position = 0
        func digits(_ count: Int) -> Int? {
            guard position + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<(position + count)] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            position += count
            return value
        }
        func skip(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }
        guard let year = digits(4), skip(UInt8(ascii: "-")), let month = digits(2), skip(UInt8(ascii: "-")),
            let day = digits(2), (1...12).contains(month), (1...daysIn(month, of: year)).contains(day)
        else { return nil }
        var millis = Int64(daysFromCivil(year, month, day)) * 86_400_000
        if position == bytes.count { return millis }
        guard skip(UInt8(ascii: "T")) || skip(UInt8(ascii: "t")), let hour = digits(2), skip(UInt8(ascii: ":")),
            let minute = digits(2), skip(UInt8(ascii: ":")), let second = digits(2), hour <= 23, minute <= 59, second <= 60
        else { return nil }
        millis += Int64(hour * 3_600_000 + minute * 60_000 + second * 1_000)
        if skip(UInt8(ascii: ".")) {
            var fraction = 0
            var count = 0
            while position < bytes.count, bytes[position] >= 0x30 && bytes[position] <= 0x39 {
                if count < 3 { fraction = fraction * 10 + Int(bytes[position] - 0x30) }
                count += 1
                position += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<max(count, 3) { fraction *= 10 }
            millis += Int64(fraction)
        }
        if skip(UInt8(ascii: "Z")) || skip(UInt8(ascii: "z")) {
            // UTC.
        } else {
            let sign: Int64
            if skip(UInt8(ascii: "+")) {
                sign = 1
            } else if skip(UInt8(ascii: "-")) {
                sign = -1
            } else {
                return nil
            }
            guard let hours = digits(2), skip(UInt8(ascii: ":")), let minutes = digits(2), hours <= 23, minutes <= 59 else {
                return nil
            }
            millis -= sign * Int64(hours * 3_600_000 + minutes * 60_000)
        }
        guard position == bytes.count, (earliest...latest).contains(millis) else { return nil }
        return millis
    }

    /// The moment as the language prints it, in UTC: a date alone at midnight (`2026-01-15`), else
    /// `2026-01-15T10:30:00Z`, with milliseconds only when there are any (`…:00.250Z`).
    public static func format(_ millis: Int64) -> String {
        let day = millis.floorDivided(by: 86_400_000)
        let (year, month, date) = civilFromDays(day)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(date, 2)
        let rest = Int(millis - day * 86_400_000)
        if rest == 0 { return text }
        text += "T" + pad(rest / 3_600_000, 2) + ":" + pad(rest / 60_000 % 60, 2) + ":" + pad(rest / 1_000 % 60, 2)
        if rest % 1_000 != 0 { text += "." + pad(rest % 1_000, 3) }
        return text + "Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthIndex = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * monthIndex + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    static func civilFromDays(_ days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }
}

extension Int64 {
    /// Division rounding towards minus infinity: the day of a moment before 1970 is the one before.
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
