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
        ]).join(entry: "main.js").main
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
        ]).join(entry: "main.js").main
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
            entry: "main.js"
        ).main
        #expect(joined.contains("importance = 1;\nexported();\n"))
        #expect(joined.contains("  import { x }"), "only statements at the start of a line are the module's own")
    }

    @Test func aModuleLoadedWhenNeededIsAPartThatSharesTheMainFilesModules() throws {
        var modules = [
            "main.js": """
            import { shared } from "./a.js";
            export const later = () => import("./panel.js").then((panel) => panel.draw(shared));
            export const already = () => import( "./a.js" );
            """,
            "a.js": "export const shared = { count: 0 };\n",
            "panel.js": """
            import { shared } from "./a.js";
            import { words } from "./b.js";
            export function draw() { shared.count += 1; return words; }
            """,
            "b.js": "export const words = \"only the part needs this\";\n",
        ]
        let joined = try Self.joiner(modules).join(entry: "main.js")
        #expect(Array(joined.parts.keys) == ["panel.js"])
        #expect(joined.main.contains("$loadPart(\"panel.js\", __a).then((panel) => panel.draw(shared))"))
        #expect(
            joined.main.contains(
                "import(new URL((import.meta.url.includes(\"/\(joined.version)/\") ? \"\" : \"\(joined.version)/\") + name"))
        #expect(joined.main.contains("const already = () => Promise.resolve(__a);"), "a module the main file has is not a part")
        #expect(!joined.main.contains("const __b = ") && !joined.main.contains("const __panel = "), "the part's own modules stay out")
        let part = try #require(joined.parts["panel.js"])
        #expect(part.contains("let made;\nexport default (__a) => made ??= (() => {\n"), "what it shares is handed in, and it runs once")
        #expect(part.contains("const __b = (() => {") && part.contains("const { words } = __b;"))
        #expect(!part.contains("const __a = "), "one copy of a shared module, the main file's")
        #expect(part.hasSuffix("return __panel;\n})();\n"))
        #expect(joined.version.wholeMatch(of: /[0-9a-f]{16}/) != nil)
        modules["b.js"] = "export const words = \"other words\";\n"
        #expect(try Self.joiner(modules).join(entry: "main.js").version != joined.version, "the version names the parts' modules too")
    }

    @Test func loadingOtherThanAModuleBesideThisOneOrFromAPartIsRefused() {
        let computed = Self.failure(["main.js": "const name = \"./a.js\";\nexport const load = () => import(name);\n"])
        #expect(computed?.module == "main.js" && computed?.reason.contains("import(\"./name.js\")") == true)
        #expect(Self.failure(["main.js": "export const load = () => import(\"https://cdn.example/a.js\");\n"]) != nil)
        let commented = try? Self.joiner(["main.js": "// a page may import(\"./a.js\") or import(name) later\n/** import(x) */\n"]).join(
            entry: "main.js")
        #expect(commented?.parts.isEmpty == true, "comments load nothing")
        let nested = Self.failure([
            "main.js": "export const load = () => import(\"./a.js\");\n",
            "a.js": "export const more = () => import(\"./b.js\");\n", "b.js": "",
        ])
        #expect(nested?.module == "a.js" && nested?.reason.contains("a part (a.js) may not") == true)
        #expect(
            Self.failure(["main.js": "export const load = () => import(\"./gone.js\");\n"])
                == ModuleJoiner.Failure(module: "main.js", reason: "imports gone.js, which does not exist"))
    }

    /// The SDK folder as it ships: every module but the two for tools is reached from waymark.js,
    /// the tour panel in a part of its own, and the join is the one the server makes.
    @Test func theWebSDKJoinsAndLeavesNoModuleOut() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/WaymarkServer/Resources/web/sdk").standardized
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".js") }.sorted()
        let joined = try ModuleJoiner { name in
            try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }.join(entry: "waymark.js")
        #expect(
            joined.parts.keys.sorted() == [
                "bridge.js", "builder.js", "controls.js", "gestures.js", "identity.js", "kinds.js", "launcher.js", "narration.js",
                "previewing.js", "sightings.js", "theme.js", "tours.js",
            ],
            """
            parts: the tour panel, the controls, the kinds' looks, narration and checklists when a catalog has them; what an \
            identity proof allows for a user who has one; a screen's names once a day; the preview mark in a preview; the page \
            builder in a builder; the app's look with a theme; the page of a hybrid app's WebView; touch gestures on a touch screen
            """)
        for file in files {
            let scope = "\nconst \(ModuleJoiner.variable(file)) = (() => {"
            let place =
                joined.main.contains(scope) ? "main" : joined.parts.filter { $0.value.contains(scope) }.keys.sorted().joined(separator: " ")
            // Pages get rules parsed, and draw no previews: those modules are served alone (/sdk/src/). The
            // builder draws the preview mark too, so a builder's tab loads it alone. A modal tip's kind and
            // the tour panel hold the page; the tour panel and the user's other devices join how far a
            // tour got.
            let elsewhere = [
                "ruletext.js": "", "preview.js": "", "previewing.js": "builder.js previewing.js", "modal.js": "kinds.js tours.js",
                "tourprogress.js": "identity.js tours.js", "checklists.js": "launcher.js", "help.js": "launcher.js",
            ]
            let own = [
                "tours.js", "controls.js", "narration.js", "sightings.js", "theme.js", "builder.js", "kinds.js", "identity.js",
                "launcher.js", "bridge.js", "gestures.js",
            ]
            let expected = elsewhere[file] ?? (own.contains(file) ? file : "main")
            #expect(place == expected, "\(file) is in \(place)")
        }
        let exports = joined.main.split(separator: "\n").last!.firstMatch(of: /export const \{ (.*) \} = __waymark;/)?.1
        let names = Set(exports?.split(separator: ", ").map(String.init) ?? [])
        #expect(
            names == [
                "Waymark", "WaymarkClient", "Renderer", "buildContent", "safeURL", "Engine", "Evaluator", "LIMITS", "printRule",
                "ruleFromJSON", "formatTime",
                "parseTime", "eventID",
            ], "the SDK's public names")
        let installed = try WaymarkServer.installedWebSDK()
        #expect(installed.main.source == joined.main && installed.parts.mapValues(\.source) == joined.parts)
        #expect(installed.version == joined.version, "the server joins the same modules")
    }
}
