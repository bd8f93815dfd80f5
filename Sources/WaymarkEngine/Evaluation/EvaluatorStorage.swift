/// The evaluator's state that changes on every event, in memory it writes in place.
///
/// A `ContiguousArray` checks on every write that no copy shares its memory, a call into the
/// runtime; in the evaluator's inner loop those calls were a large part of an event's cost. The
/// evaluator instead checks once per call (`Evaluator.makeUnique()`), copying this storage when
/// another evaluator value shares it, and then writes through ``FixedBuffer``s, which keep the
/// bounds check. Copies of an evaluator thus keep value semantics, as arrays would give them.
final class EvaluatorStorage: @unchecked Sendable {
    let terms: FixedBuffer<Term>
    let nodes: FixedBuffer<Evaluator.Node>
    /// Windowed counts' rings and sequences' stage times.
    let pool: FixedBuffer<Millis>
    let listeners: FixedBuffer<Listener>
    let channelLength: FixedBuffer<Int32>

    init(terms: some Collection<Term>, nodes: some Collection<Evaluator.Node>, poolSize: Int, listenerRoom: Int, channelCount: Int) {
        self.terms = FixedBuffer(copying: terms)
        self.nodes = FixedBuffer(copying: nodes)
        self.pool = FixedBuffer(repeating: noTime, count: poolSize)
        self.listeners = FixedBuffer(repeating: Listener(term: -1), count: listenerRoom)
        self.channelLength = FixedBuffer(repeating: 0, count: channelCount)
    }

    private init(copying other: EvaluatorStorage) {
        terms = FixedBuffer(copying: other.terms)
        nodes = FixedBuffer(copying: other.nodes)
        pool = FixedBuffer(copying: other.pool)
        listeners = FixedBuffer(copying: other.listeners)
        channelLength = FixedBuffer(copying: other.channelLength)
    }

    func copy() -> EvaluatorStorage {
        EvaluatorStorage(copying: self)
    }

    deinit {
        terms.deallocate()
        nodes.deallocate()
        pool.deallocate()
        listeners.deallocate()
        channelLength.deallocate()
    }
}

/// A fixed number of plain values (no references: the evaluator's `Term`, `Node`, `Listener` and
/// integers), written in place without a uniqueness check; reads and writes check the bounds.
/// Its owner (``EvaluatorStorage``) frees it.
struct FixedBuffer<Element>: RandomAccessCollection, @unchecked Sendable {
    private let base: UnsafeMutablePointer<Element>
    let count: Int

    init(copying elements: some Collection<Element>) {
        count = elements.count
        base = .allocate(capacity: Swift.max(count, 1))
        _ = UnsafeMutableBufferPointer(start: base, count: count).initialize(from: elements)
    }

    init(repeating element: Element, count: Int) {
        self.count = count
        base = .allocate(capacity: Swift.max(count, 1))
        base.initialize(repeating: element, count: count)
    }

    func deallocate() {
        base.deinitialize(count: count)
        base.deallocate()
    }

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    subscript(index: Int) -> Element {
        unsafeAddress {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "index out of range")
            return UnsafePointer(base + index)
        }
        nonmutating unsafeMutableAddress {
            precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "index out of range")
            return base + index
        }
    }

    func swapAt(_ first: Int, _ second: Int) {
        let kept = self[first]
        self[first] = self[second]
        self[second] = kept
    }
}
