/// A QR code (ISO/IEC 18004) of a text, for a phone's camera to open a preview link: the text's
/// UTF-8 bytes in byte mode, error correction level M (about 15% of the code may be damaged or
/// covered), the smallest version from 1 to 15 that holds it (up to 412 bytes), and the mask with
/// the lowest penalty. ``svg(moduleSize:)`` draws it with the quiet zone the standard asks for.
///
/// ```swift
/// let code = try QRCode("https://shop.example/?waymark-preview=wm_preview_1f…")
/// code.size           // 41: version 6, 17 + 4 × 6 modules a side
/// code.svg()          // <svg …>
/// ```
public struct QRCode: Sendable, Hashable {
    /// The version, 1 to 15: how many modules a side (17 + 4 × version).
    public let version: Int
    /// The mask pattern chosen, 0 to 7.
    public let mask: Int
    /// `modules[row][column]`: true for a dark module.
    public let modules: [[Bool]]

    /// Modules a side.
    public var size: Int { modules.count }

    /// Why a text cannot be encoded: it is longer than version 15 at level M holds.
    public struct TooLong: Error, Hashable, Sendable, CustomStringConvertible {
        public var bytes: Int
        public var description: String { "a QR code holds at most \(QRCode.capacity(version: 15)) bytes; this text has \(bytes)" }
    }

    /// Blocks per version at level M: error correction codewords per block, then the blocks of the
    /// first group and their data codewords, then the second group's (one codeword longer).
    private static let blocks: [(ec: Int, first: Int, firstData: Int, second: Int)] = [
        (10, 1, 16, 0), (16, 1, 28, 0), (26, 1, 44, 0), (18, 2, 32, 0), (24, 2, 43, 0),
        (16, 4, 27, 0), (18, 4, 31, 0), (22, 2, 38, 2), (22, 3, 36, 2), (26, 4, 43, 1),
        (30, 1, 50, 4), (22, 6, 36, 2), (22, 8, 37, 1), (24, 4, 40, 5), (24, 5, 41, 5),
    ]

    /// Data codewords of a version at level M.
    static func dataCodewords(version: Int) -> Int {
        let shape = blocks[version - 1]
        return shape.first * shape.firstData + shape.second * (shape.firstData + 1)
    }

    /// How many bytes a version (1 to 15) holds in byte mode at level M.
    public static func capacity(version: Int) -> Int {
        (dataCodewords(version: version) * 8 - 4 - countBits(version: version)) / 8
    }

    /// The length of the byte count: 8 bits up to version 9, 16 after.
    private static func countBits(version: Int) -> Int { version < 10 ? 8 : 16 }

    /// Encodes `text`; throws ``TooLong`` when no version up to 15 holds it.
    public init(_ text: String) throws(TooLong) {
        let bytes = Array(text.utf8)
        guard let version = (1...15).first(where: { Self.capacity(version: $0) >= bytes.count }) else { throw TooLong(bytes: bytes.count) }
        let codewords = Self.interleaved(Self.dataCodewords(bytes, version: version), version: version)
        var grid = Grid(version: version)
        grid.place(codewords)
        var best: (penalty: Int, mask: Int, modules: [[Bool]])?
        for mask in 0..<8 {
            var candidate = grid
            candidate.apply(mask: mask)
            candidate.drawFormat(mask: mask)
            let penalty = candidate.penalty
            if best == nil || penalty < best!.penalty { best = (penalty, mask, candidate.modules) }
        }
        self.version = version
        mask = best!.mask
        modules = best!.modules
    }

