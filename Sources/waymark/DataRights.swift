import ArgumentParser
import Foundation
import NIOCore
import WaymarkApplication
import WaymarkServer
import WaymarkStore

extension Waymark {
    struct UserData: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "user-data",
            abstract: "Write everything an app keeps about one of its users as one JSON file (their right of access).",
            discussion: "The same document as GET /v1/admin/users/USER: attributes, segments, grants, progress and every event."
        )

        @Option(help: "The app's id.")
        var app: String

        @Option(help: "The user, as the app names them.")
        var user: String

        @Option(help: "The file to write (default: standard output).")
        var out: String?

        @OptionGroup var options: ServerOptions

        mutating func run() async throws {
            let output = try outputFile(out)
            let resolved = try options.resolve()
            let (app, user) = (app, user)
            let found = try await withStoreOrExit(resolved.storage, logger: bootstrap(resolved)) { store in
                guard try await store.app(id: app) != nil else { return false }
                let kept = try await DataRights.kept(app: app, user: user, in: store)
                try await DataRights.write(kept, app: app, user: user, from: store) { try output.write(contentsOf: $0.readableBytesView) }
                return true
            }
            try output.close()
            guard found else {
                printError("error: no app \(app)")
                throw ExitCode(1)
            }
        }
    }

    struct EraseUser: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "erase-user",
            abstract: "Erase everything an app keeps about one of its users, in one transaction (their right to erasure).",
            discussion: """
                Their events (survey answers and listens among them), attributes, progress, segment
                memberships and credit grants go; the audit log records how much, not who. It cannot
                be undone: --yes says you mean it.
                """
        )

        @Option(help: "The app's id.")
        var app: String

        @Option(help: "The user, as the app names them.")
        var user: String

        @Flag(help: "Erase without asking again.")
        var yes = false

        @OptionGroup var options: ServerOptions

        mutating func run() async throws {
            guard yes else { throw ValidationError("erasing cannot be undone: add --yes to erase \(user) of \(app)") }
            let resolved = try options.resolve()
            let (app, user) = (app, user)
            let erased = try await withStoreOrExit(resolved.storage, logger: bootstrap(resolved)) { store in
                guard try await store.app(id: app) != nil else { return nil as UserErasure? }
                return try await DataRights.erase(app: app, user: user, actor: .cli, at: Date(), in: store)
            }
            guard let erased else {
                printError("error: no app \(app)")
                throw ExitCode(1)
            }
            print("Erased \(erased).")
        }
    }
}

/// The file `path` names, made empty, or standard output without one.
func outputFile(_ path: String?) throws -> FileHandle {
    guard let path else { return FileHandle.standardOutput }
    guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
        printError("error: cannot write \(path)")
        throw ExitCode(1)
    }
    return handle
}
