import ArgumentParser
import Foundation
import WaymarkServer

extension Waymark {
    struct SDK: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sdk",
            abstract: "Print the web SDK as this server serves it at /sdk/waymark.js.",
            discussion: """
                To serve waymark.js from your own CDN: waymark sdk > waymark.js. With --source, the
                readable join of its modules, which scripts/build-web-sdk minifies.
                """
        )

        @Flag(help: "Print the modules joined, before minifying.") var source = false

        func run() async throws {
            let sdk: WebSDK
            do {
                sdk = try WaymarkServer.installedWebSDK()
            } catch {
                printError("error: the web SDK cannot be assembled: \(error)")
                throw ExitCode(1)
            }
            if source {
                FileHandle.standardOutput.write(Data(sdk.source.utf8))
            } else {
                if !sdk.isMinified { printError("warning: waymark.min.js is out of date; this is the readable join") }
                FileHandle.standardOutput.write(Data(buffer: sdk.served))
            }
        }
    }
}
