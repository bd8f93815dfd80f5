import Foundation
import NIOCore
import Testing
import WaymarkClickHouse
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// HTTPS to ClickHouse (`clickhouses://`), against a server of the test's own that offers it with
/// a certificate the test makes (its CA, and a server certificate for `localhost` only).
@Suite(.timeLimit(.minutes(5)), .enabled(if: ClickHouseDatabase.isAvailable)) struct ClickHouseTLSTests {
    /// What counting the events at `url` says: nil when ClickHouse answers, else the error.
    static func refusal(_ url: String) async throws -> StoreError? {
        do {
            _ = try await ClickHouseAnalytics(ClickHouse(url: try ClickHouseURL(url), timeout: .seconds(20))).count(app: "a")
            return nil
        } catch {
            return error
        }
    }

    @Test func overHTTPSTheCertificateMustBeSignedByATrustedCAForTheHost() async throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let server = try ClickHouseShippingTests.OwnClickHouse(certificates: certificates)
        defer { server.remove() }
        let url = server.secureURL
        // Trusting the CA that signed it: the events go in and are counted, over HTTPS.
        let trusted = try ClickHouseURL(url + "?sslrootcert=\(certificates.ca)")
        #expect(trusted.secure && trusted.endpoint.hasPrefix("https://localhost:"))
        #expect(trusted.description.hasSuffix("?sslrootcert=\(certificates.ca)") && !trusted.description.contains(trusted.password))
        let analytics = ClickHouseAnalytics(ClickHouse(url: trusted))
        try await analytics.migrate()
        let event = StoredEvent(
            app: "a", id: EventID.make(milliseconds: 1_790_000_000_000, number: 1), user: "u1", name: "tip_shown", target: "t",
            timestamp: 1_790_000_000_000, receivedAt: 1_790_000_000_000, clamped: false, properties: ["platform": "android"])
        let reported = [String?](repeating: nil, count: TallyDimension.rolledUpProperties.count)
        #expect(try await analytics.insert([AnalyticsRow(event: event, reported: reported)]) == 1)
        #expect(try await Self.refusal(url + "?sslrootcert=\(certificates.ca)") == nil)
        #expect(try await analytics.count(app: "a") == 1)

        // The system's CAs, another CA, or the right CA for another name: refused, saying why.
        let wrongHost = url.replacingOccurrences(of: "@localhost:", with: "@127.0.0.1:") + "?sslrootcert=\(certificates.ca)"
        for untrusted in [url, url + "?sslrootcert=\(certificates.otherCA)", wrongHost] {
            let error = try #require(try await Self.refusal(untrusted), "\(untrusted)")
            #expect(error.code == .unavailable && error.message.contains("certificate is not one to trust"), "\(error)")
            #expect(!error.message.contains(trusted.password))
        }
        // Plain HTTP to the HTTPS port gets no answer it can read.
        #expect(try await Self.refusal(url.replacingOccurrences(of: "clickhouses://", with: "clickhouse://"))?.code == .unavailable)
    }

    @Test func anSSLRootCertThatCannotBeUsedStopsTheStart() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-not-a-ca-\(UUID().uuidString).pem")
        try "not a certificate\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        for (bad, says) in [
            ("clickhouses://u:p@ch.example.com/w?sslrootcert=/no/such/file.pem", "sslrootcert"),
            ("clickhouses://u:p@ch.example.com/w?sslrootcert=\(file.path)", "sslrootcert"),
            ("clickhouse://u:p@ch.example.com/w?sslrootcert=\(file.path)", "clickhouses://"),
            ("clickhouses://u:p@ch.example.com/w?secure=1", "only ?sslrootcert"),
        ] {
            #expect(throws: StoreError.self, "\(bad)") { try ClickHouseURL(bad) }
            do {
                _ = try ClickHouseURL(bad)
            } catch {
                #expect(error.message.contains(says), "\(bad): \(error)")
            }
        }
    }
}
