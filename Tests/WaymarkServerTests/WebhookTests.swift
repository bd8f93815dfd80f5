import Foundation
import HTTPTypes
import Testing
import WaymarkServer
import WaymarkStore
import WaymarkSupport

/// The parts of webhooks that need no server: signatures, the retry schedule, which endpoints a
/// server calls, and the bodies of notices.
@Suite struct WebhookUnitTests {
    @Test func signaturesAreStripesAndRefuseOtherBodiesSecretsAndOldTimes() {
        let time = Date(timeIntervalSince1970: 1_795_000_000)
        let header = WebhookSignature.sign(#"{"a":1}"#, secrets: ["whsec_new", "whsec_old"], at: time)
        #expect(header.hasPrefix("t=1795000000,v1=") && header.components(separatedBy: ",v1=").count == 3)
        // The HMAC-SHA256 of "1795000000.{"a":1}" keyed with "whsec_new", as any language computes it.
        #expect(header.contains("v1=" + WebhookSignatureVector.expected))
        for secret in ["whsec_new", "whsec_old"] {
            #expect(WebhookSignature.verify(header, body: #"{"a":1}"#, secret: secret, now: time.addingTimeInterval(299)))
        }
        #expect(!WebhookSignature.verify(header, body: #"{"a":2}"#, secret: "whsec_new", now: time))
        #expect(!WebhookSignature.verify(header, body: #"{"a":1}"#, secret: "whsec_other", now: time))
        #expect(!WebhookSignature.verify(header, body: #"{"a":1}"#, secret: "whsec_new", now: time.addingTimeInterval(301)))
        #expect(!WebhookSignature.verify("v1=abc", body: #"{"a":1}"#, secret: "whsec_new", now: time))
    }

    @Test func retriesWaitTwiceAsLongEachTimeUpToSixHours() {
        let waits = (1...WebhookSender.maximumAttempts).map { WebhookSender.delay(afterAttempts: $0, firstRetry: 30) }
        #expect(Array(waits.prefix(4)) == [30, 60, 120, 240])
        #expect(waits.last == WebhookSender.maximumDelay)
        let total = waits.dropLast().reduce(0, +)
        #expect((36 * 3600...48 * 3600).contains(total), "about two days of retries: \(total / 3600) h")
    }

    @Test func endpointsAreHTTPAndPublicUnlessTheServerAllowsMore() {
        #expect(WebhookEndpoints.problem(url: "https://shop.example.com/hooks?x=1", privateNetworks: false) == nil)
        #expect(WebhookEndpoints.problem(url: "HTTP://Shop.Example.com:65535#x", privateNetworks: false) == nil)
        for url in [
            "ftp://example.com", "https://", "https://user:pw@example.com", "example.com/hook", String(repeating: "a", count: 3000),
            "http://127.0.0.1:65536/", "http://127.0.0.1:99999/", "https://example.com:70000/", "https://example.com:0/",
            "https://example.com:/", "https://example.com:080/", "https://exa mple.com/", "https://example.com/a b",
            "https://example.com/\r\nX-Evil: 1", "https://example.com/\n", "https://example.com/\u{7F}", "https://example.com/é",
            "http://[::1]/", "http://2130706433/", "http://0x7f.0.0.1/", "http://010.0.0.1/", "http://127.1/", "http://1.2.3.256/",
            "http://-shop.example.com/", "http://shop..example.com/", "http://shop.example.com./", "http://shop.3com/",
            "https://example.com\\@evil.com/", "https://example.com%2F/",
        ] {
            let problem = WebhookEndpoints.problem(url: url, privateNetworks: true)
            #expect(problem?.status == .unprocessableContent && problem?.field == "url", "\(url.debugDescription)")
        }
        for url in [
            "http://localhost:8080/", "http://127.0.0.1/", "http://10.1.2.3/", "http://172.20.0.1/", "http://192.168.1.1/",
            "http://169.254.169.254/latest", "http://db.internal/", "http://0.0.0.0/", "http://100.64.0.1/", "http://198.18.0.1/",
            "http://224.0.0.1/", "http://255.255.255.255/",
        ] {
            #expect(WebhookEndpoints.problem(url: url, privateNetworks: false)?.status == .forbidden, "\(url)")
            #expect(WebhookEndpoints.problem(url: url, privateNetworks: true) == nil, "\(url)")
        }
        #expect(WebhookEndpoints.problem(url: "http://172.32.0.1/", privateNetworks: false) == nil)
    }

    /// openapi.yaml's pattern for an endpoint URL is ``EndpointURL/pattern``, and the parser takes
    /// exactly the texts it matches (but for host names over 253 characters, which it refuses).
    @Test func theURLParserAndTheDocumentsPatternAgree() throws {
        let document = WaymarkServer.openAPIDocument
        let line = try #require(document.split(separator: "\n").first { $0.contains("pattern: \"^[Hh][Tt]") })
        let quoted = line.drop { $0 != "\"" }.dropFirst().dropLast()
        #expect(quoted.replacingOccurrences(of: "\\\\", with: "\\") == EndpointURL.pattern)
        let regex = try NSRegularExpression(pattern: EndpointURL.pattern)
        func matches(_ text: String) -> Bool {
            regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
        }
        // Texts made of the pieces a URL has, good and bad, in every order: a fixed seed.
        let schemes = ["http://", "HTTPS://", "hTtP://", "ftp://", "http:/", ""]
        let hosts = [
            "a", "example.com", "shop-1.example.co", "1.2.3.4", "255.255.255.255", "256.1.1.1", "01.2.3.4", "1.2.3", "2130706433",
            "-a.com", "a-.com", "a..com", "a.com.", "3com", "x.3com", "", String(repeating: "a", count: 63) + ".com",
            String(repeating: "a", count: 64) + ".com", "[::1]", "ex ample.com", "é.com", "a_b.com",
        ]
        let ports = ["", ":1", ":80", ":65535", ":65536", ":0", ":080", ":", ":99999", ":123456"]
        let rests = ["", "/", "/hook?x=1#y", "?q", "#f", "/a b", "/\t", "/é", "x", "/%20", "/\u{7F}"]
        var generator = SplitMix64(seed: 20_261_127)
        for _ in 0..<4000 {
            let text = [schemes, hosts, ports, rests].map { $0.randomElement(using: &generator)! }.joined()
            let parsed = (try? EndpointURL.parse(text)) != nil
            #expect(parsed == matches(text), "\(text.debugDescription): parser \(parsed)")
        }
        let long = "http://" + Array(repeating: String(repeating: "a", count: 63), count: 4).joined(separator: ".") + "/"
        #expect(matches(long) && (try? EndpointURL.parse(long)) == nil, "a host of 255 characters: longer than DNS allows")
    }

    @Test func aSurveyAnswerGoesOutAsStoredAndOtherEventsNotAtAll() throws {
        let answer = StoredEvent(
            app: "app_1", id: "e1", user: "u\"1", name: "survey_answered", target: "nps", timestamp: 1_795_000_000_000,
            receivedAt: 1_795_000_001_000, clamped: false, propertiesJSON: #"{"comment":"fast","score":9}"#, platform: nil, appVersion: nil)
        let notice = try #require(WebhookNotices.forEvent(answer))
        #expect(notice.type == "survey.answered" && notice.user == "u\"1" && notice.id.hasPrefix("evt_"))
        let body = try #require(try JSONSerialization.jsonObject(with: Data(notice.body.utf8)) as? [String: Any])
        #expect(
            body["id"] as? String == notice.id && body["app"] as? String == "app_1"
                && (body["created"] as? String)?.hasPrefix("2026-11-18T11:06:41") == true)
        let data = try #require(body["data"] as? [String: Any])
        #expect(data["user"] as? String == "u\"1" && data["survey"] as? String == "nps" && data["event"] as? String == "e1")
        let fields = try #require(data["answer"] as? [String: Any])
        #expect(fields.count == 2 && fields["comment"] as? String == "fast" && fields["score"] as? Int == 9)
        var tap = answer
        tap.name = "tap"
        #expect(WebhookNotices.forEvent(tap) == nil)
    }
}

/// A signature computed outside Waymark (`printf '1795000000.{"a":1}' | openssl dgst -sha256 -hmac whsec_new`).
enum WebhookSignatureVector {
    static let expected = "6d5cdd5139eb511ac532075562fc7b48cfa2ad8e28ffedd1e93418a1d8db3e96"
}
