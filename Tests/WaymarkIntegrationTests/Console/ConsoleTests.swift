import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOFoundationEssentialsCompat
import Testing
import WaymarkAnalytics
import WaymarkApplication
import WaymarkCatalog
import WaymarkEngine
import WaymarkNarration
import WaymarkRules
import WaymarkSQLite
import WaymarkServer
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

@testable import WaymarkConsole

/// The console over HTTP on a real port and a real SQLite database: sign-in, sessions, CSRF,
/// roles, the tip form, publishing, rollback and the audit log.
@Suite(.timeLimit(.minutes(5))) struct ConsoleTests {
    static let password = "correct horse battery staple"

    /// A clock the tests move.
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var time = Date()
        var now: Date { lock.withLock { time } }
        func advance(_ seconds: TimeInterval) { lock.withLock { time += seconds } }
    }

    struct Setup {
        let client: any TestClientProtocol
        let shop: Provisioning.NewApp
        let other: Provisioning.NewApp
        let store: any Store
        let database: StoreUnderTest.Location
        let clock: Clock
    }

    /// A server with the console, two apps, and users: ada owns the shop, vic views it, oscar owns the other app.
    /// With `narrator`, the server makes speech in the background as `waymark serve` does.
    func withConsole(
        _ kind: StoreUnderTest, narrator: Bool = false, trustedProxies: TrustedProxies = .none, countingPatience: Duration = .seconds(1),
        _ body: @Sendable (Setup) async throws -> Void
    ) async throws {
        try await kind.with { store, database in
            let shop = try await Provisioning.createApp(name: "Shop <b>", in: store)
            let other = try await Provisioning.createApp(name: "Other", in: store)
            try await Accounts.addMember(
                email: "Ada@Example.com", password: Self.password, role: .owner, app: shop.appId, in: store, cost: 4)
            try await Accounts.addMember(
                email: "vic@example.com", password: Self.password, role: .viewer, app: shop.appId, in: store, cost: 4)
            try await Accounts.addMember(
                email: "oscar@example.com", password: Self.password, role: .owner, app: other.appId, in: store, cost: 4)
            var logger = Logger(label: "test")
            logger.logLevel = .warning
            let clock = Clock()
            let configuration = WaymarkConfiguration(
                port: 0, synthesizer: narrator ? try ESpeakSynthesizer.onPath().get() : nil, trustedProxies: trustedProxies,
                countingPatience: countingPatience, now: { clock.now }
            )
            // Composed as `waymark serve` composes it: the narrator, if any, runs with the server.
            let application = buildApplication(configuration, store: store, logger: logger)
            try await application.test(.live) { client in
                try await body(Setup(client: client, shop: shop, other: other, store: store, database: database, clock: clock))
            }
        }
    }

    /// Cookies as a browser keeps them, and the page's CSRF token.
    struct Browser {
        let client: any TestClientProtocol
        var cookies: [String: String] = [:]
        var csrf = ""

        init(_ client: any TestClientProtocol) { self.client = client }

        @discardableResult
        mutating func get(_ uri: String) async throws -> TestResponse {
            let response = try await client.execute(uri: uri, method: .get, headers: headers())
            absorb(response)
            return response
        }

        @discardableResult
        mutating func post(_ uri: String, _ fields: [(String, String)], csrf: Bool = true, extra: HTTPFields = [:]) async throws
            -> TestResponse
        {
            var headers = headers()
            headers[.contentType] = "application/x-www-form-urlencoded"
            for field in extra { headers.append(field) }
            let all = (csrf ? [("csrf", self.csrf)] : []) + fields
            let body = all.map { "\(Self.encode($0.0))=\(Self.encode($0.1))" }.joined(separator: "&")
            let response = try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
            absorb(response)
            return response
        }

        /// A page whose figures are counted in the background, asked for until they are on it (a
        /// page waits for them, then says they are still being worked out and reloads), and
        /// whether it first came without them.
        mutating func counted(_ uri: String) async throws -> (page: String, waited: Bool) {
            for attempt in 0..<100 {
                let page = String(buffer: try await get(uri).body)
                guard page.contains("is still being worked out") else { return (page, attempt > 0) }
                #expect(page.contains("<meta http-equiv=\"refresh\""), "a page without its figures reloads")
                #expect(!page.contains("No segments yet"))
                try await Task.sleep(for: .milliseconds(100))
            }
            Issue.record("\(uri) is still counting")
            return ("", true)
        }

        mutating func signIn(_ email: String, _ password: String = ConsoleTests.password) async throws -> TestResponse {
            try await get("/console/login")
            return try await post("/console/login", [("email", email), ("password", password)])
        }

        func headers() -> HTTPFields {
            var headers: HTTPFields = [:]
            if !cookies.isEmpty { headers[.cookie] = cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
            return headers
        }

        mutating func absorb(_ response: TestResponse) {
            for header in response.headers[values: .setCookie] {
                let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let value = pair.count > 1 ? String(pair[1]) : ""
                if value.isEmpty || header.contains("Max-Age=0") {
                    cookies[String(pair[0])] = nil
                } else {
                    cookies[String(pair[0])] = value
                }
            }
            let page = String(buffer: response.body)
            if let range = page.range(of: #"name="csrf" value=""#) {
                csrf = String(page[range.upperBound...].prefix { $0 != "\"" })
            }
        }

        static func encode(_ text: String) -> String {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
        }
    }

    /// A browser signed in as the shop's owner, on a page that carries the session's CSRF token.
    static func owner(_ setup: Setup) async throws -> Browser {
        var browser = Browser(setup.client)
        _ = try await browser.signIn("ada@example.com")
        try await browser.get("/console/apps")
        return browser
    }

    static func tipFields(id: String, trigger: String = "tap:search", title: String = "Find anything") -> [(String, String)] {
        [
            ("new", "1"), ("id", id), ("container", "home"), ("anchor", "search-button"), ("trigger", trigger),
            ("dismissal", "tap:search-done"),
            ("priority", "3"), ("renderer", "pointer"), ("gesture", "tap"), ("targeting", ""), ("rollout", "100"), ("title", title),
            ("body", "Tap **here**."), ("format", "markdown"), ("locale.0.code", "hi"), ("locale.0.title", "खोजें"), ("locale.0.body", "यहाँ"),
            ("variant.0.id", ""), ("variant.0.weight", "1"), ("variant.0.title", ""), ("variant.0.body", ""),
        ]
    }

    // MARK: Sign-in and sessions

    @Test(arguments: StoreUnderTest.available)
    func signingInSetsAHostOnlySessionCookieAndANewTokenEachTime(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = Browser(setup.client)
            let page = try await browser.get("/console/apps")
            #expect(page.status == .seeOther)
            #expect(page.headers[.location] == "/console/login")
            let wrong = try await browser.signIn("ada@example.com", "not the password")
            #expect(wrong.status == .unauthorized)
            #expect(String(buffer: wrong.body).contains("Wrong email or password."))
            let unknown = try await browser.signIn("nobody@example.com")
            #expect(unknown.status == .unauthorized)
            #expect(String(buffer: unknown.body).contains("Wrong email or password."), "the same answer for an unknown email")

            let right = try await browser.signIn(" ADA@example.com ")
            #expect(right.status == .seeOther)
            #expect(right.headers[.location] == "/console/apps")
            let cookie = try #require(right.headers[values: .setCookie].first { $0.hasPrefix("__Host-waymark-session=") })
            for attribute in ["Secure", "HttpOnly", "SameSite=Strict", "Path=/"] { #expect(cookie.contains(attribute), "\(cookie)") }
            #expect(!cookie.contains("Domain"))
            let token = try #require(browser.cookies["__Host-waymark-session"])
            #expect(token.count == 64 && token.allSatisfy(\.isHexDigit), "256 random bits")
            let apps = try await browser.get("/console/apps")
            #expect(apps.status == .ok)
            #expect(String(buffer: apps.body).contains("Shop &lt;b&gt;"), "names are escaped")

            // Signing in again replaces the session: the old token opens nothing.
            let old = browser.cookies
            _ = try await browser.signIn("ada@example.com")
            #expect(browser.cookies["__Host-waymark-session"] != token)
            var stale = Browser(setup.client)
            stale.cookies = old
            #expect(try await stale.get("/console/apps").status == .seeOther)
            // The database has only the token's hash.
            let stored = try await setup.store.session(id: Secrets.hash(try #require(browser.cookies["__Host-waymark-session"])))
            #expect(stored != nil)

            // Signing out ends it.
            try await browser.get("/console/apps")
            #expect(try await browser.post("/console/logout", []).status == .seeOther)
            #expect(try await browser.get("/console/apps").status == .seeOther)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func sessionsEndAfterEightIdleHours(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            setup.clock.advance(7 * 3600)
            #expect(try await browser.get("/console/apps").status == .ok, "activity keeps it alive")
            setup.clock.advance(7 * 3600)
            #expect(try await browser.get("/console/apps").status == .ok)
            setup.clock.advance(8 * 3600 + 1)
            #expect(try await browser.get("/console/apps").status == .seeOther)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func theSweeperRemovesExpiredSessionsUntilItIsStopped(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var stale = Browser(setup.client)
            _ = try await stale.signIn("vic@example.com")
            var guesser = Browser(setup.client)
            #expect(try await guesser.signIn("oscar@example.com", "a wrong guess").status == .unauthorized)
            func failures() async throws -> Int {
                try await setup.store.loginFailures(keys: [LoginThrottle.key(email: "oscar@example.com")], since: .distantPast).values.map(
                    \.count
                ).reduce(0, +)
            }
            #expect(try await failures() == 1)
            setup.clock.advance(8 * 3600 + 60)  // past the idle limit, and the throttle's window
            var fresh = Browser(setup.client)
            _ = try await fresh.signIn("ada@example.com")
            func stored(_ browser: Browser) async throws -> ConsoleSession? {
                try await setup.store.session(id: Secrets.hash(try #require(browser.cookies["__Host-waymark-session"])))
            }
            #expect(try await stored(stale) != nil, "refused when used, but still stored")
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            let sweeper = SessionSweeper(store: setup.store, logger: logger, interval: .milliseconds(20), now: { setup.clock.now })
            let running = Task { try await sweeper.run() }
            // A sweep removes sessions, then failed logins: wait for both, or the sweeper could be
            // stopped between the two.
            let swept = try await eventually(within: 30, every: .milliseconds(20)) {
                let sessionGone = try await stored(stale) == nil
                let failuresGone = try await failures() == 0
                return sessionGone && failuresGone
            }
            running.cancel()
            try await running.value
            #expect(swept, "the expired session and the old failed login are removed")
            #expect(try await stored(stale) == nil)
            #expect(try await stored(fresh) != nil)
            #expect(try await failures() == 0, "failed logins past the window are removed too")
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func loginsAreThrottledAfterFiveFailures(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = Browser(setup.client)
            for _ in 0..<5 { #expect(try await browser.signIn("vic@example.com", "guess guess guess").status == .unauthorized) }
            let refused = try await browser.signIn("vic@example.com")
            #expect(refused.status == .tooManyRequests, "even the right password waits")
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 > 800)
            #expect(try await browser.signIn("ada@example.com").status == .seeOther, "another account is not locked")
            setup.clock.advance(15 * 60 + 1)
            #expect(try await browser.signIn("vic@example.com").status == .seeOther)
        }
    }

    /// Tries made at once are counted before their passwords are checked: however many arrive
    /// together (each then taking a while over its password), at most five go on, and a right
    /// password costs its address nothing.
    @Test(arguments: StoreUnderTest.available)
    func triesAtOnceCannotPassTheLimitTogether(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            let throttle = LoginThrottle(store: store)
            let time = Date(timeIntervalSince1970: 1_767_225_600)
            let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        let wait = try await throttle.charge(email: "vic@example.com", address: "203.0.113.9", at: time)
                        try await Task.sleep(for: .milliseconds(20))  // the password check
                        return wait == nil
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(allowed == 5, "\(allowed) tries went on")
            #expect(try await throttle.charge(email: "vic@example.com", address: "203.0.113.9", at: time + 1) != nil)
            // The refused ones were not counted: the email's failures are the tries that went on.
            let failures = try await store.loginFailures(keys: [LoginThrottle.key(email: "vic@example.com")], since: time)
            #expect(failures.values.first?.count == allowed)
            // Twenty right passwords from one address do not lock it out.
            for index in 0..<20 {
                let at = time + 2 + Double(index)
                #expect(try await throttle.charge(email: "ada@example.com", address: "198.51.100.7", at: at) == nil)
                try await throttle.succeeded(email: "ada@example.com", address: "198.51.100.7", at: at)
            }
            #expect(try await store.loginFailures(keys: [LoginThrottle.key(address: "198.51.100.7")], since: time).isEmpty)
        }
    }

    /// Two servers on one database, as behind a load balancer: failures through either count
    /// against the same limit (a count per process would give each server five guesses).
    @Test(arguments: StoreUnderTest.available)
    func failedLoginsThroughTwoServersShareOneLimit(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var logger = Logger(label: "test")
            logger.logLevel = .warning
            let otherServer = buildApplication(.init(port: 0, now: { setup.clock.now }), store: setup.store, logger: logger)
            try await otherServer.test(.live) { client in
                var first = Browser(setup.client)
                var second = Browser(client)
                for attempt in 0..<5 {
                    let status =
                        attempt.isMultiple(of: 2)
                        ? try await first.signIn("vic@example.com", "guess guess guess").status
                        : try await second.signIn("vic@example.com", "guess guess guess").status
                    #expect(status == .unauthorized)
                }
                #expect(try await first.signIn("vic@example.com").status == .tooManyRequests)
                #expect(try await second.signIn("vic@example.com").status == .tooManyRequests)
                setup.clock.advance(15 * 60 + 1)
                #expect(try await second.signIn("vic@example.com").status == .seeOther)
            }
        }
    }

    /// Behind a trusted load balancer, the address limit counts each client, not the balancer
    /// (which would lock everyone out after twenty failures); from any other peer the header is
    /// ignored, so a guesser cannot give each try a new address.
    @Test(arguments: StoreUnderTest.available)
    func theAddressLimitCountsTheClientATrustedBalancerNames(_ kind: StoreUnderTest) async throws {
        /// Twenty failed logins, for twenty emails, each from the address given for it.
        @Sendable func guessTwentyTimes(_ setup: Setup, from address: @Sendable (Int) -> String) async throws {
            for attempt in 0..<20 {
                var guesser = Browser(setup.client)
                let forwarded: HTTPFields = [.init("X-Forwarded-For")!: address(attempt)]
                try await guesser.get("/console/login")
                let status = try await guesser.post(
                    "/console/login", [("email", "nobody\(attempt)@example.com"), ("password", "guess")], extra: forwarded
                ).status
                #expect(status == .unauthorized)
            }
        }
        @Sendable func signIn(_ setup: Setup, from address: String) async throws -> HTTPResponse.Status {
            var browser = Browser(setup.client)
            try await browser.get("/console/login")
            let forwarded: HTTPFields = [.init("X-Forwarded-For")!: address]
            return try await browser.post("/console/login", [("email", "ada@example.com"), ("password", Self.password)], extra: forwarded)
                .status
        }
        // The tests' client connects from 127.0.0.1: here, the balancer.
        try await withConsole(kind, trustedProxies: try TrustedProxies(parsing: "127.0.0.1")) { setup in
            try await guessTwentyTimes(setup, from: { _ in "203.0.113.9" })
            #expect(try await signIn(setup, from: "203.0.113.9") == .tooManyRequests)
            #expect(try await signIn(setup, from: "198.51.100.7") == .seeOther, "another client behind the balancer is not locked out")
        }
        try await withConsole(kind) { setup in
            try await guessTwentyTimes(setup, from: { "203.0.113.\($0)" })
            #expect(try await signIn(setup, from: "198.51.100.7") == .tooManyRequests, "an untrusted peer's header is ignored")
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func theLoginFormNeedsItsOwnToken(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = Browser(setup.client)
            try await browser.get("/console/login")
            browser.csrf = "forged"
            let forged = try await browser.post("/console/login", [("email", "ada@example.com"), ("password", Self.password)])
            #expect(forged.status == .forbidden)
            #expect(browser.cookies["__Host-waymark-session"] == nil)
        }
    }

    /// The style sheet and scripts carry an ETag: asked again with it, plain or gzip-compressed,
    /// they answer 304 with no body, so a phone downloads each once; another ETag gets the file.
    @Test func theConsolesAssetsAnswerNotModifiedToTheirETag() async throws {
        try await withConsole(.sqlite) { setup in
            for file in ["console.css", "console.js"] {
                let first = try await setup.client.execute(uri: "/console/assets/\(file)", method: .get)
                #expect(first.status == .ok && first.body.readableBytes > 1000)
                let etag = try #require(first.headers[.eTag])
                #expect(first.headers[.cacheControl] == "no-cache")
                let again = try await setup.client.execute(uri: "/console/assets/\(file)", method: .get, headers: [.ifNoneMatch: etag])
                #expect(again.status == .notModified && again.body.readableBytes == 0, "\(file)")
                let listed = try await setup.client.execute(
                    uri: "/console/assets/\(file)", method: .get, headers: [.ifNoneMatch: "\"other\",  \(etag)"])
                #expect(listed.status == .notModified, "\(file), in a list")
                let gzip = try await setup.client.execute(uri: "/console/assets/\(file)", method: .get, headers: [.acceptEncoding: "gzip"])
                #expect(gzip.headers[.contentEncoding] == "gzip")
                let gzipETag = try #require(gzip.headers[.eTag])
                #expect(gzipETag != etag)
                let gzipAgain = try await setup.client.execute(
                    uri: "/console/assets/\(file)", method: .get, headers: [.acceptEncoding: "gzip", .ifNoneMatch: gzipETag])
                #expect(gzipAgain.status == .notModified, "\(file), gzip")
                let other = try await setup.client.execute(
                    uri: "/console/assets/\(file)", method: .get, headers: [.ifNoneMatch: "\"other\""])
                #expect(other.status == .ok && other.body.readableBytes == first.body.readableBytes)
            }
        }
    }

    // MARK: CSRF, roles and other apps

    @Test(arguments: StoreUnderTest.available)
    func stateChangingRequestsNeedTheSessionsTokenAndThisOrigin(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            let withoutToken = try await browser.post("/console/apps/\(app)/tips/new", Self.tipFields(id: "t1"), csrf: false)
            #expect(withoutToken.status == .forbidden)
            #expect(String(buffer: withoutToken.body).contains("security token"))
            let crossSite = try await browser.post(
                "/console/apps/\(app)/tips/new", Self.tipFields(id: "t1"), extra: [.origin: "https://evil.example"])
            #expect(crossSite.status == .forbidden)
            #expect(try await setup.store.draft(app: app) == nil, "nothing was saved")
            let saved = try await browser.post("/console/apps/\(app)/tips/new", Self.tipFields(id: "t1"))
            #expect(saved.status == .seeOther)
            let draft = try #require(try await setup.store.draft(app: app))
            #expect(draft.document.contains("id: t1"))
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func rolesLimitWhatAUserMayDoAndOtherAppsDoNotExist(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var viewer = Browser(setup.client)
            _ = try await viewer.signIn("vic@example.com")
            let app = setup.shop.appId
            #expect(try await viewer.get("/console/apps/\(app)").status == .ok)
            try await viewer.get("/console/apps/\(app)/new-tip")
            let refused = try await viewer.post("/console/apps/\(app)/tips/new", Self.tipFields(id: "t1"))
            #expect(refused.status == .forbidden)
            #expect(try await setup.store.draft(app: app) == nil)

            var outsider = Browser(setup.client)
            _ = try await outsider.signIn("oscar@example.com")
            for path in ["", "/publish", "/versions", "/audit", "/new-tip", "/attributes"] {
                #expect(try await outsider.get("/console/apps/\(app)\(path)").status == .notFound, "\(path)")
            }
            try await outsider.get("/console/apps/\(setup.other.appId)")
            #expect(try await outsider.post("/console/apps/\(app)/publish", []).status == .notFound)
        }
    }

    // MARK: The tip form

    @Test(arguments: StoreUnderTest.available)
    func aBadRuleIsShownWithItsCaretAndNothingIsSaved(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            let bad = try await browser.post("/console/apps/\(app)/tips/new", Self.tipFields(id: "t1", trigger: "tap:search AND"))
            #expect(bad.status == .unprocessableContent)
            let page = String(buffer: bad.body)
            #expect(page.contains("rule:1:15"), "the position")
            #expect(page.contains("tap:search AND\n"), "the line")
            #expect(page.contains("              ^"), "the caret under the place")
            #expect(page.contains("value=\"Find anything\""), "what was typed is kept")
            #expect(try await setup.store.draft(app: app) == nil)

            let check = try await browser.get("/console/apps/\(app)/rules/check?rule=tap%3Asearch%20AND&kind=event")
            let verdict = try #require(JSONSerialization.jsonObject(with: Data(buffer: check.body)) as? [String: Any])
            #expect(verdict["ok"] as? Bool == false)
            #expect((verdict["excerpt"] as? String)?.contains("^") == true)
            let good = try await browser.get("/console/apps/\(app)/rules/check?rule=tap%3Asearch&kind=event")
            #expect(String(buffer: good.body) == #"{"ok":true}"#)
            // "Viewed 3 products" as authors write it: the check answers with the rule they meant.
            let counted = try await browser.get("/console/apps/\(app)/rules/check?rule=screen%3Aproduct%20%3E%3D%203&kind=event")
            #expect(String(buffer: counted.body).contains("to count it, write count(screen:product) >= 3"))
            let targeting = try await browser.get("/console/apps/\(app)/rules/check?rule=tap%3Asearch&kind=targeting")
            #expect(String(buffer: targeting.body).contains("targeting reads the client context"))
        }
    }

    /// A recipe in plain words writes its rule into the field, on the server as through the
    /// script's JSON, and saves nothing until the author saves.
    @Test(arguments: StoreUnderTest.available)
    func aRecipeWritesTheRuleIntoItsFieldAndSavesNothing(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            let recipe = [("recipe.trigger.kind", "visits"), ("recipe.trigger.subject", "product"), ("recipe.trigger.number", "3")]
            let written = try await browser.post(
                "/console/apps/\(app)/tips/new", Self.tipFields(id: "t1", trigger: "") + recipe + [("write", "trigger")])
            #expect(written.status == .ok)
            let page = String(buffer: written.body)
            #expect(page.contains(">count(screen:product) &gt;= 3</textarea>"), "the rule, in the trigger field")
            #expect(page.contains("The rule is written in the field above"))
            #expect(page.contains("<details class=\"recipe\" open>"))
            #expect(page.contains("value=\"Find anything\""), "the rest of the form is kept")
            #expect(try await setup.store.draft(app: app) == nil)

            let refused = try await browser.post(
                "/console/apps/\(app)/tips/new",
                Self.tipFields(id: "t1") + [
                    ("recipe.dismissal.kind", "tap"), ("recipe.dismissal.subject", "cart link"), ("write", "dismissal"),
                ])
            #expect(String(buffer: refused.body).contains("is not the element&#39;s name as rules write it"))

            let json = try await browser.get("/console/apps/\(app)/rules/recipe?kind=first-visit&subject=cart&number=")
            #expect(String(buffer: json.body) == #"{"ok":true,"rule":"count(screen:cart) == 1"}"#)
            let bad = try await browser.get("/console/apps/\(app)/rules/recipe?kind=idle&subject=cart&number=0")
            #expect(String(buffer: bad.body).contains("the number is a whole number from 1 to 86400"))

            // Saved, the written rule is the tip's trigger.
            let saved = try await browser.post(
                "/console/apps/\(app)/tips/new", Self.tipFields(id: "t1", trigger: "count(screen:product) >= 3") + recipe)
            #expect(saved.status == .seeOther)
            #expect(try await setup.store.draft(app: app)?.document.contains("trigger: count(screen:product) >= 3") == true)
        }
    }

    /// What the app has: the SDKs report the anchors and areas each screen shows, the console lists
    /// them, the tip form offers them, and a tip naming one never seen is saved with a warning that
    /// names the one it most likely meant.
    @Test(arguments: StoreUnderTest.available)
    func reportedAnchorsAreOfferedAndATipNamingAnUnseenOneIsWarned(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            let app = setup.shop.appId
            func report(_ body: String, key: String? = nil) async throws -> (HTTPResponse.Status, String) {
                let response = try await setup.client.execute(
                    uri: "/v1/anchors", method: .post,
                    headers: [.authorization: "Bearer \(key ?? setup.shop.clientKey)", .contentType: "application/json"],
                    body: ByteBuffer(string: body))
                return (response.status, String(buffer: response.body))
            }
            let products = #"{"platform":"web","screen":"products","anchors":["product","cart-link"],"areas":["products","header"]}"#
            #expect(try await report(products).0 == .noContent)
            #expect(try await report(#"{"platform":"android","screen":"cart","anchors":["checkout"],"areas":["cart"]}"#).0 == .noContent)
            let spaced = try await report(#"{"platform":"web","screen":"products","anchors":["cart link"],"areas":[]}"#)
            #expect(spaced.0 == .badRequest && spaced.1.contains(#"anchors: \"cart link\" is not a name"#))
            let extra = try await report(#"{"platform":"web","screen":"products","anchors":[],"areas":[],"user":"u1"}"#)
            #expect(extra.0 == .badRequest && extra.1.contains("unknown field"))
            #expect(try await report(products, key: "wm_nokey").0 == .unauthorized)
            let listed = try await setup.client.execute(
                uri: "/v1/admin/anchors", method: .get, headers: [.authorization: "Bearer \(setup.shop.secretKey)"])
            #expect(String(buffer: listed.body).contains(#""kind":"anchor","lastSeen":"#))

            var browser = try await Self.owner(setup)
            let page = String(buffer: try await browser.get("/console/apps/\(app)/anchors").body)
            #expect(page.contains(#"<section class="card" data-screen="products">"#))
            #expect(page.contains("<td>anchor</td><td><code>cart-link</code></td><td>web</td>"))
            // Picked there, the name fills the new tip's form: nothing to type.
            let pick = "/console/apps/\(app)/new-tip?anchor=cart-link&amp;container=products"
            #expect(page.contains(#"<a href="\#(pick)">New tip on cart-link</a>"#))
            let picked = String(buffer: try await browser.get(pick.replacingOccurrences(of: "&amp;", with: "&")).body)
            #expect(picked.contains(#"id="anchor" name="anchor" value="cart-link""#))
            #expect(picked.contains(#"id="container" name="container" value="products""#))
            let form = String(buffer: try await browser.get("/console/apps/\(app)/new-tip").body)
            #expect(form.contains(#"<option value="cart-link" label="seen on products">"#))
            #expect(form.contains(#"<option value="cart" label="seen on cart">"#))

            // A typo is saved, and said so wherever the author looks next.
            var fields = Self.tipFields(id: "t1")
            fields = fields.map { name, value in
                switch name {
                case "anchor": ("anchor", "cart-lnk")
                case "container": ("container", "headr")
                default: (name, value)
                }
            }
            #expect(try await browser.post("/console/apps/\(app)/tips/new", fields).status == .seeOther)
            let warning = "tip t1: no screen has the anchor &quot;cart-lnk&quot; yet: did you mean &quot;cart-link&quot;?"
            #expect(String(buffer: try await browser.get("/console/apps/\(app)").body).contains(warning))
            #expect(String(buffer: try await browser.get("/console/apps/\(app)/tips/t1").body).contains(warning))
            #expect(String(buffer: try await browser.get("/console/apps/\(app)/publish").body).contains(warning))
            let area = "no screen marks the area &quot;headr&quot;, so it can show on any screen: did you mean &quot;header&quot;?"
            #expect(String(buffer: try await browser.get("/console/apps/\(app)/anchors").body).contains(area))
            let fixed = fields.map { name, value in
                switch name {
                case "anchor": ("anchor", "cart-link")
                case "container": ("container", "header")
                case "new": ("new", "0")
                default: (name, value)
                }
            }
            #expect(try await browser.post("/console/apps/\(app)/tips/t1", fixed).status == .seeOther)
            #expect(!String(buffer: try await browser.get("/console/apps/\(app)").body).contains("sighting-warnings"))

            // A web tip by CSS selector: checked as it is saved, and against what the web SDK found.
            func selecting(_ selector: String, anchor: String = "") -> [(String, String)] {
                fixed.map { $0.0 == "anchor" ? ("anchor", anchor) : $0 } + [("selector", selector)]
            }
            let pseudo = try await browser.post("/console/apps/\(app)/tips/t1", selecting("a::before"))
            #expect(pseudo.status == .unprocessableContent)
            #expect(String(buffer: pseudo.body).contains("not a CSS selector: a pseudo-element (::before) is no element to point at"))
            let both = try await browser.post("/console/apps/\(app)/tips/t1", selecting(".pay", anchor: "cart-link"))
            #expect(String(buffer: both.body).contains("by its anchor or by a selector, not both"))
            #expect(try await browser.post("/console/apps/\(app)/tips/t1", selecting("nav .pay")).status == .seeOther)
            let tried = #"{"platform":"web","screen":"cart","anchors":[],"areas":[],"selectors":[{"selector":"nav .pay","matches":3}]}"#
            #expect(try await report(tried).0 == .noContent)
            #expect(
                String(buffer: try await browser.get("/console/apps/\(app)").body).contains(
                    "tip t1: the selector &quot;nav .pay&quot; matches 3 elements on cart: the tip points at the first"))
            let unread = #"{"platform":"web","screen":"cart","anchors":[],"areas":[],"selectors":[{"selector":"a {","matches":0}]}"#
            #expect(try await report(unread).0 == .unprocessableContent)
            let nested = #"{"platform":"web","screen":"cart","anchors":[],"areas":[],"selectors":[{"selector":"a","matches":0,"x":1}]}"#
            #expect(try await report(nested).1.contains(#"unknown field \"x\""#))
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func editingATipKeepsWhatTheFormDoesNotShow(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            let app = setup.shop.appId
            // A tip with a display policy and narration, which the form does not show.
            let catalog = try CatalogDocument.parse(
                """
                tips:
                  - id: welcome
                    container: banner
                    trigger: activation
                    policy: { maxDisplayDuration: 20s }
                    content:
                      title: Welcome
                      body: Hello
                      audio: https://cdn.example.com/welcome.ogg
                """, file: "test")
            try await Provisioning.publish(catalog, app: app, note: "seed", in: setup.store)
            var browser = try await Self.owner(setup)
            let form = try await browser.get("/console/apps/\(app)/tips/welcome")
            #expect(String(buffer: form.body).contains("value=\"Welcome\""))
            var fields = Self.tipFields(id: "welcome", trigger: "activation AND screen:home", title: "Welcome back")
            fields[0] = ("new", "0")
            fields = fields.filter { !["anchor", "gesture", "dismissal", "renderer"].contains($0.0) } + [("renderer", "banner")]
            // A field sent twice is refused with a clear answer, not read as one or the other.
            let twice = try await browser.post("/console/apps/\(app)/tips/welcome", fields + [("title", "Other")])
            #expect(twice.status == .badRequest && String(buffer: twice.body).contains("each field is sent once"))
            #expect(try await browser.post("/console/apps/\(app)/tips/welcome", fields).status == .seeOther)
            let tip = try #require(
                try await setup.store.draft(app: app).map { try CatalogDocument.parse($0.document, file: "draft") }?.tips.first)
            #expect(tip.tip.trigger.description == "activation AND screen:home")
            #expect(tip.content.fallback.title == "Welcome back")
            #expect(tip.tip.policy.maxDisplayDuration == 20)
            #expect(tip.content.fallback.audio == "https://cdn.example.com/welcome.ogg")
            #expect(tip.content.locales["hi"]?.title == "खोजें")
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func thePreviewResolvesTheDraftTipForTheChosenClient(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            var fields = Self.tipFields(id: "t1")
            fields = fields.filter { $0.0 != "targeting" } + [("targeting", "device.platform == \"ios\"")]
            #expect(try await browser.post("/console/apps/\(app)/tips/new", fields).status == .seeOther)
            let hindi = String(buffer: try await browser.get("/console/apps/\(app)/tips/t1/preview?platform=ios&locale=hi-IN").body)
            #expect(hindi.contains("data-tip=\"{&quot;"), "the delivered tip as JSON in an attribute, escaped")
            #expect(hindi.contains("&quot;locale&quot;:&quot;hi&quot;"))
            #expect(hindi.contains("<script type=\"module\" src=\"/console/assets/preview.js\">"))
            let web = String(buffer: try await browser.get("/console/apps/\(app)/tips/t1/preview?platform=web").body)
            #expect(web.contains("does not get the tip"))
            #expect(!web.contains("data-tip="))
            #expect(try await browser.get("/console/apps/\(app)/tips/nope/preview").status == .notFound)
        }
    }

    // MARK: Publishing, rollback, audit

    @Test(arguments: StoreUnderTest.available)
    func publishShowsTheDifferenceAndRollbackIsOneStep(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            #expect(try await browser.post("/console/apps/\(app)/tips/new", Self.tipFields(id: "t1")).status == .seeOther)
            let review = String(buffer: try await browser.get("/console/apps/\(app)/publish").body)
            #expect(review.contains("tip t1"))
            #expect(review.contains("<span class=\"line-added\">+ trigger: tap:search</span>"))
            #expect(try await browser.post("/console/apps/\(app)/publish", []).status == .seeOther)
            #expect(try await setup.store.liveVersion(app: app)?.number == 1)
            // Version 2 without the tip, then a rollback to 1 brings it back as version 3.
            try await browser.get("/console/apps/\(app)/tips/t1")
            #expect(try await browser.post("/console/apps/\(app)/tips/t1/delete", []).status == .seeOther)
            let removal = String(buffer: try await browser.get("/console/apps/\(app)/publish").body)
            #expect(removal.contains("removed"))
            #expect(try await browser.post("/console/apps/\(app)/publish", []).status == .seeOther)
            let versions = String(buffer: try await browser.get("/console/apps/\(app)/versions").body)
            #expect(versions.contains("Roll back to 1"))
            #expect(try await browser.post("/console/apps/\(app)/versions/1/rollback", []).status == .seeOther)
            let live = try #require(try await setup.store.liveVersion(app: app))
            #expect(live.number == 3)
            #expect(live.note == "rollback to 1")
            #expect(live.document.contains("id: t1"))
            #expect(try await browser.post("/console/apps/\(app)/versions/99/rollback", []).status == .notFound)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func theAuditLogRecordsEveryChangeAndCannotBeEdited(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            _ = try await browser.post("/console/apps/\(app)/tips/new", Self.tipFields(id: "t1", title: "<img src=x onerror=alert(1)>"))
            _ = try await browser.post("/console/apps/\(app)/publish", [])
            // The admin API is audited too, by its key.
            let put = try await setup.client.execute(
                uri: "/v1/admin/catalog/draft/tips/t2", method: .put, headers: [.authorization: "Bearer \(setup.shop.secretKey)"],
                body: ByteBuffer(string: "{\"id\": \"t2\", \"container\": \"c\", \"trigger\": \"scroll\", \"content\": {\"title\": \"T\"}}")
            )
            #expect(put.status == .created)
            let entries = try await setup.store.auditLog(app: app, limit: 50)
            #expect(entries.map(\.action.description) == ["tip.added", "publish", "tip.added", "role.set", "role.set"])
            #expect(entries[0].actor.description.hasPrefix("key:key_"))
            #expect(entries[1].actor == .user("ada@example.com") && entries[1].object == "version 1")
            #expect(entries[2].before == nil && entries[2].after?.contains("id: t1") == true)
            let page = String(buffer: try await browser.get("/console/apps/\(app)/audit").body)
            #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;"))
            #expect(!page.contains("<img"))
            // The database itself refuses to rewrite history.
            for statement in ["UPDATE audit SET actor = 'someone else'", "DELETE FROM audit"] {
                await #expect(
                    performing: { try await setup.database.execute(sql: statement) },
                    throws: { error in
                        String(reflecting: error).contains("the audit log cannot be changed")
                    })
            }
            #expect(try await setup.store.auditLog(app: app, limit: 50).count == entries.count)
        }
    }

    // MARK: Members, keys and passwords

    static func shownSecret(_ response: TestResponse) -> String? {
        let page = String(buffer: response.body)
        guard let range = page.range(of: #"<code id="secret">"#) else { return nil }
        return String(page[range.upperBound...].prefix { $0 != "<" })
    }

    @Test(arguments: StoreUnderTest.available)
    func ownersManageMembersAndKeys(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var owner = try await Self.owner(setup)
            let app = setup.shop.appId
            let members = "/console/apps/\(app)/members"
            let page = String(buffer: try await owner.get(members).body)
            #expect(page.contains("ada@example.com (you)") && page.contains("vic@example.com"))

            // A viewer neither sees the link nor opens the page; another app's owner finds nothing.
            var viewer = Browser(setup.client)
            _ = try await viewer.signIn("vic@example.com")
            #expect(!String(buffer: try await viewer.get("/console/apps/\(app)").body).contains("Members and keys"))
            #expect(try await viewer.get(members).status == .forbidden)
            var outsider = Browser(setup.client)
            _ = try await outsider.signIn("oscar@example.com")
            try await outsider.get("/console/apps/\(setup.other.appId)/members")
            #expect(try await outsider.post(members, [("email", "x@example.com"), ("role", "owner")]).status == .notFound)

            // A new member gets an account and a password shown once, which signs them in.
            #expect(try await owner.post(members, [("email", "not an email"), ("role", "editor")]).status == .badRequest)
            let added = try await owner.post(members, [("email", " Eve@Example.com "), ("role", "editor")])
            let password = try #require(Self.shownSecret(added))
            #expect(password.count == 20)
            #expect(try await setup.store.members(app: app).map(\.user.email) == ["ada@example.com", "eve@example.com", "vic@example.com"])
            var eve = Browser(setup.client)
            #expect(try await eve.signIn("eve@example.com", password).status == .seeOther)
            #expect(String(buffer: try await eve.get("/console/apps/\(app)").body).contains("editor"))
            // Someone who already has an account (oscar, elsewhere) just joins: no password is made.
            let joined = try await owner.post(members, [("email", "oscar@example.com"), ("role", "viewer")])
            #expect(Self.shownSecret(joined) == nil && joined.status == .ok)
            #expect(try await outsider.get("/console/apps/\(app)").status == .ok)

            // An app keeps one owner; removing a member takes the app away from them at once.
            let ada = try #require(try await setup.store.user(email: "ada@example.com"))
            let vic = try #require(try await setup.store.user(email: "vic@example.com"))
            #expect(try await owner.post("\(members)/\(ada.id)", [("role", "editor")]).status == .conflict)
            #expect(try await owner.post("\(members)/\(ada.id)", [("role", "remove")]).status == .conflict)
            #expect(try await owner.post("\(members)/\(vic.id)", [("role", "admin")]).status == .badRequest)
            #expect(try await owner.post("\(members)/\(vic.id)", [("role", "remove")]).status == .ok)
            #expect(try await viewer.get("/console/apps/\(app)").status == .notFound)
            #expect(try await owner.post("\(members)/usr_nobody", [("role", "viewer")]).status == .notFound)

            // A key made here is shown once and works; revoked, it is refused at once.
            let created = try await owner.post("/console/apps/\(app)/keys", [("kind", "client")])
            #expect(created.status == .created)
            let key = try #require(Self.shownSecret(created))
            #expect(key.hasPrefix("wm_pk_"))
            let record = try #require(try await setup.store.keys(app: app).first { $0.hash == Secrets.hash(key) })
            func catalog() async throws -> HTTPResponse.Status {
                let response = try await setup.client.execute(
                    uri: "/v1/catalog?platform=web", method: .get, headers: [.authorization: "Bearer \(key)"])
                return response.status
            }
            #expect(try await catalog() != .unauthorized)
            // Another app's owner cannot revoke it through their own app.
            #expect(try await outsider.post("/console/apps/\(setup.other.appId)/keys/\(record.id)/revoke", []).status == .notFound)
            #expect(try await catalog() != .unauthorized)
            #expect(try await owner.post("/console/apps/\(app)/keys/\(record.id)/revoke", []).status == .ok)
            #expect(try await catalog() == .unauthorized)
            #expect(!String(buffer: try await owner.get(members).body).contains(key))

            let entries = try await setup.store.auditLog(app: app, limit: 50).prefix(5)
            #expect(entries.map(\.action.description) == ["key.revoke", "key.create", "role.remove", "role.set", "role.set"])
            #expect(entries.allSatisfy { $0.actor == .user("ada@example.com") })
            #expect(entries[2].object == "user vic@example.com" && entries[2].before == "viewer" && entries[2].after == nil)
        }
    }

    /// An owner downloads one user's data and erases it, typing the id twice; no one else can.
    @Test(arguments: StoreUnderTest.available)
    func ownersGiveAPersonTheirDataAndEraseIt(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            let app = setup.shop.appId
            try await DataRightsTests.fill(setup.store, app: app)
            var owner = try await Self.owner(setup)
            let page = String(buffer: try await owner.get("/console/apps/\(app)/members").body)
            #expect(page.contains("A person's data") && page.contains("Erase everything about them"))
            let file = try await owner.post("/console/apps/\(app)/people/data", [("user", "u1")])
            #expect(file.status == .ok && file.headers[.contentDisposition]?.contains("user-data.json") == true)
            let data = try #require(try JSONSerialization.jsonObject(with: Data(buffer: file.body)) as? [String: Any])
            #expect(data["user"] as? String == "u1" && (data["events"] as? [Any])?.count == 100)

            var viewer = Browser(setup.client)
            _ = try await viewer.signIn("vic@example.com")
            _ = try await viewer.get("/console/apps/\(app)")
            #expect(try await viewer.post("/console/apps/\(app)/people/erase", [("user", "u1"), ("confirm", "u1")]).status == .forbidden)
            #expect(
                try await owner.post("/console/apps/\(app)/people/erase", [("user", "u1"), ("confirm", "u1")], csrf: false).status
                    == .forbidden)
            let unconfirmed = try await owner.post("/console/apps/\(app)/people/erase", [("user", "u1"), ("confirm", "u2")])
            #expect(unconfirmed.status == .badRequest && String(buffer: unconfirmed.body).contains("Nothing was erased"))
            #expect(try await setup.store.balance(app: app, user: "u1") == 5)
            let erased = try await owner.post("/console/apps/\(app)/people/erase", [("user", "u1"), ("confirm", "u1")])
            #expect(
                String(buffer: erased.body).contains("Erased events: 100, grants: 1, attributes: 2, progress: 1, segment memberships: 1."))
            #expect(try await setup.store.balance(app: app, user: "u1") == 0)
            let entry = try #require(try await setup.store.auditLog(app: app, limit: 1).first)
            #expect(entry.action == .userErase && entry.actor == .user("ada@example.com") && !(entry.after ?? "").contains("u1"))

            // How long the app keeps events: days, or blank for forever.
            let kept = try await owner.post("/console/apps/\(app)/retention", [("days", "30")])
            #expect(String(buffer: kept.body).contains("Events older than 30 days are removed every hour"))
            #expect(String(buffer: kept.body).contains(#"name="days" inputmode="numeric" value="30""#))
            #expect(try await setup.store.eventRetentions()[app] == 30)
            #expect(try await owner.post("/console/apps/\(app)/retention", [("days", "0")]).status == .badRequest)
            #expect(try await owner.post("/console/apps/\(app)/retention", [("days", "a year")]).status == .badRequest)
            #expect(String(buffer: try await owner.post("/console/apps/\(app)/retention", [("days", "")]).body).contains("kept forever"))
            #expect(try await setup.store.eventRetentions()[app] == nil)
        }
    }

    /// An owner adds an endpoint (its secret shown once), sees its deliveries with their answers,
    /// sends one again, rotates the secret and removes the endpoint; no one else can.
    @Test(arguments: StoreUnderTest.available)
    func ownersManageWebhooksAndSeeTheirDeliveries(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            let app = setup.shop.appId
            var owner = try await Self.owner(setup)
            let page = String(buffer: try await owner.get("/console/apps/\(app)/webhooks").body)
            #expect(page.contains("Endpoints") && page.contains("Nothing delivered yet."))
            let refused = try await owner.post("/console/apps/\(app)/webhooks", [("url", "http://169.254.169.254/latest")])
            #expect(refused.status == .forbidden && String(buffer: refused.body).contains("private network"))
            let bad = try await owner.post("/console/apps/\(app)/webhooks", [("url", "not a url")])
            #expect(bad.status == .unprocessableContent && String(buffer: bad.body).contains("url: the URL has a space"))
            let added = try await owner.post(
                "/console/apps/\(app)/webhooks", [("url", "https://hooks.example.com/waymark"), ("type-credit.granted", "on")])
            #expect(added.status == .ok && String(buffer: added.body).contains("whsec_"))
            let endpoint = try #require(try await setup.store.webhookEndpoints(app: app).first)
            #expect(endpoint.types == ["credit.granted"] && String(buffer: added.body).contains(endpoint.secret))
            #expect(!String(buffer: try await owner.get("/console/apps/\(app)/webhooks").body).contains(endpoint.secret))

            // A grant's notice, listed with the endpoint it goes to; sent again on request.
            let outcome = try await setup.store.claim(
                Grant(id: "g1", app: app, user: "u1", tour: "shop-tour", page: "checkout", credits: 5, grantedAt: setup.clock.now),
                credits: { _ in 5 }, notice: WebhookNotices.creditGranted)
            #expect(outcome.created)
            let delivery = try #require(try await setup.store.webhookDeliveries(app: app, endpoint: nil, limit: 5).first)
            let listed = String(buffer: try await owner.get("/console/apps/\(app)/webhooks").body)
            #expect(listed.contains(#"data-delivery="\#(delivery.event)""#) && listed.contains("credit.granted"))
            let resent = try await owner.post("/console/apps/\(app)/webhooks/\(endpoint.id)/deliveries/\(delivery.event)/resend", [])
            #expect(String(buffer: resent.body).contains("will be sent again"))
            #expect(try await owner.post("/console/apps/\(app)/webhooks/\(endpoint.id)/deliveries/evt_nope/resend", []).status == .notFound)

            var viewer = Browser(setup.client)
            _ = try await viewer.signIn("vic@example.com")
            #expect(try await viewer.get("/console/apps/\(app)/webhooks").status == .forbidden)
            #expect(try await viewer.post("/console/apps/\(app)/webhooks/\(endpoint.id)/delete", []).status == .forbidden)

            let rotated = try await owner.post("/console/apps/\(app)/webhooks/\(endpoint.id)/rotate", [("hours", "2")])
            let newSecret = try #require(try await setup.store.webhookEndpoints(app: app).first?.secret)
            #expect(newSecret != endpoint.secret && String(buffer: rotated.body).contains(newSecret))
            #expect(String(buffer: rotated.body).contains("old secret valid until"))
            #expect(try await owner.post("/console/apps/\(app)/webhooks/\(endpoint.id)/rotate", [("hours", "999")]).status == .badRequest)
            let removed = try await owner.post("/console/apps/\(app)/webhooks/\(endpoint.id)/delete", [])
            #expect(String(buffer: removed.body).contains("removed"))
            #expect(try await setup.store.webhookEndpoints(app: app).isEmpty)
            let actions = try await setup.store.auditLog(app: app, limit: 3).map(\.action)
            #expect(actions == [.webhookDelete, .webhookRotate, .webhookCreate])
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func changingOnesPasswordEndsOnesOtherSessions(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var here = try await Self.owner(setup)
            var elsewhere = try await Self.owner(setup)
            try await here.get("/console/account")
            let new = "a much longer passphrase"
            #expect(try await here.post("/console/account", [("current", "wrong"), ("new", new), ("repeat", new)]).status == .unauthorized)
            #expect(
                try await here.post("/console/account", [("current", Self.password), ("new", "short"), ("repeat", "short")]).status
                    == .badRequest)
            #expect(
                try await here.post("/console/account", [("current", Self.password), ("new", new), ("repeat", new + "!")]).status
                    == .badRequest)
            #expect(
                try await here.post("/console/account", [("current", Self.password), ("new", new), ("repeat", new)], csrf: false).status
                    == .forbidden)
            let changed = try await here.post("/console/account", [("current", Self.password), ("new", new), ("repeat", new)])
            #expect(changed.status == .ok && String(buffer: changed.body).contains("Your password is changed"))
            #expect(try await here.get("/console/apps/\(setup.shop.appId)").status == .ok)
            #expect(try await elsewhere.get("/console/apps/\(setup.shop.appId)").status == .seeOther)
            var again = Browser(setup.client)
            #expect(try await again.signIn("ada@example.com").status == .unauthorized)
            #expect(try await again.signIn("ada@example.com", new).status == .seeOther)
        }
    }

    /// What the app's users have as attributes, for anyone who authors targeting: names, types,
    /// how many users, the most common values (escaped: they are the app's users' text).
    @Test(arguments: StoreUnderTest.available)
    func theAttributesPageShowsWhatUsersHave(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            let app = setup.shop.appId
            var viewer = Browser(setup.client)
            _ = try await viewer.signIn("vic@example.com")
            let empty = String(buffer: try await viewer.get("/console/apps/\(app)/attributes").body)
            #expect(empty.contains("No user has attributes yet"))
            for (index, plan) in ["plus", "plus", "<img src=x onerror=alert(1)>"].enumerated() {
                _ = try await setup.store.updateAttributes(
                    app: app, user: "u\(index)", ["plan": .string(plan), "cityTier": .number(Double(index))], at: Date(), limit: 50)
            }
            let page = String(buffer: try await viewer.get("/console/apps/\(app)/attributes").body)
            #expect(
                page.contains(
                    "<tr data-key=\"user.plan\"><td>user.plan</td><td>text</td><td>3</td><td>plus, &lt;img src=x onerror=alert(1)&gt;</td></tr>"
                ), "\(page)")
            #expect(page.contains("<td>user.cityTier</td><td>number</td><td>3</td><td>0, 1, 2</td>"))
            #expect(!page.contains("<img"))
            #expect(page.contains("href=\"/console/apps/\(app)/attributes\""), "the app's menu leads there")
            // The tip form names them beside the targeting field.
            let form = String(buffer: try await viewer.get("/console/apps/\(app)/new-tip").body)
            #expect(form.contains("<li><code>user.plan</code> text, 3 users, such as <code>plus</code></li>"), "\(form)")
        }
    }

    /// Segments are edited in the draft with their rule checked, counted over a period, named by
    /// targeting, and kept while targeting names them.
    @Test(arguments: StoreUnderTest.available)
    func segmentsAreEditedCountedAndKeptWhileTargetingNamesThem(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind, countingPatience: .zero) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            let rule = "count(purchase where amount >= 10000) >= 1 within 30d"
            func fields(_ name: String, _ rule: String) -> [(String, String)] {
                [("new", "1"), ("name", name), ("summary", "Bought something dear <b>lately</b>"), ("rule", rule)]
            }
            let device = try await browser.post("/console/apps/\(app)/segments/new", fields("dear", "app.version >= v1"))
            #expect(device.status == .unprocessableContent)
            #expect(String(buffer: device.body).contains("not app.version: the device&#39;s context belongs in targeting"))
            let named = try await browser.post("/console/apps/\(app)/segments/new", fields("a.b", rule))
            #expect(String(buffer: named.body).contains("a name of the rule language"))
            #expect(try await setup.store.draft(app: app) == nil, "nothing was saved")
            let saved = try await browser.post("/console/apps/\(app)/segments/new", fields("big-spenders", rule))
            #expect(saved.status == .seeOther)
            #expect(saved.headers[.location] == "/console/apps/\(app)/segments?saved=big-spenders")
            let again = try await browser.post("/console/apps/\(app)/segments/new", fields("big-spenders", "true"))
            #expect(String(buffer: again.body).contains("a segment &quot;big-spenders&quot; exists already"))

            // u1 bought for 12,000 yesterday, u2 for 500: one of the two active users matched.
            let now = setup.clock.now.millisecondsSince1970
            var events: [StoredEvent] = []
            for (user, amount) in [("u1", "12000"), ("u2", "500")] {
                events.append(
                    StoredEvent(
                        app: app, id: EventID.make(milliseconds: now - 86_400_000, number: events.count), user: user, name: "purchase",
                        target: nil, timestamp: now - 86_400_000, receivedAt: now, clamped: false,
                        members: [JSONMember(key: "amount", value: .number(amount))]))
            }
            _ = try await setup.store.insertEvents(events)
            var viewer = Browser(setup.client)
            _ = try await viewer.signIn("vic@example.com")
            // Counted in the background: this console's pages wait for nothing (zero patience).
            let (page, waited) = try await viewer.counted("/console/apps/\(app)/segments?days=7")
            #expect(waited, "the first view came before its counts")
            #expect(
                page.contains(
                    "<td><a href=\"/console/apps/\(app)/segments/big-spenders\">segment:big-spenders</a></td><td>Bought something dear &lt;b&gt;lately&lt;/b&gt;</td>"
                ), "\(page)")
            #expect(page.contains("<td>attributes and history</td><td>1</td><td>50.0%</td>"), "\(page)")
            #expect(page.contains("of the 2 users with events"))
            #expect(!page.contains("New segment"), "a viewer cannot add one")
            #expect(try await viewer.post("/console/apps/\(app)/segments/new", fields("x", "true")).status == .forbidden)

            // The live check knows segments' rules and the draft's segments.
            func check(_ rule: String, _ kind: String) async throws -> [String: Any] {
                let encoded = rule.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                let response = try await browser.get("/console/apps/\(app)/rules/check?rule=\(encoded)&kind=\(kind)")
                return try #require(JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            }
            #expect(try await check("segment:other", "segment")["message"] as? String == "a segment cannot include another segment")
            #expect(try await check(rule, "segment")["ok"] as? Bool == true)
            #expect(
                try await check("segment:nobody", "targeting")["message"] as? String
                    == "no segment named \"nobody\": its segments are big-spenders")
            #expect(try await check("segment:big-spenders AND app.version >= v2", "targeting")["ok"] as? Bool == true)

            // A tip that targets it keeps it from being deleted.
            var tip = Self.tipFields(id: "emi")
            tip[tip.firstIndex { $0.0 == "targeting" }!] = ("targeting", "segment:big-spenders")
            #expect(try await browser.post("/console/apps/\(app)/tips/new", tip).status == .seeOther)
            let form = String(buffer: try await browser.get("/console/apps/\(app)/tips/emi").body)
            #expect(form.contains("<li><code>segment:big-spenders</code>: Bought something dear &lt;b&gt;lately&lt;/b&gt;</li>"))
            // Its figures break down by the segment, or by an attribute users have.
            _ = try await setup.store.insertEvents(
                ["u1", "u2"].enumerated().map { index, user in
                    StoredEvent(
                        app: app, id: EventID.make(milliseconds: now - 3_600_000, number: 10 + index), user: user, name: "tip_shown",
                        target: "emi", timestamp: now - 3_600_000, receivedAt: now, clamped: false, properties: nil)
                })
            let (split, splitWaited) = try await viewer.counted("/console/apps/\(app)/analytics/tips/emi?days=7&by=segment%3Abig-spenders")
            #expect(splitWaited, "a segment's members are replayed in the background")
            #expect(split.contains("<caption>By segment:big-spenders</caption>"), "\(split)")
            #expect(split.contains("<td>in segment:big-spenders</td><td>—</td><td>1</td>"), "\(split)")
            #expect(split.contains("<option value=\"segment:big-spenders\" selected>"))
            #expect(try await viewer.get("/console/apps/\(app)/analytics/tips/emi?days=7&by=user.nothing").status == .badRequest)
            #expect(split.contains("/analytics/export/groups.csv?"))
            let csv = String(
                buffer: try await viewer.get("/console/apps/\(app)/analytics/export/groups.csv?days=7&tip=emi&by=segment%3Abig-spenders")
                    .body)
            #expect(csv.hasPrefix("segment:big-spenders,Eligible,Shown"), "\(csv)")
            #expect(csv.contains("in segment:big-spenders,—,1,"), "\(csv)")
            let kept = try await browser.post("/console/apps/\(app)/segments/big-spenders/delete", [])
            #expect(kept.status == .conflict)
            #expect(String(buffer: kept.body).contains("Targeting still names segment:big-spenders: tip emi."))
            #expect(try await browser.post("/console/apps/\(app)/tips/emi/delete", []).status == .seeOther)
            #expect(try await browser.post("/console/apps/\(app)/segments/big-spenders/delete", []).status == .seeOther)
            let draft = try #require(try await setup.store.draft(app: app))
            #expect(try CatalogDocument.parse(draft.document, file: "draft").segments.isEmpty)

            // Published, a segment's members are read from the days kept for the live catalog,
            // and a segment only in the draft is replayed beside it.
            #expect(try await browser.post("/console/apps/\(app)/segments/new", fields("big-spenders", rule)).status == .seeOther)
            #expect(try await browser.post("/console/apps/\(app)/publish", []).status == .seeOther)
            #expect(try await browser.post("/console/apps/\(app)/segments/new", fields("any-buyer", "purchase")).status == .seeOther)
            // The days before today (one or two: the tip was shown an hour ago).
            let days = try await setup.store.rollUp(app: app, before: Period.startOfDay(now), limit: 10)
            #expect(days >= 1)
            let live = try #require(try await Eligibility.live(app: app, store: setup.store))
            #expect(try await live.fold(store: setup.store, app: app, limit: 10) == days)
            let week = Period(from: now - 7 * 86_400_000, to: now)
            #expect(try await live.segmentMembers(store: setup.store, app: app, period: week, replaying: 1)?["big-spenders"] == ["u1"])
            let (both, _) = try await viewer.counted("/console/apps/\(app)/segments?days=7")
            #expect(both.contains("segment:big-spenders</a></td><td>Bought something dear &lt;b&gt;lately&lt;/b&gt;</td>"), "\(both)")
            #expect(both.contains("<td>attributes and history</td><td>1</td><td>50.0%</td>"), "\(both)")
            #expect(both.contains("<td>purchase</td><td>attributes and history</td><td>2</td><td>100.0%</td>"), "\(both)")
            #expect(both.contains("of the 2 users with events"))
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func everyPageHasAStrictPolicyAndNoInlineScript(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            _ = try await browser.post("/console/apps/\(app)/tips/new", Self.tipFields(id: "t1", title: "\"><script>alert(1)</script>"))
            for path in [
                "/console/login", "/console/apps", "/console/apps/\(app)", "/console/apps/\(app)/tips/t1", "/console/apps/\(app)/publish",
                "/console/apps/\(app)/versions", "/console/apps/\(app)/audit", "/console/apps/\(app)/analytics",
                "/console/apps/\(app)/attributes", "/console/apps/\(app)/segments", "/console/apps/\(app)/new-segment",
                "/console/apps/\(app)/tips/t1/backtest", "/console/apps/\(app)/members", "/console/account", "/console/apps/nope",
            ] {
                let response = try await browser.get(path)
                let policy = try #require(response.headers[.contentSecurityPolicy], "\(path)")
                #expect(
                    policy.contains("script-src 'self'") && !policy.contains("unsafe-inline") && policy.contains("frame-ancestors 'none'"))
                #expect(response.headers[.cacheControl] == "no-store")
                let page = String(buffer: response.body)
                #expect(
                    page.components(separatedBy: "<script").count - 1 == page.components(separatedBy: "<script type=\"module\" src=").count
                        - 1, "\(path)")
                #expect(!page.contains("<script>alert"), "\(path)")
            }
        }
    }

    /// Analytics for a period: viewers may read them, other apps' do not exist, a period that is
    /// not one is refused, and the CSV export is the table with spreadsheet formulas defused.
    @Test(arguments: StoreUnderTest.available)
    func analyticsPagesAndTheirExport(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            let app = setup.shop.appId
            let today = Date().millisecondsSince1970 - Date().millisecondsSince1970 % Period.day
            func event(_ user: String, _ name: String, _ platform: String, target: String? = nil) -> StoredEvent {
                StoredEvent(
                    app: app, id: UUID().uuidString.lowercased(), user: user, name: name, target: target, timestamp: today + 3_600_000,
                    receivedAt: today, clamped: false,
                    properties: ["platform": platform, "appVersion": "=1+1"]
                )
            }
            _ = try await setup.store.insertEvents([
                event("u1", "activation", "ios"), event("u1", "tap", "ios", target: "search"),
                event("u2", "activation", "android"), event("u2", "tip_shown", "android", target: "t1"),
            ])
            var viewer = Browser(setup.client)
            _ = try await viewer.signIn("vic@example.com")
            let page = String(buffer: try await viewer.get("/console/apps/\(app)/analytics?days=2").body)
            #expect(page.contains(#"<tr data-key="ios"><td>ios</td><td>1</td><td>1</td><td>2</td>"#))
            #expect(page.contains(#"<tr data-key="android"><td>android</td><td>1</td><td>1</td><td>2</td>"#))
            #expect(page.contains("<svg viewBox="))
            let csv = try await viewer.get("/console/apps/\(app)/analytics/export/engagement.csv?days=2")
            #expect(csv.status == .ok)
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
            #expect(
                String(buffer: csv.body).hasPrefix(
                    "Platform,Active users,Sessions,Events,Sessions per user,Events per user,Relative engagement\r\n"))
            #expect(String(buffer: csv.body).contains("ios,1,1,2,1.00,2.00,100.0%\r\n"))
            // The tip t1 is not live: its events still count, under its id.
            let tips = String(buffer: try await viewer.get("/console/apps/\(app)/analytics/export/tips.csv?days=2").body)
            #expect(tips.contains("t1,—,1,0,0,0.0%,"))
            // A version that a spreadsheet would run as a formula is exported as text.
            let byPlatform = try await viewer.get("/console/apps/\(app)/analytics/export/platforms.csv?days=2&tip=t1")
            #expect(String(buffer: byPlatform.body).contains("android,'=1+1,"))
            #expect(try await viewer.get("/console/apps/\(app)/analytics?from=2026-13-01").status == .badRequest)
            #expect(try await viewer.get("/console/apps/\(app)/analytics?from=2026-11-02&to=2026-11-01").status == .badRequest)
            #expect(try await viewer.get("/console/apps/\(app)/analytics/export/nothing.csv").status == .notFound)
            #expect(try await viewer.get("/console/apps/\(setup.other.appId)/analytics").status == .notFound)
            #expect(try await viewer.get("/console/apps/\(setup.other.appId)/analytics/export/engagement.csv").status == .notFound)
            var stranger = Browser(setup.client)
            #expect(try await stranger.get("/console/apps/\(app)/analytics/export/engagement.csv").status == .seeOther)
        }
    }

    /// Media, tours with ordered pages, their translations, videos and credits, and the credit cap,
    /// all in forms; each mistake is named on its field and nothing is saved.
    @Test(arguments: StoreUnderTest.available)
    func toursMediaAndRewardsInForms(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            func draft() async throws -> Catalog {
                try CatalogDocument.parse(try #require(try await setup.store.draft(app: app)?.document), file: "draft")
            }
            let media: [(String, String)] = [
                ("new", "1"), ("id", "intro"),
                ("variant.0.url", "https://cdn.example/intro-ipad.mp4"), ("variant.0.family", "iPad"), ("variant.0.type", "video/mp4"),
                ("variant.0.thumbnail", ""), ("variant.0.model", ""), ("variant.0.minAppVersion", ""), ("variant.0.locale", ""),
                ("variant.1.url", "https://cdn.example/intro.mp4"), ("variant.1.minAppVersion", "1.2"),
            ]
            let badURL = try await browser.post(
                "/console/apps/\(app)/media/new", media.map { $0.0 == "variant.1.url" ? ($0.0, "javascript:alert(1)") : $0 })
            #expect(badURL.status == .unprocessableContent)
            #expect(String(buffer: badURL.body).contains("variant 2: the URL must be http or https"))
            #expect(
                try await browser.post(
                    "/console/apps/\(app)/media/new", media.map { $0.0 == "variant.1.minAppVersion" ? ($0.0, "new") : $0 }
                ).status
                    == .unprocessableContent)
            #expect(try await browser.post("/console/apps/\(app)/media/new", media).status == .seeOther)
            #expect(
                try await draft().media == [
                    Media(
                        id: "intro",
                        variants: [
                            MediaVariant(url: "https://cdn.example/intro-ipad.mp4", type: "video/mp4", family: "iPad"),
                            MediaVariant(url: "https://cdn.example/intro.mp4", minAppVersion: Version([1, 2])),
                        ])
                ])

            // Pages are saved in the order of their positions, not of the rows.
            let tour: [(String, String)] = [
                ("new", "1"), ("id", "welcome"), ("trigger", "tap:tour-start"), ("targeting", ""), ("rollout", "100"),
                ("format", "markdown"), ("screens", "home, cart"),
                ("page.0.id", "second"), ("page.0.order", "2"), ("page.0.title", "Search"), ("page.0.body", "Tap **search**."),
                ("page.0.media", ""), ("page.0.reward", ""),
                ("page.1.id", "first"), ("page.1.order", "1"), ("page.1.title", "Welcome"), ("page.1.body", "Hello."),
                ("page.1.media", "intro"), ("page.1.reward", "5"),
                ("page.1.locale.0.code", "hi"), ("page.1.locale.0.title", "स्वागत"), ("page.1.locale.0.body", "नमस्ते।"),
                ("page.1.action.0.id", "skip"), ("page.1.action.0.label", "Skip the tour"), ("page.1.action.0.kind", "dismiss"),
                ("page.1.action.0.to", ""), ("page.1.action.0.style", "secondary"),
                ("page.1.action.1.id", ""), ("page.1.action.1.label", ""),
                ("page.2.id", ""), ("page.2.order", "3"), ("page.2.title", ""),
            ]
            func changed(_ name: String, _ value: String) -> [(String, String)] { tour.map { $0.0 == name ? (name, value) : $0 } }
            for (name, value, message) in [
                ("page.1.reward", "0", "page first: the credit reward is a whole number from 1 to 1000000"),
                ("page.1.media", "nope", "page first: there is no media &quot;nope&quot;"),
                ("page.0.id", "first", "page first: two pages have this id"),
                ("page.0.title", " ", "page second: a page needs a title"),
                ("page.1.action.0.kind", "url", "button 1: url needs where it leads"),
                ("trigger", "tap:(", "rule:1:5"),
                ("targeting", "count(tap) > 1", "targeting"),
                ("screens", "home, my cart", "&quot;my cart&quot; is not a screen"),
            ] {
                let refused = try await browser.post("/console/apps/\(app)/tours/new", changed(name, value))
                #expect(refused.status == .unprocessableContent, "\(name)")
                #expect(String(buffer: refused.body).contains(message), "\(name): \(message)")
            }
            #expect(try await draft().tours.isEmpty)
            #expect(try await browser.post("/console/apps/\(app)/tours/new", tour).status == .seeOther)
            let saved = try #require(try await draft().tours.first)
            #expect(saved.pages.map(\.id) == ["first", "second"])
            #expect(saved.pages[0].media == "intro")
            #expect(saved.pages[0].reward == 5)
            #expect(saved.pages[0].content.locales["hi"]?.title == "स्वागत")
            #expect(saved.pages[0].actions == [Action(id: "skip", label: Localized("Skip the tour"), effect: .dismiss, style: .secondary)])
            #expect(saved.pages[1].actions.isEmpty)
            #expect(saved.pages[1].content.fallback.html == "<p>Tap <strong>search</strong>.</p>")
            #expect(saved.trigger?.description == "tap:tour-start" && saved.screens == ["home", "cart"])
            #expect(String(buffer: try await browser.get("/console/apps/\(app)/tours/welcome").body).contains(#"value="home, cart""#))
            #expect(try await browser.post("/console/apps/\(app)/tours/new", tour).status == .unprocessableContent, "the id is taken")

            let form = String(buffer: try await browser.get("/console/apps/\(app)/tours/welcome").body)
            #expect(form.contains(#"name="page.0.locale.0.title" value="स्वागत""#))
            #expect(form.contains(#"name="page.0.action.0.label" value="Skip the tour""#))
            #expect(form.contains(#"<option value="intro" selected>intro</option>"#))
            let overview = String(buffer: try await browser.get("/console/apps/\(app)").body)
            #expect(overview.contains(#"<a href="/console/apps/\#(app)/tours/welcome">welcome</a></td><td>2</td><td>5</td>"#))
            #expect(overview.contains(#"<a href="/console/apps/\#(app)/media/intro">intro</a></td><td>2</td><td>welcome</td>"#))

            // Blanking a page's id removes the page; the media it played cannot go while it is used.
            let edit = [
                ("new", "0"), ("trigger", "tap:tour-start"), ("rollout", "100"), ("format", "markdown"),
                ("page.0.id", "first"), ("page.0.order", "1"), ("page.0.title", "Welcome"), ("page.0.media", "intro"),
                ("page.0.reward", "5"), ("page.1.id", ""), ("page.1.order", "2"), ("page.1.title", "Search"),
            ]
            #expect(try await browser.post("/console/apps/\(app)/tours/welcome", edit).status == .seeOther)
            #expect(try await draft().tours.first?.pages.map(\.id) == ["first"])
            #expect(try await draft().tours.first?.pages.first?.content.locales.isEmpty == true)
            let used = try await browser.post("/console/apps/\(app)/media/intro/delete", [])
            #expect(used.status == .conflict)
            #expect(String(buffer: used.body).contains("played by the tour welcome"))

            // The tour's page as an iPad in Hindi would get it, drawn by waymark.js.
            #expect(
                try await browser.post(
                    "/console/apps/\(app)/tours/welcome", edit + [("page.0.locale.0.code", "hi"), ("page.0.locale.0.title", "स्वागत")]
                )
                .status == .seeOther)
            let preview = String(
                buffer: try await browser.get("/console/apps/\(app)/tours/welcome/preview?model=iPad13,1&locale=hi-IN&page=0").body)
            #expect(preview.contains("data-tour="))
            #expect(preview.contains("intro-ipad.mp4"))
            #expect(preview.contains("स्वागत"))
            #expect(preview.contains("Page 1 of 1 as web iPad13,1 1.0.0 in hi"))

            #expect(try await browser.post("/console/apps/\(app)/rewards", [("maxCreditsPerUser", "50")]).status == .seeOther)
            #expect(try await draft().rewards.maxCreditsPerUser == 50)
            #expect(try await browser.post("/console/apps/\(app)/rewards", [("maxCreditsPerUser", "lots")]).status == .unprocessableContent)
            #expect(try await browser.post("/console/apps/\(app)/rewards", [("maxCreditsPerUser", "")]).status == .seeOther)
            #expect(try await draft().rewards.maxCreditsPerUser == nil)

            #expect(try await browser.post("/console/apps/\(app)/tours/welcome/delete", []).status == .seeOther)
            #expect(try await browser.post("/console/apps/\(app)/media/intro/delete", []).status == .seeOther)
            #expect(try await draft().media.isEmpty)

            var viewer = Browser(setup.client)
            _ = try await viewer.signIn("vic@example.com")
            #expect(try await viewer.get("/console/apps/\(app)/new-tour").status == .ok)
            #expect(try await viewer.post("/console/apps/\(app)/tours/new", tour).status == .forbidden)
            #expect(try await viewer.post("/console/apps/\(app)/rewards", [("maxCreditsPerUser", "1")]).status == .forbidden)
            #expect(try await browser.get("/console/apps/\(setup.other.appId)/tours/welcome").status == .notFound)
        }
    }

    /// A survey is a tip with a scale: saved from the form with answering as its dismissal, and its
    /// answers shown by platform and version with the comments, which export defused.
    @Test(arguments: StoreUnderTest.available)
    func surveysFromTheFormToTheirAnswers(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            func fields(_ id: String) -> [(String, String)] {
                Self.tipFields(id: id, title: "How was it?").map { $0.0 == "dismissal" ? ($0.0, "") : $0 } + [
                    ("survey", "nps"), ("surveyComment", "1"),
                ]
            }
            let refused = try await browser.post("/console/apps/\(app)/tips/new", fields("rate.it"))
            #expect(refused.status == .unprocessableContent)
            #expect(String(buffer: refused.body).contains("no &quot;.&quot;"))
            #expect(try await browser.post("/console/apps/\(app)/tips/new", fields("rate")).status == .seeOther)
            let document = try #require(try await setup.store.draft(app: app)?.document)
            let saved = try #require(try CatalogDocument.parse(document, file: "draft").tips.first { $0.id == "rate" })
            #expect(saved.survey == Survey(scale: .nps, comment: true))
            #expect(saved.tip.dismissal?.description == "survey_answered:rate")
            let form = String(buffer: try await browser.get("/console/apps/\(app)/tips/rate").body)
            #expect(form.contains(#"<option value="nps" selected>"#))
            #expect(form.contains(#"name="surveyComment" value="1" checked"#))
            _ = try await browser.post("/console/apps/\(app)/publish", [])

            let today = Date().millisecondsSince1970 - Date().millisecondsSince1970 % Period.day
            func answer(_ user: String, _ score: String, _ platform: String, _ comment: String?) -> StoredEvent {
                var properties = ["platform": platform, "appVersion": "2.0", "tip": "rate", "score": score]
                properties["comment"] = comment
                return StoredEvent(
                    app: app, id: UUID().uuidString.lowercased(), user: user, name: "survey_answered", target: "rate",
                    timestamp: today + 3_600_000, receivedAt: today,
                    clamped: false, properties: properties
                )
            }
            _ = try await setup.store.insertEvents([
                answer("a1", "10", "ios", "Love it"), answer("a2", "2", "web", "=cmd|' /C calc'!A0"), answer("a3", "12", "web", nil),
            ])
            let overview = String(buffer: try await browser.get("/console/apps/\(app)/analytics?days=2").body)
            #expect(overview.contains(#"<td>NPS</td><td>2</td><td>6.00</td><td>+0</td><td>50.0%</td><td>50.0%</td>"#))
            let page = String(buffer: try await browser.get("/console/apps/\(app)/analytics/tips/rate?days=2").body)
            #expect(page.contains("Answers to the survey"))
            #expect(page.contains(#"<td>web</td><td>2.0</td><td>1</td><td>2.00</td><td>-100</td>"#))
            #expect(page.contains("<td>=cmd|&#39; /C calc&#39;!A0</td>") || page.contains("<td>=cmd|' /C calc'!A0</td>"))
            #expect(page.contains("1 answers had a score outside the scale"))
            let comments = String(buffer: try await browser.get("/console/apps/\(app)/analytics/export/comments.csv?days=2&tip=rate").body)
            #expect(comments.contains(",web,2.0,2,'=cmd|' /C calc'!A0,1\r\n"))
            #expect(try await browser.get("/console/apps/\(app)/analytics/export/survey.csv?days=2&tip=welcome").status == .notFound)
        }
    }

    /// Buttons are edited as rows of the tip form, checked with their row named, keep their
    /// translations, and their presses are counted on the analytics pages and in a CSV.
    @Test(arguments: StoreUnderTest.available)
    func buttonsFromTheFormToTheirPresses(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            func fields(_ rows: [(String, String, String, String)]) -> [(String, String)] {
                Self.tipFields(id: "order", title: "Where is my order?")
                    + rows.enumerated().flatMap { index, row in
                        [
                            ("action.\(index).id", row.0), ("action.\(index).label", row.1), ("action.\(index).kind", row.2),
                            ("action.\(index).to", row.3), ("action.\(index).style", ""),
                        ]
                    }
            }
            for (rows, message) in [
                ([("track", "Track", "route", "orders")], "button 1: a route is a path in the app"),
                ([("track", "Track", "next", "")], "button 1: a tip outside a group has no next step"),
                ([("a", "A", "dismiss", ""), ("b", "B", "tour", "nowhere")], "no tour with the id &quot;nowhere&quot;"),
                ([("a", "A", "dismiss", ""), ("a", "B", "dismiss", "")], "button 2: another button has the id &quot;a&quot;"),
            ] {
                let refused = try await browser.post("/console/apps/\(app)/tips/new", fields(rows))
                #expect(refused.status == .unprocessableContent)
                #expect(String(buffer: refused.body).contains(message), "\(message)")
            }
            let tour = try await setup.client.execute(
                uri: "/v1/admin/catalog/draft/tours/shop-tour", method: .put, headers: [.authorization: "Bearer \(setup.shop.secretKey)"],
                body: ByteBuffer(string: #"{"id": "shop-tour", "pages": [{"id": "p1", "content": {"title": "One"}}]}"#))
            #expect(tour.status == .created)
            let rows = [
                ("track", "Track it", "route", "/orders/track"), ("tour", "Show me how", "tour", "shop-tour"), ("", "", "dismiss", ""),
            ]
            #expect(try await browser.post("/console/apps/\(app)/tips/new", fields(rows)).status == .seeOther)
            // A translation written in the catalog (here through the admin API) stays through the form's next save.
            let put = try await setup.client.execute(
                uri: "/v1/admin/catalog/draft/tips/order", method: .put, headers: [.authorization: "Bearer \(setup.shop.secretKey)"],
                body: ByteBuffer(
                    string: #"{"id": "order", "container": "home", "trigger": "scroll", "content": {"title": "T"}, "#
                        + #""actions": [{"id": "track", "label": "Track", "locales": {"hi": "ट्रैक करें"}, "do": "dismiss"}]}"#))
            #expect(put.status == .ok)
            #expect(try await browser.post("/console/apps/\(app)/tips/order", fields(rows).filter { $0.0 != "new" }).status == .seeOther)
            let document = try #require(try await setup.store.draft(app: app)?.document)
            let saved = try #require(try CatalogDocument.parse(document, file: "draft").tips.first { $0.id == "order" })
            #expect(saved.actions.map(\.effect) == [.route("/orders/track"), .tour("shop-tour")])
            #expect(saved.actions.map(\.style) == [.primary, .secondary])
            #expect(saved.actions[0].label.locales == ["hi": "ट्रैक करें"])
            let form = String(buffer: try await browser.get("/console/apps/\(app)/tips/order").body)
            #expect(form.contains(#"name="action.0.to" value="/orders/track""#))
            #expect(form.contains(#"<option value="tour" selected>Open a tour</option>"#))
            _ = try await browser.post("/console/apps/\(app)/publish", [])

            let today = Date().millisecondsSince1970 - Date().millisecondsSince1970 % Period.day
            func event(_ user: String, _ name: String, _ properties: [String: String]) -> StoredEvent {
                StoredEvent(
                    app: app, id: UUID().uuidString.lowercased(), user: user, name: name, target: "order",
                    timestamp: today + 3_600_000, receivedAt: today, clamped: false,
                    properties: ["platform": "android", "tip": "order"].merging(properties) { $1 })
            }
            let press = ["action": "track", "kind": "route", "to": "/orders/track"]
            _ = try await setup.store.insertEvents([
                event("a", "tip_shown", [:]), event("b", "tip_shown", [:]), event("c", "tip_shown", [:]), event("d", "tip_shown", [:]),
                event("a", "tip_action", press), event("a", "tip_action", press), event("b", "tip_action", press),
                event("a", "anchor_missing", ["anchor": "track-button", "screen": "orders"]),
                event("c", "anchor_missing", ["anchor": "track-button", "screen": "orders"]),
            ])
            let overview = String(buffer: try await browser.get("/console/apps/\(app)/analytics?days=2").body)
            #expect(
                overview.contains(
                    #"<td>tip order</td><td>track</td><td>route</td><td>/orders/track</td><td>2</td><td>3</td><td>50.0%</td>"#))
            #expect(overview.contains(#"<td>tip order</td><td>tour</td><td>tour</td><td>shop-tour</td><td>0</td><td>0</td><td>0.0%</td>"#))
            let page = String(buffer: try await browser.get("/console/apps/\(app)/analytics/tips/order?days=2").body)
            #expect(page.contains("Buttons: users who pressed each"))
            // Where the tip's anchor was not on the screen, on its page and the overview.
            let missing = #"<td>orders</td><td>track-button</td><td>2</td><td>2</td>"#
            #expect(page.contains("Anchors not found on the screen") && page.contains(missing))
            #expect(overview.contains(#"">order</a></td>"# + missing))
            let csv = String(buffer: try await browser.get("/console/apps/\(app)/analytics/export/actions.csv?days=2").body)
            #expect(csv.contains("tip order,track,route,/orders/track,2,3,50.0%\r\n"))
        }
    }

    /// Checklists are edited in a form (items as rows, each with its rule checked and what its
    /// "Show me" starts), keep their translations, list on the app's page, and their completion
    /// funnel shows on the analytics page and exports.
    @Test(arguments: StoreUnderTest.available)
    func checklistsFromTheFormToTheirFunnel(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            let tour = try await setup.client.execute(
                uri: "/v1/admin/catalog/draft/tours/welcome", method: .put, headers: [.authorization: "Bearer \(setup.shop.secretKey)"],
                body: ByteBuffer(string: #"{"id": "welcome", "pages": [{"id": "p1", "content": {"title": "One"}}]}"#))
            #expect(tour.status == .created)
            func fields(_ items: [(String, String, String, String)], reward: String = "10", screens: String = "home") -> [(String, String)]
            {
                [
                    ("new", "1"), ("id", "first-steps"), ("title", "Get started"), ("body", "Four **steps**"), ("trigger", ""),
                    ("targeting", ""), ("rollout", "100"), ("reward", reward), ("screens", screens),
                ]
                    + items.enumerated().flatMap { index, item in
                        [
                            ("item.\(index).id", item.0), ("item.\(index).title", item.1), ("item.\(index).done", item.2),
                            ("item.\(index).start", item.3),
                        ]
                    }
            }
            let good = [("browse", "Look at a product", "screen:product", "tour:welcome"), ("pay", "Pay", "tap:pay", ""), ("", "", "", "")]
            for (items, reward, message) in [
                ([("browse", "Look", "screen:(", "")], "10", "item browse: its rule"),
                ([("browse", "", "screen:product", "")], "10", "item browse: an item needs a title"),
                ([("a", "A", "tap:a", "tour:nowhere")], "10", "no tour with the id &quot;nowhere&quot;"),
                ([("", "", "", "")], "10", "a checklist needs at least one item"),
                (good, "0", "reward"),
            ] {
                let refused = try await browser.post("/console/apps/\(app)/checklists/new", fields(items, reward: reward))
                #expect(refused.status == .unprocessableContent, "\(message)")
                #expect(String(buffer: refused.body).contains(message), "\(message)")
            }
            let badScreen = try await browser.post("/console/apps/\(app)/checklists/new", fields(good, screens: "home,,cart page"))
            #expect(badScreen.status == .unprocessableContent)
            #expect(String(buffer: badScreen.body).contains("&quot;cart page&quot; is not a screen"))
            #expect(try await browser.post("/console/apps/\(app)/checklists/new", fields(good)).status == .seeOther)
            // A translation written through the admin API stays through the form's next save.
            let put = try await setup.client.execute(
                uri: "/v1/admin/catalog/draft/checklists/first-steps", method: .put,
                headers: [.authorization: "Bearer \(setup.shop.secretKey)"],
                body: ByteBuffer(
                    string: #"{"id": "first-steps", "content": {"title": "Get started", "locales": {"hi": {"title": "शुरू करें"}}}, "#
                        + #""items": [{"id": "browse", "content": {"title": "Look", "locales": {"hi": {"title": "देखें"}}}, "done": "screen:product"}]}"#
                ))
            #expect(put.status == .ok)
            #expect(
                try await browser.post("/console/apps/\(app)/checklists/first-steps", fields(good).filter { $0.0 != "new" }).status
                    == .seeOther)
            let document = try #require(try await setup.store.draft(app: app)?.document)
            let saved = try #require(try CatalogDocument.parse(document, file: "draft").checklists.first)
            #expect(saved.items.map(\.id) == ["browse", "pay"] && saved.items[0].start == .tour("welcome") && saved.reward == 10)
            #expect(saved.screens == ["home"])
            #expect(saved.content.locales["hi"]?.title == "शुरू करें" && saved.items[0].content.locales["hi"]?.title == "देखें")
            let overview = String(buffer: try await browser.get("/console/apps/\(app)").body)
            #expect(
                overview.contains(
                    #"<a href="/console/apps/\#(app)/checklists/first-steps">first-steps</a></td><td>Get started</td><td>2</td><td>10</td>"#
                ))
            let form = String(buffer: try await browser.get("/console/apps/\(app)/checklists/first-steps").body)
            #expect(form.contains(#"<option value="tour:welcome" selected>tour welcome</option>"#))
            // The preview draws what a client would get, in its language.
            let preview = String(buffer: try await browser.get("/console/apps/\(app)/checklists/first-steps/preview?locale=hi-IN").body)
            #expect(preview.contains("data-launcher=") && preview.contains("शुरू करें") && preview.contains("in hi."))
            #expect(try await browser.get("/console/apps/\(app)/checklists/nope/preview").status == .notFound)
            _ = try await browser.post("/console/apps/\(app)/publish", [])

            let today = Date().millisecondsSince1970 - Date().millisecondsSince1970 % Period.day
            func event(_ user: String, _ name: String, _ properties: [String: String]) -> StoredEvent {
                StoredEvent(
                    app: app, id: UUID().uuidString.lowercased(), user: user, name: name, target: "first-steps",
                    timestamp: today + 3_600_000, receivedAt: today, clamped: false,
                    properties: ["platform": "android", "checklist": "first-steps"].merging(properties) { $1 })
            }
            _ = try await setup.store.insertEvents([
                event("a", "checklist_opened", [:]), event("b", "checklist_opened", [:]),
                event("a", "checklist_item_done", ["item": "browse"]), event("b", "checklist_item_done", ["item": "browse"]),
                event("a", "checklist_item_done", ["item": "pay"]), event("a", "checklist_completed", ["seconds": "600"]),
                // c browsed in the app without ever opening the panel: the shares are of those who had it.
                event("c", "checklist_item_done", ["item": "browse"]),
            ])
            let analytics = String(buffer: try await browser.get("/console/apps/\(app)/analytics?days=2").body)
            #expect(analytics.contains("<td>had it</td><td>3</td><td>100.0%</td>"))
            #expect(analytics.contains("<td>opened</td><td>2</td><td>66.7%</td>"))
            #expect(analytics.contains("<td>item browse</td><td>3</td><td>100.0%</td>"))
            #expect(analytics.contains("<td>completed</td><td>1</td><td>33.3%</td>"))
            #expect(analytics.contains("<td>median time to complete</td><td>10 min</td>"))
            let csv = String(
                buffer: try await browser.get("/console/apps/\(app)/analytics/export/checklist.csv?days=2&checklist=first-steps").body)
            #expect(csv.contains("item pay,1,33.3%\r\n"))
        }
    }

    /// Help articles are edited in a form (screens and keywords as lists), list on the app's page,
    /// and the analytics page shows what people looked for in the help and did not find.
    @Test(arguments: StoreUnderTest.available)
    func helpArticlesAndTheSearchesThatFoundNothing(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            func fields(screens: String = "cart, checkout", keywords: String = "cash, COD, नकद") -> [(String, String)] {
                [
                    ("new", "1"), ("id", "cod"), ("title", "Paying cash on delivery"), ("body", "Keep **change** ready."),
                    ("screens", screens), ("keywords", keywords), ("targeting", ""), ("rollout", "100"),
                ]
            }
            let refused = try await browser.post("/console/apps/\(app)/articles/new", fields(screens: "my cart"))
            #expect(refused.status == .unprocessableContent)
            #expect(
                String(buffer: refused.body).contains("is not a screen&#39;s name")
                    || String(buffer: refused.body).contains("is not a screen's name"))
            #expect(try await browser.post("/console/apps/\(app)/articles/new", fields()).status == .seeOther)
            let document = try #require(try await setup.store.draft(app: app)?.document)
            let saved = try #require(try CatalogDocument.parse(document, file: "draft").articles.first)
            #expect(saved.screens == ["cart", "checkout"] && saved.keywords == ["cash", "COD", "नकद"])
            let overview = String(buffer: try await browser.get("/console/apps/\(app)").body)
            #expect(
                overview.contains(
                    #"<a href="/console/apps/\#(app)/articles/cod">cod</a></td><td>Paying cash on delivery</td><td>cart, checkout</td>"#))
            let preview = String(buffer: try await browser.get("/console/apps/\(app)/articles/cod/preview").body)
            #expect(preview.contains("data-launcher=") && preview.contains("Paying cash on delivery"))
            _ = try await browser.post("/console/apps/\(app)/publish", [])
            let today = Date().millisecondsSince1970 - Date().millisecondsSince1970 % Period.day
            func searched(_ user: String, _ query: String, _ results: String) -> StoredEvent {
                StoredEvent(
                    app: app, id: UUID().uuidString.lowercased(), user: user, name: "help_searched", target: nil,
                    timestamp: today + 3_600_000, receivedAt: today, clamped: false,
                    properties: ["platform": "android", "query": query, "results": results])
            }
            _ = try await setup.store.insertEvents([
                searched("a", "gift wrap", "0"), searched("b", "gift wrap", "0"), searched("a", "cash", "1"),
                searched("c", "=cmd|' /C calc'!A0", "0"),
            ])
            let page = String(buffer: try await browser.get("/console/apps/\(app)/analytics?days=2").body)
            #expect(page.contains("<td>gift wrap</td><td>2</td><td>2</td>"))
            #expect(page.contains("<td>searched</td><td>3</td><td>4</td>"))
            let csv = String(buffer: try await browser.get("/console/apps/\(app)/analytics/export/help-unanswered.csv?days=2").body)
            #expect(csv.contains("gift wrap,2,2\r\n") && csv.contains("'=cmd"))
        }
    }

    /// A live tip is eligible from when it was first published: the versions are read oldest
    /// first, and a tip keeps the time of the first that had it.
    @Test func aTipIsEligibleFromWhenItWasFirstPublished() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-published-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("waymark.sqlite").path)
        try await store.createApp(AppRecord(id: "a", name: "a", identitySecret: "secret-a", createdAt: Date(millisecondsSince1970: 0)))
        let tip = { (id: String) in "{ id: \(id), container: c, trigger: tap, content: { title: \(id) } }" }
        for (tips, at) in [([tip("a")], Int64(1_000)), ([tip("a"), tip("b")], 2_000), ([tip("b")], 3_000)] {
            _ = try await store.publish(
                app: "a", document: "tips: [\(tips.joined(separator: ", "))]", at: Date(millisecondsSince1970: at), note: "v",
                audit: AuditEntry.publication(by: .cli), notice: { WebhookNotices.published($0) })
        }
        #expect(try await Eligibility.firstPublished(app: "a", store: store) == ["a": 1_000, "b": 2_000])
    }

    /// The backtest runs the draft tip's rules over the recorded events; the debugger explains one user.
    /// Eligible counts: counted once in the background, a page not waiting past its patience,
    /// kept five minutes, and a failed count not kept.
    @Test func eligibleCountsAreCountedOnceAndKeptAWhile() async throws {
        final class Counter: @unchecked Sendable {
            private let lock = NSLock()
            private var count = 0
            var value: Int { lock.withLock { count } }
            func increment() { lock.withLock { count += 1 } }
        }
        struct Refused: Error {}
        let cache = EligibleCache()
        let counted = Counter()
        var outcome = Backtest.Outcome()
        outcome.users = 7
        let result = [outcome]
        let slow: @Sendable () async throws -> [Backtest.Outcome] = {
            counted.increment()
            try await Task.sleep(for: .milliseconds(300))
            return result
        }
        let key = EligibleCache.Key(app: "a", version: 1, period: Period(from: 0, to: Period.day), tip: nil)
        let start = Date()
        // A count that goes on until the test lets it: the page does not wait for it.
        let (gate, open) = AsyncStream.makeStream(of: Void.self)
        let held = EligibleCache.Key(app: "held", version: 1, period: key.period, tip: nil)
        let blocked: @Sendable () async throws -> [Backtest.Outcome] = {
            for await _ in gate { break }
            return result
        }
        #expect(try await cache.counts(held, now: start, patience: .milliseconds(10), count: blocked) == nil, "answered while counting")
        #expect(try await cache.counts(held, now: start, patience: .zero, count: blocked) == nil, "zero patience: nothing counted yet")
        open.yield()
        #expect(try await cache.counts(held, now: start, patience: nil, count: blocked) == result, "then kept")
        #expect(try await cache.counts(held, now: start, patience: .zero, count: blocked) == result, "zero patience: what is counted")
        #expect(try await cache.counts(key, now: start, patience: .milliseconds(10), count: slow) == nil, "not ready yet")
        #expect(try await cache.counts(key, now: start + 1, patience: nil, count: slow) == result)
        #expect(try await cache.counts(key, now: start + 60, patience: .seconds(5), count: slow) == result)
        #expect(counted.value == 1, "one count for every page in the five minutes")
        #expect(try await cache.counts(key, now: start + 301, patience: nil, count: slow) == result)
        #expect(counted.value == 2, "counted again once stale")
        var other = key
        other.version = 2
        await #expect(throws: Refused.self) { try await cache.counts(other, now: start, patience: nil) { throw Refused() } }
        #expect(try await cache.counts(other, now: start + 1, patience: nil, count: slow) == result, "a failure is not kept")
    }

    @Test(arguments: StoreUnderTest.available)
    func backtestAndEligibilityDebugger(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            #expect(
                try await browser.post("/console/apps/\(app)/tips/new", Self.tipFields(id: "t1", trigger: "tap:search")).status == .seeOther
            )
            let now = Date().millisecondsSince1970
            _ = try await setup.store.insertEvents([
                StoredEvent(
                    app: app, id: EventID.make(milliseconds: now, number: 1), user: "u1", name: "tap", target: "search",
                    timestamp: now - 60_000, receivedAt: now, clamped: false,
                    properties: ["platform": "web"]),
                StoredEvent(
                    app: app, id: EventID.make(milliseconds: now, number: 2), user: "u1", name: "tap", target: "search-done",
                    timestamp: now - 30_000, receivedAt: now, clamped: false,
                    properties: ["platform": "web"]),
                StoredEvent(
                    app: app, id: EventID.make(milliseconds: now, number: 3), user: "u2", name: "tap", target: "other",
                    timestamp: now - 30_000, receivedAt: now, clamped: false,
                    properties: ["platform": "ios"]),
            ])
            let backtest = String(buffer: try await browser.get("/console/apps/\(app)/tips/t1/backtest?days=1").body)
            #expect(backtest.contains(#"<tr data-key="Active users in the period"><td>Active users in the period</td><td>2</td></tr>"#))
            #expect(backtest.contains(#"<tr data-key="Would have seen it"><td>Would have seen it</td><td>1</td></tr>"#))
            #expect(backtest.contains(#"<tr data-key="Then did what it teaches"><td>Then did what it teaches</td><td>1</td></tr>"#))
            #expect(try await browser.get("/console/apps/\(app)/tips/nope/backtest").status == .notFound)
            // The debugger explains with the live catalog. Its period is of whole UTC days: two,
            // so that events of a minute ago are in it just after midnight too.
            _ = try await browser.post("/console/apps/\(app)/publish", [])
            let trace = String(buffer: try await browser.get("/console/apps/\(app)/analytics/tips/t1?days=2&user=u1").body)
            #expect(trace.contains("tip t1: finished:dismissed"))
            // The header still names the signed-in person; the form, the explained user.
            #expect(!trace.contains(#"href="/console/account">u1</a>"#) && trace.contains(#"class="who" href="/console/account">"#))
            #expect(trace.contains(#"name="user" value="u1""#))
            #expect(trace.contains("<code>tap:search-done</code></td><td>hide in home (dismissed)</td>"))
        }
    }
}
