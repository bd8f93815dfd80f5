import Foundation
import Testing
import WaymarkStore
import WaymarkSupport

/// The user sets the folded days keep: their bytes, their unions, and the tallies made of them.
@Suite struct UserSetTests {
    static func members(_ numbers: [UInt32], events: Int = 1) -> [(number: UInt32, events: Int)] {
        numbers.map { ($0, events) }
    }

    static func set(_ members: [(number: UInt32, events: Int)]) -> [UInt8] { UserSet.encode(members) }

    static func same(_ a: [(number: UInt32, events: Int)], _ b: [(number: UInt32, events: Int)]) -> Bool {
        a.map(\.number) == b.map(\.number) && a.map(\.events) == b.map(\.events)
    }

    @Test func setsComeBackAsTheyWentIn() throws {
        #expect(UserSet.encode(Self.members([])).isEmpty)
        #expect(try UserSet.decode([UInt8]()).isEmpty)
        // Ascending, a user given twice once with the sum of their events, and the edges of a
        // byte and of 32 bits.
        let given: [(number: UInt32, events: Int)] = [
            (300, 1), (1, 2), (127, 1), (128, 200), (1, 3), (UInt32.max, 1), (16_384, 1), (0, 1),
        ]
        let bytes = UserSet.encode(given)
        let expected: [(number: UInt32, events: Int)] = [
            (0, 1), (1, 5), (127, 1), (128, 200), (300, 1), (16_384, 1), (UInt32.max, 1),
        ]
        #expect(Self.same(try UserSet.decode(bytes), expected))
        // Each member is its step from the one before, then its events: 0 and 1; 1 and 5; 126
        // and 1; 1 and 200 (two bytes).
        #expect(bytes.prefix(9) == [0, 1, 1, 5, 126, 1, 1, 0xC8, 0x01])
        // An erased user leaves with their events; the last one leaves no set.
        let (left, events) = try UserSet.removing(1, from: bytes)
        #expect(events == 5)
        #expect(Self.same(try UserSet.decode(try #require(left)), expected.filter { $0.number != 1 }))
        #expect(try UserSet.removing(7, from: Self.set([(7, 2)])) == (nil, 2))
        var random = SplitMix64(seed: 49)
        for _ in 0..<50 {
            let count = Int(random.next() % 2_000)
            var sums: [UInt32: Int] = [:]
            let members = (0..<count).map { _ in
                (number: UInt32(truncatingIfNeeded: random.next() % 100_000), events: Int(random.next() % 300) + 1)
            }
            for member in members { sums[member.number, default: 0] += member.events }
            let sorted = sums.sorted { $0.key < $1.key }.map { (number: $0.key, events: $0.value) }
            #expect(Self.same(try UserSet.decode(UserSet.encode(members)), sorted))
        }
    }

    @Test func denseNumbersTakeAboutTwoBytesEach() {
        // A day's users among 200,000 numbered ones, one in ten of them, with a few events each.
        let numbers = Array(stride(from: UInt32(1), to: 200_000, by: 10))
        #expect(UserSet.encode(Self.members(numbers, events: 3)).count == 40_000)
    }

    @Test func damagedBytesAreRefused() {
        // Ends after a number, before its events.
        #expect(throws: StoreError.self) { try UserSet.decode([0x05]) }
        // Ends inside a number.
        #expect(throws: StoreError.self) { try UserSet.decode([0x05, 0x01, 0x80]) }
        // A value longer than nine bytes.
        #expect(throws: StoreError.self) { try UserSet.decode([UInt8](repeating: 0xFF, count: 10) + [0x01, 0x01]) }
        // Steps that add up past 32 bits.
        #expect(throws: StoreError.self) { try UserSet.decode(UserSet.encode([(UInt32.max, 1)]) + [0x01, 0x01]) }
        var users = DistinctUsers()
        #expect(throws: StoreError.self) { try users.insert(set: [0x80]) }
    }

