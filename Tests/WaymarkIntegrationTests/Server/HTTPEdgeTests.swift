import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import Testing
import WaymarkServer
import WaymarkSupport

/// What every request meets before a handler: keys, CORS, bodies decoded into types, and the
/// answer for a method a path does not have.
@Suite(.timeLimit(.minutes(5))) struct HTTPEdgeTests {
    static func headers(_ fields: [HTTPField.Name: String]) -> HTTPFields {
        var headers = HTTPFields()
        for (name, value) in fields { headers[name] = value }
        return headers
    }

    static func errorCode(_ response: TestResponse) throws -> String? {
        let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
        return (object?["error"] as? [String: Any])?["code"] as? String
    }

    static func errorMessage(_ response: TestResponse) throws -> String? {
        let object = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
        return (object?["error"] as? [String: Any])?["message"] as? String
    }

    @Test func keysAreCheckedBeforeAnyHandlerAndByKind() async throws {
        try await ServerTests().withServer { client, app, _, _ in
            for headers in [HTTPFields(), Self.headers([.authorization: "Bearer wm_pk_nope"]), Self.headers([.authorization: "Basic abc"])]
            {
                let response = try await client.execute(uri: "/v1/catalog", method: .get, headers: headers)
                #expect(response.status == .unauthorized)
                #expect(try Self.errorCode(response) == "unauthorized")
            }
            // A client key is not an admin key; a secret key may also read the catalog.
            let admin = try await client.execute(uri: "/v1/admin/keys", method: .get, headers: ServerTests.auth(app.clientKey))
            #expect(admin.status == .unauthorized)
            #expect(try await client.execute(uri: "/v1/admin/keys", method: .get, headers: ServerTests.auth(app.secretKey)).status == .ok)
            let padded = Self.headers([.authorization: "Bearer  \(app.secretKey)\t"])
            #expect(try await client.execute(uri: "/v1/admin/keys", method: .get, headers: padded).status == .ok, "blanks around the key")
            let long = Self.headers([.authorization: "Bearer " + String(repeating: "k", count: 201)])
            #expect(try await client.execute(uri: "/v1/admin/keys", method: .get, headers: long).status == .unauthorized)
            // Health, the description and the SDK need no key.
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/sdk/waymark.js", method: .get).status == .ok)
        }
    }

    @Test func theClientEndpointsAnswerAnyOriginAndNothingElseDoes() async throws {
        try await ServerTests().withServer { client, app, _, _ in
            try await ServerTests.publishShop(client, app)
            let origin = "https://shop.example"
            for path in ["/v1/catalog", "/v1/events", "/v1/rewards/claims"] {
                let preflight = try await client.execute(
                    uri: path, method: .options,
                    headers: Self.headers([
                        .origin: origin, .accessControlRequestMethod: "POST", .accessControlRequestHeaders: "authorization",
                    ])
                )
                #expect(preflight.status == .noContent, "\(path)")
                #expect(preflight.headers[.accessControlAllowOrigin] == "*")
                #expect(preflight.headers[.accessControlAllowMethods]?.contains("POST") == true)
                #expect(preflight.headers[.accessControlAllowHeaders]?.lowercased().contains("authorization") == true)
            }
            var headers = ServerTests.auth(app.clientKey)
            headers[.origin] = origin
            let catalog = try await client.execute(uri: "/v1/catalog?platform=web", method: .get, headers: headers)
            #expect(catalog.status == .ok)
            #expect(catalog.headers[.accessControlAllowOrigin] == "*")
            #expect(catalog.headers[.accessControlExposeHeaders] == "ETag", "the page reads the ETag to send it back")
            // Errors too, or a page cannot tell a 401 from a network failure.
            let refused = try await client.execute(uri: "/v1/catalog", method: .get, headers: Self.headers([.origin: origin]))
            #expect(refused.status == .unauthorized && refused.headers[.accessControlAllowOrigin] == "*")
            // The admin API and the console are for their own origin.
            var admin = ServerTests.auth(app.secretKey)
            admin[.origin] = origin
            #expect(try await client.execute(uri: "/v1/admin/keys", method: .get, headers: admin).headers[.accessControlAllowOrigin] == nil)
            let console = try await client.execute(uri: "/console/login", method: .get, headers: Self.headers([.origin: origin]))
            #expect(console.status == .ok && console.headers[.accessControlAllowOrigin] == nil)
        }
    }

    @Test func aMethodAPathDoesNotHaveIsAnswered405WithAllow() async throws {
        try await ServerTests().withServer { client, app, _, _ in
            let cases: [(String, HTTPRequest.Method, String)] = [
                ("/v1/catalog", .post, "GET, OPTIONS"), ("/v1/events", .get, "OPTIONS, POST"),
                ("/v1/admin/catalog/draft", .delete, "GET, PUT"), ("/v1/admin/keys/key_1", .get, "DELETE"),
                ("/v1/admin/catalog/draft/tips/t1", .post, "DELETE, GET, PUT"), ("/healthz", .post, "GET"),
            ]
            for (path, method, allow) in cases {
                let response = try await client.execute(uri: path, method: method, headers: ServerTests.auth(app.secretKey))
                #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                #expect(response.headers[.allow] == allow, "\(method) \(path)")
                #expect(try Self.errorCode(response) == "method_not_allowed")
            }
            // A path with no routes at all stays 404, and so does a missing object on a real route.
            #expect(try await client.execute(uri: "/v1/nothing", method: .get).status == .notFound)
            let missing = try await client.execute(
                uri: "/v1/admin/catalog/versions/9", method: .get, headers: ServerTests.auth(app.secretKey))
            #expect(missing.status == .notFound)
        }
    }

    @Test func bodiesAreDecodedIntoTypesAndEveryMistakeIsNamed() async throws {
        try await ServerTests().withServer { client, app, _, _ in
            try await ServerTests.publishShop(client, app)
            func post(_ uri: String, _ body: String, key: String) async throws -> TestResponse {
                try await client.execute(uri: uri, method: .post, headers: ServerTests.auth(key), body: ByteBuffer(string: body))
            }
            let proof = Secrets.userHash(user: "u1", identitySecret: app.identitySecret)
            let cases: [(String, String, String, String)] = [
                (
                    "/v1/rewards/claims", #"{"user":"u1","userHash":"\#(proof)","tour":"shop-tour","page":"checkout","extra":1}"#,
                    app.clientKey, #"unknown field "extra""#
                ),
                (
                    "/v1/rewards/claims", #"{"user":"u1","tour":"shop-tour","page":"checkout"}"#, app.clientKey,
                    #"the body needs "userHash""#
                ),
                ("/v1/rewards/claims", #"{"user":5,"userHash":"x","tour":"t","page":"p"}"#, app.clientKey, #""user" must be text"#),
                ("/v1/rewards/claims", "[1, 2]", app.clientKey, "the body must be a JSON object"),
                ("/v1/rewards/claims", "{nope", app.clientKey, "the body is not valid JSON"),
                ("/v1/admin/catalog/rollback", #"{"version":"1"}"#, app.secretKey, #""version" must be a whole number"#),
                ("/v1/admin/catalog/rollback", #"{"version":1,"to":2}"#, app.secretKey, #"unknown field "to""#),
                ("/v1/admin/keys", #"{"kind":"admin"}"#, app.secretKey, #""kind" is client or secret, not "admin""#),
                ("/v1/admin/keys", "{}", app.secretKey, #"the body needs "kind""#),
            ]
            for (uri, body, key, message) in cases {
                let response = try await post(uri, body, key: key)
                #expect(response.status == .badRequest, "\(uri) \(body)")
                #expect(try Self.errorCode(response) == "bad_request")
                #expect(try Self.errorMessage(response) == message, "\(uri) \(body)")
            }
            try await ServerTests.read(client, app)
            #expect(
                try await post(
                    "/v1/rewards/claims", #"{"user":"u1","userHash":"\#(proof)","tour":"shop-tour","page":"checkout"}"#, key: app.clientKey
                ).status == .created)
        }
    }
}
