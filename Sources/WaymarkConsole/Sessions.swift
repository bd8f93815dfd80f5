import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import WaymarkEngine
import WaymarkServer
import WaymarkStore

/// A signed-in console user on one request.
struct SignedIn: Sendable {
    let user: ConsoleUser
    let session: ConsoleSession
    let memberships: [Membership]

    func role(in app: String) -> Role? { memberships.first { $0.app == app }?.role }
    var actor: AuditEntry.Actor { .user(user.email) }
}

/// Console sessions: a 256-bit random token in a `__Host-` cookie (Secure, HttpOnly,
/// SameSite=Strict, Path=/), stored only as its SHA-256; a new token at every login; an idle limit
/// and an absolute one. Each session has its own CSRF token, which every form and every
/// state-changing request must carry.
struct Sessions: Sendable {
    static let cookie = "__Host-waymark-session"
    /// Before login: the double-submit token of the login form.
    static let loginCookie = "__Host-waymark-login"
    static let idleLimit: TimeInterval = 8 * 3600
    static let absoluteLimit: TimeInterval = 7 * 24 * 3600

    let store: any Store
    let now: @Sendable () -> Date

    /// The request's session and user, or nil when there is none or it expired.
    func signedIn(_ request: Request) async throws -> SignedIn? {
        guard let token = request.cookies[Self.cookie]?.value, token.utf8.count == 64,
            let session = try await store.session(id: Self.hash(token))
        else { return nil }
        let time = now()
        if time.timeIntervalSince(session.lastSeenAt) > Self.idleLimit || time.timeIntervalSince(session.createdAt) > Self.absoluteLimit {
            try await store.deleteSession(id: session.id)
            return nil
        }
        guard let user = try await store.user(id: session.user) else { return nil }
        // One write a minute at most, not one per page.
        if time.timeIntervalSince(session.lastSeenAt) > 60 { try await store.touchSession(id: session.id, at: time) }
        return SignedIn(user: user, session: session, memberships: try await store.memberships(user: user.id))
    }

    /// Starts a new session for the user, ending the one the browser had (no session fixation).
    func start(for user: ConsoleUser, replacing request: Request, on response: inout Response) async throws {
        if let old = request.cookies[Self.cookie]?.value { try await store.deleteSession(id: Self.hash(old)) }
        let token = Secrets.randomHex(bytes: 32)
        let time = now()
        try await store.insertSession(
            ConsoleSession(id: Self.hash(token), user: user.id, csrfToken: Secrets.randomHex(bytes: 32), createdAt: time, lastSeenAt: time)
        )
        response.setCookie(Self.cookie(Self.cookie, token))
        response.setCookie(Self.cookie(Self.loginCookie, "", maxAge: 0))
    }

    func end(_ request: Request, on response: inout Response) async throws {
        if let token = request.cookies[Self.cookie]?.value { try await store.deleteSession(id: Self.hash(token)) }
        response.setCookie(Self.cookie(Self.cookie, "", maxAge: 0))
    }

    static func cookie(_ name: String, _ value: String, maxAge: Int? = nil) -> Cookie {
        Cookie(name: name, value: value, maxAge: maxAge, path: "/", secure: true, httpOnly: true, sameSite: .strict)
    }

    static func hash(_ token: String) -> String { Secrets.hash(token) }

    /// Refuses a state-changing request from another site: its Origin (sent by browsers on POST)
    /// must be this server's.
    static func checkOrigin(_ request: Request) throws {
        guard let origin = request.headers[.origin] else { return }
        let host = request.head.authority ?? ""
        guard let url = URL(string: origin), let originHost = url.host else { throw ConsoleError.forbidden("cross-site request refused") }
        let originAuthority = url.port.map { "\(originHost):\($0)" } ?? originHost
        guard originAuthority.caseInsensitiveCompare(host) == .orderedSame else {
            throw ConsoleError.forbidden("cross-site request refused")
        }
    }
}

