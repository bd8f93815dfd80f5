import Foundation
import NIOSSL
import PostgresNIO
import WaymarkStore

/// A `postgres://` URL as libpq reads one:
/// `postgres://user[:password]@host[:port]/database[?sslmode=…&sslrootcert=…]`.
///
/// TLS is set by libpq's parameters:
///
/// | `sslmode`     | TLS                                  | the server's certificate                                      |
/// |---------------|--------------------------------------|---------------------------------------------------------------|
/// | `disable`     | never                                | —                                                             |
/// | `prefer`      | when the server offers it (default)  | not checked                                                   |
/// | `require`     | always: refused if the server has none | not checked; with `sslrootcert`, checked as `verify-ca`     |
/// | `verify-ca`   | always                               | signed by a trusted CA                                        |
/// | `verify-full` | always                               | signed by a trusted CA and issued for the URL's host          |
///
/// The trusted CAs are those of `sslrootcert` (a PEM file), or the system's (`sslrootcert=system`,
/// or none given). `sslcert` and `sslkey` (PEM files) give a client certificate. The default is
/// libpq's, `prefer`; a database reached over a network you do not control wants `verify-full`.
/// Any other parameter is refused, so that a misspelt `sslmode` cannot leave TLS off unnoticed.
public struct PostgresURL: Sendable {
    /// How the connection uses TLS: libpq's `sslmode`.
    public enum Mode: String, Sendable, CaseIterable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String?
    public var mode: Mode
    /// The CA file of `sslrootcert`; nil for the system's trusted CAs.
    public var rootCertificate: String?
    /// The client certificate and key files of `sslcert` and `sslkey`.
    public var clientCertificate: (certificate: String, key: String)?

    /// The parameters taken after `?`.
    public static let parameters = ["sslmode", "sslrootcert", "sslcert", "sslkey"]

    /// The URL `text` names, or a `StoreError` (`.unavailable`) saying what is wrong with it.
    public init(_ text: String) throws(StoreError) {
        func refuse(_ why: String) -> StoreError { StoreError(.unavailable, "\(why): \(Self.redacted(text))") }
        guard let components = URLComponents(string: text), components.scheme == "postgres" || components.scheme == "postgresql",
            let host = components.host, !host.isEmpty, let user = components.user
        else { throw refuse("not a postgres://user@host/database URL") }
        self.host = host
        port = components.port ?? 5432
        self.user = user
        password = components.password
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? nil : path
        var values: [String: String] = [:]
        for item in components.queryItems ?? [] {
            guard Self.parameters.contains(item.name) else {
                throw refuse("unknown parameter \(item.name); the URL takes \(Self.parameters.joined(separator: ", "))")
            }
            guard let value = item.value, !value.isEmpty else { throw refuse("\(item.name) needs a value") }
            values[item.name] = value
        }
        let modeText = values["sslmode"] ?? Mode.prefer.rawValue
        guard let mode = Mode(rawValue: modeText) else {
            throw refuse("sslmode \(modeText) is none of \(Mode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.mode = mode
        rootCertificate = values["sslrootcert"].flatMap { $0 == "system" ? nil : $0 }
        switch (values["sslcert"], values["sslkey"]) {
        case (nil, nil): clientCertificate = nil
        case (let certificate?, let key?): clientCertificate = (certificate, key)
        default: throw refuse("sslcert and sslkey go together")
        }
        if mode == .disable && (values["sslrootcert"] != nil || clientCertificate != nil) {
            throw refuse("sslmode=disable uses no certificate")
        }
    }

    /// The TLS configuration of ``mode`` and the certificate files, which are read now: a file that
    /// cannot be read is an error here, not at the first connection.
    func tlsConfiguration() throws(StoreError) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case .disable, .prefer:
            configuration.certificateVerification = .none
        case .require:
            configuration.certificateVerification = rootCertificate == nil ? .none : .noHostnameVerification
        case .verifyCA:
            configuration.certificateVerification = .noHostnameVerification
        case .verifyFull:
            configuration.certificateVerification = .fullVerification
        }
        do {
            if let rootCertificate {
                configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(rootCertificate))
            }
            if let (certificate, key) = clientCertificate {
                configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) }
                configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
            }
        } catch {
            throw StoreError(.unavailable, "cannot read the TLS certificate files of the database URL: \(error)")
        }
        return configuration
    }

    /// The configuration of a client pool.
    public func clientConfiguration() throws(StoreError) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch mode {
            case .disable: .disable
            case .prefer: .prefer(try tlsConfiguration())
            case .require, .verifyCA, .verifyFull: .require(try tlsConfiguration())
            }
        return PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    /// The configuration of one connection, as the pool makes them.
    func connectionConfiguration() throws(StoreError) -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch mode {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try NIOSSLContext(configuration: try tlsConfiguration()))
            case .require, .verifyCA, .verifyFull: tls = .require(try NIOSSLContext(configuration: try tlsConfiguration()))
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.unavailable, "cannot set up TLS for the database: \(error)")
        }
        return PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: tls)
    }

    /// Why a connection could not be made, for the operator: a TLS failure said as such.
    static func reason(_ error: any Error, mode: Mode, host: String) -> String {
        if let error = error as? PSQLError {
            if error.code == .sslUnsupported {
                return "the server does not offer TLS, which sslmode=\(mode.rawValue) requires"
            }
            if let underlying = error.underlying { return reason(underlying, mode: mode, host: host) }
            if let message = error.serverInfo?[.message] { return message }
            return "\(error.code)"
        }
        let text = String(describing: error)
        if text.contains("failedToValidateHostname") || text.localizedCaseInsensitiveContains("hostname") {
            return "the server's TLS certificate is not issued for \(host) (sslmode=\(mode.rawValue)): \(text)"
        }
        if text.contains("CERTIFICATE_VERIFY_FAILED") || text.localizedCaseInsensitiveContains("certificate") {
            return "the server's TLS certificate is not signed by a trusted CA (sslrootcert) (sslmode=\(mode.rawValue)): \(text)"
        }
        return text
    }

    /// A database URL fit for a log line or an error: its password masked.
    public static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? url
    }
}
