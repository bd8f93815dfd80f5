import Foundation

/// RFC 3339 timestamps, read and written without a formatter (and so without locale or platform
/// differences): `2026-01-01T10:00:00Z`, `2026-01-01T15:30:00.250+05:30`.
public enum Timestamp {
    /// Milliseconds since 1970 for an RFC 3339 date-time, or `nil` if it is not one. Digits past
    /// milliseconds are dropped.
    public static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parse(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// ``parse(_:)`` on UTF-8 bytes, such as a string's in a request body (no `String` made).
    public static func parse(utf8 bytes: UnsafeRawBufferPointer) -> Int64? {
        var position = 0
        func number(_ digits: Int) -> Int? {
            guard position + digits <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let byte = bytes[position]
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
                position += 1
            }
            return value
        }
        func expect(_ characters: StaticString) -> Bool {
            guard position < bytes.count,
                UnsafeBufferPointer(start: characters.utf8Start, count: characters.utf8CodeUnitCount).contains(bytes[position])
            else { return false }
            position += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("Tt "), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 61
        else { return nil }
        var millis = 0
        if position < bytes.count && bytes[position] == UInt8(ascii: ".") {
            position += 1
            var digits = 0
            while position < bytes.count, bytes[position] >= 48 && bytes[position] <= 57 {
                if digits < 3 { millis = millis * 10 + Int(bytes[position] - 48) }
                digits += 1
                position += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { millis *= 10 }
        }
        var offsetMinutes = 0
        if expect("Zz") {
        } else if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
            let sign = bytes[position] == UInt8(ascii: "-") ? -1 : 1
            position += 1
            guard let offsetHours = number(2), expect(":"), let offsetMins = number(2), offsetHours < 24, offsetMins < 60
            else { return nil }
            offsetMinutes = sign * (offsetHours * 60 + offsetMins)
        } else {
            return nil
        }
        guard position == bytes.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offsetMinutes * 60
        return Int64(seconds) * 1000 + Int64(millis)
    }

    /// The date for an RFC 3339 text, or `nil`.
    public static func date(_ text: String) -> Date? {
        parse(text).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// RFC 3339 in UTC, with milliseconds only when there are any: `2026-01-01T10:00:00.250Z`.
    public static func format(_ millis: Int64) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(24)
        append(millis, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// Appends ``format(_:)-(Int64)``'s text to UTF-8 `output`, without making a string: replays
    /// write one per line.
    public static func append(_ millis: Int64, to output: inout [UInt8]) {
        let (secondsTotal, fraction) = floorDivide(millis, 1000)
        let (days, secondOfDay) = floorDivide(secondsTotal, 86_400)
        let (year, month, day) = civilFromDays(Int(days))
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                output.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        if (0...9999).contains(year) { digits(year, 4) } else { output.append(contentsOf: String(year).utf8) }
        output.append(UInt8(ascii: "-"))
        digits(month, 2)
        output.append(UInt8(ascii: "-"))
        digits(day, 2)
        output.append(UInt8(ascii: "T"))
        digits(Int(secondOfDay / 3600), 2)
        output.append(UInt8(ascii: ":"))
        digits(Int(secondOfDay % 3600 / 60), 2)
        output.append(UInt8(ascii: ":"))
        digits(Int(secondOfDay % 60), 2)
        if fraction != 0 {
            output.append(UInt8(ascii: "."))
            digits(Int(fraction), 3)
        }
        output.append(UInt8(ascii: "Z"))
    }

    /// RFC 3339 for a date, as ``format(_:)-(Int64)``.
    public static func format(_ date: Date) -> String {
        format(milliseconds(date))
    }

    /// Appends a date's RFC 3339 text to UTF-8 `output`, as ``append(_:to:)-(Int64,_)``.
    public static func append(_ date: Date, to output: inout [UInt8]) {
        append(milliseconds(date), to: &output)
    }

    /// Milliseconds since 1970, rounded down, as the engine keeps time. A date made from whole
    /// milliseconds (as stores read them back) gives them exactly: the seconds are a binary
    /// fraction, so its thousandfold may fall a hair below the whole number, which is first
    /// rounded to the microsecond.
    private static func milliseconds(_ date: Date) -> Int64 {
        Int64(((date.timeIntervalSince1970 * 1_000_000).rounded() / 1000).rounded(.down))
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let quotient = value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
        return (quotient, value - quotient * divisor)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
