import Foundation
import Testing

@testable import WaymarkServer

/// The web SDK's modules become the one file a page loads: each module in its own scope, in
/// dependency order, exporting what the entry exports; what cannot be joined faithfully is refused.
@Suite struct ModuleJoinerTests {
    static func joiner(_ modules: [String: String]) -> ModuleJoiner {
        ModuleJoiner { modules[$0] }
    }

    static func failure(_ modules: [String: String], entry: String = "main.js") -> ModuleJoiner.Failure? {
        do {
            _ = try joiner(modules).join(entry: entry)
            return nil
        } catch {
            return error
        }
    }

    @Test func modulesComeBeforeTheirImportersEachInItsOwnScope() throws {
        let joined = try Self.joiner([
            "main.js": """
            import { twice } from "./math.js";
            import { name as label, LIMIT } from "./names.js";

            export const answer = twice(LIMIT);
            export function greet() { return label; }
            """,
            "math.js": """
            import { LIMIT } from "./names.js";
            const local = 2;
            export function twice(x) { return Math.min(x * local, LIMIT); }
            """,
            "names.js": """
            export const name = "waymark";
            export const LIMIT = 10;
            const local = "a private name math.js also uses";
            """,
        ]).join(entry: "main.js")
        let names = joined.range(of: "const __names = (() => {")!
        let math = joined.range(of: "const __math = (() => {")!
        let main = joined.range(of: "const __main = (() => {")!
        #expect(names.lowerBound < math.lowerBound && math.lowerBound < main.lowerBound, "each module once, after what it imports")
        #expect(joined.components(separatedBy: "const __names = ").count == 2)
        #expect(joined.contains("const { twice } = __math;"))
        #expect(joined.contains("const { name: label, LIMIT } = __names;"))
        #expect(joined.contains("return { name, LIMIT };"))
        #expect(joined.contains("\nfunction twice(x)"), "the declaration stays, without export")
        #expect(joined.hasSuffix("export const { answer, greet } = __main;\n"))
        #expect(!joined.contains("import {"))
    }

    @Test func reExportsAndExportListsExportWhatTheyName() throws {
        let joined = try Self.joiner([
            "main.js": """
            export { parse, print as write } from "./rules.js";
            const version = 3;
            export {
              version,
            };
            """,
            "rules.js": "export function parse() {}\nexport class print {}\n",
        ]).join(entry: "main.js")
        #expect(joined.contains("return { parse: __rules.parse, write: __rules.print, version };"))
        #expect(joined.hasSuffix("export const { parse, write, version } = __main;\n"))
    }

    @Test func whatOneFileCannotSayFaithfullyIsRefusedWithTheModuleAndTheReason() {
        #expect(Self.failure(["main.js": "export default 1;"])?.module == "main.js")
        #expect(Self.failure(["main.js": "export let counter = 0;"])?.reason.contains("live") == true)
        #expect(Self.failure(["main.js": "export * from \"./a.js\";"]) != nil)
        #expect(Self.failure(["main.js": "import thing from \"./a.js\";"]) != nil)
        #expect(Self.failure(["main.js": "import { a } from \"../outside.js\";"])?.reason.contains("../outside.js") == true)
        #expect(Self.failure(["main.js": "import { a } from \"https://cdn.example/a.js\";"]) != nil)
        #expect(Self.failure(["main.js": "import { a-b } from \"./a.js\";", "a.js": ""]) != nil)
        #expect(Self.failure(["main.js": "export const { a, b } = thing;"]) != nil)
        #expect(
            Self.failure(["main.js": "import { a } from \"./gone.js\";"])
                == ModuleJoiner.Failure(module: "main.js", reason: "imports gone.js, which does not exist"))
        #expect(Self.failure([:]) == ModuleJoiner.Failure(module: "main.js", reason: "there is no such module"))
        let cycle = Self.failure([
            "main.js": "import { a } from \"./a.js\";", "a.js": "import { b } from \"./b.js\";\nexport const a = 1;",
            "b.js": "import { a } from \"./a.js\";\nexport const b = 2;",
        ])
        #expect(cycle?.reason.contains("a.js → b.js → a.js") == true)
    }

    @Test func wordsThatOnlyStartLikeImportsAreCode() throws {
        let joined = try Self.joiner(["main.js": "importance = 1;\nexported();\n  import { x } from \"./nowhere.js\";\n"]).join(
            entry: "main.js")
        #expect(joined.contains("importance = 1;\nexported();\n"))
        #expect(joined.contains("  import { x }"), "only statements at the start of a line are the module's own")
    }

    /// The SDK folder as it ships: every module but the two for tools is reached from waymark.js,
    /// and the join is the one the server makes.
    @Test func theWebSDKJoinsAndLeavesNoModuleOut() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/WaymarkServer/Resources/web/sdk").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".js") }.sorted()
        let joined = try ModuleJoiner { name in
            try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }.join(entry: "waymark.js")
        for file in files {
            // Pages get rules parsed, and draw no previews: those modules are served alone (/sdk/src/).
            let reached = joined.contains("\nconst \(ModuleJoiner.variable(file)) = (() => {")
            let forTools = ["ruletext.js", "preview.js"].contains(file)
            #expect(reached != forTools, "\(file) \(reached ? "is" : "is not") in the joined file")
        }
        let exports = joined.split(separator: "\n").last!.firstMatch(of: /export const \{ (.*) \} = __waymark;/)?.1
        let names = Set(exports?.split(separator: ", ").map(String.init) ?? [])
        #expect(
            names == [
                "Waymark", "WaymarkClient", "Renderer", "buildContent", "safeURL", "formatDuration",
                "utf8Prefix", "Engine", "Evaluator", "LIMITS", "printRule", "ruleFromJSON", "formatTime",
                "parseTime", "eventID",
            ], "the SDK's public names")
        #expect(try WaymarkServer.installedWebSDK().source == joined, "the server joins the same modules")
    }
}
