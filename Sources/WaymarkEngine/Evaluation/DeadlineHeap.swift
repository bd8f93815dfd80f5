/// A min-heap of (deadline, owner) pairs: the times at which a value can change by itself.
///
/// Entries are not removed when their owner's deadline moves: the owner keeps the deadline it
/// expects, and an entry that no longer matches is skipped when it reaches the top. Deadlines only
/// move later with events, so the heap holds about one entry per owner.
///
/// Each entry has four children rather than two: half as many levels to walk down, and the four
/// children of an entry (16 bytes each) share one cache line.
struct DeadlineHeap {
    struct Entry {
        var deadline: Millis
        var owner: Int32
    }

    private(set) var entries: ContiguousArray<Entry> = []

    var isEmpty: Bool { entries.isEmpty }

    var top: Entry? { entries.first }

    mutating func push(_ deadline: Millis, owner: Int32) {
        let entry = Entry(deadline: deadline, owner: owner)
        entries.append(entry)
        entries.withUnsafeMutableBufferPointer { entries in
            // Move parents down into the hole until the new entry's place is found.
            var hole = entries.count - 1
            while hole > 0 {
                let parent = (hole - 1) / 4
                if entries[parent].deadline <= deadline { break }
                entries[hole] = entries[parent]
                hole = parent
            }
            entries[hole] = entry
        }
    }

    @discardableResult
    mutating func pop() -> Entry? {
        guard let first = entries.first else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty { siftDown(last) }
        return first
    }

    /// Gives the earliest entry a new deadline: a pop and a push in one pass.
    mutating func replaceTop(_ deadline: Millis) {
        siftDown(Entry(deadline: deadline, owner: entries[0].owner))
    }

    /// Puts `entry` in the top's place and moves it down to where it belongs.
    private mutating func siftDown(_ entry: Entry) {
        entries.withUnsafeMutableBufferPointer { entries in
            let count = entries.count
            var hole = 0
            while true {
                let first = 4 * hole + 1
                if first >= count { break }
                var smallest = first
                for child in first + 1..<min(first + 4, count) where entries[child].deadline < entries[smallest].deadline {
                    smallest = child
                }
                if entry.deadline <= entries[smallest].deadline { break }
                entries[hole] = entries[smallest]
                hole = smallest
            }
            entries[hole] = entry
        }
    }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
    }
}
