/// Joins ES modules into one, so that a page loads the web SDK in one request while its source stays
/// a set of modules a reader can find their way in.
///
/// Each module keeps its own scope: its body runs inside a function, in dependency order, and
/// hands back what it exports; `import { a, b as c } from "./x.js"` becomes a destructuring of what
/// `x.js` handed back. A name a module uses without importing it is therefore as undefined in the
/// joined file as it is in the module. The joined file exports what the entry module exports.
///
/// What the modules may say, at the start of a line: `import { ... } from "./name.js"`,
/// `export { ... } from "./name.js"`, `export { ... }`, and `export` before `function`,
/// `async function`, `class` or `const`. Anything else that imports or exports (default exports,
/// `export *`, `export let`, whose value the joined file could not keep live, imports from outside the
/// folder) is refused with the module and the reason, as is a cycle.
///
/// A module the others load only when needed, with `import("./name.js")` anywhere in a line, is a
/// *part*: a file of its own (``Joined/parts``) holding it and what it imports that the main file
/// lacks; the modules it shares with the main file are handed to it, so both see one copy of
/// each. The main file loads a part from `VERSION/name.js` beside itself (or beside its own
/// folder when it is served from a `VERSION/` folder already), so a page that never needs the
/// module never downloads it. A part may not load parts of its own.
public struct ModuleJoiner: Sendable {
    /// Why modules could not be joined: the module, and what in it.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        /// The module at fault (for a missing module, the one that imports it).
        public var module: String
        /// What in it.
        public var reason: String
        public var description: String { "\(module): \(reason)" }
    }

    /// The files modules join into.
    public struct Joined: Sendable, Equatable {
        /// The entry and every module it imports: what a page loads.
        public var main: String
        /// Each part by its module's file name (`"tours.js"`): what the main file loads when needed.
        public var parts: [String: String]
        /// Sixteen hex digits of the SHA-256 of every module joined, names and texts: the folder the
        /// main file loads its parts from, so a part always comes from the same modules as the
        /// main file that asks for it.
        public var version: String
    }

    /// Reads a module's text by its file name ("rules.js"); nil when there is no such module.
    var read: @Sendable (String) -> String?

    /// A joiner that reads modules with `read`.
    public init(read: @escaping @Sendable (String) -> String?) {
        self.read = read
    }

    /// `entry` and every module it imports, joined, and the parts they load when needed.
    public func join(entry: String) throws(Failure) -> Joined {
        var parsed: [String: Module] = [:]
        var order: [String] = []
        var visiting: [String] = []
        try visit(entry, importedBy: nil, parsed: &parsed, order: &order, visiting: &visiting)
        let inMain = Set(order)
        // Each part: its modules that the main file lacks, and the main file's modules it imports.
        var parts: [(name: String, order: [String], shared: [String])] = []
        var all = parsed
        for (loader, name) in order.flatMap({ loader in parsed[loader]!.loaded.map { (loader, $0) } })
        where !inMain.contains(name) && !parts.contains(where: { $0.name == name }) {
            var partParsed = parsed
            var partOrder: [String] = []
            try visit(name, importedBy: loader, parsed: &partParsed, order: &partOrder, visiting: &visiting)
            if let nested = partOrder.first(where: { !partParsed[$0]!.loaded.isEmpty }) {
                throw Failure(module: nested, reason: "loads a module when needed, which a part (\(name)) may not")
            }
            let imported = Set(partOrder.flatMap { partParsed[$0]!.dependencies })
            parts.append((name, partOrder, order.filter(imported.contains)))
            all.merge(partParsed) { kept, _ in kept }
        }
        let version = String(Secrets.hash((order + parts.flatMap(\.order)).map { "\($0)\n\(all[$0]!.text)\n" }.joined()).prefix(16))

        var main = "// Joined from the modules of the Waymark web SDK (\(order.joined(separator: ", "))); edit those.\n"
        if !parts.isEmpty {
            main += """

                // Parts loaded when needed (\(parts.map(\.name).joined(separator: ", "))), from the folder of this version.
                const $loadPart = (name, ...modules) => import(new URL((import.meta.url.includes("/\(version)/") ? "" : "\(version)/") + name, import.meta.url)).then((part) => part.default(...modules));

                """
        }
        let loads = Dictionary(
            uniqueKeysWithValues: parts.map { part in
                (part.name, "$loadPart(\"\(part.name)\"\(part.shared.map { ", " + Self.variable($0) }.joined()))")
            })
        main += Self.scopes(order, all) { name in loads[name] ?? "Promise.resolve(\(Self.variable(name)))" }
        let entryExports = parsed[entry]!.exports.map(\.exported)
        if !entryExports.isEmpty {
            main += "\nexport const { \(entryExports.joined(separator: ", ")) } = \(Self.variable(entry));\n"
        }
        var joinedParts: [String: String] = [:]
        for part in parts {
            // A part's modules run once, however often the main file asks for it.
            joinedParts[part.name] = """
                // Joined from the modules of the Waymark web SDK (\(part.order.joined(separator: ", "))), a part the SDK loads when needed; edit those.
                let made;
                export default (\(part.shared.map(Self.variable).joined(separator: ", "))) => made ??= (() => {
                \(Self.scopes(part.order, all) { _ in "" })
                return \(Self.variable(part.name));
                })();

                """
        }
        return Joined(main: main, parts: joinedParts, version: version)
    }

    /// Each module of `order` in its own scope; `load` says what stands for `import("./name.js")`.
    private static func scopes(_ order: [String], _ parsed: [String: Module], load: (String) -> String) -> String {
        var out = ""
        for name in order {
            let module = parsed[name]!
            out += "\n// \(name)\nconst \(variable(name)) = (() => {\n"
            out += module.body.replacing(Module.dynamicImport) { load(String($0.1)) }
            if !out.hasSuffix("\n") { out += "\n" }
            let handedBack = module.exports.map { $0.exported == $0.local ? $0.local : "\($0.exported): \($0.local)" }
            out += "return { \(handedBack.joined(separator: ", ")) };\n"
            out += "})();\n"
        }
        return out
    }

    private func visit(
        _ name: String, importedBy: String?, parsed: inout [String: Module], order: inout [String], visiting: inout [String]
    ) throws(Failure) {
        if parsed[name] != nil { return }
        if let start = visiting.firstIndex(of: name) {
            let cycle = (visiting[start...] + [name]).joined(separator: " → ")
            throw Failure(module: name, reason: "imports form a cycle (\(cycle)), which one file cannot order")
        }
        guard let text = read(name) else {
            throw Failure(
                module: importedBy ?? name, reason: importedBy == nil ? "there is no such module" : "imports \(name), which does not exist")
        }
        let module = try Module(name: name, text: text)
        visiting.append(name)
        for dependency in module.dependencies {
            try visit(dependency, importedBy: name, parsed: &parsed, order: &order, visiting: &visiting)
        }
        visiting.removeLast()
        parsed[name] = module
        order.append(name)
    }

    /// The joined file's name for what a module hands back: `__rules` for rules.js.
    static func variable(_ module: String) -> String {
        let stem = module.hasSuffix(".js") ? String(module.dropLast(3)) : module
        return "__" + String(stem.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// A name a module exports, and the local binding that holds it.
    struct Export: Equatable {
        var exported: String
        var local: String
    }

    /// One module, its import and export statements rewritten for the joined file.
    struct Module {
        var body = ""
        var dependencies: [String] = []
        var exports: [Export] = []
        /// The modules this one loads when needed, as `import("./name.js")`.
        var loaded: [String] = []
        /// The module as written.
        let text: String

        /// `import("./name.js")`, the one form of loading a module when needed that is understood.
        static var dynamicImport: Regex<(Substring, Substring)> { /import\(\s*"\.\/([A-Za-z0-9_-]+\.js)"\s*\)/ }

        init(name: String, text: String) throws(Failure) {
            self.text = text
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            var index = 0
            while index < lines.count {
                var statement = String(lines[index])
                index += 1
                try findLoads(statement, in: name)
                guard statement.hasPrefix("import") || statement.hasPrefix("export") else {
                    body += statement + "\n"
                    continue
                }
                // A brace list may go on over several lines, to its closing brace.
                let list = statement.firstMatch(of: /^(import|export)\s*\{/) != nil
                while list && !statement.contains("}") && index < lines.count {
                    statement += "\n" + lines[index]
                    index += 1
                }
                body += try rewrite(statement, in: name) + "\n"
            }
            if body.hasSuffix("\n\n") { body.removeLast() }
        }

        /// Notes the modules `line` loads when needed, refusing any other use of `import(...)`. A
        /// comment line may speak of loading without loading anything.
        private mutating func findLoads(_ line: String, in module: String) throws(Failure) {
            let start = line.drop(while: \.isWhitespace)
            if start.hasPrefix("//") || start.hasPrefix("*") || start.hasPrefix("/*") { return }
            let uses = line.matches(of: /\bimport\s*\(/).count
            let loads = line.matches(of: Self.dynamicImport).map { String($0.1) }
            guard uses == loads.count else {
                throw Failure(
                    module: module,
                    reason: "modules are loaded when needed only as import(\"./name.js\"), from beside this one: \(line.prefix(80))")
            }
            for name in loads where !loaded.contains(name) { loaded.append(name) }
        }

        private mutating func rewrite(_ statement: String, in module: String) throws(Failure) -> String {
            let refuse = { (reason: String) in Failure(module: module, reason: "\(reason): \(statement.prefix(80))") }
            if let match = statement.wholeMatch(of: /import\s*\{([^}]*)\}\s*from\s*"([^"]*)"\s*;?\s*/) {
                let source = try dependency(String(match.2), refuse)
                let names = try bindings(String(match.1), refuse)
                return "const { \(names.map(\.pattern).joined(separator: ", ")) } = \(ModuleJoiner.variable(source));"
            }
            if let match = statement.wholeMatch(of: /export\s*\{([^}]*)\}\s*from\s*"([^"]*)"\s*;?\s*/) {
                let source = try dependency(String(match.2), refuse)
                let names = try bindings(String(match.1), refuse)
                // A re-export binds nothing in the module: the values are taken straight from the source.
                exports += names.map { Export(exported: $0.local, local: "\(ModuleJoiner.variable(source)).\($0.imported)") }
                return ""
            }
            if let match = statement.wholeMatch(of: /export\s*\{([^}]*)\}\s*;?\s*/) {
                exports += try bindings(String(match.1), refuse).map { Export(exported: $0.local, local: $0.imported) }
                return ""
            }
            if let match = statement.firstMatch(of: /^export\s+((?:async\s+)?function\*?|class|const)\s+([A-Za-z_$][A-Za-z0-9_$]*)/) {
                if match.1 == "const", statement.dropFirst(match.0.count).first(where: { !$0.isWhitespace }) != "=" {
                    throw refuse("export const declares one name per statement here")
                }
                exports.append(Export(exported: String(match.2), local: String(match.2)))
                return String(statement.dropFirst("export".count).drop(while: \.isWhitespace))
            }
            if statement.hasPrefix("export let") || statement.hasPrefix("export var") {
                throw refuse("export let and var are refused: the joined file could not keep their value live")
            }
            if statement.firstMatch(of: /^(import|export)\b/) == nil { return statement }
            throw refuse("only import { ... } from \"./name.js\", export { ... } and export before a declaration are understood")
        }

        private mutating func dependency(_ specifier: String, _ refuse: (String) -> Failure) throws(Failure) -> String {
            guard specifier.wholeMatch(of: /\.\/[A-Za-z0-9_-]+\.js/) != nil else {
                throw refuse("imports come from modules beside this one (\"./name.js\"), not \"\(specifier)\"")
            }
            let name = String(specifier.dropFirst(2))
            if !dependencies.contains(name) { dependencies.append(name) }
            return name
        }

        /// `a, b as c` as (imported: a, local: a), (imported: b, local: c).
        private func bindings(_ list: String, _ refuse: (String) -> Failure) throws(Failure) -> [(
            imported: String, local: String, pattern: String
        )] {
            var out: [(imported: String, local: String, pattern: String)] = []
            for item in list.split(separator: ",") {
                let words = item.split(whereSeparator: \.isWhitespace).map(String.init)
                if words.isEmpty { continue }
                let valid = { (word: String) in word.wholeMatch(of: /[A-Za-z_$][A-Za-z0-9_$]*/) != nil }
                if words.count == 1, valid(words[0]) {
                    out.append((words[0], words[0], words[0]))
                } else if words.count == 3, words[1] == "as", valid(words[0]), valid(words[2]) {
                    out.append((words[0], words[2], "\(words[0]): \(words[2])"))
                } else {
                    throw refuse("\"\(words.joined(separator: " "))\" is not a name or \"name as other\"")
                }
            }
            return out
        }
    }
}
