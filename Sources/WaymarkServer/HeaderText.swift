import HTTPTypes

/// Reading header values without Foundation: the catalog and event routes read `Authorization`,
/// `Accept-Encoding` and `If-None-Match` on every request, and Foundation's `trimmingCharacters`
/// and `lowercased` went through NSString for each of them (an eighth of a cached catalog
/// answer's time).
extension StringProtocol {
    /// The text without the spaces and tabs around it (HTTP's optional white space).
    var withoutBlanks: SubSequence {
        var text = self[...]
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }

    /// Whether the text is `other`, ignoring ASCII case (header tokens are ASCII).
    func equalsIgnoringCase(_ other: some StringProtocol) -> Bool {
        utf8.elementsEqual(other.utf8) { asciiLower($0) == asciiLower($1) }
    }

    /// Whether the text contains `other`, ignoring ASCII case.
    func containsIgnoringCase(_ other: some StringProtocol) -> Bool {
        let needle = Array(other.utf8).map(asciiLower)
        let haystack = Array(utf8).map(asciiLower)
        guard needle.count <= haystack.count else { return false }
        if needle.isEmpty { return true }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }
}

private func asciiLower(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }

extension HTTPFields {
    /// Whether `If-None-Match` names `etag`, alone or in its list: the client holds that
    /// representation, and is answered 304.
    public func ifNoneMatchNames(_ etag: String) -> Bool {
        guard let list = self[.ifNoneMatch] else { return false }
        return list.split(separator: ",").contains { $0.withoutBlanks == etag }
    }
}
