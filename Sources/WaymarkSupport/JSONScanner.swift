/// A JSON reader over UTF-8 bytes for the inputs read in bulk: event uploads (the server's hottest
/// input) and replay files of millions of lines. It checks the strict grammar (escapes, surrogate
/// pairs, nesting at most ``maximumDepth`` deep) and makes only the values its caller asks for:
/// a string whose bytes need no unescaping is handed over as the input's own bytes, and whatever
/// is skipped makes nothing. Foundation's decoding made a value of everything and took most of
/// the time of both.
///
/// Its methods are inlinable so that a reader in another module compiles them into its own loop.
public struct JSONScanner {
    /// The input is not JSON; `offset` is about where the reading stopped.
    public struct SyntaxError: Error, Hashable, Sendable {
        /// The byte offset at which reading stopped.
        public var offset: Int

        /// An error at this byte offset.
        public init(offset: Int) { self.offset = offset }
    }

    /// The deepest nesting read: deeper input is refused rather than recursed into.
    public static let maximumDepth = 64

    /// The input.
    public let bytes: UnsafeRawBufferPointer
    /// Where reading continues.
    public var index: Int

    /// A scanner at the start of `bytes`, which must outlive it.
    @inlinable public init(_ bytes: UnsafeRawBufferPointer, index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    /// An error at the current position.
    @inlinable public var invalid: SyntaxError { SyntaxError(offset: index) }

    // MARK: Bytes

    /// The byte at the current position, if any.
    @inlinable public func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    /// The byte at the current position, if any, and moves past it.
    @inlinable public mutating func next() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    /// Moves past spaces, tabs and line ends.
    @inlinable public mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Throws unless only space is left.
    @inlinable public mutating func end() throws(SyntaxError) {
        skipSpace()
        guard index == bytes.count else { throw invalid }
    }

    /// Whether the value at the current position is `null`.
    @inlinable public func peekNull() -> Bool {
        index + 4 <= bytes.count && bytes[index] == UInt8(ascii: "n")
    }

    // MARK: Values

    /// The members of an object whose `{` was read, up to and including its `}`; `body` reads
    /// each value (and must read all of it).
    @inlinable public mutating func readMembers(_ body: (inout JSONScanner, String) throws(SyntaxError) -> Void) throws(SyntaxError) {
        skipSpace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipSpace()
            guard peek() == UInt8(ascii: "\"") else { throw invalid }
            let key = try readString()
            skipSpace()
            guard next() == UInt8(ascii: ":") else { throw invalid }
            skipSpace()
            try body(&self, key)
            skipSpace()
            switch next() {
            case UInt8(ascii: ","): continue
            case UInt8(ascii: "}"): return
            default: throw invalid
            }
        }
    }

    /// A string value, or `nil` (having skipped the value) when it is something else.
    @inlinable public mutating func readText(depth: Int) throws(SyntaxError) -> String? {
        try readText(depth: depth) { String(decoding: $0, as: UTF8.self) }
    }

    /// What `make` makes of a string value's UTF-8, or `nil` (having skipped the value) when it
    /// is something else.
    @inlinable public mutating func readText<T>(depth: Int, _ make: (UnsafeRawBufferPointer) -> T?) throws(SyntaxError) -> T? {
        if peek() == UInt8(ascii: "\"") { return try readString(make) }
        try skipValue(depth: depth)
        return nil
    }

    /// A string, number or boolean value, or `nil` (having skipped the value) when it is
    /// something else. A number keeps the text that wrote it.
    @inlinable public mutating func readScalar(depth: Int) throws(SyntaxError) -> JSONMember.Value? {
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

    /// Moves past one value of any kind, checking its grammar; `depth` is how deep it is nested.
    @inlinable public mutating func skipValue(depth: Int) throws(SyntaxError) {
        guard depth <= Self.maximumDepth else { throw invalid }
        skipSpace()
        switch peek() {
        case UInt8(ascii: "\""):
            try readString { _ in () }
        case UInt8(ascii: "{"):
            index += 1
            try readMembers { scanner, _ throws(SyntaxError) in try scanner.skipValue(depth: depth + 1) }
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
                default: throw invalid
                }
            }
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try skipNumber()
        }
    }

    /// Moves past `word` (`true`, `false`, `null`), which must come next.
    @inlinable public mutating func literal(_ word: StaticString) throws(SyntaxError) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw invalid }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw invalid }
        index += count
    }

    /// Moves past a number: `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`
    @inlinable public mutating func skipNumber() throws(SyntaxError) {
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), Self.isDigit(first) else { throw invalid }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard let digit = peek(), Self.isDigit(digit) else { throw invalid }
            skipDigits()
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let digit = peek(), Self.isDigit(digit) else { throw invalid }
            skipDigits()
        }
    }

    @inlinable mutating func skipDigits() {
        while let byte = peek(), Self.isDigit(byte) { index += 1 }
    }

    @inlinable static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// A string whose opening quote is at `index`.
    @inlinable public mutating func readString() throws(SyntaxError) -> String {
        try readString { String(decoding: $0, as: UTF8.self) }
    }

    /// What `make` makes of the UTF-8 of a string whose opening quote is at `index`: the input's
    /// own bytes when the string has no escapes.
    @inlinable public mutating func readString<T>(_ make: (UnsafeRawBufferPointer) -> T) throws(SyntaxError) -> T {
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
            if byte < 0x20 { throw invalid }
            index += 1
        }
        return try readEscapedString(from: start, make)
    }

    /// The rest of ``readString(_:)`` once an escape was met: the string is unescaped into a copy.
    @usableFromInline mutating func readEscapedString<T>(from start: Int, _ make: (UnsafeRawBufferPointer) -> T) throws(SyntaxError) -> T {
        var utf8 = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return utf8.withUnsafeBytes(make)
            case UInt8(ascii: "\\"):
                guard let escape = next() else { throw invalid }
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
                        guard next() == UInt8(ascii: "\\"), next() == UInt8(ascii: "u") else { throw invalid }
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw invalid }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw invalid
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw invalid }
                    utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    throw invalid
                }
            default:
                if byte < 0x20 { throw invalid }
                utf8.append(byte)
            }
        }
        throw invalid
    }

    @usableFromInline mutating func hex4() throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = next() else { throw invalid }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw invalid
            }
            value = value << 4 | digit
        }
        return value
    }
}
