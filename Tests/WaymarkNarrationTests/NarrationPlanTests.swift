import Testing
import WaymarkCatalog
import WaymarkNarration

@Suite struct NarrationPlanTests {
    static let catalog = try! CatalogDocument.parse(
        """
        narration: { language: en, speed: 160 }
        tips:
          - id: search
            container: home
            trigger: scroll
            content:
              title: Search
              body: Tap the **magnifier**.
              locales:
                hi: { title: खोजें, body: आवर्धक पर टैप करें। }
                hi-IN: { title: खोजें, body: आवर्धक पर टैप करें। }
                xx: { title: Zork, body: Unknown language. }
                ta: { title: தேடு, audio: "recording:00112233445566778899aabbccddeeff" }
          - id: cart
            container: home
            trigger: scroll
            content: { title: Cart, audio: https://cdn.example.com/cart.ogg }
        tours:
          - id: welcome
            pages:
              - { id: one, content: { title: Search, body: Tap the **magnifier**. } }
        """, file: "test")

    @Test func everyContentInEveryLocaleHasALineSayingWhereItsVoiceComesFrom() throws {
        let plan = NarrationPlan(Self.catalog)
        let byOwner = Dictionary(grouping: plan.lines, by: { "\($0.owner) \($0.locale)" })
        func source(_ owner: String) throws -> NarrationPlan.Line.Source { try #require(byOwner[owner]?.first).source }

        guard case .speech(let english) = try source("tip search default") else {
            Issue.record("no speech")
            return
        }
        #expect(english.voice == "en" && english.speed == 160)
        #expect(english.text == "Search\nTap the magnifier.")
        guard case .speech(let hindi) = try source("tip search hi-IN") else {
            Issue.record("no speech")
            return
        }
        #expect(hindi.voice == "hi")
        #expect(try source("tip search xx") == .none(reason: "no voice speaks xx"))
        #expect(try source("tip search ta") == .recording(key: "00112233445566778899aabbccddeeff"))
        #expect(try source("tip cart default") == .external(url: "https://cdn.example.com/cart.ogg"))
    }

    @Test func theSameTextVoiceAndSpeedAreOneKeyMadeOnce() throws {
        let plan = NarrationPlan(Self.catalog)
        // The tip and the page say the same English text; hi and hi-IN the same Hindi.
        #expect(plan.speeches.count == 2)
        let english = NarrationPlan.Speech(text: "Search\nTap the magnifier.", voice: "en", speed: 160)
        #expect(english.key == NarrationPlan.Speech(text: "Search\nTap the magnifier.", voice: "en", speed: 160).key)
        #expect(english.key.count == 32)
        // Any change of text, voice or speed is new audio.
        #expect(english.key != NarrationPlan.Speech(text: "Search\nTap the magnifier!", voice: "en", speed: 160).key)
        #expect(english.key != NarrationPlan.Speech(text: "Search\nTap the magnifier.", voice: "hi", speed: 160).key)
        #expect(english.key != NarrationPlan.Speech(text: "Search\nTap the magnifier.", voice: "en", speed: 161).key)
    }

    @Test func aCatalogWithoutNarrationSettingsGeneratesNothing() throws {
        var catalog = Self.catalog
        catalog.narration = nil
        let plan = NarrationPlan(catalog)
        #expect(plan.speeches.isEmpty)
        #expect(plan.keys == ["00112233445566778899aabbccddeeff"])
    }

    @Test func narrationSettingsAreCheckedAndWrittenBack() throws {
        let written = CatalogDocument.yaml(Self.catalog)
        #expect(try CatalogDocument.parse(written, file: "again") == Self.catalog)
        for (bad, message) in [
            ("narration: { language: en, speed: 20 }", "speed is 20 words per minute; it must be from 80 to 400"),
            ("narration: { speed: 150 }", "language is missing"),
            ("narration: { language: \"<b>\" }", "is not a language"),
        ] {
            let text = "\(bad)\ntips: []"
            #expect(throws: DiagnosticsError.self) { try CatalogDocument.parse(text, file: "bad") }
            do { _ = try CatalogDocument.parse(text, file: "bad") } catch { #expect("\(error)".contains(message), "\(error)") }
        }
        let badKey = "tips:\n  - { id: a, container: c, trigger: scroll, content: { title: T, audio: \"recording:../../etc\" } }"
        do {
            _ = try CatalogDocument.parse(badKey, file: "bad")
            Issue.record("a bad recording key was accepted")
        } catch {
            #expect("\(error)".contains("16 to 64 lowercase hexadecimal digits"))
        }
    }
}
