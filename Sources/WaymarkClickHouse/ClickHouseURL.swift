import Foundation
import NIOSSL
import WaymarkStore

/// Where an installation's analytics live in ClickHouse: `clickhouse://USER:PASSWORD@HOST:PORT/DATABASE`
/// over HTTP, or `clickhouses://…` over HTTPS, which is how to reach a ClickHouse on another
/// machine. The port is ClickHouse's HTTP interface (8123 by default, 8443 for HTTPS); the user
/// is `default` when the URL names none; the database must be named.
///
/// Over HTTPS the server's certificate must be signed by a CA the system trusts, or by one of
/// those in the PEM file `?sslrootcert=PATH` names (a company's own CA, as for PostgreSQL), and
/// name the URL's host.
public struct ClickHouseURL: Hashable, Sendable, CustomStringConvertible {
    /// Whether to speak HTTPS.
    public var secure: Bool
    public var host: String
    public var port: Int
    public var user: String
    public var password: String
    /// Letters, digits and `_` only: it goes into statements as a name.
    public var database: String
    /// The PEM file of the CAs trusted over HTTPS; nil for the system's.
    public var rootCertificate: String?

    /// The URL read from its text; a clear error for anything else.
    public init(_ text: String) throws(StoreError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "clickhouse" || scheme == "clickhouses"
        else {
            throw StoreError(.failed, "not a ClickHouse URL (clickhouse://USER:PASSWORD@HOST:PORT/DATABASE): \(Self.hidingPassword(text))")
        }
        guard let host = components.host, !host.isEmpty else { throw StoreError(.failed, "the ClickHouse URL names no host") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, database.count <= 64,
            database.unicodeScalars.allSatisfy({ $0.isASCII && ($0 == "_" || CharacterSet.alphanumerics.contains($0)) })
        else { throw StoreError(.failed, "the ClickHouse URL must name a database of letters, digits and _ (…/waymark)") }
        secure = scheme == "clickhouses"
        self.host = host
        port = components.port ?? (secure ? 8443 : 8123)
        user = components.user?.removingPercentEncoding ?? "default"
        password = components.password?.removingPercentEncoding ?? ""
        self.database = database
        for item in components.queryItems ?? [] {
            guard item.name == "sslrootcert", let path = item.value, !path.isEmpty else {
                throw StoreError(.failed, "the ClickHouse URL takes only ?sslrootcert=PATH, not ?\(item.name)")
            }
            guard secure else { throw StoreError(.failed, "sslrootcert is for HTTPS: the URL must start clickhouses://") }
            // Read now, so that a file that is missing or holds no certificate stops the start.
            do {
                guard !(try NIOSSLCertificate.fromPEMFile(path)).isEmpty else { throw StoreError(.failed, "no certificate in it") }
            } catch {
                throw StoreError(.failed, "the ClickHouse URL's sslrootcert \(path) holds no PEM certificate that can be read: \(error)")
            }
            rootCertificate = path
        }
    }

    /// The HTTP interface's address.
    public var endpoint: String { "\(secure ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(port)/" }

    /// The URL without its password, for logs and errors.
    public var description: String {
        "\(secure ? "clickhouses" : "clickhouse")://\(user)@\(host):\(port)/\(database)"
            + (rootCertificate.map { "?sslrootcert=\($0)" } ?? "")
    }

    static func hidingPassword(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "…"
        return components.string ?? text
    }
}
