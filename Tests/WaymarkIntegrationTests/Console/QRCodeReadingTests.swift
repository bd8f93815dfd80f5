import Foundation
import Testing
import WaymarkConsole

/// The console's QR codes read back as their text in a real reader (zbarimg, from zbar-tools),
/// across the versions, masks and lengths a preview link can have.
@Suite(.timeLimit(.minutes(2))) struct QRCodeReadingTests {
    /// The modules as a binary PGM image, `scale` pixels a module, with a four-module quiet zone.
    static func pgm(_ code: QRCode, scale: Int = 4) -> Data {
        let side = (code.size + 8) * scale
        var pixels = [UInt8](repeating: 255, count: side * side)
        for row in 0..<code.size {
            for column in 0..<code.size where code.modules[row][column] {
                for y in 0..<scale {
                    for x in 0..<scale { pixels[((row + 4) * scale + y) * side + (column + 4) * scale + x] = 0 }
                }
            }
        }
        return Data("P5\n\(side) \(side)\n255\n".utf8) + Data(pixels)
    }

    static func read(_ image: Data) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-qr-\(UUID().uuidString).pgm")
        try image.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        process.arguments = ["--quiet", "--raw", "-Sbinary", file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func everyVersionReadsBackAsItsText() throws {
        var texts = [
            "https://shop.example.com/?waymark-preview=wm_preview_" + String(repeating: "0123456789abcdef", count: 3),
            "myshop://home?waymark-preview=x", "पूर्वावलोकन",
        ]
        // One text for each version's largest content, and one just past the previous version.
        for version in 1...15 {
            texts.append(
                String((0..<QRCode.capacity(version: version)).map { Character(UnicodeScalar(UInt8(33 + ($0 * 7 + version) % 94))) }))
        }
        var masks = Set<Int>()
        for text in texts {
            let code = try QRCode(text)
            masks.insert(code.mask)
            #expect(try Self.read(Self.pgm(code)) == text, "version \(code.version), mask \(code.mask)")
        }
        #expect(masks.count >= 4, "masks used: \(masks.sorted())")
    }
}
