import Foundation
import Testing
import WaymarkRules
import WaymarkSupport

@testable import WaymarkEngine

/// Progress a user's devices share: a join (larger counts, stronger endings), so it may arrive in
/// any order, late or twice. Behaviour tip by tip is in `conformance/engine/progress.json`.
struct ProgressTests {
    static let start = Date(timeIntervalSince1970: 1_767_225_600)
    static let endings: [FinishReason?] = [nil, .closed, .dismissed, .maxDisplayCount, .maxDisplayDuration, .expired, .removed]

    static func randomProgress(_ random: inout SplitMix64) -> [String: TipProgress] {
        var progress: [String: TipProgress] = [:]
        for id in ["a", "b", "c"] where random.next() % 2 == 0 {
            progress[id] = TipProgress(
                shown: Int(random.next() % 4), displayedMillis: Int64(random.next() % 3) * 4000,
                finished: endings[Int(random.next() % UInt64(endings.count))])
        }
        return progress
    }

    @Test func theJoinIsCommutativeAssociativeAndIdempotent() {
        var random = SplitMix64(seed: 11)
        for _ in 0..<500 {
            let (x, y, z) = (Self.randomProgress(&random), Self.randomProgress(&random), Self.randomProgress(&random))
            let (a, b, c) = (UserProgress(tips: x), UserProgress(tips: y), UserProgress(tips: z))
            #expect(a.merged(with: b) == b.merged(with: a))
            #expect(a.merged(with: b).merged(with: c) == a.merged(with: b.merged(with: c)))
            #expect(a.merged(with: a) == a && a.merged(with: b).merged(with: b) == a.merged(with: b))
        }
    }

    /// What arrives at one moment comes to the same progress in any order; all of it again
    /// changes nothing. The JavaScript engine's test says the same of it.
    @Test func anEngineMergingInAnyOrderComesToTheSameProgress() throws {
        let tips = [
            Tip(id: "a", container: "home", trigger: try Rule(parsing: "tap"), policy: DisplayPolicy(maxDisplayCount: 3)),
            Tip(id: "b", container: "cart", trigger: try Rule(parsing: "tap"), policy: DisplayPolicy(maxDisplayDuration: 10)),
        ]
        var random = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let pieces = (0..<3).map { _ in Self.randomProgress(&random) }
            let results = try [[0, 1, 2], [2, 1, 0], [1, 2, 0]].map { order in
                var engine = Engine(tips: tips)
                engine.record("tap", at: Self.start)
                for index in order { engine.merge(pieces[index], at: Self.start + 2) }
                engine.advance(to: Self.start + 3)
                let progress = engine.progress
                for index in order { #expect(engine.merge(pieces[index], at: Self.start + 3).isEmpty) }
                try #require(engine.progress == progress)
                engine.advance(to: Self.start + 60)
                return engine.progress
            }
            #expect(results[1] == results[0] && results[2] == results[0], "\(pieces)")
        }
    }

