import Crypto
import Foundation
import NIOCore
import WaymarkStore

/// Keys, their hashes and identity proofs.
///
/// A key is `wm_pk_` (client, publishable) or `wm_sk_` (secret) followed by 32 random bytes in
/// lowercase hex (256 bits). Only its SHA-256 is stored: keys are long and random, so a fast hash
/// is enough, and a stolen database yields no usable key.
public enum Secrets {
    /// A new key of a kind and its record for the store; the key is shown once and never again.
    public static func makeKey(app: String, kind: KeyRecord.Kind, at time: Date = Date()) -> (key: String, record: KeyRecord) {
        let key = (kind == .client ? "wm_pk_" : "wm_sk_") + randomHex(bytes: 32)
        let record = KeyRecord(id: "key_" + randomHex(bytes: 6), app: app, kind: kind, hash: hash(key), createdAt: time)
        return (key, record)
    }

    /// SHA-256 of a key in lowercase hex.
    public static func hash(_ key: String) -> String {
        hex(SHA256.hash(data: Data(key.utf8)))
    }

    /// SHA-256 of bytes in lowercase hex.
    static func hash(bytes: ByteBuffer) -> String {
        hex(SHA256.hash(data: bytes.readableBytesView))
    }

    /// The proof an app's backend sends for a user: lowercase hex HMAC-SHA256 of the user id keyed
    /// with the app's identity secret.
    public static func userHash(user: String, identitySecret: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(user.utf8), using: SymmetricKey(data: Data(identitySecret.utf8)))
        return hex(mac)
    }

    /// Whether a proof is right, compared in constant time.
    public static func verify(userHash: String, user: String, identitySecret: String) -> Bool {
        constantTimeEqual(self.userHash(user: user, identitySecret: identitySecret), userHash.lowercased())
    }

    /// Whether two secrets are equal, in time that does not depend on where they differ. An empty
    /// secret equals nothing, so a missing token never matches a missing token.
    public static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count, !x.isEmpty else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }

    public static func randomHex(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
