import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import WaymarkSQLite
import WaymarkServer
import WaymarkTestSupport
import Yams

/// The OpenAPI document says what the server does: the same paths and methods as its router, served
/// as written in the repository.
@Suite(.timeLimit(.minutes(5))) struct OpenAPITests {
    static let file = WaymarkBinary.root.appendingPathComponent("Sources/WaymarkServer/Resources/openapi.yaml")

    @Test func documentsExactlyTheRoutes() throws {
        let document = try #require(try Yams.load(yaml: String(contentsOf: Self.file, encoding: .utf8)) as? [String: Any])
        #expect(document["openapi"] as? String == "3.1.0")
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let methods: Set<String> = ["get", "put", "post", "delete", "patch", "options"]
        let documented = Set(
            paths.flatMap { path, operations in
                operations.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" }
            })
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-openapi-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteStore(path: path)
        let routes = Set(
            WaymarkServer(store: store, logger: Logger(label: "test")).router().routes.map { route in
                let path = route.path.description.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                return "\(route.method) /" + path.joined(separator: "/")
            })
        #expect(routes.count >= 18)
        #expect(documented.subtracting(routes).isEmpty, "documented, not served: \(documented.subtracting(routes).sorted())")
        #expect(routes.subtracting(documented).isEmpty, "served, not documented: \(routes.subtracting(documented).sorted())")
    }

    @Test func isServedAsWritten() async throws {
        try await ServerTests().withServer { client, _, _, _ in
            let response = try await client.execute(uri: "/openapi.yaml", method: .get)
            #expect(response.status == .ok)
            #expect(String(buffer: response.body) == (try String(contentsOf: Self.file, encoding: .utf8)))
        }
    }
}
