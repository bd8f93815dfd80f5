/// A small, fast, seeded random number generator (Steele, Lea and Flood's SplitMix64): the same
/// seed gives the same numbers on every machine, so a demo history is the same everywhere and a
/// failing random test can be replayed from its seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// Where the sequence is.
    public var state: UInt64

    /// The generator whose sequence `seed` starts.
    public init(seed: UInt64) { state = seed }

    /// The next number of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
