import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOFoundationEssentialsCompat
import Testing
import WaymarkApplication
import WaymarkConsole
import WaymarkServer
import WaymarkStore
import WaymarkTestSupport

/// Deny by default, proven by walking every route the server registers: each console route is
/// asked for without a session, by a viewer, an editor and an owner of the app, and by the owner
/// of another app; each admin route without a key, with a client key, and with another app's
/// secret key. Every answer is what the route's stated need allows, and no route is missing from
/// the console's list of needs.
@Suite(.timeLimit(.minutes(5))) struct AccessTests {
    /// The routes of a server as the router holds them, `METHOD /path/{parameter}`.
    static func registered() async throws -> (all: Set<String>, api: [RouteNeed], console: [RouteNeed]) {
        try await StoreUnderTest.sqlite.with { store, _ in
            let server = WaymarkServer(store: store, logger: Logger(label: "routes"))
            let console = WaymarkConsole(server: server)
            let router = buildRouter(server: server, console: console)
            // The lists of needs, made as the application makes its routes.
            let api = server.addRoutes(to: Router(context: WaymarkRequestContext.self))
            let listed = console.register(on: Router(context: WaymarkRequestContext.self))
            return (Set(router.routes.map { "\($0.method) \($0.path)" }), api, listed)
        }
    }

    static func key(_ route: RouteNeed) -> String { "\(route.method) \(RouterPath(route.path).description)" }

    @Test func everyRouteTheServerAnswersStatesItsNeed() async throws {
        let (all, api, console) = try await Self.registered()
        let stated = Set((api + console).map(Self.key))
        #expect(all == stated, "registered without a need: \(all.subtracting(stated)); listed but not served: \(stated.subtracting(all))")
        #expect(api.count + console.count == stated.count, "each route once")
        for route in api where route.path.hasPrefix("/v1/admin") { #expect(route.need == SecretKey.name, "\(route)") }
        for route in api where route.need == NoKey.name {
            #expect(route.method == "GET" && !route.path.hasPrefix("/v1/") || route.path.hasPrefix("/v1/narration/"), "\(route)")
        }
    }

    /// A concrete address for a route's path: the shop's id for `{app}`, a name nothing has for
    /// the rest (an object that does not exist is a 404 the route itself gives).
    static func address(_ path: String, app: String) -> String {
        path.replacingOccurrences(of: "{app}", with: app).replacingOccurrences(of: "{file}", with: "console.css")
            .replacingOccurrences(of: "{table}", with: "tips").replacingOccurrences(of: "{number}", with: "1")
            .replacingOccurrences(of: #"\{[a-z]+\}"#, with: "nothing", options: .regularExpression)
    }

    @Test func everyConsoleRouteStatesItsNeedAndTheSensitiveOnesNeedTheOwner() async throws {
        let (all, _, console) = try await Self.registered()
        let stated = Set(console.map(Self.key))
        let served = all.filter { $0.contains(" /console") }
        #expect(
            served == stated,
            "registered without a need: \(served.subtracting(stated)); listed but not served: \(stated.subtracting(served))")
        #expect(console.count == stated.count && console.count >= 68, "\(console.count) console routes")
        for route in console {
            if route.path.hasPrefix("/console/apps/:app") {
                #expect(["viewer", "editor", "owner"].contains(route.need), "\(route)")
                if route.method == "POST" { #expect(route.need != "viewer", "a viewer changes nothing: \(route)") }
                for word in ["/members", "/keys", "/webhooks", "/people/", "/retention"] where route.path.contains(word) {
                    #expect(route.need == "owner", "\(route)")
                }
            }
        }
        #expect(
            console.filter { $0.need == "anyone" }.map(\.path).sorted()
                == [
                    "/console", "/console/assets/:file", "/console/login", "/console/login", "/console/logout",
                ].sorted())
    }

    @Test(arguments: StoreUnderTest.available)
    func everyConsoleRouteAnswersEachVisitorAsItsNeedSays(_ kind: StoreUnderTest) async throws {
        let (_, _, console) = try await Self.registered()
        try await ConsoleTests().withConsole(kind) { setup in
            try await Accounts.addMember(
                email: "eve@example.com", password: ConsoleTests.password, role: .editor, app: setup.shop.appId, in: setup.store, cost: 4)
            var visitors: [(name: String, role: Role?, browser: ConsoleTests.Browser?)] = [("nobody", nil, nil)]
            for (name, email, role) in [
                ("viewer", "vic@example.com", Role.viewer), ("editor", "eve@example.com", .editor), ("owner", "ada@example.com", .owner),
                ("another app's owner", "oscar@example.com", nil),
            ] {
                var browser = ConsoleTests.Browser(setup.client)
                #expect(try await browser.signIn(email).status == .seeOther)
                try await browser.get("/console/apps")
                visitors.append((name, role, browser))
            }
            let loginPage = "/console/login"
            // Signing out would end the sessions the walk goes on with; it is tested on its own.
            for route in console where route.path != "/console/logout" {
                let uri = Self.address(RouterPath(route.path).description, app: setup.shop.appId)
                for (name, role, browser) in visitors {
                    var browser = browser ?? ConsoleTests.Browser(setup.client)
                    let answer =
                        route.method == "GET"
                        ? try await browser.get(uri) : try await browser.post(uri, [], csrf: name != "nobody")
                    let status = answer.status
                    let body = String(buffer: answer.body)
                    let said = "\(route) as \(name): \(status.code) \(body.prefix(120))"
                    #expect(status.code < 500, "\(said)")
                    switch route.need {
                    case "anyone":
                        continue
                    case "signed-in":
                        if name == "nobody" {
                            #expect(route.method == "GET" ? answer.headers[.location] == loginPage : status == .forbidden, "\(said)")
                        } else {
                            #expect(status != .forbidden && answer.headers[.location] != loginPage, "\(said)")
                        }
                    default:
                        let needed = try #require(Role(rawValue: route.need))
                        if name == "nobody" {
                            #expect(route.method == "GET" ? answer.headers[.location] == loginPage : status == .forbidden, "\(said)")
                        } else if let role {
                            if role < needed {
                                #expect(status == .forbidden && body.contains("needs the \(needed.rawValue) role"), "\(said)")
                            } else {
                                #expect(status != .forbidden && answer.headers[.location] != loginPage, "\(said)")
                            }
                        } else {
                            #expect(status == .notFound, "another app's member is told the app does not exist: \(said)")
                        }
                    }
                }
            }
        }
    }

    @Test func everyAdminRouteNeedsThisAppsSecretKey() async throws {
        let (all, _, _) = try await Self.registered()
        let admin = all.filter { $0.contains(" /v1/admin") }.sorted()
        #expect(admin.count >= 26, "\(admin.count) admin routes")
        try await ServerTests().withServer { client, app, other, _ in
            try await ServerTests.publishShop(client, app)
            for route in admin {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let method = HTTPRequest.Method(parts[0])!
                let uri = Self.address(parts[1], app: app.appId)
                for (who, key) in [("no key", nil), ("a client key", app.clientKey), ("another app's secret key", other.secretKey)] {
                    let headers: HTTPFields = key.map { ServerTests.auth($0) } ?? [:]
                    let answer = try await client.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(string: "{}"))
                    let said = "\(route) with \(who): \(answer.status.code) \(String(buffer: answer.body).prefix(120))"
                    if key == other.secretKey {
                        #expect(answer.status.code < 500 && !String(buffer: answer.body).contains(app.appId), "\(said)")
                    } else {
                        #expect(answer.status == .unauthorized, "\(said)")
                    }
                }
            }
            // The shop's own objects stay out of reach of the other app's key.
            for uri in ["/v1/admin/catalog/versions/1", "/v1/admin/catalog/draft/tips/search-tip", "/v1/admin/users/u1"] {
                let answer = try await client.execute(uri: uri, method: .get, headers: ServerTests.auth(other.secretKey))
                #expect(answer.status == .notFound, "\(uri): \(answer.status)")
            }
        }
    }
}
