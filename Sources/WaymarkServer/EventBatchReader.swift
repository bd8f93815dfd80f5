import Foundation
import WaymarkSupport

/// Reads the body of `POST /v1/events`, `{"events": [...]}`, straight from its bytes: the hottest
/// input of the server, where Foundation's JSON decoding took most of the time. It is a complete
/// JSON parser (strict grammar, escapes, surrogate pairs, nesting at most 64 deep) that keeps only
/// what an event may hold and notes, per event, what is missing or of the wrong type, so that one
/// bad event never fails the batch. A test compares it with JSONSerialization on random bodies.
///
/// It makes as few values per event as it can, since each costs an allocation under load: the
/// timestamp is read from the body's bytes into milliseconds, and the properties (text, numbers
/// as written, flags) are kept as a list sorted by key (as they are stored), not as a dictionary.
struct EventBatchReader {
    /// What is wrong with the body as a whole.
    enum Failure: Error, Equatable {
        case invalidJSON
        case notAnObject
        case unknownField(String)
        case eventsNotAList
    }

    /// One event as read; `nil` fields are missing or of the wrong type.
    struct Fields: Equatable {
        var id: String?
        var user: String?
        var name: String?
        var target: String?
        /// Milliseconds since 1970; `nil` also when the text is not an RFC 3339 date and time.
        var timestamp: Int64?
        /// Sorted by key, each key once (a repeated key keeps its last value, as a dictionary does).
        var properties: [JSONMember]?
        /// The first (in sorted order) field that is not an event field.
        var unknownKey: String?
        var badTarget = false
        var badProperties = false
    }

    static let maximumDepth = 64
    /// The most properties an event's reading keeps (far more than an event may have): an object
    /// with more is bad, and no body makes the sorted insertion slow.
    static let maximumProperties = 256

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    /// The last properties object read, where it is in the body and what it holds.
    private var lastProperties: (bytes: Range<Int>, members: [JSONMember])?

