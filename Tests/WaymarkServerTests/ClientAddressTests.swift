import Testing

@testable import WaymarkServer

/// Which address a request counts as, behind load balancers or not.
struct ClientAddressTests {
    @Test func addressesAndRangesAreParsedAndMatched() throws {
        let proxies = try TrustedProxies(parsing: " 10.0.0.5, 192.168.0.0/16 ,fd00::/8,::1, 172.16.0.0/12")
        for inside in ["10.0.0.5", "192.168.3.4", "fd12:3456::1", "::1", "172.31.255.255", "172.16.0.0"] {
            #expect(proxies.contains(inside), "\(inside)")
        }
        for outside in ["10.0.0.6", "192.169.0.1", "fe80::1", "::2", "172.32.0.0", "not an address", "", "10.0.0.5:80"] {
            #expect(!proxies.contains(outside), "\(outside)")
        }
        #expect(try TrustedProxies(parsing: "0.0.0.0/0").contains("203.0.113.9"))
        #expect(try TrustedProxies(parsing: "").ranges.isEmpty)
        for wrong in ["10.0.0.0/33", "fd00::/129", "10.0.0/8", "example.com", "10.0.0.1/x", "/8"] {
            #expect(throws: TrustedProxies.Invalid.self, "\(wrong)") { try TrustedProxies(parsing: "10.0.0.1, \(wrong)") }
        }
    }

    @Test func aTrustedProxyNamesTheClientAndNothingElseDoes() throws {
        let proxies = try TrustedProxies(parsing: "10.0.0.0/8")
        // No proxy trusted, or a peer that is not one: the header is ignored.
        #expect(TrustedProxies.none.clientAddress(peer: "10.0.0.1", forwardedFor: ["203.0.113.9"]) == "10.0.0.1")
        #expect(proxies.clientAddress(peer: "198.51.100.7", forwardedFor: ["203.0.113.9"]) == "198.51.100.7")
        // From the balancer: the last address it added, past other trusted hops.
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["203.0.113.9"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["203.0.113.9, 10.0.0.2"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["203.0.113.9", "10.0.0.2"]) == "203.0.113.9")
        // What a client writes in the header itself stands to the left and is never read.
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["1.2.3.4, 5.6.7.8, 203.0.113.9"]) == "203.0.113.9")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["garbage, 203.0.113.9"]) == "203.0.113.9")
        // Only proxies: the first of them; no header, or a broken last entry: the peer.
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["10.0.0.3, 10.0.0.2"]) == "10.0.0.3")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: []) == "10.0.0.1")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["203.0.113.9, unknown"]) == "10.0.0.1")
        // One client is one key, however its address was written.
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["2001:DB8:0:0::1"]) == "2001:db8::1")
        #expect(proxies.clientAddress(peer: nil, forwardedFor: ["203.0.113.9"]) == nil)
        // A server listening on IPv6 sees an IPv4 balancer as a mapped address.
        #expect(proxies.clientAddress(peer: "::ffff:10.0.0.1", forwardedFor: ["::ffff:203.0.113.9"]) == "203.0.113.9")
    }
}
