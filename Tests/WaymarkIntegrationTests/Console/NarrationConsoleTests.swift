import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import WaymarkCatalog
import WaymarkNarration
import WaymarkServer
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// The console's narration page with a server that really speaks: status and players per tip and
/// locale, regenerating, and replacing speech with an uploaded recording (checked, CSRF-bound).
@Suite(.timeLimit(.minutes(5))) struct NarrationConsoleTests {
    static let shop = try! String(
        contentsOf: WaymarkBinary.root.appendingPathComponent("Sources/waymark/Resources/shop.yaml"), encoding: .utf8
    )

    static func publishShop(_ setup: ConsoleTests.Setup) async throws {
        let auth: HTTPFields = [.authorization: "Bearer \(setup.shop.secretKey)"]
        let put = try await setup.client.execute(
            uri: "/v1/admin/catalog/draft", method: .put, headers: auth, body: ByteBuffer(string: shop))
        #expect(put.status == .ok)
        let publish = try await setup.client.execute(uri: "/v1/admin/catalog/publish", method: .post, headers: auth)
        #expect(publish.status == .created)
    }

    /// The row of one content on the narration page.
    static func row(_ page: String, owner: String, locale: String) -> String? {
        guard let start = page.range(of: #"<tr data-owner="\#(owner)" data-locale="\#(locale)">"#) else { return nil }
        return page[start.upperBound...].components(separatedBy: "</tr>")[0]
    }

    /// A multipart upload as a browser's form sends it.
    static func multipart(_ fields: [(String, String)], file: [UInt8], filename: String) -> (HTTPFields, ByteBuffer) {
        let boundary = "----waymark\(UUID().uuidString)"
        var body: [UInt8] = []
        for (name, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\(filename)\"\r\nContent-Type: audio/ogg\r\n\r\n"
                .utf8)
        body += file
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return ([.contentType: "multipart/form-data; boundary=\(boundary)"], ByteBuffer(bytes: body))
    }

    @Test func authorsSeeHearRegenerateAndReplaceNarration() async throws {
        try await ConsoleTests().withConsole(.sqlite, narrator: true) { setup in
            try await Self.publishShop(setup)
            var owner = try await ConsoleTests.owner(setup)
            let path = "/console/apps/\(setup.shop.appId)/narration"
            // Publishing asked for the speech; the page shows it once made, with a player.
            var page = ""
            let spoken = try await eventually(within: 60, every: .milliseconds(200)) {
                page = String(buffer: try await owner.get(path).body)
                return Self.row(page, owner: "tip/checkout-survey", locale: "hi").flatMap { $0.contains("<audio controls") ? $0 : nil }
            }
            let hindi = try #require(spoken, "\(page)")
            #expect(hindi.contains("speech (hi, 150 words a minute)") && hindi.contains("ready"))
            #expect(hindi.contains(#"src="/v1/narration/\#(setup.shop.appId)/"#))
            #expect(hindi.contains("Regenerate") && hindi.contains(#"enctype="multipart/form-data""#))
            let welcome = try #require(Self.row(page, owner: "tip/welcome", locale: "default"))
            #expect(welcome.contains("recording on the web") && welcome.contains("Remove recording"))
            #expect(page.contains("This server makes speech."))

            // A viewer hears it but changes nothing.
            var viewer = ConsoleTests.Browser(setup.client)
            _ = try await viewer.signIn("vic@example.com")
            let seen = String(buffer: try await viewer.get(path).body)
            #expect(seen.contains("<audio controls") && !seen.contains("Regenerate"))
            let key = try #require(hindi.components(separatedBy: #"name="key" value=""#).dropFirst().first?.prefix { $0 != "\"" })
            #expect(try await viewer.post(path + "/regenerate", [("key", String(key))]).status == .forbidden)

            // Regenerating forgets the audio and makes it again.
            #expect(try await owner.post(path + "/regenerate", [("key", String(key))]).status == .seeOther)
            let remade = try await eventually(within: 60) {
                if case .ready = try await setup.store.narrationStates(app: setup.shop.appId, keys: [String(key)])[String(key)] {
                    true
                } else {
                    false
                }
            }
            #expect(remade)

            // An uploaded recording replaces the Tamil speech in the draft, checked by its bytes.
            let audio = try await ESpeakSynthesizer.onPath().get().speak(NarrationPlan.Speech(text: "பணம் செலுத்துதல்", voice: "ta", speed: 120))
            let fields = [("csrf", owner.csrf), ("owner", "tip/checkout-survey"), ("locale", "ta")]
            var (headers, body) = Self.multipart(fields, file: audio.bytes, filename: "tamil.ogg")
            for field in owner.headers() { headers.append(field) }
            let uploaded = try await setup.client.execute(uri: path + "/recording", method: .post, headers: headers, body: body)
            #expect(uploaded.status == .seeOther)
            let recording = try await Recording.check(audio.bytes)
            let draft = try #require(try await setup.store.draft(app: setup.shop.appId))
            #expect(draft.document.contains("recording:\(recording.key)"))
            page = String(buffer: try await owner.get(path).body)
            let tamil = try #require(Self.row(page, owner: "tip/checkout-survey", locale: "ta"))
            #expect(tamil.contains("uploaded recording") && tamil.contains("ready") && tamil.contains(recording.key))

            // Not audio, or no CSRF token: refused, and the draft is as it was.
            (headers, body) = Self.multipart(fields, file: Array("<script>alert(1)</script>".utf8), filename: "evil.ogg")
            for field in owner.headers() { headers.append(field) }
            let refused = try await setup.client.execute(uri: path + "/recording", method: .post, headers: headers, body: body)
            #expect(refused.status == .unprocessableContent)
            #expect(String(buffer: refused.body).contains("not Ogg"))
            (headers, body) = Self.multipart(Array(fields.dropFirst()), file: audio.bytes, filename: "tamil.ogg")
            for field in owner.headers() { headers.append(field) }
            #expect(
                try await setup.client.execute(uri: path + "/recording", method: .post, headers: headers, body: body).status == .forbidden)
            #expect(try await setup.store.draft(app: setup.shop.appId)?.revision == draft.revision)

            // Removing the recording brings back speech; the language setting is checked.
            #expect(
                try await owner.post(path + "/recording/remove", [("owner", "tip/checkout-survey"), ("locale", "ta")]).status == .seeOther)
            #expect(try await setup.store.draft(app: setup.shop.appId)?.document.contains("recording:") == false)
            let bad = try await owner.post(path + "/settings", [("language", "not a language"), ("speed", "150")])
            #expect(bad.status == .unprocessableContent)
            #expect(try await owner.post(path + "/settings", [("language", "hi"), ("speed", "120")]).status == .seeOther)
            #expect(try await setup.store.draft(app: setup.shop.appId)?.document.contains("speed: 120") == true)
            // The locales whose users hear every tip by default: checked, kept, and cleared.
            let badListen = try await owner.post(
                path + "/settings", [("language", "hi"), ("speed", "120"), ("listen", "hi, not-a-locale!")])
            #expect(badListen.status == .unprocessableContent)
            #expect(
                try await owner.post(path + "/settings", [("language", "hi"), ("speed", "120"), ("listen", "hi, ta")]).status == .seeOther)
            let listening = try await setup.store.draft(app: setup.shop.appId)?.document ?? ""
            #expect(try CatalogDocument.parse(listening, file: "draft").listen == ["hi", "ta"])
            #expect(String(buffer: try await owner.get(path).body).contains(#"value="hi, ta""#))

            // The draft's new speech is made once its page is looked at, before anything is published.
            let draftSpoken = try await eventually(within: 60, every: .milliseconds(200)) {
                let page = String(buffer: try await owner.get(path).body)
                return Self.row(page, owner: "tip/checkout-survey", locale: "hi").map {
                    $0.contains("120 words a minute") && $0.contains("<audio controls")
                } ?? false
            }
            #expect(draftSpoken)

            // The analytics show who listened beside the tip's conversion.
            let now = Date().millisecondsSince1970
            let events = ["tip_shown", "narration_played", "narration_completed", "tip_dismissed"].enumerated().map { index, name in
                StoredEvent(
                    app: setup.shop.appId, id: EventID.make(milliseconds: now, number: index), user: "listener", name: name,
                    target: "checkout-survey", timestamp: now - 60_000 + Int64(index),
                    receivedAt: now, clamped: false, properties: ["platform": "web"]
                )
            }
            _ = try await setup.store.insertEvents(events)
            let analytics = String(buffer: try await owner.get("/console/apps/\(setup.shop.appId)/analytics").body)
            #expect(
                analytics.contains(
                    #"<th scope="col">Conversion</th><th scope="col">95% interval</th><th scope="col">Listened</th><th scope="col">Heard to the end</th>"#
                ))
            let row = try #require(analytics.components(separatedBy: #"<tr data-key=""#).first { $0.contains(">checkout-survey</a>") })
            #expect(row.contains("<td>100.0%</td>") && row.contains("<td>1</td><td>1</td></tr>"), "\(row)")
        }
    }
}

