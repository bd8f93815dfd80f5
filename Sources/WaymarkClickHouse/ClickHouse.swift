import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOSSL
import WaymarkStore

/// A ClickHouse database over its HTTP interface: statements in, TabSeparated rows out.
///
/// ClickHouse 18.16 (Debian's) takes no bound parameters over HTTP, so values go into statements
/// as literals made by ``literal(_:)``; names go in only once checked to be letters, digits and `_`.
public struct ClickHouse: Sendable {
    public let url: ClickHouseURL
    let client: HTTPClient
    /// How long one statement may take before it counts as failed.
    public var timeout: TimeAmount

    /// The client every ClickHouse that trusts the system's CAs shares, for the life of the
    /// process: a ClickHouse that cannot be reached fails the statement at once (AsyncHTTPClient
    /// would otherwise try to connect again until the statement's time is up), and its caller
    /// decides when to try again.
    public static let client = makeClient(trusting: nil)

    /// One client for each CA file a URL's `sslrootcert` names, for the life of the process.
    static let clients = NIOLockedValueBox<[String: HTTPClient]>([:])

    static func makeClient(trusting rootCertificate: String?) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout.connect = .seconds(5)
        configuration.connectionPool.retryConnectionEstablishment = false
        if let rootCertificate {
            var tls = TLSConfiguration.makeClientConfiguration()
            // ClickHouseURL read the file already; one unreadable now trusts nothing rather than more.
            tls.trustRoots = .certificates((try? NIOSSLCertificate.fromPEMFile(rootCertificate)) ?? [])
            configuration.tlsConfiguration = tls
        }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// The shared client for the URL's CAs.
    public static func client(for url: ClickHouseURL) -> HTTPClient {
        guard let rootCertificate = url.rootCertificate else { return client }
        return clients.withLockedValue { clients in
            if let client = clients[rootCertificate] { return client }
            let client = makeClient(trusting: rootCertificate)
            clients[rootCertificate] = client
            return client
        }
    }

    public init(url: ClickHouseURL, client: HTTPClient? = nil, timeout: TimeAmount = .seconds(120)) {
        self.url = url
        self.client = client ?? Self.client(for: url)
        self.timeout = timeout
    }

    /// Runs `sql` in the URL's database, with `data` as what an `INSERT … FORMAT` reads, and
    /// answers what ClickHouse sends back. A ClickHouse that cannot be reached is `.unavailable`;
    /// one that refuses the statement is `.failed`, with its message.
    @discardableResult
    public func execute(_ sql: String, data: ByteBuffer? = nil) async throws(StoreError) -> ByteBuffer {
        var parameters = [("database", url.database)]
        if data != nil { parameters.append(("query", sql)) }
        let query = parameters.map { "\($0)=\(Self.percentEncoded($1))" }.joined(separator: "&")
        var request = HTTPClientRequest(url: url.endpoint + "?" + query)
        request.method = .POST
        let credentials = Data("\(url.user):\(url.password)".utf8).base64EncodedString()
        request.headers.add(name: "Authorization", value: "Basic \(credentials)")
        request.body = .bytes(data ?? ByteBuffer(string: sql))
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await client.execute(request, timeout: timeout)
            body = try await response.body.collect(upTo: 256 << 20)
        } catch let error where error is NIOSSLError || error is NIOSSLExtraError {
            throw StoreError(
                .unavailable,
                "ClickHouse at \(url) cannot be reached over HTTPS: its certificate is not one to trust (signed by a CA the system or"
                    + " sslrootcert trusts, for \(url.host)): \(error)")
        } catch {
            throw StoreError(.unavailable, "ClickHouse at \(url) cannot be reached: \(error)")
        }
        guard response.status == .ok else {
            let message = String(buffer: body).trimmingCharacters(in: .whitespacesAndNewlines)
            throw StoreError(.failed, "ClickHouse at \(url) refused a statement (\(response.status.code)): \(message)")
        }
        return body
    }

    /// The rows of a `SELECT` (without a `FORMAT`), each a list of texts; nil for `NULL`.
    public func rows(_ sql: String) async throws(StoreError) -> [[String?]] {
        let body = try await execute(sql + " FORMAT TabSeparated")
        return Self.parseTabSeparated(String(buffer: body))
    }

    /// `text` as a string literal.
    public static func literal(_ text: String) -> String {
        "'" + escaping(text, ["\\": "\\\\", "'": "\\'", "\0": "\\0"]) + "'"
    }

    /// A value as a field of TabSeparated data: `\N` for none, and backslash, tab and line breaks escaped.
    static func field(_ text: String?) -> String {
        text.map { escaping($0, ["\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\0": "\\0"]) } ?? "\\N"
    }

    /// `text` with each character `escapes` names replaced by its escape.
    static func escaping(_ text: String, _ escapes: [Unicode.Scalar: String]) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            if let escape = escapes[character] { escaped += escape } else { escaped.unicodeScalars.append(character) }
        }
        return escaped
    }

    /// TabSeparated rows read back: fields split at tabs, `\N` as nil, escapes undone.
    static func parseTabSeparated(_ text: String) -> [[String?]] {
        text.split(separator: "\n", omittingEmptySubsequences: true).map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).map { field -> String? in
                if field == "\\N" { return nil }
                guard field.contains("\\") else { return String(field) }
                var value = ""
                var escaping = false
                for character in field.unicodeScalars {
                    if escaping {
                        switch character {
                        case "t": value += "\t"
                        case "n": value += "\n"
                        case "r": value += "\r"
                        case "0": value += "\0"
                        case "b": value += "\u{8}"
                        case "f": value += "\u{c}"
                        default: value.unicodeScalars.append(character)
                        }
                        escaping = false
                    } else if character == "\\" {
                        escaping = true
                    } else {
                        value.unicodeScalars.append(character)
                    }
                }
                return value
            }
        }
    }

    /// A query string's value: everything but unreserved characters percent-encoded (ClickHouse
    /// reads `+` as a space).
    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
