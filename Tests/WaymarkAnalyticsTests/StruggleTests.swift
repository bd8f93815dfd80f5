import Foundation
import Testing
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkStore
import WaymarkSupport

/// The signs of struggle, found in visits made for the purpose: clean ones, with the near misses
/// real use has (a double tap, a slow screen, a look back, a pause, a search that finds), and ones
/// with one planted difficulty each. Every signal must find at least 90% of what was planted
/// (recall), and at least 90% of what it finds must have been planted (precision).
@Suite struct StruggleTests {
    /// Visits of a shop: home, a product, the cart, checkout, done; each planted kind changes one
    /// part of the way. A few are hard to tell, as real use is: a screen that comes 2 to 8 s after
    /// its tap on a slow network, a minute's reading, rage taps a second apart, a U-turn after 4
    /// to 7 s; the signals may get those wrong.
    struct Shop {
        var random: SplitMix64
        var events: [StoredEvent] = []
        var truth: [String: Set<StruggleSignal>] = [:]
        var time: Int64 = 1_800_000_000_000
        var user = ""
        var count = 0

        init(seed: UInt64) { random = SplitMix64(seed: seed) }

        mutating func seconds(_ range: ClosedRange<Double>) -> Int64 { Int64(Double.random(in: range, using: &random) * 1000) }
        mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &random) < p }

        mutating func event(_ name: String, _ target: String? = nil, after: Int64, _ extra: [String: String] = [:]) {
            time += after
            count += 1
            let locale = user.hasSuffix("0") ? "hi-IN" : "en-IN"
            events.append(
                StoredEvent(
                    app: "shop", id: String(format: "%020d", count), user: user, name: name, target: target, timestamp: time,
                    receivedAt: time,
                    clamped: false, properties: ["platform": "android", "locale": locale].merging(extra) { $1 }))
        }

        mutating func go(_ screen: String, tapping target: String, after: ClosedRange<Double> = 3...10, slow: Bool = false) {
            event("tap", target, after: seconds(after))
            let wait = chance(0.001) ? 6.5...8 : chance(0.02) ? 2.1...5 : slow ? 1.4...1.9 : 0.2...1.2
            event("screen", screen, after: seconds(wait))
        }

        /// One visit; `planted` changes it where its difficulty goes.
        mutating func visit(_ index: Int, planted: StruggleSignal?) {
            user = "u\(index)"
            time += 3_600_000
            truth[user] = planted.map { [$0] } ?? []
            event("activation", after: 0)
            event("screen", "home", after: 300)
            if chance(0.3) { event("scroll", "home", after: seconds(1...4)) }
            if planted == .failedSearch {
                event("help_searched", after: seconds(2...6), ["query": "ऑर्डर रद्द", "results": "0", "screen": "home"])
            } else if chance(0.3) {
                event("help_searched", after: seconds(2...6), ["query": "jacket", "results": "3", "screen": "home"])
            }
            if chance(0.2) {
                // A double tap: not rage.
                event("tap", "product-card", after: seconds(3...8))
                event("tap", "product-card", after: seconds(0.1...0.3))
                event("screen", "product", after: seconds(0.2...0.8))
            } else {
                go("product", tapping: "product-card", slow: chance(0.2))
            }
            if chance(0.2) {
                // A look back home and again to the product: one return, after long enough.
                go("home", tapping: "back", after: 8...25)
                go("product", tapping: "product-card", after: 8...25)
            }
            switch planted {
            case .uTurn:
                go("reviews", tapping: "reviews-link")
                go("product", tapping: "back", after: chance(0.05) ? 4...7 : 0.8...3.5)
            case .backAndForth:
                for _ in 0..<(chance(0.5) ? 2 : 3) {
                    go("size-guide", tapping: "size-guide-link", after: 6...20)
                    go("product", tapping: "back", after: 6...20)
                }
            case .deadTap:
                event("tap", "promo-banner", after: seconds(2...5))
                event("scroll", "product", after: seconds(4...10))
            default: break
            }
            event("tap", "add-to-cart", after: seconds(3...10))
            event("added_to_cart", "jacket", after: seconds(0.1...0.6))
            go("cart", tapping: "cart-link")
            if planted == .stopped { return }
            if planted == .rageTaps {
                // A slow button, tapped until it answers.
                event("tap", "checkout", after: seconds(3...8))
                let apart = chance(0.05) ? 0.8...1.2 : 0.2...0.45
                for _ in 0..<Int.random(in: 2...5, using: &random) { event("tap", "checkout", after: seconds(apart)) }
                event("screen", "checkout", after: seconds(0.4...1.5))
            } else if planted == .idle {
                go("checkout", tapping: "checkout", after: 70...240)
            } else {
                go("checkout", tapping: "checkout", after: chance(0.003) ? 60...70 : chance(0.3) ? 30...55 : 3...20)
            }
            go("done", tapping: "pay", after: 5...20)
        }
    }

    /// 400 clean visits, 60 of each planted difficulty, and 300 that stop at the cart (a third
    /// of the visits that reach it, as carts are often left).
    static func plantedShop(seed: UInt64) -> Shop {
        var shop = Shop(seed: seed)
        var kinds: [StruggleSignal?] = Array(repeating: nil, count: 400)
        for signal in [StruggleSignal.rageTaps, .deadTap, .uTurn, .backAndForth, .failedSearch, .idle] {
            kinds += Array(repeating: signal, count: 60)
        }
        kinds += Array(repeating: StruggleSignal.stopped, count: 300)
        kinds.shuffle(using: &shop.random)
        for (index, kind) in kinds.enumerated() { shop.visit(index, planted: kind) }
        return shop
    }

    @Test(arguments: [20_261_128 as UInt64, 7, 42])
    func everySignalFindsWhatWasPlantedAndLittleElse(seed: UInt64) throws {
        let shop = Self.plantedShop(seed: seed)
        var detector = StruggleDetector()
        for event in shop.events.sorted(by: { $0.timestamp < $1.timestamp }) { detector.add(event) }
        detector.finish()
        var found: [String: Set<StruggleSignal>] = [:]
        for occurrence in detector.occurrences { found[occurrence.user, default: []].insert(occurrence.signal) }
        for signal in StruggleSignal.allCases {
            let planted = Set(shop.truth.filter { $0.value.contains(signal) }.keys)
            let detected = Set(found.filter { $0.value.contains(signal) }.keys)
            let hits = planted.intersection(detected).count
            let precision = detected.isEmpty ? 0 : Double(hits) / Double(detected.count)
            let recall = planted.isEmpty ? 0 : Double(hits) / Double(planted.count)
            let wrong = detected.subtracting(planted).sorted().prefix(3).map { user in
                "\(user) planted \(shop.truth[user] ?? []): "
                    + shop.events.filter { $0.user == user }.map { "\($0.name):\($0.target ?? "")" }.joined(separator: " ")
            }
            #expect(precision >= 0.9 && recall >= 0.9, "\(signal): precision \(precision), recall \(recall); \(wrong)")
        }
    }

    @Test func occurrencesNameTheScreenTheElementAndTheUsersContext() throws {
        let shop = Self.plantedShop(seed: 1)
        var detector = StruggleDetector()
        for event in shop.events { detector.add(event) }
        detector.finish()
        let bySignal = Dictionary(grouping: detector.occurrences, by: \.signal)
        #expect(Set(bySignal[.rageTaps]?.map { "\($0.screen) \($0.element)" } ?? []) == ["cart checkout"])
        let dead = Set(bySignal[.deadTap]?.map { "\($0.screen) \($0.element)" } ?? [])
        #expect(dead.contains("product promo-banner"))
        #expect(Set(bySignal[.uTurn]?.map { "\($0.screen) \($0.element)" } ?? []) == ["reviews product"])
        #expect(Set(bySignal[.backAndForth]?.map { "\($0.screen) \($0.element)" } ?? []) == ["product size-guide"])
        #expect(Set(bySignal[.stopped]?.map { "\($0.screen) \($0.element)" } ?? []) == ["cart checkout"])
        #expect(Set(bySignal[.idle]?.map(\.screen) ?? []) == ["cart"])
        let search = try #require(bySignal[.failedSearch]?.first)
        #expect(search.query == "ऑर्डर रद्द" && search.element == "help_searched" && search.screen == "home")
        #expect(Set(detector.occurrences.map(\.platform)) == ["android"])
        #expect(Set(detector.occurrences.map(\.locale)) == ["hi-IN", "en-IN"])
        // Each visit's steps are counted once: 400 clean and 360 planted visits went from the cart
        // to checkout, 300 stopped there.
        #expect(detector.steps[ScreenStep(from: "cart", to: "checkout")] == 760)
        #expect(detector.steps[ScreenStep(from: "cart", to: "")] == 300)
    }

    @Test func aVisitEndsAfterHalfAnHourAndATapThatEndsItIsNotDead() {
        var detector = StruggleDetector()
        func event(_ name: String, _ target: String?, at seconds: Double) -> StoredEvent {
            StoredEvent(
                app: "a", id: "\(seconds)", user: "u", name: name, target: target, timestamp: Int64(seconds * 1000), receivedAt: 0,
                clamped: false, properties: nil)
        }
        detector.add(event("screen", "home", at: 0))
        detector.add(event("tap", "external-link", at: 10))
        // The next event comes an hour later: a new visit, and the link may well have left the app.
        detector.add(event("screen", "home", at: 3610))
        detector.add(event("tap", "logo", at: 3620))
        detector.add(event("tap", "logo", at: 3621))
        detector.finish()
        #expect(detector.occurrences.isEmpty, "\(detector.occurrences)")
        #expect(detector.steps == [ScreenStep(from: "home", to: ""): 2])
    }

    @Test func thresholdsAreTheAppsToSet() {
        var strict = StruggleThresholds()
        strict.rageTaps = 10
        var detector = StruggleDetector(thresholds: strict)
        let shop = Self.plantedShop(seed: 3)
        for event in shop.events { detector.add(event) }
        detector.finish()
        #expect(!detector.occurrences.contains { $0.signal == .rageTaps }, "at most 6 taps were planted")
        strict.stopShare = 0.5
        #expect(StruggleDetector.stops(detector.steps, strict).isEmpty)
        #expect(StruggleDetector.stops(detector.steps, StruggleThresholds()).map(\.screen) == ["cart"])
    }

    @Test func anAppSetsItsThresholdsInItsCatalog() throws {
        let catalog = try CatalogDocument.parse(
            """
            struggles:
              rageTaps: 5
              idleSeconds: 90
              stopShare: 0.4
            tips: []
            """, file: "catalog")
        var expected = StruggleThresholds()
        (expected.rageTaps, expected.idleSeconds, expected.stopShare) = (5, 90, 0.4)
        #expect(catalog.struggles == expected)
        // Written back, only what the app changed.
        let document = CatalogDocument.yaml(catalog)
        #expect(document.contains("struggles:\n  rageTaps: 5\n  idleSeconds: 90\n  stopShare: 0.4\n"), "\(document)")
        #expect(try CatalogDocument.parse(document, file: "again").struggles == expected)
        #expect(!CatalogDocument.yaml(Catalog(tips: [])).contains("struggles"))
        // Out of range, or not a number: refused, each where it is.
        do {
            _ = try CatalogDocument.parse("struggles: { rageTaps: 1, idleSeconds: soon, tapsAgain: 3 }\ntips: []\n", file: "bad")
            Issue.record("a bad threshold was taken")
        } catch {
            let text = "\(error)"
            #expect(text.contains("rageTaps must be from 2 to 20") && text.contains("idleSeconds must be a number"), "\(text)")
            #expect(text.contains("tapsAgain"))
        }
    }
}
