import Foundation
import Logging
import Testing
import WaymarkCatalog
import WaymarkNarration
import WaymarkStore
import WaymarkTestSupport

/// Real speech: espeak-ng and ffmpeg make it, ffprobe and ffmpeg's volume meter read it back.
@Suite(.timeLimit(.minutes(5))) struct SpeechTests {
    static let shop = try! CatalogDocument.load(path: WaymarkBinary.root.appendingPathComponent("Sources/waymark/Resources/shop.yaml").path)

    static func synthesizer(timeout: Duration = .seconds(30)) throws -> ESpeakSynthesizer {
        try ESpeakSynthesizer.onPath(timeout: timeout).get()
    }

    /// The demo's checkout survey in each language, as the plan says it.
    static func speech(_ locale: String) throws -> NarrationPlan.Speech {
        let line = try #require(
            NarrationPlan(shop).lines.first { $0.owner == .tip("checkout-survey", variant: nil) && $0.locale == locale })
        guard case .speech(let speech) = line.source else { throw NarrationError("no speech for \(locale)") }
        return speech
    }

    @Test(arguments: ["default", "hi", "ta"])
    func theDemosTipsAreSpokenInEnglishHindiAndTamil(locale: String) async throws {
        let speech = try Self.speech(locale)
        let audio = try await Self.synthesizer().speak(speech)
        #expect(audio.format == "audio/ogg")
        let report = try await AudioReport.read(audio.bytes)
        #expect(report.codec == "opus")
        // A few words at 150 words a minute: seconds, not milliseconds or minutes.
        let words = speech.text.split(whereSeparator: \.isWhitespace).count
        #expect(
            report.duration > Double(words) * 0.15 && report.duration < Double(words) * 1.5 + 2, "\(report.duration) s for \(words) words")
        #expect(abs(report.duration - audio.duration) < 0.1, "ffprobe \(report.duration) s, synthesizer \(audio.duration) s")
        #expect(report.meanVolume > -40, "mean volume \(report.meanVolume) dB: silence")
        // Opus at 32 kbit/s: about 4 KB a second.
        #expect(audio.bytes.count < Int(audio.duration * 8_000) + 4_096)
    }

    @Test func theSameTextIsGeneratedOnceHoweverOftenItIsAskedFor() async throws {
        try await StoreUnderTest.sqlite.with { store, _ in
            let counting = CountingSynthesizer(try Self.synthesizer())
            let narrator = Narrator(store: store, synthesizer: counting, logger: Logger(label: "test"))
            let hindi = try Self.speech("hi")
            // Two requests of the same speech while queued, and one more after it was made.
            #expect(narrator.request(app: "shop", speeches: [hindi, hindi]) == 1)
            #expect(narrator.request(app: "shop", speeches: [hindi]) == 0)
            try await withRunning(narrator) {
                let drained = try await eventually(within: 30) { narrator.pendingCount == 0 }
                #expect(drained)
            }
            await narrator.make(Narrator.Job(app: "shop", speech: hindi))
            #expect(counting.calls == 1)
            guard case .ready(let ready) = try await store.narrationStates(app: "shop", keys: [hindi.key])[hindi.key] else {
                Issue.record("no audio stored")
                return
            }
            #expect(ready.source == .generated && ready.byteCount > 1_000)
            // The same text for another app is that app's own audio.
            #expect(try await store.narrationStates(app: "other", keys: [hindi.key]).isEmpty)
        }
    }

    @Test func aQueueThatIsFullTakesNoMore() async throws {
        try await StoreUnderTest.sqlite.with { store, _ in
            let narrator = Narrator(store: store, synthesizer: try Self.synthesizer(), capacity: 2, logger: Logger(label: "test"))
            let speeches = (1...5).map { NarrationPlan.Speech(text: "Tip number \($0)", voice: "en", speed: 150) }
            #expect(narrator.request(app: "shop", speeches: speeches) == 2)
            #expect(narrator.pendingCount == 2)
        }
    }

    @Test func aFailingOrHangingProgramIsRecordedAsAFailureAndTheNarratorGoesOn() async throws {
        try await StoreUnderTest.sqlite.with { store, _ in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-fake-espeak-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let hanging = directory.appendingPathComponent("hanging").path
            try "#!/bin/sh\nexec sleep 30\n".write(toFile: hanging, atomically: true, encoding: .utf8)
            let failing = directory.appendingPathComponent("failing").path
            try "#!/bin/sh\necho 'no such voice' >&2\nexit 3\n".write(toFile: failing, atomically: true, encoding: .utf8)
            for path in [hanging, failing] { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path) }
            let real = try Self.synthesizer()
            let speech = NarrationPlan.Speech(text: "Hello", voice: "en", speed: 150)

            // The hanging program sleeps 30 s; its limit is 1 s, and the message says it was killed for it.
            let slow = Narrator(
                store: store, synthesizer: ESpeakSynthesizer(espeak: hanging, ffmpeg: real.ffmpeg, timeout: .seconds(1)),
                logger: Logger(label: "test")
            )
            await slow.make(Narrator.Job(app: "a", speech: speech))
            let broken = Narrator(
                store: store, synthesizer: ESpeakSynthesizer(espeak: failing, ffmpeg: real.ffmpeg), logger: Logger(label: "test"))
            await broken.make(Narrator.Job(app: "b", speech: speech))

            guard case .failed(let timedOut, _) = try await store.narrationStates(app: "a", keys: [speech.key])[speech.key],
                case .failed(let failed, _) = try await store.narrationStates(app: "b", keys: [speech.key])[speech.key]
            else {
                Issue.record("the failures were not recorded")
                return
            }
            #expect(timedOut.contains("did not finish within 1"), "\(timedOut)")
            #expect(failed.contains("exit 3") && failed.contains("no such voice"), "\(failed)")
            // A failure is not retried by itself; deleting it (the console's Regenerate) lets the real one make it.
            try await store.deleteNarration(app: "b", key: speech.key)
            await Narrator(store: store, synthesizer: real, logger: Logger(label: "test")).make(Narrator.Job(app: "b", speech: speech))
            guard case .ready = try await store.narrationStates(app: "b", keys: [speech.key])[speech.key] else {
                Issue.record("regenerating did not make audio")
                return
            }
        }
    }

    @Test func recordingsAreCheckedByTheirBytesNotTheirName() async throws {
        let audio = try await Self.synthesizer().speak(NarrationPlan.Speech(text: "A recording", voice: "en", speed: 150))
        let recording = try await Recording.check(audio.bytes)
        #expect(recording.format == "audio/ogg")
        #expect(abs(recording.duration - audio.duration) < 0.1)
        #expect(recording.key.count == 32)

        for (bytes, message) in [
            ([UInt8](), "empty"),
            (Array("<script>alert(1)</script>".utf8), "not Ogg"),
            (Array("OggS".utf8) + [UInt8](repeating: 7, count: 500), "not audio that can be played"),
            ([UInt8](repeating: 0, count: Recording.maximumSize + 1), "at most 5 MB"),
        ] {
            do {
                _ = try await Recording.check(bytes)
                Issue.record("accepted \(message)")
            } catch {
                #expect(error.message.contains(message), "\(error.message)")
            }
        }
    }
}

