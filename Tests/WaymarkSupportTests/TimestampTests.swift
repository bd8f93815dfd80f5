import Foundation
import Testing
import WaymarkSupport

/// RFC 3339 written and read back without a formatter.
@Suite struct TimestampTests {
    /// A date made of whole milliseconds, as a store reads one back, is written with exactly those
    /// milliseconds (seconds times a thousand can fall a hair below the whole number).
    @Test func aDateOfWholeMillisecondsIsWrittenWithThem() {
        var differing: [Int64] = []
        for millis in stride(from: Int64(1_795_000_000_000), to: 1_795_000_020_000, by: 1) {
            let date = Date(timeIntervalSince1970: Double(millis) / 1000)
            if Timestamp.format(date) != Timestamp.format(millis) { differing.append(millis) }
        }
        #expect(differing.isEmpty, "\(differing.count) of 20,000, first \(differing.first ?? 0)")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1_795_000_000.1239)) == "2026-11-18T11:06:40.123Z", "rounded down")
    }

    @Test func writesUTCWithMillisecondsOnlyWhenThereAreAny() {
        #expect(Timestamp.format(0) == "1970-01-01T00:00:00Z")
        #expect(Timestamp.format(1_767_261_600_250) == "2026-01-01T10:00:00.250Z")
        #expect(Timestamp.format(1_767_261_600_007) == "2026-01-01T10:00:00.007Z")
        #expect(Timestamp.format(-1) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.format(951_782_400_000) == "2000-02-29T00:00:00Z")
        // Years before 1000 keep four digits, as RFC 3339 (and the reader) want.
        #expect(Timestamp.format(-30_610_224_000_000) == "1000-01-01T00:00:00Z")
        #expect(Timestamp.format(-30_641_760_000_000) == "0999-01-01T00:00:00Z")
    }

    @Test func whatIsWrittenReadsBackAsTheSameMoment() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let millis = Int64.random(in: -60_000_000_000_000...250_000_000_000_000, using: &random)
            #expect(Timestamp.parse(Timestamp.format(millis)) == millis, "\(millis)")
        }
        #expect(Timestamp.parse("2026-01-01T15:30:00.250+05:30") == 1_767_261_600_250)
        #expect(Timestamp.parse("2026-02-29T10:00:00Z") == nil)
    }
}
