import ArgumentParser
import Foundation
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules

@main
struct Waymark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "waymark",
        abstract: "Waymark: tips and guided tours that appear when the user needs them.",
        discussion: """
            Rules say when a tip shows, over what the user did: (tap:search AND activation) OR scroll.
            Check a catalog with lint, watch it decide with simulate, test one rule with eval, and ask
            why a tip did or did not show with explain.
            """,
        subcommands: [
            Demo.self, Serve.self, Apps.self, Users.self, Keys.self, Push.self, Pull.self, Lint.self, Simulate.self, Eval.self,
            Explain.self, Export.self, UserData.self, EraseUser.self, MigrateData.self, Backfill.self, StopAnalytics.self, SDK.self,
        ]
    )
}

/// Prints diagnostics to standard error and fails with exit code 1.
func fail(with error: DiagnosticsError) -> ExitCode {
    printError(error.description)
    return ExitCode(1)
}

/// Loads a catalog and replays an events file through it, writing the render commands to standard
/// output when `printing`; returns the engine at the end, or fails with the diagnostics.
func replay(catalog: String, events: String, printing: Bool) throws -> Engine {
    do {
        let catalog = try CatalogDocument.load(path: catalog)
        return try Replay.simulate(catalog, events: events, output: printing ? standardOutput() : nil)
    } catch {
        throw fail(with: error)
    }
}

/// Replay output written to standard output, a block at a time.
func standardOutput() -> Replay.Output {
    Replay.Output { block in FileHandle.standardOutput.write(Data(block)) }
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

extension Waymark {
    struct Lint: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check catalog files (YAML or JSON): every error with file:line:column and a caret.",
            discussion: """
                Exits with 1 if any file has an error. A catalog that declares its locales (locales: [hi])
                gets a warning for each content and button that lacks one, naming it; warnings do not
                change the exit code.
                """
        )

        @Argument(help: "The catalog files to check.")
        var catalogs: [String]

        mutating func run() async throws {
            var failed = false
            for path in catalogs {
                do {
                    let (catalog, warnings) = try CatalogDocument.loadChecking(path: path)
                    for warning in warnings { printError(warning.description) }
                    let warned = warnings.isEmpty ? "" : ", \(warnings.count) warning\(warnings.count == 1 ? "" : "s")"
                    print("\(path): ok, \(catalog.tips.count) tip\(catalog.tips.count == 1 ? "" : "s")\(warned)")
                } catch {
                    printError(error.description)
                    failed = true
                }
            }
            if failed { throw ExitCode(1) }
        }
    }

    struct Simulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay timed events through a catalog and print the render commands as JSON Lines.",
            discussion: """
                Each line of the events file is a JSON object with a time "t" (RFC 3339) and one of:
                "event" (and "target", and "properties" such as {"amount":799}), "context", "container"
                with "visible", "close", "tip" with "visible" (a showing tip out of or back in sight),
                or nothing (a clock tick). Output lines look like
                {"t":"...","show":"search-tip","container":"home"}; hide lines carry a "reason".
                Containers are visible until said otherwise. The file is streamed: output comes as
                lines are read, in the same memory for any length of file. At a bad line the replay
                stops (the output so far is right); every bad line is named and the exit code is 1.
                """
        )

        @Argument(help: "The catalog file (YAML or JSON).")
        var catalog: String

        @Argument(help: "The events file (JSON Lines).")
        var events: String

        mutating func run() async throws {
            _ = try replay(catalog: catalog, events: events, printing: true)
        }
    }

    struct Eval: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a rule's value after each line of an events file, as JSON Lines.",
            discussion: """
                Output lines look like {"t":"2026-01-01T10:00:00Z","value":true}. The events file has
                events, clock ticks and context lines (see simulate). A rule that does not parse exits
                with 1 and the error, with its line:column, on standard error.
                """
        )

        @Argument(help: "The rule, such as 'count(tap) >= 3 within 7d'.")
        var rule: String

        @Argument(help: "The events file (JSON Lines).")
        var events: String

        mutating func run() async throws {
            let parsed: Rule
            do {
                parsed = try RuleParser().parse(rule)
            } catch {
                printError(error.excerpt(source: rule))
                throw ExitCode(1)
            }
            do {
                try Replay.evaluate(parsed, events: events, output: standardOutput())
            } catch {
                throw fail(with: error)
            }
        }
    }

    struct Explain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay events and explain, term by term, why a tip is or is not showing at the end."
        )

        @Argument(help: "The catalog file (YAML or JSON).")
        var catalog: String

        @Argument(help: "The events file (JSON Lines).")
        var events: String

        @Argument(help: "The id of the tip to explain.")
        var tip: String

        mutating func run() async throws {
            let engine = try replay(catalog: catalog, events: events, printing: false)
            guard let explanation = engine.explain(tip: tip) else {
                printError("error: the catalog has no tip \"\(tip)\"")
                throw ExitCode(1)
            }
            print(explanation)
        }
    }
}
