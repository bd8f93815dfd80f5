import Foundation
import WaymarkStore

/// A CA, a server certificate it signed for `localhost`, and another CA that signed nothing, made
/// by openssl in a new temporary directory (`remove()` removes it): for the tests of TLS to
/// PostgreSQL and ClickHouse.
public struct TestCertificates: Sendable {
    public let directory: URL
    public var ca: String { directory.appendingPathComponent("ca.crt").path }
    public var otherCA: String { directory.appendingPathComponent("other-ca.crt").path }
    public var server: String { directory.appendingPathComponent("server.crt").path }
    public var serverKey: String { directory.appendingPathComponent("server.key").path }

    public init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        func openssl(_ arguments: String) throws {
            let run = try WaymarkBinary.run(
                program: URL(fileURLWithPath: "/usr/bin/openssl"), arguments.split(separator: " ").map(String.init), limit: .seconds(60)
            )
            guard run.status == 0 else { throw StoreError(.unavailable, "openssl \(arguments): \(run.errors)") }
        }
        let at = directory.path
        for name in ["ca", "other-ca"] {
            try openssl(
                "req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=Waymark-test-\(name) -keyout \(at)/\(name).key -out \(at)/\(name).crt"
            )
        }
        try openssl("req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout \(at)/server.key -out \(at)/server.csr")
        try "subjectAltName=DNS:localhost\n".write(toFile: "\(at)/server.ext", atomically: true, encoding: .utf8)
        try openssl(
            "x509 -req -in \(at)/server.csr -CA \(at)/ca.crt -CAkey \(at)/ca.key -CAcreateserial -days 2 -extfile \(at)/server.ext -out \(at)/server.crt"
        )
    }

    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }
}
