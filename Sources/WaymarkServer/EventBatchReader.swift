import Foundation
import WaymarkSupport

/// Reads the body of `POST /v1/events`, `{"events": [...]}`, straight from its bytes: the hottest
/// input of the server, where Foundation's JSON decoding took most of the time. It reads the whole
/// body with a ``JSONScanner`` (strict grammar, nesting at most 64 deep), keeps only what an event
/// may hold and notes, per event, what is missing or of the wrong type, so that one bad event
/// never fails the batch. A test compares it with JSONSerialization on random bodies.
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

    /// The most properties an event's reading keeps (far more than an event may have): an object
    /// with more is bad, and no body makes the sorted insertion slow.
    static let maximumProperties = 256

    private var scanner: JSONScanner

    private init(_ bytes: UnsafeRawBufferPointer) {
        scanner = JSONScanner(bytes)
    }

    /// The events, each `nil` when it is not an object.
    static func read(_ data: Data) throws(Failure) -> [Fields?] {
        let result: Result<[Fields?], Failure> = data.withUnsafeBytes { buffer in
            var reader = EventBatchReader(buffer)
            do throws(JSONScanner.SyntaxError) {
                return try reader.readBatch()
            } catch {
                return .failure(.invalidJSON)
            }
        }
        return try result.get()
    }

    // MARK: The batch

    /// The events, or what is wrong with the body's shape. The whole body is read before any
    /// complaint about its shape: invalid JSON, thrown, comes first.
    private mutating func readBatch() throws(JSONScanner.SyntaxError) -> Result<[Fields?], Failure> {
        scanner.skipSpace()
        guard scanner.peek() == UInt8(ascii: "{") else {
            try scanner.skipValue(depth: 0)
            try scanner.end()
            return .failure(.notAnObject)
        }
        scanner.index += 1
        var events: [Fields?]?
        var unknown: String?
        var last: LastProperties = nil
        try scanner.readMembers { scanner, key throws(JSONScanner.SyntaxError) in
            if key == "events" && scanner.peek() == UInt8(ascii: "[") {
                events = try Self.readEvents(&scanner, &last)
            } else {
                if key == "events" { events = nil } else if unknown == nil { unknown = key }
                try scanner.skipValue(depth: 1)
            }
        }
        try scanner.end()
        if let unknown { return .failure(.unknownField(unknown)) }
        guard let events else { return .failure(.eventsNotAList) }
        return .success(events)
    }

    /// The last properties object read, where it is in the body and what it holds.
    private typealias LastProperties = (bytes: Range<Int>, members: [JSONMember])?

    private static func readEvents(_ scanner: inout JSONScanner, _ last: inout LastProperties) throws(JSONScanner.SyntaxError)
        -> [Fields?]
    {
        scanner.index += 1  // [
        var events: [Fields?] = []
        scanner.skipSpace()
        if scanner.peek() == UInt8(ascii: "]") {
            scanner.index += 1
            return events
        }
        while true {
            scanner.skipSpace()
            if scanner.peek() == UInt8(ascii: "{") {
                scanner.index += 1
                events.append(try readEvent(&scanner, &last))
            } else {
                try scanner.skipValue(depth: 2)
                events.append(nil)
            }
            scanner.skipSpace()
            switch scanner.next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "]"): return events
            default: throw scanner.invalid
            }
        }
    }

    private static func readEvent(_ scanner: inout JSONScanner, _ last: inout LastProperties) throws(JSONScanner.SyntaxError) -> Fields {
        var fields = Fields()
        var unknown: [String] = []
        try scanner.readMembers { scanner, key throws(JSONScanner.SyntaxError) in
            switch key {
            case "id": fields.id = try scanner.readText(depth: 3)
            case "user": fields.user = try scanner.readText(depth: 3)
            case "name": fields.name = try scanner.readText(depth: 3)
            case "timestamp": fields.timestamp = try scanner.readText(depth: 3) { Timestamp.parse(utf8: $0) }
            case "target":
                if scanner.peekNull() {
                    try scanner.skipValue(depth: 3)
                    fields.target = nil
                    fields.badTarget = false
                } else {
                    fields.target = try scanner.readText(depth: 3)
                    fields.badTarget = fields.target == nil
                }
            case "properties":
                fields.properties = nil
                fields.badProperties = false
                if scanner.peekNull() {
                    try scanner.skipValue(depth: 3)
                } else if let repeated = repeatedProperties(&scanner, last) {
                    fields.properties = repeated
                } else if scanner.peek() == UInt8(ascii: "{") {
                    let start = scanner.index
                    scanner.index += 1
                    var properties: [JSONMember] = []
                    var bad = false
                    try scanner.readMembers { scanner, key throws(JSONScanner.SyntaxError) in
                        if let value = try scanner.readScalar(depth: 4) {
                            if !insert(JSONMember(key: key, value: value), into: &properties) { bad = true }
                        } else {
                            bad = true
                        }
                    }
                    if bad {
                        fields.badProperties = true
                    } else {
                        fields.properties = properties
                        last = (start..<scanner.index, properties)
                    }
                } else {
                    try scanner.skipValue(depth: 3)
                    fields.badProperties = true
                }
            default:
                unknown.append(key)
                try scanner.skipValue(depth: 3)
            }
        }
        fields.unknownKey = unknown.min()
        return fields
    }

    /// The last properties read again when the object at the scanner has the same bytes, as an
    /// upload's events mostly do: the reading of an object is decided by its bytes alone.
    private static func repeatedProperties(_ scanner: inout JSONScanner, _ last: LastProperties) -> [JSONMember]? {
        guard let last, let base = scanner.bytes.baseAddress, scanner.index + last.bytes.count <= scanner.bytes.count,
            memcmp(base + scanner.index, base + last.bytes.lowerBound, last.bytes.count) == 0
        else { return nil }
        scanner.index += last.bytes.count
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
}
