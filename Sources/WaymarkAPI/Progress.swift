import WaymarkEngine

/// `POST /v1/progress`: what one of the user's devices has of their progress with tips, tours and
/// checklists, proven by `userHash`. The server merges it into what it keeps and answers the merge.
///
/// ```json
/// {"user": "u42", "userHash": "…",
///  "progress": {"tips": {"search-tip": {"shown": 2, "displayedMillis": 7300, "finished": "closed"}},
///               "tours": {"welcome": {"page": 2, "finished": true}},
///               "checklists": {"first-steps": {"done": ["browse"], "completed": false}}}}
/// ```
public struct ProgressRequest: Codable, Hashable, Sendable {
    /// The user, as the app names them.
    public var user: String
    /// The identity proof: HMAC-SHA256 of `user` with the app's identity secret, in lowercase hex.
    public var userHash: String
    /// The device's progress.
    public var progress: UserProgress

    /// Sends `progress` for `user`, proven by `userHash`.
    public init(user: String, userHash: String, progress: UserProgress) {
        self.user = user
        self.userHash = userHash
        self.progress = progress
    }
}

/// The answer to `POST /v1/progress`: the join of what every device of the user sent, to merge
/// into the device's own state.
public struct SyncedProgress: Codable, Hashable, Sendable {
    /// The user.
    public var user: String
    /// Their progress, from all their devices.
    public var progress: UserProgress

    /// The answer for `user`.
    public init(user: String, progress: UserProgress) {
        self.user = user
        self.progress = progress
    }
}

/// The limits on a user's progress, the same in the server and the SDKs.
public enum ProgressLimits {
    /// One request names at most this many tips, tours and checklists.
    public static let perRequest = 1_000
    /// The server keeps at most this many tips, tours and checklists per user.
    public static let perUser = 5_000
    /// An id is at most this many bytes.
    public static let idBytes = 256
}
