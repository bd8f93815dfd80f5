/// Strict reading of JSON objects: the wire and rule forms refuse what they do not know.
extension Decoder {
    /// Refuses an object with a key outside `allowed`: a damaged or newer form is an error, not
    /// something quietly read as less than it says. `what` names the object in the error. (A
    /// container keyed by an enum hides unknown keys from `allKeys`, so every key is read through
    /// a key type of its own.)
    public func rejectUnknownKeys(allowed: Set<String>, in what: String) throws {
        let container = try container(keyedBy: AnyKey.self)
        if let extra = container.allKeys.first(where: { !allowed.contains($0.stringValue) }) {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "unexpected key \"\(extra.stringValue)\" in \(what)")
            )
        }
    }
}

/// Any key, to list every key an object has.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
