import Foundation
import Testing

@testable import WaymarkSupport

@Suite struct EventIDTests {
    /// Event ids are checked by hand, against a regular expression on real UUIDs in both cases and
    /// on random mutations of them; whatever passes, Foundation's parser reads too (it also takes
    /// spaces and signs between the digits, which a store's `uuid` column would refuse).
    @Test func eventIDsAreUUIDsInTheirTextForm() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789abcdefABCDEFgG-x +\u{e9}")
        let form = try Regex("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
        var candidates = [
            "", "x", String(repeating: "0", count: 36), "00000000-0000-0000-0000-00000000000", "00000000-0000-0000-0000-0000000000000",
        ]
        for _ in 0..<2_000 {
            var text = Array(Bool.random(using: &generator) ? UUID().uuidString : UUID().uuidString.lowercased())
            for _ in 0..<Int.random(in: 0...2, using: &generator) {
                text[Int.random(in: 0..<text.count, using: &generator)] = alphabet.randomElement(using: &generator)!
            }
            candidates.append(String(text))
        }
        for text in candidates {
            let valid = EventID.isValid(text)
            #expect(valid == (text.wholeMatch(of: form) != nil), "\(text)")
            if valid { #expect(UUID(uuidString: text) != nil, "\(text)") }
            #expect(EventID.stored(text) == (valid ? text.lowercased() : nil), "\(text)")
        }
        #expect(EventID.stored("0190C0DE-0000-7000-8000-00000000000A") == "0190c0de-0000-7000-8000-00000000000a")
        #expect(EventID.isValid("0190c0de-0000-7000-8000-00000000000a", lowercase: true))
        #expect(!EventID.isValid("0190C0DE-0000-7000-8000-00000000000A", lowercase: true))
    }

    /// Made ids are valid, lowercase, and sort as their times and then their numbers do.
    @Test func madeIDsSortByTimeThenNumber() {
        let made = [(0, 0), (0, 1), (0, 0xFFFF_FFFF_FFFF), (1, 0), (1_790_000_000_000, 5), (1_790_000_000_001, 2)].map {
            EventID.make(milliseconds: Int64($0.0), number: $0.1)
        }
        #expect(made.allSatisfy { EventID.isValid($0, lowercase: true) && UUID(uuidString: $0) != nil })
        #expect(made == made.sorted())
        #expect(EventID.make(milliseconds: 0x0190_C0DE_1234, number: 10) == "0190c0de-1234-7000-8000-00000000000a")
    }

    @Test func eventIDsAreVersion7AndSortInTheOrderMade() {
        let date = Date(timeIntervalSince1970: 1_795_000_000.123)
        let sequence = EventID.Generator()
        var ids: [String] = []
        // Far more than the 12-bit counter holds in one millisecond.
        for _ in 0..<10_000 { ids.append(sequence.make(at: date)) }
        ids.append(sequence.make(at: date.addingTimeInterval(-60)))  // a clock stepping back
        ids.append(sequence.make(at: date.addingTimeInterval(1)))
        #expect(ids == ids.sorted())
        #expect(Set(ids).count == ids.count)
        for id in ids.prefix(100) {
            #expect(UUID(uuidString: id) != nil)
            #expect(id == id.lowercased())
            let characters = Array(id)
            #expect(characters[14] == "7")
            #expect("89ab".contains(characters[19]))
        }
        // The first 48 bits are the time in milliseconds.
        let millis = Int64(ids[0].replacingOccurrences(of: "-", with: "").prefix(12), radix: 16)
        #expect(millis == 1_795_000_000_123)
    }
}
