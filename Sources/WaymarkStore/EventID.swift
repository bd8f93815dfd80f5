/// Event ids: UUIDs made by the client (UUIDv7, time-ordered), written as 36 characters of hex
/// digits in groups of 8-4-4-4-12. The server accepts nothing else and stores them lowercase, so
/// a store may keep them as 16 bytes (PostgreSQL's `uuid`) and compare them as bytes.
public enum EventID {
    /// Whether `text` is a UUID in its 36-character form, in either case (or, with `lowercase`,
    /// only in lowercase, as stores keep ids).
    public static func isValid(_ text: String, lowercase: Bool = false) -> Bool {
        guard let capitals = hasCapitals(text) else { return false }
        return !(lowercase && capitals)
    }

    /// A valid id as stored: lowercase, so that a retry in capitals is the same event; `nil` when
    /// `id` is not a UUID.
    public static func stored(_ id: String) -> String? {
        guard let capitals = hasCapitals(id) else { return nil }
        return capitals ? id.lowercased() : id
    }

    /// For a UUID's text, whether it has capital letters; `nil` when it is not a UUID.
    private static func hasCapitals(_ text: String) -> Bool? {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count == 36 else { return nil }
            var capitals = false
            for position in 0..<36 {
                let dash = position == 8 || position == 13 || position == 18 || position == 23
                switch bytes[position] {
                case UInt8(ascii: "-") where dash: continue
                case UInt8(ascii: "0")...UInt8(ascii: "9") where !dash, UInt8(ascii: "a")...UInt8(ascii: "f") where !dash: continue
                case UInt8(ascii: "A")...UInt8(ascii: "F") where !dash: capitals = true
                default: return nil
                }
            }
            return capitals
        }
    }

    /// A UUIDv7-shaped id for events made on the server's side (the demo's sample traffic, tests,
    /// benchmarks): 48 bits of milliseconds, then `number` in the last 48 bits, so ids made in
    /// order of time, and of number within a millisecond, sort in that order.
    public static func make(milliseconds: Int64, number: Int) -> String {
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        let time = UInt64(bitPattern: milliseconds) & 0xFFFF_FFFF_FFFF
        return hex(time >> 16, 8) + "-" + hex(time & 0xFFFF, 4) + "-7000-8000-" + hex(UInt64(number) & 0xFFFF_FFFF_FFFF, 12)
    }
}

extension StoreError {
    /// The error both stores give for events whose ids are not lowercase UUIDs (nothing is stored).
    public static func invalidEventIDs(_ events: [StoredEvent]) -> StoreError? {
        guard let bad = events.first(where: { !EventID.isValid($0.id, lowercase: true) }) else { return nil }
        return StoreError(.failed, "event ids are lowercase UUIDs, not \"\(bad.id)\"")
    }
}