    private init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The events, each `nil` when it is not an object.
    static func read(_ data: Data) throws(Failure) -> [Fields?] {
        let result: Result<[Fields?], Failure> = data.withUnsafeBytes { buffer in
            var reader = EventBatchReader(buffer)
            do throws(Failure) {
                return .success(try reader.readBatch())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: The batch

    private mutating func readBatch() throws(Failure) -> [Fields?] {
        skipSpace()
        guard peek() == UInt8(ascii: "{") else {
            try skipValue(depth: 0)
            try end()
            throw .notAnObject
        }
        index += 1
        // The whole body is read before any complaint about its shape: invalid JSON comes first.
        var events: [Fields?]?
        var unknown: String?
        try readMembers { reader, key throws(Failure) in
            if key == "events" && reader.peek() == UInt8(ascii: "[") {
                events = try reader.readEvents()
            } else {
                if key == "events" { events = nil } else if unknown == nil { unknown = key }
                try reader.skipValue(depth: 1)
            }
        }
        try end()
        if let unknown { throw .unknownField(unknown) }
        guard let events else { throw .eventsNotAList }
        return events
    }

    private mutating func readEvents() throws(Failure) -> [Fields?] {
        index += 1  // [
        var events: [Fields?] = []
        skipSpace()
        if peek() == UInt8(ascii: "]") {
            index += 1
            return events
        }
        while true {
            skipSpace()
            if peek() == UInt8(ascii: "{") {
                index += 1
                events.append(try readEvent())
            } else {
                try skipValue(depth: 2)
                events.append(nil)
            }
            skipSpace()
            switch next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "]"): return events
            default: throw .invalidJSON
            }
        }
    }

    private mutating func readEvent() throws(Failure) -> Fields {
        var fields = Fields()
        var unknown: [String] = []
        try readMembers { reader, key throws(Failure) in
            switch key {
            case "id": fields.id = try reader.readText(depth: 3)
            case "user": fields.user = try reader.readText(depth: 3)
            case "name": fields.name = try reader.readText(depth: 3)
            case "timestamp": fields.timestamp = try reader.readText(depth: 3) { Timestamp.parse(utf8: $0) }
            case "target":
                if reader.peekNull() {
                    try reader.skipValue(depth: 3)
                    fields.target = nil
                    fields.badTarget = false
                } else {
                    fields.target = try reader.readText(depth: 3)
                    fields.badTarget = fields.target == nil
                }
            case "properties":
                fields.properties = nil
                fields.badProperties = false
                if reader.peekNull() {
                    try reader.skipValue(depth: 3)
                } else if let repeated = reader.repeatedProperties() {
                    fields.properties = repeated
                } else if reader.peek() == UInt8(ascii: "{") {
                    let start = reader.index
                    reader.index += 1
                    var properties: [JSONMember] = []
                    var bad = false
                    try reader.readMembers { reader, key throws(Failure) in
                        if let value = try reader.readScalar(depth: 4) {
                            if !Self.insert(JSONMember(key: key, value: value), into: &properties) { bad = true }
                        } else {
                            bad = true
                        }
                    }
                    if bad {
                        fields.badProperties = true
                    } else {
                        fields.properties = properties
                        reader.lastProperties = (start..<reader.index, properties)
                    }
                } else {
                    try reader.skipValue(depth: 3)
                    fields.badProperties = true
                }
            default:
                unknown.append(key)
                try reader.skipValue(depth: 3)
            }
        }
        fields.unknownKey = unknown.min()
        return fields
    }

    /// The last properties read again when the object at `index` has the same bytes, as an
    /// upload's events mostly do: the reading of an object is decided by its bytes alone.
    private mutating func repeatedProperties() -> [JSONMember]? {
        guard let last = lastProperties, let base = bytes.baseAddress, index + last.bytes.count <= bytes.count,
            memcmp(base + index, base + last.bytes.lowerBound, last.bytes.count) == 0
        else { return nil }
        index += last.bytes.count
        return last.members
    }

    /// Adds `member` to `members`, which stay sorted by key; false when there are
    /// ``maximumProperties`` already and its key is not one of them.
    static func insert(_ member: JSONMember, into members: inout [JSONMember]) -> Bool {
        var low = 0
        var high = members.count
        while low < high {
            let middle = (low + high) / 2
            if members[middle].key < member.key { low = middle + 1 } else { high = middle }
        }
        if low < members.count && members[low].key == member.key {
            members[low].value = member.value
            return true
        }
        guard members.count < maximumProperties else { return false }
        members.insert(member, at: low)
        return true
    }

    // MARK: JSON

    /// The members of an object whose `{` was read, up to and including its `}`; `body` reads each value.
    private mutating func readMembers(_ body: (inout EventBatchReader, String) throws(Failure) -> Void) throws(Failure) {
        skipSpace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipSpace()
            guard peek() == UInt8(ascii: "\"") else { throw .invalidJSON }
            let key = try readString()
            skipSpace()
            guard next() == UInt8(ascii: ":") else { throw .invalidJSON }
            skipSpace()
            try body(&self, key)
            skipSpace()
            switch next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "}"): return
            default: throw .invalidJSON
            }
        }
    }

    /// A string value, or `nil` (having skipped the value) when it is something else.
    private mutating func readText(depth: Int) throws(Failure) -> String? {
        try readText(depth: depth) { String(decoding: $0, as: UTF8.self) }
    }

    /// What `make` makes of a string value's UTF-8, or `nil` (having skipped the value) when it
    /// is something else.
    private mutating func readText<T>(depth: Int, _ make: (UnsafeRawBufferPointer) -> T?) throws(Failure) -> T? {
        if peek() == UInt8(ascii: "\"") { return try readString(make) }
        try skipValue(depth: depth)
        return nil
    }

    /// A string, number or boolean value, or `nil` (having skipped the value) when it is
    /// something else. A number keeps the text that wrote it.
    private mutating func readScalar(depth: Int) throws(Failure) -> JSONMember.Value? {
        switch peek() ?? 0 {
        case UInt8(ascii: "\""): return .text(try readString())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let start = index
            try skipNumber()
            return .number(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
        default:
            try skipValue(depth: depth)
            return nil
        }
    }

    private func peekNull() -> Bool {
        index + 4 <= bytes.count && bytes[index] == UInt8(ascii: "n")
    }

    private mutating func skipValue(depth: Int) throws(Failure) {
        guard depth <= Self.maximumDepth else { throw .invalidJSON }
        skipSpace()
        switch peek() {
        case UInt8(ascii: "\""):
            try readString { _ in () }
        case UInt8(ascii: "{"):
            index += 1
            try readMembers { reader, _ throws(Failure) in try reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            index += 1
            skipSpace()
            if peek() == UInt8(ascii: "]") {
                index += 1
                return
            }
            while true {
                try skipValue(depth: depth + 1)
                skipSpace()
                switch next() {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return
                default: throw .invalidJSON
                }
            }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try skipNumber()
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw .invalidJSON }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw .invalidJSON }
        index += count
    }

    /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func skipNumber() throws(Failure) {
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else { throw .invalidJSON }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let digit = peek(), isDigit(digit) else { throw .invalidJSON }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek(), isDigit(digit) else { throw .invalidJSON }
            skipDigits()
        }
    }

    private mutating func skipDigits() {
        while let byte = peek(), isDigit(byte) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// A string whose opening quote is at `index`.
    private mutating func readString() throws(Failure) -> String {
        try readString { String(decoding: $0, as: UTF8.self) }
    }

    /// What `make` makes of the UTF-8 of a string whose opening quote is at `index`: the body's
    /// own bytes when the string has no escapes.
    private mutating func readString<T>(_ make: (UnsafeRawBufferPointer) -> T) throws(Failure) -> T {
        index += 1
        let start = index
        // The common case: no escapes, so the bytes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let value = make(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
                index += 1
                return value
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw .invalidJSON }
            index += 1
        }
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return utf8.withUnsafeBytes(make)
            case UInt8(ascii: "\\"):
                guard let escape = next() else { throw .invalidJSON }
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard next() == UInt8(ascii: "\\"), next() == UInt8(ascii: "u") else { throw .invalidJSON }
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw .invalidJSON }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw .invalidJSON
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw .invalidJSON }
                    utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw .invalidJSON
                }
            default:
                if byte < 0x20 { throw .invalidJSON }
                utf8.append(byte)
            }
        }
        throw .invalidJSON
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = next() else { throw .invalidJSON }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw .invalidJSON
            }
            value = value << 4 | digit
        }
        return value
    }

    private mutating func end() throws(Failure) {
        skipSpace()
        guard index == bytes.count else { throw .invalidJSON }
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func next() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }
}