    @Test func removedIsNeverSharedAndBadProgressIsRefused() throws {
        #expect(TipProgress(shown: 1, finished: .removed).finished == nil)
        var engine = Engine(tips: [Tip(id: "a", container: "home", trigger: try Rule(parsing: "tap"))])
        engine.record("tap", at: Self.start)
        engine.update(tips: [], at: Self.start + 1)
        #expect(engine.progress == ["a": TipProgress(shown: 1, displayedMillis: 1000)], "taken out of the catalog is no ending")
        let decoder = JSONDecoder()
        for bad in [#"{"shown":-1}"#, #"{"displayedMillis":-5}"#, #"{"finished":"forgotten"}"#, #"{"shown":"two"}"#] {
            #expect(throws: DecodingError.self, "\(bad)") { try decoder.decode(TipProgress.self, from: Data(bad.utf8)) }
        }
        #expect(throws: DecodingError.self) { try decoder.decode(TourProgress.self, from: Data(#"{"page":-1}"#.utf8)) }
        let read = try decoder.decode(
            UserProgress.self, from: Data(#"{"tips":{"a":{"shown":2,"finished":"closed"}},"tours":{"t":{"page":1}}}"#.utf8))
        #expect(read == UserProgress(tips: ["a": TipProgress(shown: 2, finished: .closed)], tours: ["t": TourProgress(page: 1)]))
        #expect(try decoder.decode(UserProgress.self, from: try JSONEncoder().encode(read)) == read)
    }

    /// A checklist's progress joins as the union of its done items; bad ones are refused.
    @Test func checklistProgressJoinsItsDoneItems() throws {
        let phone = ChecklistProgress(done: ["browse", "cart"])
        let laptop = ChecklistProgress(done: ["address"], completed: true)
        #expect(phone.merged(with: laptop) == ChecklistProgress(done: ["browse", "cart", "address"], completed: true))
        #expect(phone.merged(with: laptop) == laptop.merged(with: phone) && phone.merged(with: phone) == phone)
        let both = UserProgress(checklists: ["steps": phone]).merged(with: UserProgress(checklists: ["steps": laptop, "other": phone]))
        #expect(both.checklists.keys.sorted() == ["other", "steps"] && both.count == 2)
        let decoder = JSONDecoder()
        let read = try decoder.decode(UserProgress.self, from: Data(#"{"checklists":{"steps":{"done":["b","a","a"]}}}"#.utf8))
        #expect(read.checklists["steps"] == ChecklistProgress(done: ["a", "b"]))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(read.checklists["steps"]!), as: UTF8.self) == #"{"completed":false,"done":["a","b"]}"#)
        let tooMany = "[" + (0...64).map { "\"i\($0)\"" }.joined(separator: ",") + "]"
        for bad in [#"{"done":"a"}"#, #"{"done":[""]}"#, #"{"done":[],"extra":1}"#, #"{"done":\#(tooMany)}"#] {
            #expect(throws: DecodingError.self, "\(bad)") { try decoder.decode(ChecklistProgress.self, from: Data(bad.utf8)) }
        }
        // Without checklists, the document is as it always was.
        #expect(!String(decoding: try JSONEncoder().encode(UserProgress()), as: UTF8.self).contains("checklists"))
    }

    /// The app's lifecycle events hear of a tip shown here, not of one the user closed elsewhere
    /// (that device told of it).
    @Test func aLiveEngineTellsItsObserverOfShowsAMergeMakesButNotOfItsHides() throws {
        let told = Locked<[String]>([])
        let tips = [
            Tip(id: "first", container: "home", trigger: try Rule(parsing: "tap"), priority: 1),
            Tip(id: "second", container: "home", trigger: try Rule(parsing: "tap")),
        ]
        let live = try LiveEngine(
            tips: tips, clock: { Self.start }, observe: { commands in told.withLock { $0 += commands.map { "\($0.action) \($0.tip)" } } })
        live.record("tap")
        let merged = live.merge(["first": TipProgress(shown: 1, finished: .closed)])
        #expect(merged.map { "\($0.action) \($0.tip)" } == ["hide first", "show second"])
        #expect(told.withLock { $0 } == ["show first", "show second"])
    }

    @Test func aLiveEngineKeepsWhatItMergedAcrossARestart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileEngineStore(url: directory.appendingPathComponent("engine.json"))
        let tips = [Tip(id: "t", container: "home", trigger: try Rule(parsing: "tap"))]
        let first = try LiveEngine(tips: tips, store: store, clock: { Self.start })
        #expect(first.merge(["t": TipProgress(shown: 1, finished: .closed)]).isEmpty, "nothing was showing")
        let second = try LiveEngine(tips: tips, store: store, clock: { Self.start + 1 })
        #expect(second.record("tap").isEmpty, "closed on another device, and that was kept")
        #expect(second.progress == ["t": TipProgress(shown: 1, finished: .closed)])
    }
}
