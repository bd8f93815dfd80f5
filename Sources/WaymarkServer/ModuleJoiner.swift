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
public struct ModuleJoiner: Sendable {
    /// Why modules could not be joined: the module, and what in it.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        /// The module at fault (for a missing module, the one that imports it).
        public var module: String
        /// What in it.
        public var reason: String
        public var description: String { "\(module): \(reason)" }
    }

    /// Reads a module's text by its file name ("rules.js"); nil when there is no such module.
    var read: @Sendable (String) -> String?

    /// A joiner that reads modules with `read`.
    public init(read: @escaping @Sendable (String) -> String?) {
        self.read = read
    }

    /// `entry` and every module it imports, joined.
    public func join(entry: String) throws(Failure) -> String {
        var parsed: [String: Module] = [:]
        var order: [String] = []
        var visiting: [String] = []
        try visit(entry, importedBy: nil, parsed: &parsed, order: &order, visiting: &visiting)
        var out = "// Joined from the modules of the Waymark web SDK (\(order.joined(separator: ", "))); edit those.\n"
        for name in order {
            let module = parsed[name]!
            out += "\n// \(name)\nconst \(Self.variable(name)) = (() => {\n"
            out += module.body
            if !out.hasSuffix("\n") { out += "\n" }
            let handedBack = module.exports.map { $0.exported == $0.local ? $0.local : "\($0.exported): \($0.local)" }
            out += "return { \(handedBack.joined(separator: ", ")) };\n"
            out += "})();\n"
        }
        let entryExports = parsed[entry]!.exports.map(\.exported)
        if !entryExports.isEmpty {
            out += "\nexport const { \(entryExports.joined(separator: ", ")) } = \(Self.variable(entry));\n"
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

        init(name: String, text: String) throws(Failure) {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            var index = 0
            while index < lines.count {
                var statement = String(lines[index])
                index += 1
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