/// Failed logins, counted per email and per client address over a quarter of an hour: past the
/// limit, logins are refused (429) without checking the password, so guessing is slow. Counted
/// in the store, so that several servers behind a load balancer share one count (a count per
/// process would give N servers N times the attempts); ``SessionSweeper`` removes old failures.
/// The store sees each email and address as a SHA-256 hash: fixed in length however long the typed
/// email, and no list of the emails people tried.
struct LoginThrottle: Sendable {
    static let window: TimeInterval = 15 * 60
    static let perEmail = 5
    static let perAddress = 20
    let store: any Store

    /// Counts a try as failed before its password is checked, in one transaction with the check
    /// of the limits, so that tries made at once cannot all pass a check none of them has counted
    /// yet: at most `limit` are checked per window. Answers the seconds to wait when the try is
    /// one too many (it is then not counted), nil when it may go on (it stays counted unless
    /// ``succeeded(email:address:at:)`` says otherwise).
    func charge(email: String, address: String?, at time: Date) async throws(StoreError) -> Int? {
        let keys = Self.keys(email: email, address: address)
        guard let failures = try await store.chargeLoginFailure(keys: keys, at: time, since: time - Self.window) else { return nil }
        var wait: TimeInterval = 1
        for (key, limit) in keys {
            guard let recent = failures[key], recent.count >= limit else { continue }
            wait = max(wait, Self.window - time.timeIntervalSince(recent.earliest))
        }
        return Int(wait.rounded(.up))
    }

    /// The try charged at `time` had the right password: the email's failures are forgotten, and
    /// the address's charge for this try taken back.
    func succeeded(email: String, address: String?, at time: Date) async throws(StoreError) {
        try await store.clearLoginFailures(key: Self.key(email: email))
        if let address { try await store.forgetLoginFailure(keys: [Self.key(address: address)], at: time) }
    }

    /// The key an email's failures are counted under.
    static func key(email: String) -> String { Secrets.hash("email:" + email) }

    /// The key a client address's failures are counted under.
    static func key(address: String) -> String { Secrets.hash("address:" + address) }

    private static func keys(email: String, address: String?) -> [(key: String, limit: Int)] {
        [(key(email: email), perEmail)] + (address.map { [(key(address: $0), perAddress)] } ?? [])
    }
}

/// Removes expired console sessions, and failed logins past the throttle's window, once an hour.
/// An expired session is refused anyway (see ``Sessions``) and old failures no longer count (see
/// ``LoginThrottle``); this keeps the tables to the live rows and leaves no old token hashes behind.
public struct SessionSweeper: Service {
    let store: any Store
    let logger: Logger
    let interval: Duration
    let now: @Sendable () -> Date

    public init(store: any Store, logger: Logger, interval: Duration = .seconds(3600), now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.logger = logger
        self.interval = interval
        self.now = now
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let removed = try await sweep()
                    if removed.sessions > 0 || removed.loginFailures > 0 {
                        logger.info(
                            "removed expired console sessions and failed logins",
                            metadata: ["sessions": "\(removed.sessions)", "loginFailures": "\(removed.loginFailures)"]
                        )
                    }
                } catch {
                    logger.warning("could not remove expired console sessions and failed logins", metadata: ["error": "\(error)"])
                }
                do { try await Task.sleep(for: interval) } catch { return }
            }
        }
    }

    /// Removes the sessions past their idle or absolute limit now, and the failed logins older
    /// than the throttle's window; returns how many of each.
    @discardableResult
    public func sweep() async throws(StoreError) -> (sessions: Int, loginFailures: Int) {
        let time = now()
        let sessions = try await store.deleteExpiredSessions(
            lastSeenBefore: time - Sessions.idleLimit, createdBefore: time - Sessions.absoluteLimit
        )
        return (sessions, try await store.deleteLoginFailures(before: time - LoginThrottle.window))
    }
}
