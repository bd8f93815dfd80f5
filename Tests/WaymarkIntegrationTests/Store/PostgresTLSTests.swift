import Foundation
import Logging
import PostgresNIO
import Testing
import WaymarkApplication
import WaymarkPostgres
import WaymarkServer
import WaymarkStore
import WaymarkTestSupport

/// TLS to PostgreSQL as libpq's `sslmode` and `sslrootcert` ask for it, against a throwaway
/// cluster that offers TLS with a certificate the test makes (its CA, and a server certificate for
/// `localhost` only), and against the test cluster, which offers none.
@Suite(.timeLimit(.minutes(5)), .enabled(if: StoreUnderTest.available.contains(.postgres)))
struct PostgresTLSTests {
    /// Runs `body` with the port of a new cluster that offers TLS with `certificates`, stopped after.
    static func withTLSCluster(_ certificates: TestCertificates, _ body: (Int) async throws -> Void) async throws {
        let directory = certificates.directory.appendingPathComponent("cluster").path
        let script = WaymarkBinary.root.appendingPathComponent("scripts/postgres-cluster")
        let started = try WaymarkBinary.run(
            program: script, ["start", directory, certificates.server, certificates.serverKey], limit: .seconds(120))
        defer { _ = try? WaymarkBinary.run(program: script, ["stop", directory], limit: .seconds(60)) }
        #expect(started.status == 0, "\(started.errors)")
        let url = started.output.split(separator: "=", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let port = try #require(url.flatMap { URLComponents(string: $0)?.port })
        try await body(port)
    }

    /// What opening a store on `url` says: nil when it connects, else the error's message.
    static func refusal(_ url: String) async -> String? {
        do {
            let store = try PostgresStore(url: url, logger: PostgresDatabase.logger)
            try await store.checkConnection()
            return nil
        } catch {
            return error.message
        }
    }

    /// Whether the connection to `url` is encrypted, as the server sees it.
    static func encrypted(_ url: String) async throws -> Bool {
        try await PostgresDatabase.withClient(url: url) { client in
            let rows = try await client.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: PostgresDatabase.logger)
            for try await ssl in rows.decode(Bool.self) { return ssl }
            return false
        }
    }

    @Test func eachModeConnectsOrRefusesAsLibpqWould() async throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        try await Self.withTLSCluster(certificates) { port in
            func url(_ host: String, _ query: String) -> String { "postgres://waymark@\(host):\(port)/waymark_test?\(query)" }

            // Encrypted whenever TLS is asked for or offered; not with disable.
            for query in ["sslmode=prefer", "sslmode=require", "sslmode=verify-ca&sslrootcert=\(certificates.ca)"] {
                #expect(await Self.refusal(url("127.0.0.1", query)) == nil, "\(query)")
                #expect(try await Self.encrypted(url("127.0.0.1", query)), "\(query)")
            }
            #expect(try await !Self.encrypted(url("127.0.0.1", "sslmode=disable")))

            // verify-full: the right CA and host name connect, and a store works there.
            let full = url("localhost", "sslmode=verify-full&sslrootcert=\(certificates.ca)")
            #expect(await Self.refusal(full) == nil)
            try await withPostgres(url: full, logger: PostgresDatabase.logger) { store in
                let app = try await Provisioning.createApp(name: "Over TLS", in: store)
                #expect(try await store.app(id: app.appId)?.name == "Over TLS")
            }

            // The wrong CA, under verify-full, verify-ca and require with a root certificate.
            for query in [
                "sslmode=verify-full&sslrootcert=\(certificates.otherCA)", "sslmode=verify-ca&sslrootcert=\(certificates.otherCA)",
                "sslmode=require&sslrootcert=\(certificates.otherCA)",
            ] {
                let message = await Self.refusal(url("localhost", query))
                #expect(message?.contains("not signed by a trusted CA") == true, "\(query): \(message ?? "connected")")
            }
            // The right CA, but a host the certificate was not issued for.
            let wrongHost = await Self.refusal(url("127.0.0.1", "sslmode=verify-full&sslrootcert=\(certificates.ca)"))
            #expect(wrongHost?.contains("not issued for 127.0.0.1") == true, "\(wrongHost ?? "connected")")

            // What waymark serve says of it, before it listens.
            do {
                try await withPostgres(
                    url: url("127.0.0.1", "sslmode=verify-full&sslrootcert=\(certificates.ca)"), logger: PostgresDatabase.logger
                ) {
                    _ in
                }
                Issue.record("connected to a server whose certificate is for another host")
            } catch {
                #expect("\(error)".contains("cannot reach the database") && "\(error)".contains("not issued for 127.0.0.1"), "\(error)")
            }
        }
    }

    @Test func requireRefusesAServerWithoutTLSAndPreferFallsBack() async throws {
        let plain = try StoreUnderTest.requirePostgresURL()
        let separator = plain.contains("?") ? "&" : "?"
        let required = await Self.refusal(plain + separator + "sslmode=require")
        #expect(required == "the server does not offer TLS, which sslmode=require requires", "\(required ?? "connected")")
        #expect(await Self.refusal(plain + separator + "sslmode=verify-full") != nil)
        #expect(await Self.refusal(plain + separator + "sslmode=prefer") == nil)
        #expect(try await !Self.encrypted(plain + separator + "sslmode=prefer"))
    }

    @Test func theURLIsReadAsLibpqReadsItAndMistakesAreNamed() throws {
        let parsed = try PostgresURL("postgresql://ann:s%40cret@db.example.com:6543/waymark?sslmode=verify-full&sslrootcert=system")
        #expect(parsed.host == "db.example.com" && parsed.port == 6543 && parsed.user == "ann" && parsed.password == "s@cret")
        #expect(parsed.database == "waymark" && parsed.mode == .verifyFull && parsed.rootCertificate == nil)
        #expect(try PostgresURL("postgres://ann@db/w").mode == .prefer, "libpq's default")
        for (url, says) in [
            ("postgres://ann@db/w?sslmode=required", "sslmode required is none of disable, prefer, require, verify-ca, verify-full"),
            ("postgres://ann@db/w?sslmod=require", "unknown parameter sslmod"),
            ("postgres://ann@db/w?sslcert=/c.pem", "sslcert and sslkey go together"),
            ("postgres://ann@db/w?sslmode=disable&sslrootcert=/ca.pem", "sslmode=disable uses no certificate"),
            ("postgres://ann:pw@db/w?sslmode=", "sslmode needs a value"),
            ("mysql://ann@db/w", "not a postgres://user@host/database URL"),
        ] {
            do {
                _ = try PostgresURL(url)
                Issue.record("\(url) was taken")
            } catch {
                #expect(error.message.hasPrefix(says), "\(error.message)")
                #expect(!error.message.contains(":pw@"), "the password is masked")
            }
        }
        do {
            _ = try PostgresURL("postgres://ann@db/w?sslmode=verify-full&sslrootcert=/nowhere/ca.pem").clientConfiguration()
            Issue.record("a missing root certificate was taken")
        } catch {
            #expect(error.message.hasPrefix("cannot read the TLS certificate files"), "\(error.message)")
        }
    }
}
