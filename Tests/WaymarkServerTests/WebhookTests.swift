import Foundation
import Testing
import WaymarkServer
import WaymarkStore

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
        for url in [
            "ftp://example.com", "https://", "https://user:pw@example.com", "example.com/hook", String(repeating: "a", count: 3000),
        ] {
            #expect(WebhookEndpoints.problem(url: url, privateNetworks: true)?.status == .badRequest, "\(url)")
        }
        for url in [
            "http://localhost:8080/", "http://127.0.0.1/", "http://10.1.2.3/", "http://172.20.0.1/", "http://192.168.1.1/",
            "http://169.254.169.254/latest", "http://[::1]/", "http://[fd00::1]/", "http://db.internal/",
        ] {
            #expect(WebhookEndpoints.problem(url: url, privateNetworks: false)?.status == .forbidden, "\(url)")
            #expect(WebhookEndpoints.problem(url: url, privateNetworks: true) == nil, "\(url)")
        }
        #expect(WebhookEndpoints.problem(url: "http://172.32.0.1/", privateNetworks: false) == nil)
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
