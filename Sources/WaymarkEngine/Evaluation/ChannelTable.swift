/// Finds the channels an event arrives on: one for its name, and one for its name and target when
/// some rule names that target (`tap:search`).
///
/// An open-addressing table over FNV-1a hashes of the strings' bytes. A `Dictionary` of strings
/// seeds and finalizes a SipHash for every lookup, which cost a tenth of an event's whole work; the
/// keys here are fixed when the rules are compiled and come from the app's own catalog, so a
/// simple hash over a table at most half full keeps every probe short.
struct ChannelTable {
    private struct Key {
        var name: String
        var target: String?
        var channel: Int32
    }

    private var keys: [Key] = []
    /// Indices into `keys`, or -1 for an empty slot.
    private var slots: ContiguousArray<Int32>
    private var mask: UInt64

    init(_ names: [String: NameEntry]) {
        for (name, entry) in names {
            keys.append(Key(name: name, target: nil, channel: entry.anyChannel))
            for (target, channel) in entry.targets {
                keys.append(Key(name: name, target: target, channel: channel))
            }
        }
        var size = 8
        while size < 2 * keys.count { size *= 2 }
        slots = ContiguousArray(repeating: -1, count: size)
        mask = UInt64(size - 1)
        for (index, key) in keys.enumerated() {
            var hash = Self.hash(key.name)
            if let target = key.target { hash = Self.hash(target, continuing: hash) }
            var slot = Int(Self.finish(hash) & mask)
            while slots[slot] >= 0 { slot = (slot + 1) & Int(mask) }
            slots[slot] = Int32(index)
        }
    }

    /// The channel for every event named `name`, and the one for events with this target, or -1.
    @inline(__always)
    func channels(name: String, target: String?) -> (any: Int32, target: Int32)? {
        let nameHash = Self.hash(name)
        guard let any = find(nameHash, name: name, target: nil) else { return nil }
        guard let target else { return (any, -1) }
        return (any, find(Self.hash(target, continuing: nameHash), name: name, target: target) ?? -1)
    }

    private func find(_ hash: UInt64, name: String, target: String?) -> Int32? {
        var slot = Int(Self.finish(hash) & mask)
        while true {
            let index = Int(slots[slot])
            if index < 0 { return nil }
            if keys[index].name == name && keys[index].target == target { return keys[index].channel }
            slot = (slot + 1) & Int(mask)
        }
    }

    private static let basis: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// FNV-1a over the UTF-8 bytes; a target continues its name's hash after a separator byte no
    /// UTF-8 text has.
    @inline(__always)
    private static func hash(_ text: String, continuing start: UInt64? = nil) -> UInt64 {
        var hash = start.map { ($0 ^ 0xff) &* prime } ?? basis
        // Native strings (small ones included) lend their bytes at once; iterating `utf8` instead
        // measured 167 against 161 ns per event for the evaluator. The loop below is for the rest.
        let contiguous: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* prime }
        }
        if contiguous == nil {
            for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* prime }
        }
        return hash
    }

    /// Mixes the high bits into the low ones the mask keeps.
    @inline(__always)
    private static func finish(_ hash: UInt64) -> UInt64 {
        hash ^ (hash >> 29)
    }
}
