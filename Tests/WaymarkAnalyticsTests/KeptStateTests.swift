import Foundation
import Testing
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules
import WaymarkStore

@testable import WaymarkAnalytics

/// The state the eligible counts keep for a user at the end of a day: what goes in comes out, and
/// damaged bytes or a state of other rules are refused, never read as something else.
@Suite struct KeptStateTests {
    static let tips = try! CatalogDocument.parse(
        """
        tips:
          - { id: a, container: c, trigger: "activation THEN tap:search THEN screen:cart", dismissal: "tap:cart", content: { title: a } }
          - { id: b, container: c, trigger: "count(screen) >= 3 within 1d", dismissal: "NOT tap within 2h", content: { title: b } }
          - { id: c, container: c, trigger: 'purchase within 1h AND app.version >= v1.2', content: { title: c } }
        """, file: "kept.yaml"
    ).tips

    /// A user part way through every kind of term, with what the replay keeps besides.
    static func user(_ watch: TipWatch) -> TipWatch.User {
        var user = watch.newUser("u1", markingDays: true)
        let start = Date(millisecondsSince1970: 1_790_000_000_000)
        user.evaluator.setContext("app.version", to: .string("1.4"), at: start)
        user.evaluator.setContext("user.score", to: .number(7.5), at: start)
        for (offset, name, target) in [(0, "activation", nil), (60, "tap", "search"), (120, "screen", "home"), (180, "screen", "list")] {
            user.evaluator.record(name, target: target, at: start + TimeInterval(offset))
        }
        user.evaluator.record("purchase", at: start + 200)
        user.properties = #"{"platform":"android","appVersion":"1.4","locale":"hi-IN"}"#
        user.platformVersion = PlatformVersion(platform: "android", appVersion: "1.4")
        user.seen = [nil, (at: 1_790_000_100_000, platformVersion: PlatformVersion(platform: "web", appVersion: nil)), nil]
        user.done = [false, false, true]
        user.actedAt = [nil, nil, nil]
        user.context = ["1.4", nil]
        user.day = 1_790_000_000_000 - 1_790_000_000_000 % 86_400_000
        return user
    }

    @Test func whatGoesInComesOut() throws {
        let watch = TipWatch(tips: Self.tips, countingFrom: [])
        let user = Self.user(watch)
        let bytes = KeptState(of: user).encoded(terms: watch.termIndex)
        let restored = try KeptState(decoding: bytes, terms: watch.termKeys).user("u1", in: watch)
        #expect(restored.evaluator.snapshot() == user.evaluator.snapshot())
        #expect(restored.properties == user.properties)
        #expect(restored.platformVersion == user.platformVersion)
        #expect(restored.seen.map { $0?.at } == user.seen.map { $0?.at })
        #expect(restored.seen.map { $0?.platformVersion } == user.seen.map { $0?.platformVersion })
        #expect(restored.done == user.done)
        #expect(restored.actedAt == user.actedAt)
        #expect(restored.context == user.context)
        #expect(restored.day == user.day)
        // The restored rules go on as the original's do.
        var original = user.evaluator
        var copy = restored.evaluator
        let later = Date(millisecondsSince1970: 1_790_000_000_000 + 3_000_000)
        original.record("screen", target: "cart", at: later)
        copy.record("screen", target: "cart", at: later)
        #expect((0..<6).map(original.value(ofRule:)) == (0..<6).map(copy.value(ofRule:)))
        #expect(original.nextChange == copy.nextChange)
        // About a tenth of the state as JSON with the terms' texts.
        #expect(bytes.count < 200, "\(bytes.count) bytes")
    }

    @Test func damagedBytesAreRefused() throws {
        let watch = TipWatch(tips: Self.tips, countingFrom: [])
        let bytes = KeptState(of: Self.user(watch)).encoded(terms: watch.termIndex)
        for length in 0..<bytes.count {
            #expect(throws: StoreError.self, "cut at \(length)") {
                try KeptState(decoding: bytes.prefix(length), terms: watch.termKeys)
            }
        }
        #expect(throws: StoreError.self) { try KeptState(decoding: bytes + [0], terms: watch.termKeys) }
        // A state of other rules: another number of terms, or of tips.
        #expect(throws: StoreError.self) { try KeptState(decoding: bytes, terms: Array(watch.termKeys.dropLast())) }
        let fewer = TipWatch(tips: Array(Self.tips.prefix(2)), countingFrom: [])
        let state = try KeptState(decoding: KeptState(of: fewer.newUser("u1")).encoded(terms: fewer.termIndex), terms: fewer.termKeys)
        #expect(throws: StoreError.self) { try state.user("u1", in: watch) }
    }
}
