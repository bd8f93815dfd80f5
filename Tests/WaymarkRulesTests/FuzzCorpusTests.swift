import Foundation
import Testing

/// Replays every input the fuzzer kept (`Fuzz/corpus`, grown by `Fuzz/run`) through the same
/// checks the fuzzer makes, so a regression on any of them fails here without a fuzzing run.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus")

    @Test func theCorpusReplaysClean() throws {
        let files = try FileManager.default.contentsOfDirectory(at: Self.corpus, includingPropertiesForKeys: nil)
        #expect(files.count >= 200)
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: file))
            let failure = roundTripFailure(bytes)
            #expect(failure == nil, "\(file.lastPathComponent): \(failure ?? "")")
        }
    }

    @Test func theCheckCatchesABrokenRoundTrip() {
        // The check must be able to fail: a rule that does not parse is fine, but bytes that the
        // check reads as a JSON rule printing to something else would not be. Feed a valid rule
        // and make sure no failure is reported, then an error position that is checked.
        #expect(roundTripFailure(Array("tap THEN scroll within 5m".utf8)) == nil)
        #expect(roundTripFailure(Array("(tap AND scroll))".utf8)) == nil)
        #expect(roundTripFailure([0xff, 0xfe, 0x00]) == nil)
    }
}
