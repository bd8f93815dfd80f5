import Foundation
import Testing

/// Replays every input the fuzzer kept (`Fuzz/corpus/rules`, grown by `Fuzz/run rules`) through the same
/// checks the fuzzer makes, so a regression on any of them fails here without a fuzzing run.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus/rules")

    @Test func theCorpusReplaysClean() throws {
        let files = try FileManager.default.contentsOfDirectory(at: Self.corpus, includingPropertiesForKeys: nil)
        #expect(files.count >= 200)
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: file))
            let failure = roundTripFailure(bytes)
            #expect(failure == nil, "\(file.lastPathComponent): \(failure ?? "")")
        }
    }

    /// The check itself on the three kinds of input: a rule, text that is not a rule (its error
    /// must point inside the text), and bytes that are not UTF-8.
    @Test func theCheckAcceptsRulesErrorsAndNonText() {
        #expect(roundTripFailure(Array("tap THEN scroll within 5m".utf8)) == nil)
        #expect(roundTripFailure(Array("(tap AND scroll))".utf8)) == nil)
        #expect(roundTripFailure([0xff, 0xfe, 0x00]) == nil)
    }
}
