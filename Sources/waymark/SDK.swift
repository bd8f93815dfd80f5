import ArgumentParser
import Foundation
import NIOFoundationEssentialsCompat
import WaymarkServer

extension Waymark {
    struct SDK: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sdk",
            abstract: "Print or write the web SDK as this server serves it below /sdk/.",
            discussion: """
                The SDK is waymark.js and the parts it loads when a page needs them (the tour panel),
                which it looks for in a folder named by its version beside it. To serve it from your
                own CDN: waymark sdk --out DIR, then serve DIR as the server serves /sdk/ (DIR/waymark.js,
                DIR/VERSION/waymark.js and DIR/VERSION/tours.js; the versioned files never change), each
                beside its packed copies, NAME.js.br and NAME.js.gz, for a server that sends those itself
                (nginx's brotli_static and gzip_static).
                Without --out, waymark.js alone is printed. With --source, the readable joins of the
                modules, which scripts/build-web-sdk minifies.
                """
        )

        @Flag(help: "The modules joined, before minifying.") var source = false
        @Option(help: "Write every file of the SDK into this folder, not only waymark.js to standard output.")
        var out: String?

        func run() async throws {
            let sdk: WebSDK
            do {
                sdk = try WaymarkServer.installedWebSDK()
            } catch {
                printError("error: the web SDK cannot be assembled: \(error)")
                throw ExitCode(1)
            }
            let text = { (file: WebSDK.File) in source ? Data(file.source.utf8) : Data(buffer: file.served) }
            if !source, let stale = ([("waymark.js", sdk.main)] + sdk.parts.map { ($0.key, $0.value) }).first(where: { !$0.1.isMinified }) {
                printError("warning: the minified copy of \(stale.0) is out of date; the readable join is used")
            }
            guard let out else {
                FileHandle.standardOutput.write(text(sdk.main))
                return
            }
            let folder = URL(fileURLWithPath: out)
            do {
                try FileManager.default.createDirectory(at: folder.appendingPathComponent(sdk.version), withIntermediateDirectories: true)
                try text(sdk.main).write(to: folder.appendingPathComponent("waymark.js"))
                for (path, file) in sdk.files {
                    try text(file).write(to: folder.appendingPathComponent(path))
                    guard !source else { continue }
                    try Data(buffer: file.gzipped).write(to: folder.appendingPathComponent(path + ".gz"))
                    if let brotli = file.brotli { try Data(buffer: brotli).write(to: folder.appendingPathComponent(path + ".br")) }
                }
            } catch {
                printError("error: cannot write the SDK into \(out): \(error.localizedDescription)")
                throw ExitCode(1)
            }
            print(([("waymark.js")] + sdk.files.map(\.path)).map { folder.appendingPathComponent($0).path }.joined(separator: "\n"))
        }
    }
}
