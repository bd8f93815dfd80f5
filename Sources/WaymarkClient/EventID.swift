import Foundation
import WaymarkEngine

/// Event ids as the server wants them: UUID version 7 (RFC 9562), time-ordered so that inserting
/// them appends to the end of the database's index instead of splitting pages at random.
///
/// The 48-bit millisecond time comes first; the next 12 bits are a counter (RFC 9562, method 1)
/// so that ids made in the same millisecond still sort in the order they were made.
public enum EventID {
    private static let shared = Generator()

    public static func make(at date: Date = Date()) -> String {
        shared.make(at: date)
    }

    /// Ids in order from one sequence; the SDK shares one for the whole process.
    final class Generator: Sendable {
        private let last = Locked((millis: Int64(0), counter: UInt16(0)))
        private static let digits = Array("0123456789abcdef".utf8)

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
            // 8-4-4-4-12 hex digits, written without a string per byte: an id is made per event.
            var text: [UInt8] = []
            text.reserveCapacity(36)
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
                text.append(Self.digits[Int(byte >> 4)])
                text.append(Self.digits[Int(byte & 0x0F)])
            }
            return String(decoding: text, as: UTF8.self)
        }
    }
}
