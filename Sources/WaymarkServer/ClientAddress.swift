import Foundation
import HTTPTypes
import Hummingbird

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The load balancers and reverse proxies in front of the server whose `X-Forwarded-For` it
/// believes. Behind one, every connection comes from the balancer's address; a limit per client
/// address (the console's login throttle) would then count everyone together, so that a few
/// failed logins would lock every user out. With the balancer trusted, a request's client is the
/// last address in `X-Forwarded-For` that is not itself a trusted proxy: what the balancer saw.
/// Addresses a client writes in the header itself stand to the left of it and are never read.
/// From any other peer the header is ignored, so a client cannot choose its own address.
public struct TrustedProxies: Sendable, Hashable {
    /// An address and how many of its leading bits must match (all of them for one address).
    struct Range: Sendable, Hashable {
        var bytes: [UInt8]
        var prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            let whole = prefix / 8
            guard address[..<whole] == bytes[..<whole] else { return false }
            let rest = prefix % 8
            guard rest > 0 else { return true }
            let mask = UInt8(0xFF) << (8 - rest)
            return address[whole] & mask == bytes[whole] & mask
        }
    }

    public struct Invalid: Error, CustomStringConvertible {
        public let entry: String
        public var description: String {
            "not an IP address or a range such as 10.0.0.0/8 or fd00::/8: \"\(entry)\""
        }
    }

    let ranges: [Range]

    /// No proxy: the peer is the client.
    public static let none = TrustedProxies(ranges: [])

    init(ranges: [Range]) { self.ranges = ranges }

    /// Addresses and ranges separated by commas: `10.0.0.5, 10.1.0.0/16, fd00::/8`.
    public init(parsing text: String) throws(Invalid) {
        var ranges: [Range] = []
        for entry in text.split(separator: ",").map({ String($0.withoutBlanks) }) where !entry.isEmpty {
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bytes = Self.parse(String(parts[0])) else { throw Invalid(entry: entry) }
            var prefix = bytes.count * 8
            if parts.count == 2 {
                guard let bits = Int(parts[1]), (0...prefix).contains(bits) else { throw Invalid(entry: entry) }
                prefix = bits
            }
            ranges.append(Range(bytes: bytes, prefix: prefix))
        }
        self.ranges = ranges
    }

    public func contains(_ address: String) -> Bool {
        guard let bytes = Self.parse(address) else { return false }
        return ranges.contains { $0.contains(bytes) }
    }

    /// The client's address: the peer's, unless the peer is a trusted proxy; then the last entry
    /// of `forwardedFor` (the header's values in order) that is not a trusted proxy, or the
    /// first entry if all are. An entry that is not an address makes it the peer's again.
    public func clientAddress(peer: String?, forwardedFor: [String]) -> String? {
        guard let peer, !ranges.isEmpty, contains(peer) else { return peer }
        let entries = forwardedFor.flatMap { $0.split(separator: ",") }.map { String($0.withoutBlanks) }
        var client = peer
        for entry in entries.reversed() {
            guard let bytes = Self.parse(entry) else { return peer }
            client = Self.text(bytes)
            if !ranges.contains(where: { $0.contains(bytes) }) { break }
        }
        return client
    }

    /// An IPv4 address's 4 bytes or an IPv6 address's 16; nil for anything else. An IPv4 address
    /// mapped into IPv6 (`::ffff:10.0.0.1`, as a server listening on `::` sees IPv4 peers) is its
    /// IPv4 address.
    static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        return bytes[..<12].elementsEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]) ? Array(bytes[12...]) : bytes
    }

    /// The address in its usual form, so that one client is one key however it was written.
    static func text(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        _ = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension WaymarkServer {
    /// The address of the client that sent `request`, for per-client limits: the peer's, or, from
    /// a trusted proxy, the one it forwards (see ``TrustedProxies``).
    public func clientAddress(_ request: Request, _ context: WaymarkRequestContext) -> String? {
        trustedProxies.clientAddress(peer: context.remoteAddress, forwardedFor: request.headers[values: .xForwardedFor])
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
