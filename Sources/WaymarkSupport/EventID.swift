import Foundation

/// Event ids: UUIDs, written as 36 characters of hex digits in groups of 8-4-4-4-12.
///
/// Clients make them as UUID version 7 (RFC 9562), time-ordered so that inserting them appends to
/// the end of the database's index instead of splitting pages at random: the 48-bit millisecond
/// time comes first, and the next 12 bits are a counter (RFC 9562, method 1) so that ids made in
/// the same millisecond still sort in the order they were made. The server accepts nothing but
/// UUIDs and stores them lowercase, so a store may keep them as 16 bytes (PostgreSQL's `uuid`) and
/// compare them as bytes.
///
/// ```swift
/// let id = EventID.make()                 // "0193f1c2-7a4e-7012-8c3d-5e6f7a8b9c0d"
/// EventID.stored(id.uppercased()) == id   // true: a retry in capitals is the same event
/// ```
public enum EventID {
    /// Whether `text` is a UUID in its 36-character form, in either case (or, with `lowercase`,
    /// only in lowercase, as stores keep ids).
    public static func isValid(_ text: String, lowercase: Bool = false) -> Bool {
        guard let capitals = hasCapitals(text) else { return false }
        return !(lowercase && capitals)
    }

    /// A valid id as stored: lowercase, so that a retry in capitals is the same event; `nil` when
    /// `id` is not a UUID.
    public static func stored(_ id: String) -> String? {
        guard let capitals = hasCapitals(id) else { return nil }
        return capitals ? id.lowercased() : id
    }

    /// For a UUID's text, whether it has capital letters; `nil` when it is not a UUID.
    private static func hasCapitals(_ text: String) -> Bool? {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == 36 else { return nil }
            var capitals = false
            for position in 0..<36 {
                let dash = position == 8 || position == 13 || position == 18 || position == 23
                switch bytes[position] {
                case UInt8(ascii: "-") where dash: continue
                case UInt8(ascii: "0")...UInt8(ascii: "9") where !dash, UInt8(ascii: "a")...UInt8(ascii: "f") where !dash: continue
                case UInt8(ascii: "A")...UInt8(ascii: "F") where !dash: capitals = true
                default: return nil
                }
            }
            return capitals
        }
    }

    /// A UUIDv7-shaped id for events made on the server's side (the demo's sample traffic, tests,
    /// benchmarks): 48 bits of milliseconds, then `number` in the last 48 bits, so ids made in
    /// order of time, and of number within a millisecond, sort in that order.
    public static func make(milliseconds: Int64, number: Int) -> String {
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        let time = UInt64(bitPattern: milliseconds) & 0xFFFF_FFFF_FFFF
        return hex(time >> 16, 8) + "-" + hex(time & 0xFFFF, 4) + "-7000-8000-" + hex(UInt64(number) & 0xFFFF_FFFF_FFFF, 12)
    }

    /// 16 bytes as a UUID's text: 8-4-4-4-12 lowercase hex digits, written without a string per
    /// byte (an id is made per event).
    public static func text<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let digits = Array("0123456789abcdef".utf8)

    private static let shared = Generator()

    /// A new time-ordered id for an event made at `date`, from one sequence for the whole process.
    public static func make(at date: Date = Date()) -> String {
        shared.make(at: date)
    }

    /// Ids in order from one sequence; the SDK shares one for the whole process.
    final class Generator: Sendable {
        private let last = Locked((millis: Int64(0), counter: UInt16(0)))

        func make(at date: Date) -> String {
            var generator = SystemRandomNumberGenerator()
            let (millis, counter) = last.withLock { state -> (Int64, UInt16) in
                let now = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
                if now > state.millis {
                    // Start low in the counter's range so that many ids fit in this millisecond.
                    state = (now, UInt16.random(in: 0..<0x400, using: &generator))
                } else if state.counter < 0xFFF {
                    state.counter += 1
                } else {
                    state = (state.millis + 1, 0)
                }
                return state
            }
            var bytes = [UInt8](repeating: 0, count: 16)
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: millis >> (40 - 8 * index)) }
            bytes[6] = 0x70 | UInt8(counter >> 8)
            bytes[7] = UInt8(truncatingIfNeeded: counter)
            let random = generator.next()
            for index in 8..<16 { bytes[index] = UInt8(truncatingIfNeeded: random >> (8 * (index - 8))) }
            bytes[8] = 0x80 | (bytes[8] & 0x3F)
            return EventID.text(bytes)
        }
    }
}
