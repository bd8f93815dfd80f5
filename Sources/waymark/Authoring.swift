import ArgumentParser
import Foundation
import WaymarkCatalog

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the admin API is and the app's secret key, from flags or the environment.
struct AdminOptions: ParsableArguments {
    @Option(help: "The server's URL, such as http://127.0.0.1:8080 (default: $WAYMARK_SERVER).")
    var server: String?

    @Option(help: "A secret key of the app (default: $WAYMARK_KEY, which keeps it out of the process list).")
    var key: String?

    /// Sends a request to the admin API; returns the status and body, or fails with a message
    /// when the server cannot be reached or the options are missing.
    func send(_ method: String, _ path: String, body: Data? = nil) async throws -> (status: Int, body: Data) {
        let environment = ProcessInfo.processInfo.environment
        guard let base = server ?? environment["WAYMARK_SERVER"], let url = URL(string: base + path), url.host != nil else {
            throw ValidationError("give the server's URL with --server or WAYMARK_SERVER")
        }
        guard let key = key ?? environment["WAYMARK_KEY"], !key.isEmpty else {
            throw ValidationError("give a secret key with --key or WAYMARK_KEY (make one with `waymark keys create`)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        request.httpBody = body
        do {
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
        } catch {
            printError("error: cannot reach \(base): \(error.localizedDescription)")
            throw ExitCode(1)
        }
    }
}

/// Prints an error answer of the API (its message and any diagnostics) and fails.
func failure(_ status: Int, _ body: Data) -> ExitCode {
    if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
        let error = object["error"] as? [String: Any]
    {
        printError("error: \(error["message"] as? String ?? "status \(status)")")
        for diagnostic in error["diagnostics"] as? [String] ?? [] { printError(diagnostic) }
    } else {
        printError("error: the server answered \(status)")
    }
    return ExitCode(1)
}

extension Waymark {
    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload a catalog file as the app's draft; with --publish, make it live too.",
            discussion: """
                The file is checked here first (as lint does), then by the server, which keeps it in its
                canonical form: HTML sanitized, comments dropped. `waymark pull` gets that form back.
                """
        )

        @Argument(help: "The catalog file (YAML or JSON).")
        var file: String

        @Flag(help: "Publish the draft as a new version once it is saved.")
        var publish = false

        @OptionGroup var admin: AdminOptions

        mutating func run() async throws {
            let catalog: Catalog
            do {
                catalog = try CatalogDocument.load(path: file)
            } catch {
                throw fail(with: error)
            }
            // The file as written, so that anything the server finds points into it.
            let text = try Data(contentsOf: URL(fileURLWithPath: file))
            let saved = try await admin.send("PUT", "/v1/admin/catalog/draft", body: text)
            guard saved.status == 200 else { throw failure(saved.status, saved.body) }
            let summary = (try? JSONSerialization.jsonObject(with: saved.body) as? [String: Any]) ?? [:]
            print("draft saved: \(catalog.tips.count) tips, \(catalog.tours.count) tours (revision \(summary["revision"] ?? "?"))")
            for warning in summary["warnings"] as? [String] ?? [] { print("warning: \(warning)") }
            guard publish else { return }
            let published = try await admin.send("POST", "/v1/admin/catalog/publish")
            guard published.status == 201 else { throw failure(published.status, published.body) }
            let version = (try? JSONSerialization.jsonObject(with: published.body) as? [String: Any])?["version"] ?? "?"
            print("published version \(version)")
        }
    }

    struct Pull: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download the app's draft catalog, or a published version, as YAML."
        )

        @Option(help: "A published version's number instead of the draft.")
        var version: Int?

        @Option(name: .shortAndLong, help: "Write to this file instead of standard output.")
        var output: String?

        @OptionGroup var admin: AdminOptions

        mutating func run() async throws {
            let path = version.map { "/v1/admin/catalog/versions/\($0)" } ?? "/v1/admin/catalog/draft"
            let answer = try await admin.send("GET", path)
            guard answer.status == 200 else { throw failure(answer.status, answer.body) }
            if let output {
                try answer.body.write(to: URL(fileURLWithPath: output))
            } else {
                FileHandle.standardOutput.write(answer.body)
            }
        }
    }
}
