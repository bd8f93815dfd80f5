/// A binary min-heap of (deadline, owner) pairs: the times at which a value can change by itself.
///
/// Entries are not removed when their owner's deadline moves: the owner keeps the deadline it
/// expects, and an entry that no longer matches is skipped when it reaches the top. Deadlines only
/// move later with events, so the heap holds about one entry per owner.
struct DeadlineHeap {
    struct Entry {
        var deadline: Millis
        var owner: Int32
    }

    private(set) var entries: ContiguousArray<Entry> = []

    var isEmpty: Bool { entries.isEmpty }

    var top: Entry? { entries.first }

    mutating func push(_ deadline: Millis, owner: Int32) {
        entries.append(Entry(deadline: deadline, owner: owner))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            if entries[parent].deadline <= entries[child].deadline { break }
            entries.swapAt(parent, child)
            child = parent
        }
    }

    @discardableResult
    mutating func pop() -> Entry? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let result = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            if left >= entries.count { break }
            let right = left + 1
            let smaller = right < entries.count && entries[right].deadline < entries[left].deadline ? right : left
            if entries[parent].deadline <= entries[smaller].deadline { break }
            entries.swapAt(parent, smaller)
            parent = smaller
        }
        return result
    }

    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
    }
}