    /// The mode, the count, the bytes, the terminator and the padding, as codewords.
    static func dataCodewords(_ bytes: [UInt8], version: Int) -> [UInt8] {
        var bits = BitWriter()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: countBits(version: version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        let capacity = dataCodewords(version: version) * 8
        bits.append(0, count: min(4, capacity - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count < capacity / 8 {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// The data split into blocks, each followed by its error correction, interleaved as placed:
    /// the first codeword of every block, then the second, and so on, then the same for the
    /// error correction codewords.
    static func interleaved(_ data: [UInt8], version: Int) -> [UInt8] {
        let shape = blocks[version - 1]
        var dataBlocks: [[UInt8]] = []
        var start = 0
        for index in 0..<(shape.first + shape.second) {
            let length = shape.firstData + (index < shape.first ? 0 : 1)
            dataBlocks.append(Array(data[start..<start + length]))
            start += length
        }
        let divisor = ReedSolomon.divisor(degree: shape.ec)
        let ecBlocks = dataBlocks.map { ReedSolomon.remainder($0, divisor: divisor) }
        var result: [UInt8] = []
        for index in 0...shape.firstData {
            for block in dataBlocks where index < block.count { result.append(block[index]) }
        }
        for index in 0..<shape.ec {
            for block in ecBlocks { result.append(block[index]) }
        }
        return result
    }

    /// The code as SVG: dark modules as one path on a white square, with a quiet zone of four
    /// modules, `moduleSize` pixels each; drawn with crisp edges so a camera sees clean squares.
    public func svg(moduleSize: Int = 6) -> String {
        let side = size + 8
        var path = ""
        for row in 0..<size {
            var column = 0
            while column < size {
                guard modules[row][column] else {
                    column += 1
                    continue
                }
                var run = 1
                while column + run < size, modules[row][column + run] { run += 1 }
                path += "M\(column + 4) \(row + 4)h\(run)v1h-\(run)z"
                column += run
            }
        }
        let pixels = side * moduleSize
        return """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(side) \(side)" width="\(pixels)" height="\(pixels)" \
            shape-rendering="crispEdges" role="img" aria-label="QR code">\
            <rect width="\(side)" height="\(side)" fill="#fff"/><path d="\(path)" fill="#000"/></svg>
            """
    }
}

/// Bits appended most significant first.
private struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    mutating func append(_ value: Int, count length: Int) {
        for shift in stride(from: length - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> shift) & 1 == 1 { bytes[count / 8] |= 0x80 >> UInt8(count % 8) }
            count += 1
        }
    }
}

/// Reed–Solomon error correction over GF(2⁸) with the QR code's polynomial x⁸ + x⁴ + x³ + x² + 1.
enum ReedSolomon {
    /// The product of two field elements.
    static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var product = 0
        for bit in stride(from: 7, through: 0, by: -1) {
            product = (product << 1) ^ ((product >> 7) * 0x11D)
            product ^= ((Int(y) >> bit) & 1) * Int(x)
        }
        return UInt8(product)
    }

    /// The generator polynomial of `degree` (the product of x − αⁱ for i below it), its leading 1
    /// left out, highest power first.
    static func divisor(degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for index in 0..<degree {
                result[index] = multiply(result[index], root)
                if index + 1 < degree { result[index] ^= result[index + 1] }
            }
            root = multiply(root, 2)
        }
        return result
    }

    /// The error correction codewords of `data`: its remainder after division by the generator.
    static func remainder(_ data: [UInt8], divisor: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: divisor.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for index in result.indices { result[index] ^= multiply(divisor[index], factor) }
        }
        return result
    }
}

/// The modules while a code is built, and which of them are function patterns (finders, timing,
/// alignment, format and version information) that data and masks leave alone.
private struct Grid {
    let version: Int
    var modules: [[Bool]]
    var reserved: [[Bool]]

    var size: Int { modules.count }

