import WaymarkRules

/// `POST /v1/identify`: who the user is, proven by `userHash`, and the attributes to set on them.
///
/// ```json
/// {"user": "u42", "userHash": "…", "attributes": {"plan": "plus", "cityTier": 2, "codUser": true,
///  "firstOrderAt": {"time": "2026-01-15T10:30:00Z"}, "appBuild": {"version": "5.2.1"}, "trial": null}}
/// ```
public struct IdentifyRequest: Codable, Hashable, Sendable {
    /// The user, as the app names them.
    public var user: String
    /// The identity proof: HMAC-SHA256 of `user` with the app's identity secret, in lowercase hex.
    public var userHash: String
    /// The attributes to set, by name; `null` removes one. Attributes not named keep their values.
    public var attributes: [String: ContextValue?]

    /// Sets `attributes` on `user`, proven by `userHash`.
    public init(user: String, userHash: String, attributes: [String: ContextValue?]) {
        self.user = user
        self.userHash = userHash
        self.attributes = attributes
    }
}

/// The answer to `POST /v1/identify`: every attribute the server now keeps for the user.
public struct IdentifiedUser: Codable, Hashable, Sendable {
    /// One attribute and when it took its value.
    public struct Attribute: Codable, Hashable, Sendable {
        /// The attribute's name: rules read it as `user.<name>`.
        public var name: String
        /// Its value: text, a number, a boolean, `{"time": …}` or `{"version": …}`.
        public var value: ContextValue
        /// RFC 3339 time of the change that gave it this value.
        public var changedAt: String

        /// An attribute with these fields.
        public init(name: String, value: ContextValue, changedAt: String) {
            self.name = name
            self.value = value
            self.changedAt = changedAt
        }
    }

    /// The user.
    public var user: String
    /// Their attributes, by name.
    public var attributes: [Attribute]

    /// The answer for `user`.
    public init(user: String, attributes: [Attribute]) {
        self.user = user
        self.attributes = attributes
    }
}

/// The limits on a user's attributes, the same in the server and the SDKs.
public enum AttributeLimits {
    /// At most this many attributes per user, and per identify.
    public static let count = 50
    /// Names are names of the rule language (`[A-Za-z0-9_-]`), of at most this many bytes.
    public static let nameBytes = 64
    /// Text values of at most this many bytes.
    public static let textBytes = 512
    /// Names that `user.` already means in every context: the user's id and locale.
    public static let reservedNames: Set<String> = ["id", "locale"]

    /// Why an attribute cannot be set, or nil if it can.
    public static func problem(name: String, value: ContextValue?) -> String? {
        guard EventPattern.isName(name), name.utf8.count <= nameBytes, !RuleParser.keywords.contains(name.lowercased()) else {
            return
                "attribute \"\(name.prefix(80))\": a name is 1 to \(nameBytes) letters, digits, _ or -, and not a keyword of the rule language"
        }
        guard !reservedNames.contains(name) else {
            return "attribute \"\(name)\": user.\(name) is set by the SDK itself"
        }
        switch value {
        case .string(let text) where text.utf8.count > textBytes || text.utf8.contains(0):
            return "attribute \"\(name)\": text is at most \(textBytes) bytes, without NUL"
        case .number(let number) where !number.isFinite:
            return "attribute \"\(name)\": a number must be finite"
        case .version(let version) where version.components.count > 16:
            return "attribute \"\(name)\": a version has at most 16 parts"
        default:
            return nil
        }
    }
}