/// The real synthesizer, counting its calls.
final class CountingSynthesizer: Synthesizer, @unchecked Sendable {
    let inner: any Synthesizer
    private let lock = NSLock()
    private var count = 0

    init(_ inner: any Synthesizer) { self.inner = inner }

    var calls: Int { lock.withLock { count } }

    func speak(_ speech: NarrationPlan.Speech) async throws(NarrationError) -> SpokenAudio {
        lock.withLock { count += 1 }
        return try await inner.speak(speech)
    }
}

/// What ffprobe and ffmpeg's volume meter read from audio.
struct AudioReport {
    var codec: String
    var duration: Double
    var meanVolume: Double

    static func read(_ bytes: [UInt8]) async throws -> AudioReport {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-audio-\(UUID().uuidString).ogg")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let probe = try WaymarkBinary.run(
            program: URL(fileURLWithPath: "/usr/bin/ffprobe"),
            ["-v", "error", "-show_entries", "stream=codec_name:format=duration", "-of", "default=noprint_wrappers=1", file.path]
        ).output
        let values = Dictionary(
            probe.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { first, _ in first })
        // The volume meter reports on standard error.
        let meter = try WaymarkBinary.run(
            program: URL(fileURLWithPath: "/usr/bin/ffmpeg"),
            ["-nostdin", "-hide_banner", "-i", file.path, "-af", "volumedetect", "-f", "null", "-"]
        ).errors
        let mean = meter.split(separator: "\n").first { $0.contains("mean_volume:") }
            .flatMap { $0.split(separator: ":").last?.trimmingCharacters(in: .whitespaces).split(separator: " ").first }
            .flatMap { Double($0) }
        return AudioReport(codec: values["codec_name"] ?? "", duration: Double(values["duration"] ?? "") ?? 0, meanVolume: mean ?? -200)
    }
}

/// Runs a service while `body` runs.
func withRunning(_ narrator: Narrator, _ body: () async throws -> Void) async throws {
    let task = Task { try await narrator.run() }
    defer { task.cancel() }
    try await body()
}