extension NarrationConsoleTests {
    /// A WAVE file of a tone: `seconds` of 16-bit mono at 22,050 Hz.
    static func tone(seconds: Double) -> [UInt8] {
        let frames = Int(seconds * 22_050)
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var bytes = Array("RIFF".utf8) + le32(36 + frames * 2) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(1)
        bytes += le32(22_050) + le32(44_100) + le16(2) + le16(16) + Array("data".utf8) + le32(frames * 2)
        bytes.reserveCapacity(bytes.count + frames * 2)
        for frame in 0..<frames { bytes += le16(Int(8_000 * sin(Double(frame) * 2 * .pi * 440 / 22_050))) }
        return bytes
    }

    @Test func recordingsUpToTheLimitAreTakenAndLargerOnesRefusedWhole() async throws {
        try await ConsoleTests().withConsole(.sqlite) { setup in
            try await Self.publishShop(setup)
            let owner = try await ConsoleTests.owner(setup)
            let path = "/console/apps/\(setup.shop.appId)/narration/recording"
            let fields = [("csrf", owner.csrf), ("owner", "tip/checkout-survey"), ("locale", "hi")]
            // Four and a half MB of WAVE, more than the console's other forms take.
            let large = Self.tone(seconds: 100)
            #expect(large.count > 4_000_000 && large.count < Recording.maximumSize)
            var (headers, body) = Self.multipart(fields, file: large, filename: "long.wav")
            for field in owner.headers() { headers.append(field) }
            let taken = try await setup.client.execute(uri: path, method: .post, headers: headers, body: body)
            #expect(taken.status == .seeOther, "\(String(buffer: taken.body))")
            let key = try await Recording.check(large).key
            guard case .ready(let ready) = try await setup.store.narrationStates(app: setup.shop.appId, keys: [key])[key] else {
                Issue.record("the recording was not kept")
                return
            }
            #expect(ready.format == "audio/wav" && abs(ready.duration - 100) < 0.1 && ready.source == .recording)

            let revision = try await setup.store.draft(app: setup.shop.appId)?.revision
            (headers, body) = Self.multipart(fields, file: Self.tone(seconds: 125), filename: "longer.wav")
            for field in owner.headers() { headers.append(field) }
            let refused = try await setup.client.execute(uri: path, method: .post, headers: headers, body: body)
            #expect(refused.status == .contentTooLarge)
            #expect(try await setup.store.draft(app: setup.shop.appId)?.revision == revision)
        }
    }
}
