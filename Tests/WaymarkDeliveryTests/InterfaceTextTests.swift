import Foundation
import Testing
import WaymarkAPI

@testable import WaymarkDelivery

/// The SDK's own words in the languages Waymark speaks: the table and the web SDK's modules agree
/// on every key and its English, every language has every key with the same blanks, and a catalog
/// carries the words of its client's language.
@Suite struct InterfaceTextTests {
    /// Every `word(…, "key", "English")` the web SDK's modules say, by key.
    static func wordsTheSDKSays() throws -> [String: String] {
        let modules = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/WaymarkServer/Resources/web/sdk")
        let pattern = try NSRegularExpression(pattern: #"(?:\bword\([\w.]+, |this\.word\(|\bsay\()"(\w+)", (?:[\w.]+ \?\? )?"([^"]*)""#)
        var said: [String: String] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: modules.path) where file.hasSuffix(".js") {
            let text = try String(contentsOf: modules.appendingPathComponent(file), encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let key = String(text[Range(match.range(at: 1), in: text)!])
                let english = String(text[Range(match.range(at: 2), in: text)!])
                #expect(said[key] == nil || said[key] == english, "\(file) says \(key) otherwise: \(english)")
                said[key] = english
            }
        }
        return said
    }

    static func blanks(_ text: String) -> Set<String> {
        var found: Set<String> = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            found.insert(String(rest[open...close]))
            rest = rest[rest.index(after: close)...]
        }
        return found
    }

    @Test func theTableHasEveryWordTheSDKSaysInItsEnglish() throws {
        let said = try Self.wordsTheSDKSays()
        #expect(said.count >= 30, "the pattern still finds the SDK's words")
        #expect(said == InterfaceText.english)
    }

    @Test func everyLanguageHasEveryKeyWithTheSameBlanks() {
        #expect(Set(InterfaceText.tables.keys) == ["hi", "ta", "ur", "bn", "mr"])
        for (language, words) in InterfaceText.tables {
            #expect(Set(words.keys) == Set(InterfaceText.english.keys), "\(language)")
            for (key, english) in InterfaceText.english {
                let translated = words[key] ?? ""
                #expect(!translated.isEmpty, "\(language) \(key)")
                #expect(Self.blanks(translated) == Self.blanks(english), "\(language) \(key): \(translated)")
            }
        }
    }

    @Test func aLocaleReadsItsLanguageAndEnglishHasNone() {
        #expect(InterfaceText.strings(forLocale: "hi-IN")?["next"] == "आगे")
        #expect(InterfaceText.strings(forLocale: "HI")?["next"] == "आगे")
        #expect(InterfaceText.strings(forLocale: "ta_IN")?["help"] == "உதவி")
        #expect(InterfaceText.strings(forLocale: "en-IN") == nil)
        #expect(InterfaceText.strings(forLocale: "pt-BR") == nil)
        #expect(InterfaceText.strings(forLocale: nil) == nil)
        #expect(InterfaceText.strings(forLocale: "") == nil)
    }

    @Test func aCatalogCarriesTheWordsOfItsClientsLanguageAndTheETagTellsThemApart() throws {
        let catalog = try ResolverTests.catalog(
            """
            tips:
              - id: hello
                container: home
                trigger: activation
                content: { title: Hello, body: Welcome. }
            """)
        let resolver = Resolver(catalog: catalog, version: 3)
        let hindi = ClientContext(locale: "hi-IN", user: "u1")
        let english = ClientContext(locale: "en-IN", user: "u1")
        #expect(resolver.resolve(for: hindi).ui?["readAloud"] == "पढ़कर सुनाएँ")
        #expect(resolver.resolve(for: english).ui == nil)
        let json = resolver.json(resolver.decide(for: hindi))
        let decoded = try JSONDecoder().decode(DeliveredCatalog.self, from: Data(json))
        #expect(decoded.ui == InterfaceText.tables["hi"])
        #expect(resolver.decide(for: hindi).etag != resolver.decide(for: english).etag, "the same tips in other words")
        #expect(resolver.decide(for: hindi).etag == resolver.decide(for: ClientContext(locale: "hi", user: "u1")).etag)
    }
}
