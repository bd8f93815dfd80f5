import Foundation

/// An uploaded recording, checked: its size, that its bytes are Ogg, MP3 or WAVE audio, and how
/// long it plays, read by ffprobe (Debian's `ffmpeg`) rather than trusted from the upload.
public struct Recording: Hashable, Sendable {
    /// The largest recording accepted: a few minutes of speech in any of the formats.
    public static let maximumSize = 5 << 20
    /// The longest recording accepted, in seconds.
    public static let maximumDuration = 600.0

    /// The MIME type, from the bytes (never from the upload's claim).
    public var format: String
    public var duration: Double
    public var bytes: [UInt8]

    /// The key that names it: a hash of its bytes, so the same file uploaded twice is kept once.
    public var key: String { NarrationPlan.hash(bytes) }

    /// Checks an upload; the error says what is wrong in words an author understands.
    public static func check(_ bytes: [UInt8], ffprobe: String? = ESpeakSynthesizer.executable("ffprobe")) async throws(NarrationError)
        -> Recording
    {
        guard !bytes.isEmpty else { throw NarrationError("the file is empty") }
        guard bytes.count <= maximumSize else {
            throw NarrationError("the file is \(bytes.count / 1024) KB; a recording may be at most \(maximumSize >> 20) MB")
        }
        guard let format = sniff(bytes) else { throw NarrationError("the file is not Ogg (Opus or Vorbis), MP3 or WAV audio") }
        guard let ffprobe else { throw NarrationError("ffprobe is not installed on the server, so recordings cannot be checked") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-recording-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("upload")
        let report = directory.appendingPathComponent("report.txt")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: file)
        } catch {
            throw NarrationError("cannot keep the upload to check it: \(error)")
        }
        do {
            try await ProcessRunner.run(
                ffprobe,
                [
                    "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=codec_type:format=duration", "-of",
                    "default=noprint_wrappers=1", "-o", report.path, file.path,
                ],
                timeout: .seconds(20), in: directory
            )
        } catch {
            throw NarrationError("the file is not audio that can be played (\(error.message))")
        }
        let lines = (try? String(contentsOf: report, encoding: .utf8)) ?? ""
        let values = Dictionary(
            lines.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            },
            uniquingKeysWith: { first, _ in first }
        )
        guard values["codec_type"] == "audio" else { throw NarrationError("the file has no audio in it") }
        guard let duration = values["duration"].flatMap(Double.init), duration > 0.2 else {
            throw NarrationError("the recording is too short to hear")
        }
        guard duration <= maximumDuration else {
            throw NarrationError("the recording plays \(Int(duration)) s; at most \(Int(maximumDuration)) s")
        }
        return Recording(format: format, duration: duration, bytes: bytes)
    }

    /// The format the first bytes announce.
    static func sniff(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: Array("OggS".utf8)) { return "audio/ogg" }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), bytes[8..<12].elementsEqual("WAVE".utf8) { return "audio/wav" }
        if bytes.starts(with: Array("ID3".utf8)) { return "audio/mpeg" }
        // An MPEG audio frame: eleven set bits, then layer III.
        if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] & 0xE0 == 0xE0, bytes[1] & 0x06 == 0x02 { return "audio/mpeg" }
        return nil
    }
}
