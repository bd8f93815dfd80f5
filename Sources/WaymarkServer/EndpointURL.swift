import Foundation

/// A URL the server calls: a webhook endpoint. Read character by character by the grammar of
/// ``pattern``, the one `openapi.yaml` gives, so that what the document allows and what the server
/// stores are the same:
///
/// - the scheme `http` or `https`, in any case;
/// - a host name of letters, digits and hyphens in dot-separated labels of 1 to 63 characters,
///   253 at most in all, the last starting with a letter; or an IPv4 address in four decimal parts
///   of 0 to 255 without leading zeros (`2130706433`, `0x7f.1` or `010.0.0.1` reach other machines
///   than they seem to name, so they are refused); IPv6 literals are not taken;
/// - a port from 1 to 65535, if any;
/// - then a path, query or fragment of printable ASCII: no space, no control character, nothing
///   unencoded beyond ASCII.
///
/// ```swift
/// try EndpointURL.parse("https://shop.example.com/hooks?x=1").port  // nil
/// try EndpointURL.parse("http://127.0.0.1:65536/")                 // throws: port
/// ```
public struct EndpointURL: Sendable, Hashable {
    /// `http` or `https`, lower-cased.
    public let scheme: String
    /// The host as written, lower-cased.
    public let host: String
    /// The port, when the URL names one.
    public let port: Int?
    /// The URL as given.
    public let text: String

    /// The longest URL taken.
    public static let maximumLength = 2048

    /// The same grammar as a regular expression: the `pattern` of the `url` field in
    /// `openapi.yaml`, which a test holds to this parser.
    public static let pattern =
        #"^[Hh][Tt][Tt][Pp][Ss]?://(((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"#
        + #"|([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)"#
        + #"(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?([/?#][!-~]*)?$"#

    /// Why a text is not an endpoint URL: a sentence for the person who wrote it.
    public struct Invalid: Error, Hashable, Sendable, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// The URL `text` is, or why it is none.
    public static func parse(_ text: String) throws(Invalid) -> EndpointURL {
        func invalid(_ why: String) -> Invalid { Invalid(message: "the URL \(why)") }
        let bytes = Array(text.utf8)
        guard bytes.count <= maximumLength else { throw invalid("is longer than \(maximumLength) characters") }
        if let bad = bytes.first(where: { $0 < 0x21 || $0 > 0x7E }) {
            throw invalid(
                bad == 0x20
                    ? "has a space"
                    : bad < 0x20 || bad == 0x7F ? "has a control character" : "has a character beyond ASCII: percent-encode it")
        }
        var index = 0
        let lowered = text.lowercased()
        let scheme: String
        if lowered.hasPrefix("https://") {
            scheme = "https"
        } else if lowered.hasPrefix("http://") {
            scheme = "http"
        } else {
            throw invalid("must start with https:// or http://")
        }
        index = scheme.utf8.count + 3
        let hostStart = index
        while index < bytes.count, !":/?#".utf8.contains(bytes[index]) { index += 1 }
        let host = String(decoding: bytes[hostStart..<index], as: UTF8.self).lowercased()
        if let problem = Self.problem(host: host) { throw invalid(problem) }
        var port: Int?
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            let portStart = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            let digits = bytes[portStart..<index]
            guard (1...5).contains(digits.count), digits.first != UInt8(ascii: "0"),
                let number = Int(String(decoding: digits, as: UTF8.self)), (1...65535).contains(number)
            else { throw invalid("must have a port from 1 to 65535, if any") }
            port = number
        }
        if index < bytes.count, !"/?#".utf8.contains(bytes[index]) {
            throw invalid("must go on after its host and port with /, ? or #")
        }
        return EndpointURL(scheme: scheme, host: host, port: port, text: text)
    }

    /// What is wrong with `host`, if anything.
    static func problem(host: String) -> String? {
        if host.isEmpty { return "has no host" }
        if host.hasPrefix("[") { return "names an IPv6 address: give a host name" }
        guard host.utf8.count <= 253 else { return "has a host longer than 253 characters" }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        for label in labels {
            guard (1...63).contains(label.utf8.count),
                label.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }),
                label.first != "-", label.last != "-"
            else {
                return "has a host that is not a name of letters, digits and hyphens in labels between dots"
            }
        }
        if let last = labels.last, last.first?.isLetter != true {
            let parts = labels.map { UInt16($0) }
            guard labels.count == 4, parts.allSatisfy({ ($0 ?? 256) <= 255 }), labels.allSatisfy({ $0 == "0" || $0.first != "0" })
            else {
                return
                    "has a host that is neither a name whose last label starts with a letter nor an IPv4 address of four parts from 0 to 255"
            }
        }
        return nil
    }
}
