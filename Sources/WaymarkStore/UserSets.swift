import Foundation

/// A set of user numbers as the rollups keep it, each with its user's count of events: the
/// numbers ascending, each written as its difference from the one before and then its count, both
/// in LEB128 (seven bits a byte, the high bit set on all but a number's last byte). Users numbered
/// densely in the order they first appear, with a few events each, take about two bytes each in a
/// day's set, where a row a user took a hundred.
///
/// A user is numbered (per app, from 1) when the first day they appear in is folded; the folded
/// days keep, for each group of events (name, target, platform, app version and the reports'
/// properties), how many events it had and the set of its users, so that distinct users over
/// many days are unions of a few thousand sets instead of a distinct count over a row per user
/// and day, and a breakdown by the users' groups splits each set by its users.
public enum UserSet {
    /// The bytes of a set of users and their events, in any order; a user given twice has the
    /// sum of their events.
    public static func encode(_ members: some Sequence<(number: UInt32, events: Int)>) -> [UInt8] {
        var bytes: [UInt8] = []
        func append(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }
        var previous: UInt32 = 0
        for (number, events) in Dictionary(members.map { ($0.number, $0.events) }, uniquingKeysWith: +).sorted(by: { $0.key < $1.key }) {
            append(UInt64(number - previous))
            append(UInt64(max(0, events)))
            previous = number
        }
        return bytes
    }

    /// Calls `body` with each user's number, ascending, and their events; a set whose bytes end
    /// inside a member, or whose numbers do not fit 32 bits, is refused.
    public static func forEach(in bytes: UnsafeRawBufferPointer, _ body: (UInt32, Int) -> Void) throws(StoreError) {
        var number: UInt64 = 0
        var value: UInt64 = 0
        var shift: UInt64 = 0
        var isCount = false
        for byte in bytes {
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 != 0 {
                shift += 7
                guard shift < 63 else { throw StoreError(.failed, "a user set has a value longer than nine bytes") }
                continue
            }
            if isCount {
                body(UInt32(number), Int(value))
            } else {
                number += value
                guard number <= UInt64(UInt32.max) else { throw StoreError(.failed, "a user set's numbers pass 32 bits") }
            }
            isCount.toggle()
            value = 0
            shift = 0
        }
        guard shift == 0, !isCount else { throw StoreError(.failed, "a user set ends inside a member") }
    }

    /// The set without one user: its bytes (nil when no one is left) and the events it took away.
    public static func removing(_ number: UInt32, from bytes: some ContiguousBytes) throws(StoreError) -> (
        bytes: [UInt8]?, events: Int
    ) {
        let members = try decode(bytes)
        let left = members.filter { $0.number != number }
        let events = members.reduce(0) { $0 + ($1.number == number ? $1.events : 0) }
        return (left.isEmpty ? nil : encode(left), events)
    }

    /// The members of a set, ascending by number.
    public static func decode(_ bytes: some ContiguousBytes) throws(StoreError) -> [(number: UInt32, events: Int)] {
        var members: [(number: UInt32, events: Int)] = []
        let result: Result<Void, StoreError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(StoreError) in try forEach(in: buffer) { members.append(($0, $1)) } }
        }
        try result.get()
        return members
    }
}

/// Distinct users counted as sets are united: numbered users in a hash set that turns into a
/// bitmap once it is dense enough for the bitmap to be the smaller (a bitmap takes a bit for every
/// number up to its end, a hash set about 64 for each member), and users without a number yet
/// (whose events are in days not folded) by their ids. A number too far past the bitmap's end for
/// it to grow that far stays in the hash set until the bitmap reaches it.
public struct DistinctUsers: Sendable {
    private var small: Set<UInt32> = []
    private var bitmap: [UInt64] = []
    private var inBitmap = 0
    private var ids: Set<String> = []

    public init() {}

    /// How many distinct users were added.
    public var count: Int { inBitmap + small.count + ids.count }

    /// Whether the numbers are kept in a bitmap.
    public var isBitmap: Bool { !bitmap.isEmpty }

    public mutating func insert(_ number: UInt32) {
        let word = Int(number >> 6)
        if word < bitmap.count {
            setBit(number)
        } else if word < count {
            // The bitmap may grow to a word for each member: as large as the hash set would be.
            let words = min(max(word + 1, bitmap.count * 2), count)
            bitmap.append(contentsOf: repeatElement(0, count: words - bitmap.count))
            let reached = small.filter { Int($0 >> 6) < words }
            small.subtract(reached)
            for reached in reached { setBit(reached) }
            setBit(number)
        } else {
            small.insert(number)
        }
    }