    @Test func unionsCountEachUserOnceAcrossTheSwitchToABitmap() throws {
        var random = SplitMix64(seed: 20_261_203)
        var users = DistinctUsers()
        var expected: Set<UInt32> = []
        // Sparse first (a hash set), then dense enough for a bitmap, then numbers past its end.
        for round in 0..<40 {
            let range: UInt64 = round < 10 ? 1_000_000 : 60_000 + UInt64(round) * 5_000
            let numbers = (0..<1_500).map { _ in UInt32(random.next() % range) }
            try users.insert(set: UserSet.encode(Self.members(numbers)))
            expected.formUnion(numbers)
            #expect(users.count == expected.count, "round \(round)")
        }
        #expect(users.isBitmap)
        // Far past the bitmap's end: kept apart, not a bitmap of half a gigabyte.
        users.insert(UInt32.max - 1)
        users.insert(UInt32.max - 1)
        expected.insert(UInt32.max - 1)
        users.insert(id: "new-user")
        users.insert(id: "new-user")
        #expect(users.count == expected.count + 1)
    }

    @Test func aTallyUnitesSetsAndTheUsersOfDaysNotFolded() throws {
        var tally = UserSetTally()
        // Two days' sets of one group, overlapping in 2 and 3.
        try tally.add(name: "tip_shown", keys: ["t1"], events: 5, set: UserSet.encode(Self.members([1, 2, 3])))
        try tally.add(name: "tip_shown", keys: ["t1"], events: 4, set: UserSet.encode(Self.members([2, 3, 4])))
        // A day not folded: user 4 again by number, a user numbered nowhere, by id.
        tally.add(name: "tip_shown", keys: ["t1"], events: 2, number: 4, user: "u4")
        tally.add(name: "tip_shown", keys: ["t1"], events: 1, number: nil, user: "u9")
        tally.add(name: "tip_shown", keys: ["t1"], events: 1, number: nil, user: "u9")
        // Another group, and one left with no events (an erasure took them).
        try tally.add(name: "tip_shown", keys: [nil], events: 1, set: UserSet.encode(Self.members([1])))
        try tally.add(name: "tip_closed", keys: ["t1"], events: 0, set: UserSet.encode(Self.members([])))
        #expect(
            Set(tally.rows) == [
                TallyRow(name: "tip_shown", keys: ["t1"], events: 13, users: 5),
                TallyRow(name: "tip_shown", keys: [nil], events: 1, users: 1),
            ])
    }

    @Test func aGroupedTallySplitsEachSetByItsUsersGroups() throws {
        let grouping = UserGrouping(["u1": "gold", "u2": "gold", "u3": "silver"], others: "(none)")
        var tally = UserSetTally(grouping: grouping, numbered: [(1, "u1"), (2, "u2"), (3, "u3"), (4, "u4")])
        try tally.add(name: "tip_shown", keys: ["t1"], events: 9, set: Self.set([(1, 2), (3, 4), (4, 3)]))
        try tally.add(name: "tip_shown", keys: ["t1"], events: 3, set: Self.set([(1, 1), (2, 2)]))
        // A number no user has (none should be) falls with the others.
        try tally.add(name: "tip_shown", keys: ["t1"], events: 1, set: Self.set([(9, 1)]))
        // Days not folded: u3 again by number, u7 not numbered yet and named by the grouping.
        tally.add(name: "tip_shown", keys: ["t1"], events: 1, number: 3, user: "u3")
        tally.add(name: "tip_shown", keys: ["t1"], events: 2, number: nil, user: "u7")
        #expect(
            Set(tally.rows) == [
                TallyRow(name: "tip_shown", keys: ["t1", "gold"], events: 5, users: 2),
                TallyRow(name: "tip_shown", keys: ["t1", "silver"], events: 5, users: 1),
                TallyRow(name: "tip_shown", keys: ["t1", "(none)"], events: 6, users: 3),
            ])
    }
}
