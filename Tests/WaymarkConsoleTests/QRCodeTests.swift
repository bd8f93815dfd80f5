import Testing

@testable import WaymarkConsole

@Suite struct QRCodeTests {
    /// The standard's worked example (version 1-M, "HELLO WORLD" in alphanumeric mode): its 16
    /// data codewords give these 10 error correction codewords.
    @Test func errorCorrectionMatchesTheStandardsExample() {
        let data: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        #expect(ReedSolomon.remainder(data, divisor: ReedSolomon.divisor(degree: 10)) == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }

    @Test func theSmallestVersionThatHoldsTheTextIsChosen() throws {
        #expect(try QRCode("").version == 1)
        #expect(try QRCode(String(repeating: "a", count: 14)).version == 1)
        #expect(try QRCode(String(repeating: "a", count: 15)).version == 2)
        // A preview link of a usual page: version 6, 41 modules a side.
        let link = "https://shop.example.com/?waymark-preview=wm_preview_" + String(repeating: "7f", count: 24)
        let code = try QRCode(link)
        #expect(code.version == 6 && code.size == 41)
        #expect(QRCode.capacity(version: 15) == 412)
        #expect(throws: QRCode.TooLong(bytes: 413)) { try QRCode(String(repeating: "a", count: 413)) }
    }

    @Test func finderPatternsTimingAndTheDarkModuleAreInPlace() throws {
        let code = try QRCode("https://waymark.example/")
        let size = code.size
        for (top, left) in [(0, 0), (0, size - 7), (size - 7, 0)] {
            for dy in 0..<7 {
                for dx in 0..<7 {
                    let ring = max(abs(dx - 3), abs(dy - 3))
                    #expect(code.modules[top + dy][left + dx] == (ring != 2), "finder at \(top),\(left)")
                }
            }
        }
        for index in 8..<(size - 8) {
            #expect(code.modules[6][index] == (index % 2 == 0))
            #expect(code.modules[index][6] == (index % 2 == 0))
        }
        #expect(code.modules[size - 8][8])
    }

    @Test func theSVGHasAQuietZoneAndOnlyTheCodesPath() throws {
        let svg = try QRCode("x").svg(moduleSize: 4)
        #expect(svg.hasPrefix("<svg ") && svg.hasSuffix("</svg>"))
        #expect(svg.contains(#"viewBox="0 0 29 29""#) && svg.contains(#"width="116""#))
        // The first dark module is the top-left finder's corner, four modules in.
        #expect(svg.contains(#"<path d="M4 4h7v1h-7z"#))
    }
}