    init(version: Int) {
        self.version = version
        let size = 17 + 4 * version
        modules = Array(repeating: Array(repeating: false, count: size), count: size)
        reserved = modules
        for index in 0..<size {
            set(row: 6, column: index, index % 2 == 0)
            set(row: index, column: 6, index % 2 == 0)
        }
        for (row, column) in [(3, 3), (3, size - 4), (size - 4, 3)] { drawFinder(row: row, column: column) }
        let centres = QRCodeAlignment.centres(version: version)
        for row in centres {
            for column in centres
            where !(row == 6 && column == 6) && !(row == 6 && column == centres.last!) && !(row == centres.last! && column == 6) {
                for dy in -2...2 {
                    for dx in -2...2 { set(row: row + dy, column: column + dx, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        drawFormat(mask: 0)  // reserves the format areas; the chosen mask's bits replace these
        if version >= 7 {
            var remainder = version
            for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
            let bits = version << 12 | remainder
            for index in 0..<18 {
                let dark = (bits >> index) & 1 == 1
                let (a, b) = (size - 11 + index % 3, index / 3)
                set(row: b, column: a, dark)
                set(row: a, column: b, dark)
            }
        }
    }

    mutating func set(row: Int, column: Int, _ dark: Bool) {
        modules[row][column] = dark
        reserved[row][column] = true
    }

    /// A finder pattern centred here, with its light separator where it fits.
    mutating func drawFinder(row: Int, column: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let (y, x) = (row + dy, column + dx)
                guard (0..<size).contains(y), (0..<size).contains(x) else { continue }
                let distance = max(abs(dx), abs(dy))
                set(row: y, column: x, distance != 2 && distance != 4)
            }
        }
    }

    /// The format information for level M and `mask`, in both of its places, and the dark module.
    mutating func drawFormat(mask: Int) {
        let data = 0b00 << 3 | mask  // level M is 00
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0..<6 { set(row: index, column: 8, bit(index)) }
        set(row: 7, column: 8, bit(6))
        set(row: 8, column: 8, bit(7))
        set(row: 8, column: 7, bit(8))
        for index in 9..<15 { set(row: 8, column: 14 - index, bit(index)) }
        for index in 0..<8 { set(row: 8, column: size - 1 - index, bit(index)) }
        for index in 8..<15 { set(row: size - 15 + index, column: 8, bit(index)) }
        set(row: size - 8, column: 8, true)
    }

    /// The codewords' bits in the zigzag order: two columns at a time from the right, up then
    /// down, skipping the vertical timing pattern; what is left over stays light.
    mutating func place(_ codewords: [UInt8]) {
        var index = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for step in 0..<size {
                for offset in 0..<2 {
                    let column = right - offset
                    let upward = (right + 1) & 2 == 0
                    let row = upward ? size - 1 - step : step
                    guard !reserved[row][column], index < codewords.count * 8 else { continue }
                    modules[row][column] = (codewords[index >> 3] >> (7 - UInt8(index & 7))) & 1 == 1
                    index += 1
                }
            }
            right -= 2
        }
    }

    /// Flips the data modules where the mask pattern says.
    mutating func apply(mask: Int) {
        for row in 0..<size {
            for column in 0..<size where !reserved[row][column] {
                let (i, j) = (row, column)
                let flip =
                    switch mask {
                    case 0: (i + j) % 2 == 0
                    case 1: i % 2 == 0
                    case 2: j % 3 == 0
                    case 3: (i + j) % 3 == 0
                    case 4: (i / 2 + j / 3) % 2 == 0
                    case 5: (i * j) % 2 + (i * j) % 3 == 0
                    case 6: ((i * j) % 2 + (i * j) % 3) % 2 == 0
                    default: ((i + j) % 2 + (i * j) % 3) % 2 == 0
                    }
                if flip { modules[row][column].toggle() }
            }
        }
    }

    /// The standard's penalty: long runs, 2×2 blocks, finder-like patterns, and an unbalanced
    /// share of dark modules. The lowest of the eight masks is the one used.
    var penalty: Int {
        var total = 0
        let columns = (0..<size).map { column in modules.map { $0[column] } }
        for line in modules + columns {
            var run = 1
            for index in 1..<size {
                if line[index] == line[index - 1] {
                    run += 1
                } else {
                    if run >= 5 { total += run - 2 }
                    run = 1
                }
            }
            if run >= 5 { total += run - 2 }
            let pattern = [true, false, true, true, true, false, true]
            for start in 0...(size - 7) where Array(line[start..<start + 7]) == pattern {
                let before = start >= 4 && !line[(start - 4)..<start].contains(true)
                let after = start + 11 <= size && !line[(start + 7)..<(start + 11)].contains(true)
                if before || after { total += 40 }
            }
        }
        for row in 0..<(size - 1) {
            for column in 0..<(size - 1) {
                let dark = modules[row][column]
                if modules[row][column + 1] == dark, modules[row + 1][column] == dark, modules[row + 1][column + 1] == dark { total += 3 }
            }
        }
        let dark = modules.reduce(0) { $0 + $1.count { $0 } }
        total += abs(dark * 20 - size * size * 10) / (size * size) * 10
        return total
    }
}

/// Where a version's alignment patterns are centred.
enum QRCodeAlignment {
    static func centres(version: Int) -> [Int] {
        [
            [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
            [6, 30, 54], [6, 32, 58], [6, 34, 62], [6, 26, 46, 66], [6, 26, 48, 70],
        ][version - 1]
    }
}
