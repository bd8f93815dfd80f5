import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOFoundationEssentialsCompat
import Testing
import WaymarkAPI
import WaymarkCatalog
import WaymarkNarration
import WaymarkServer
import WaymarkStore
import WaymarkTestSupport

/// Narration end to end on a live server with a real narrator: publishing asks for the speech, the
/// catalog carries its URL and duration once made, and the audio is served for caching.
@Suite(.timeLimit(.minutes(5))) struct NarrationServerTests {
    /// The shop's server, speaking with espeak-ng (or the given synthesizer).
    func withNarratingServer(
        _ kind: StoreUnderTest, synthesizer: (any Synthesizer)? = nil,
        _ body: @Sendable (any TestClientProtocol, Provisioning.NewApp, Provisioning.NewApp, any Store) async throws -> Void
    ) async throws {
        try await ServerTests().withServer(kind, synthesizer: try synthesizer ?? ESpeakSynthesizer.onPath().get(), body)
    }

    static func catalog(_ client: any TestClientProtocol, _ app: Provisioning.NewApp, locale: String) async throws -> DeliveredCatalog {
        let response = try await client.execute(uri: "/v1/catalog?locale=\(locale)", method: .get, headers: ServerTests.auth(app.clientKey))
        #expect(response.status == .ok)
        return try JSONDecoder().decode(DeliveredCatalog.self, from: Data(buffer: response.body))
    }

    /// A tip's narration in a locale, once the server has it (at most 60 s).
    static func narration(
        _ client: any TestClientProtocol, _ app: Provisioning.NewApp, tip id: String = "checkout-survey", locale: String
    ) async throws -> DeliveredNarration {
        let narration = try await eventually(within: 60, every: .milliseconds(200)) {
            try #require(try await catalog(client, app, locale: locale).tips.first { $0.id == id }).content.narration
        }
        return try #require(narration, "no narration for \(locale) within 60 s")
    }

    @Test(arguments: StoreUnderTest.available)
    func publishedTipsGetSpokenAndTheAudioIsServedForCaching(_ kind: StoreUnderTest) async throws {
        try await withNarratingServer(kind) { client, app, other, _ in
            try await ServerTests.publishShop(client, app)
            // At once the tip works, spoken or not yet; the recording on the web is there from the start.
            let first = try await Self.catalog(client, app, locale: "en")
            let welcome = try #require(first.tips.first { $0.id == "welcome" })
            #expect(
                welcome.content.narration
                    == DeliveredNarration(url: "https://media.example.com/welcome-en.ogg", duration: nil, source: .recording))

            var keys: Set<String> = []
            for locale in ["en", "hi", "ta"] {
                let narration = try await Self.narration(client, app, locale: locale)
                #expect(narration.source == .generated)
                #expect(narration.url.hasPrefix("/v1/narration/\(app.appId)/"))
                #expect((narration.duration ?? 0) > 0.5 && (narration.duration ?? 0) < 30)
                keys.insert(String(narration.url.split(separator: "/").last ?? ""))
            }
            #expect(keys.count == 3)
            // The welcome banner's Hindi has no recording, so it is spoken too; its English stays the recording.
            #expect(try await Self.narration(client, app, tip: "welcome", locale: "hi").source == .generated)
            #expect(try await Self.narration(client, app, tip: "welcome", locale: "en").source == .recording)

            let url = try await Self.narration(client, app, locale: "hi").url
            let audio = try await client.execute(uri: url, method: .get)
            #expect(audio.status == .ok)
            #expect(audio.headers[.contentType] == "audio/ogg")
            #expect(audio.headers[.cacheControl] == "public, max-age=31536000, immutable")
            #expect(audio.headers[.acceptRanges] == "bytes")
            let bytes = [UInt8](Data(buffer: audio.body))
            #expect(bytes.starts(with: Array("OggS".utf8)) && bytes.count > 1_000)

            let partial = try await client.execute(uri: url, method: .get, headers: [.range: "bytes=0-99"])
            #expect(partial.status == .partialContent)
            #expect(partial.body.readableBytes == 100)
            #expect(partial.headers[.contentRange] == "bytes 0-99/\(bytes.count)")
            let tail = try await client.execute(uri: url, method: .get, headers: [.range: "bytes=-10"])
            #expect([UInt8](Data(buffer: tail.body)) == Array(bytes.suffix(10)))
            let outside = try await client.execute(uri: url, method: .get, headers: [.range: "bytes=\(bytes.count)-"])
            #expect(outside.status == .rangeNotSatisfiable)
            let cached = try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: try #require(audio.headers[.eTag])])
            #expect(cached.status == .notModified)

            // Another app's path with this key, or a key that is not one, finds nothing.
            let key = url.split(separator: "/").last!
            #expect(try await client.execute(uri: "/v1/narration/\(other.appId)/\(key)", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/v1/narration/\(app.appId)/..%2F..%2Fetc", method: .get).status == .notFound)
        }
    }

    @Test func aGenerationThatFailsLeavesTheTipWorkingWithoutAudio() async throws {
        let broken = ESpeakSynthesizer(espeak: "/bin/false", ffmpeg: "/bin/false")
        try await withNarratingServer(.sqlite, synthesizer: broken) { client, app, _, store in
            try await ServerTests.publishShop(client, app)
            _ = try await Self.catalog(client, app, locale: "hi")
            // Wait for the narrator to record its failures, the tip staying without narration meanwhile.
            let failed = try await eventually(within: 30, every: .milliseconds(300)) {
                let tip = try #require(try await Self.catalog(client, app, locale: "hi").tips.first { $0.id == "checkout-survey" })
                #expect(tip.content.narration == nil)
                let states = try await store.narrationStates(app: app.appId, keys: NarrationPlan(SpeechCatalog.shop).keys)
                return states.values.contains { if case .failed = $0 { true } else { false } }
            }
            #expect(failed)
            let tip = try #require(try await Self.catalog(client, app, locale: "hi").tips.first { $0.id == "checkout-survey" })
            #expect(tip.content.narration == nil)
            #expect(tip.content.title == "चेकआउट कितना आसान था?")
        }
    }
}

enum SpeechCatalog {
    static let shop = try! WaymarkCatalog.CatalogDocument.parse(ServerTests.shop, file: "shop.yaml")
}
