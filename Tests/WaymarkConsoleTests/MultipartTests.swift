import Hummingbird
import Testing

@testable import WaymarkConsole

/// Uploads as browsers send them.
@Suite struct MultipartTests {
    static func body(_ parts: [String], boundary: String = "XyZ", close: Bool = true) -> ByteBuffer {
        var text = parts.map { "--\(boundary)\r\n\($0)\r\n" }.joined()
        if close { text += "--\(boundary)--\r\n" }
        return ByteBuffer(string: text)
    }

    @Test func fieldsAndFilesAreReadByName() throws {
        let body = Self.body([
            "Content-Disposition: form-data; name=\"csrf\"\r\n\r\ntoken-1",
            "Content-Disposition: form-data; name=\"locale\"\r\n\r\nहिंदी",
            "Content-Disposition: form-data; name=\"file\"; filename=\"tip.ogg\"\r\nContent-Type: audio/ogg\r\n\r\nOggS\u{0}\u{1}--not a boundary",
        ])
        let form = try #require(MultipartForm.parse(Array(body.readableBytesView), boundary: "XyZ"))
        #expect(form.form["csrf"] == "token-1")
        #expect(form.form["locale"] == "हिंदी")
        #expect(form.files["file"]?.filename == "tip.ogg")
        #expect(form.files["file"]?.bytes == Array("OggS\u{0}\u{1}--not a boundary".utf8))
    }

    @Test func malformedUploadsAreRefused() {
        let unclosed = Self.body(["Content-Disposition: form-data; name=\"csrf\"\r\n\r\ntoken"], close: false)
        #expect(MultipartForm.parse(Array(unclosed.readableBytesView), boundary: "XyZ") == nil, "no closing delimiter")
        let cut = Self.body(
            [
                "Content-Disposition: form-data; name=\"csrf\"\r\n\r\ntoken",
                "Content-Disposition: form-data; name=\"file\"; filename=\"a.ogg\"\r\n\r\nOggS",
            ],
            close: false
        )
        #expect(MultipartForm.parse(Array(cut.readableBytesView), boundary: "XyZ") == nil, "the second part cut short")
        #expect(MultipartForm.parse(Array("just text".utf8), boundary: "XyZ") == nil)
        var notUTF8 = ByteBuffer(string: "--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n")
        notUTF8.writeBytes([0xC3, 0x28])
        notUTF8.writeString("\r\n--XyZ--\r\n")
        #expect(MultipartForm.parse(Array(notUTF8.readableBytesView), boundary: "XyZ") == nil, "a text field that is not UTF-8")
    }
}
