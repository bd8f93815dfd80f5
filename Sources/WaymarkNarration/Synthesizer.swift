import Foundation
import WaymarkSupport

/// Makes audio from text.
public protocol Synthesizer: Sendable {
    func speak(_ speech: NarrationPlan.Speech) async throws(NarrationError) -> SpokenAudio
}

/// Compressed audio and how long it plays.
public struct SpokenAudio: Hashable, Sendable {
    /// The MIME type.
    public var format: String
    /// Seconds.
    public var duration: Double
    public var bytes: [UInt8]

    public init(format: String, duration: Double, bytes: [UInt8]) {
        self.format = format
        self.duration = duration
        self.bytes = bytes
    }
}

/// Why narration could not be made or read; the console shows the message.
public struct NarrationError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// Speech from espeak-ng (Debian's `espeak-ng`), compressed to Opus in Ogg by ffmpeg: about 4 KB
/// a second, which every browser of the last years and Apple's platforms play.
///
/// Each job runs the two programs on files in a directory of its own, with a time limit: a
/// program that hangs is killed and the job fails, the server goes on.
public struct ESpeakSynthesizer: Synthesizer {
    public var espeak: String
    public var ffmpeg: String
    /// The longest one program may run.
    public var timeout: Duration

    public init(espeak: String, ffmpeg: String, timeout: Duration = .seconds(30)) {
        self.espeak = espeak
        self.ffmpeg = ffmpeg
        self.timeout = timeout
    }

    /// The synthesizer with the programs found on `PATH`, or why there is none.
    public static func onPath(timeout: Duration = .seconds(30)) -> Result<ESpeakSynthesizer, NarrationError> {
        guard let espeak = executable("espeak-ng") else { return .failure(NarrationError("espeak-ng is not installed")) }
        guard let ffmpeg = executable("ffmpeg") else { return .failure(NarrationError("ffmpeg is not installed")) }
        return .success(ESpeakSynthesizer(espeak: espeak, ffmpeg: ffmpeg, timeout: timeout))
    }

    public func speak(_ speech: NarrationPlan.Speech) async throws(NarrationError) -> SpokenAudio {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-narration-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw NarrationError("cannot make a working directory: \(error)")
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = directory.appendingPathComponent("text.txt")
        let wave = directory.appendingPathComponent("speech.wav")
        let opus = directory.appendingPathComponent("speech.ogg")
        do {
            try Data(speech.text.utf8).write(to: text)
        } catch {
            throw NarrationError("cannot write the text: \(error)")
        }
        try await ProcessRunner.run(
            espeak, ["-v", speech.voice, "-s", String(speech.speed), "-b", "1", "-f", text.path, "-w", wave.path], timeout: timeout,
            in: directory
        )
        let samples = try WAVE.read(wave)
        guard samples.duration > 0.2 else { throw NarrationError("espeak-ng made \(samples.duration) s of audio") }
        guard samples.peak > 0.01 else { throw NarrationError("espeak-ng made silence") }
        try await ProcessRunner.run(
            ffmpeg,
            [
                "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", wave.path, "-c:a", "libopus", "-b:a", "32k",
                "-application", "voip", opus.path,
            ],
            timeout: timeout, in: directory
        )
        guard let bytes = FileManager.default.contents(atPath: opus.path), !bytes.isEmpty else {
            throw NarrationError("ffmpeg made no file")
        }
        return SpokenAudio(format: "audio/ogg", duration: samples.duration, bytes: [UInt8](bytes))
    }

    /// The path of a program on `PATH`, if it is there.
    public static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A 16-bit PCM WAVE file's length and loudest sample.
struct WAVE {
    var duration: Double
    /// The loudest sample, 0 to 1.
    var peak: Double

    static func read(_ url: URL) throws(NarrationError) -> WAVE {
        guard let data = FileManager.default.contents(atPath: url.path) else { throw NarrationError("espeak-ng made no file") }
        return try parse([UInt8](data))
    }

    static func parse(_ bytes: [UInt8]) throws(NarrationError) -> WAVE {
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            throw NarrationError("not a WAVE file")
        }
        var position = 12
        var format: (channels: Int, rate: Int, bits: Int)?
        while position + 8 <= bytes.count {
            let size = u32(position + 4)
            let body = position + 8
            if bytes[position..<position + 4].elementsEqual("fmt ".utf8), body + 16 <= bytes.count {
                format = (u16(body + 2), u32(body + 4), u16(body + 14))
            } else if bytes[position..<position + 4].elementsEqual("data".utf8) {
                guard let format, format.bits == 16, format.channels > 0, format.rate > 0 else {
                    throw NarrationError("not 16-bit PCM audio")
                }
                // A streamed file may claim more data than it has.
                let end = min(body + size, bytes.count)
                var peak = 0
                var sample = body
                while sample + 1 < end {
                    peak = max(peak, abs(Int(Int16(bitPattern: UInt16(u16(sample))))))
                    sample += 2
                }
                let frames = (end - body) / (2 * format.channels)
                return WAVE(duration: Double(frames) / Double(format.rate), peak: Double(peak) / 32768)
            }
            position = body + size + (size & 1)
        }
        throw NarrationError("the WAVE file has no audio")
    }
}

/// Runs a program to its end or its time limit, its output to files (never pipes: a program's
/// children could hold them open).
enum ProcessRunner {
    static func run(_ executable: String, _ arguments: [String], timeout: Duration, in directory: URL) async throws(NarrationError) {
        let name = URL(fileURLWithPath: executable).lastPathComponent
        let errors = directory.appendingPathComponent("\(name).stderr")
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: errors)
        } catch {
            throw NarrationError("cannot open \(errors.path): \(error)")
        }
        defer { try? handle.close() }
        process.standardError = handle
        let finished = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in finished.continuation.finish() }
        do {
            try process.run()
        } catch {
            throw NarrationError("cannot run \(name): \(error)")
        }
        // The time limit, and the server shutting down, kill the program with SIGKILL (it may have
        // inherited SIGTERM ignored); either way this waits for it to be gone before reading its status.
        let deadline = ProcessDeadline(process: process.processIdentifier, limit: timeout)
        await withTaskCancellationHandler {
            // Drained in a task of its own: a cancelled task's iteration would end early.
            await Task { for await _ in finished.stream {} }.value
        } onCancel: {
            deadline.killNow()
        }
        if deadline.cancel() {
            throw NarrationError("\(name) did not finish within \(timeout)")
        }
        if process.terminationReason == .uncaughtSignal {
            throw NarrationError("\(name) was stopped by a signal (the server shutting down, or the system)")
        }
        guard process.terminationStatus == 0 else {
            let said = (try? String(contentsOf: errors, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            throw NarrationError("\(name) failed (exit \(process.terminationStatus))\(said.isEmpty ? "" : ": \(said.prefix(300))")")
        }
    }
}
