import Crypto
import Foundation
import WaymarkCatalog

/// What every tip and tour page of a catalog says aloud, in each locale: its recording, or the
/// speech to generate for it. Pure: the server asks it what to generate and what to deliver, the
/// console what to show.
public struct NarrationPlan: Sendable {
    /// One content (a tip's, a variant's or a page's, in one locale) and its narration.
    public struct Line: Hashable, Sendable {
        public enum Owner: Hashable, Sendable, CustomStringConvertible {
            case tip(String, variant: String?)
            case page(tour: String, page: String)
            case article(String)

            public var description: String {
                switch self {
                case .tip(let id, nil): "tip \(id)"
                case .tip(let id, let variant?): "tip \(id), variant \(variant)"
                case .page(let tour, let page): "tour \(tour), page \(page)"
                case .article(let id): "article \(id)"
                }
            }
        }

        public enum Source: Hashable, Sendable {
            /// An uploaded recording, by key.
            case recording(key: String)
            /// A recording elsewhere on the web.
            case external(url: String)
            /// Speech to generate: the key names the result.
            case speech(Speech)
            /// No narration, and why.
            case none(reason: String)
        }

        public var owner: Owner
        /// As written in the catalog, or `default`.
        public var locale: String
        public var content: Content
        public var source: Source

        /// The key of the audio this line plays from the server, if any.
        public var key: String? {
            switch source {
            case .recording(let key): key
            case .speech(let speech): speech.key
            case .external, .none: nil
            }
        }
    }

    /// Text to speak, with the voice and speed to speak it.
    public struct Speech: Hashable, Sendable {
        public var text: String
        /// An espeak-ng voice: a language code.
        public var voice: String
        /// Words per minute.
        public var speed: Int

        public init(text: String, voice: String, speed: Int) {
            self.text = text
            self.voice = voice
            self.speed = speed
        }

        /// Names the generated audio: the same text, voice and settings give the same key, so
        /// they are generated once; a change to any (or to how audio is made) gives a new one.
        public var key: String {
            NarrationPlan.hash(Array("\(Speech.recipe)\n\(voice)\n\(speed)\n\(text)".utf8))
        }

        /// How audio is made; changing it makes every key new, so everything is generated again.
        static let recipe = "espeak-ng/opus-32k/1"
    }

    /// Languages espeak-ng speaks that Waymark offers, by ISO 639 code: the Indian
    /// languages, English, and the widely used others.
    public static let voices: Set<String> = [
        "en", "hi", "bn", "ta", "te", "mr", "gu", "kn", "ml", "pa", "or", "as", "ur", "ne",
        "ar", "de", "es", "fr", "id", "it", "ja", "ko", "ms", "nl", "pl", "pt", "ru", "sw", "th", "tr", "vi", "zh",
    ]

    /// A key for audio: the first 128 bits of SHA-256, in hex.
    static func hash(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// The most text one narration speaks.
    public static let maximumText = 4_000

    public let lines: [Line]

    public init(_ catalog: Catalog) {
        var lines: [Line] = []
        func add(_ owner: Line.Owner, _ content: Localized<Content>) {
            lines.append(Self.line(owner, "default", content.fallback, catalog.narration))
            for locale in content.locales.keys.sorted() {
                lines.append(Self.line(owner, locale, content.locales[locale]!, catalog.narration))
            }
        }
        for tip in catalog.tips {
            // A tip with variants shows only theirs.
            if tip.variants.isEmpty { add(.tip(tip.id, variant: nil), tip.content) }
            for variant in tip.variants { add(.tip(tip.id, variant: variant.id), variant.content) }
        }
        for tour in catalog.tours {
            for page in tour.pages { add(.page(tour: tour.id, page: page.id), page.content) }
        }
        // Help is read aloud too: for users more at ease listening than reading.
        for article in catalog.articles { add(.article(article.id), article.content) }
        self.lines = lines
    }

    /// The speech still to generate, once each.
    public var speeches: [Speech] {
        var seen: Set<String> = []
        return lines.compactMap { line in
            guard case .speech(let speech) = line.source, seen.insert(speech.key).inserted else { return nil }
            return speech
        }
    }

    /// Every key of audio on the server the catalog plays.
    public var keys: [String] { Array(Set(lines.compactMap(\.key))).sorted() }

    static func line(_ owner: Line.Owner, _ locale: String, _ content: Content, _ settings: NarrationSettings?) -> Line {
        func make(_ source: Line.Source) -> Line { Line(owner: owner, locale: locale, content: content, source: source) }
        if let key = content.recordingKey { return make(.recording(key: key)) }
        if let audio = content.audio { return make(.external(url: audio)) }
        guard let settings else { return make(.none(reason: "the catalog does not ask for narration")) }
        let language = locale == "default" ? settings.language : locale
        let voice = language.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() } ?? ""
        guard voices.contains(voice) else { return make(.none(reason: "no voice speaks \(language)")) }
        let text = content.spokenText
        guard !text.isEmpty else { return make(.none(reason: "there is no text to speak")) }
        guard text.count <= maximumText else {
            return make(.none(reason: "the text is \(text.count) characters; narration speaks at most \(maximumText)"))
        }
        return make(.speech(Speech(text: text, voice: voice, speed: settings.speed)))
    }
}
