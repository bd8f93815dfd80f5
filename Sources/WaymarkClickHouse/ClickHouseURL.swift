import Foundation
import WaymarkStore

/// Where an installation's analytics live in ClickHouse: `clickhouse://USER:PASSWORD@HOST:PORT/DATABASE`
/// over HTTP, or `clickhouses://…` over HTTPS, which is how to reach a ClickHouse on another
/// machine. The port is ClickHouse's HTTP interface (8123 by default, 8443 for HTTPS); the user
/// is `default` when the URL names none; the database must be named.
public struct ClickHouseURL: Hashable, Sendable, CustomStringConvertible {
    /// Whether to speak HTTPS.
    public var secure: Bool
    public var host: String
    public var port: Int
    public var user: String
    public var password: String
    /// Letters, digits and `_` only: it goes into statements as a name.
    public var database: String

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
    }

    /// The HTTP interface's address.
    public var endpoint: String { "\(secure ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(port)/" }

    /// The URL without its password, for logs and errors.
    public var description: String { "\(secure ? "clickhouses" : "clickhouse")://\(user)@\(host):\(port)/\(database)" }

    static func hidingPassword(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "…"
        return components.string ?? text
    }
}
