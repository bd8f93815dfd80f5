import Foundation
import Testing
import WaymarkSupport

/// JSON written by hand reads back as what it was made from.
@Suite struct JSONWritingTests {
    static let awkward = [
        "", "plain", "quote \" and backslash \\", "new\nline\r\ttab", "\u{0}\u{1}\u{1f}\u{7f}", "line\u{2028}separator\u{2029}",
        "हिंदी", "emoji 👩🏽‍💻", "</script><script>alert(1)</script>", "\\u0041", "{\"a\":1}",
    ]

    @Test func stringsReadBackAsWritten() throws {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<500).map { _ in
            String(
                String.UnicodeScalarView(
                    (0..<Int.random(in: 0..<20, using: &generator)).compactMap { _ in
                        Unicode.Scalar(UInt32.random(in: 0..<0x3000, using: &generator))
                    }))
        }
        for text in Self.awkward + random {
            let read = try JSONSerialization.jsonObject(with: Data(jsonString(text).utf8), options: [.fragmentsAllowed])
            #expect(read as? String == text, "\(text.unicodeScalars.map(\.value))")
            // Safe inside a script: no raw control character, line or paragraph separator.
            #expect(!jsonString(text).unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x2028 || $0.value == 0x2029 })
        }
        #expect(jsonString("a\u{2028}b\u{2029}\u{1}\u{2027}\"") == #""a\u2028b\u2029\u0001\#u{2027}\"""#)
        let object = Dictionary(uniqueKeysWithValues: Self.awkward.enumerated().map { ("k\($0.offset)\($0.element)", $0.element) })
        let read = try JSONSerialization.jsonObject(with: Data(jsonText(object).utf8)) as? [String: String]
        #expect(read == object)
    }
}