    /// Adds the users of a set's bytes (``UserSet``).
    public mutating func insert(set bytes: some ContiguousBytes) throws(StoreError) {
        let result: Result<Void, StoreError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(StoreError) in try UserSet.forEach(in: buffer) { number, _ in insert(number) } }
        }
        try result.get()
    }

    /// Adds a user who has no number yet.
    public mutating func insert(id: String) { ids.insert(id) }

    private mutating func setBit(_ number: UInt32) {
        let word = Int(number >> 6)
        let bit = UInt64(1) << UInt64(number & 63)
        if bitmap[word] & bit == 0 {
            bitmap[word] |= bit
            inBitmap += 1
        }
    }
}

/// Users put in groups by their ids: a breakdown's groups (an attribute's values, a segment's
/// members and the rest).
public struct UserGrouping: Sendable {
    public var groups: [String: String]
    /// The group of the users ``groups`` does not name.
    public var others: String

    public init(_ groups: [String: String], others: String) {
        self.groups = groups
        self.others = others
    }

    public func group(of user: String) -> String { groups[user] ?? others }

    /// Rows tallied with ``TallyDimension/user`` last, folded into the same rows with the user's
    /// group in its place: users counted (each row is one), events summed; in no order.
    public func fold(_ rows: [TallyRow]) -> [TallyRow] {
        struct Key: Hashable {
            var name: String?
            var keys: [String?]
        }
        var folded: [Key: TallyRow] = [:]
        for row in rows {
            let key = Key(name: row.name, keys: row.keys.dropLast() + [group(of: row.keys.last.flatMap { $0 } ?? "")])
            folded[key, default: TallyRow(name: row.name, keys: key.keys, events: 0, users: 0)].events += row.events
            folded[key]!.users += 1
        }
        return Array(folded.values)
    }
}

/// The rows of a tally counted from user sets in the server: each group's events added up and its
/// users united, from the sets of the folded days and from the users of the events of the days
/// not folded; with a ``UserGrouping``, each set split by its users' groups, the group the rows'
/// last key.
public struct UserSetTally: Sendable {
    private struct Group: Hashable {
        var name: String?
        var keys: [String?]
    }
    private var groups: [Group: (events: Int, users: DistinctUsers)] = [:]
    private let grouping: UserGrouping?
    /// Per user number, the index of its group in ``groupNames`` (numbers no user has: ``others``).
    private let groupOfNumber: [Int32]
    private let groupNames: [String]

    public init() {
        grouping = nil
        groupOfNumber = []
        groupNames = []
    }

    /// A tally split by `grouping`, given the numbered users (number and id) of the app.
    public init(grouping: UserGrouping, numbered: [(number: UInt32, user: String)]) {
        self.grouping = grouping
        var names = [grouping.others]
        var indexes = [grouping.others: Int32(0)]
        var groupOfNumber = [Int32](repeating: 0, count: Int(numbered.map(\.number).max() ?? 0) + 1)
        for (number, user) in numbered {
            let name = grouping.group(of: user)
            groupOfNumber[Int(number)] =
                indexes[name]
                ?? {
                    names.append(name)
                    indexes[name] = Int32(names.count - 1)
                    return Int32(names.count - 1)
                }()
        }
        self.groupOfNumber = groupOfNumber
        groupNames = names
    }

    /// A folded day's group: its events and the bytes of its set of users.
    public mutating func add(name: String?, keys: [String?], events: Int, set bytes: some ContiguousBytes) throws(StoreError) {
        guard grouping != nil else {
            try groups[Group(name: name, keys: keys), default: (0, DistinctUsers())].users.insert(set: bytes)
            groups[Group(name: name, keys: keys)]!.events += events
            return
        }
        // The set's members by their group, then each group's share added once.
        var shares: [Int32: (events: Int, numbers: [UInt32])] = [:]
        let result: Result<Void, StoreError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(StoreError) in
                try UserSet.forEach(in: buffer) { number, events in
                    let group = Int(number) < groupOfNumber.count ? groupOfNumber[Int(number)] : 0
                    shares[group, default: (0, [])].events += events
                    shares[group]!.numbers.append(number)
                }
            }
        }
        try result.get()
        for (group, share) in shares {
            let key = Group(name: name, keys: keys + [groupNames[Int(group)]])
            groups[key, default: (0, DistinctUsers())].events += share.events
            for number in share.numbers { groups[key]!.users.insert(number) }
        }
    }

    /// One user's events in a group, in days not folded: by the user's number where they have one,
    /// so that they count once with the sets, and by their id where they have none yet.
    public mutating func add(name: String?, keys: [String?], events: Int, number: UInt32?, user: String) {
        let group = Group(name: name, keys: keys + (grouping.map { [$0.group(of: user)] } ?? []))
        groups[group, default: (0, DistinctUsers())].events += events
        if let number { groups[group]!.users.insert(number) } else { groups[group]!.users.insert(id: user) }
    }

    public var rows: [TallyRow] {
        groups.compactMap { group, tally in
            tally.events > 0 ? TallyRow(name: group.name, keys: group.keys, events: tally.events, users: tally.users.count) : nil
        }
    }
}
