import Foundation
import WaymarkEngine
import WaymarkRules
import Yams

/// A catalog: the tips of an app and the display frequency they share.
public struct Catalog: Hashable, Sendable {
    public var frequency: DisplayFrequency
    public var tips: [Tip]

    public init(frequency: DisplayFrequency = .immediate, tips: [Tip]) {
        self.frequency = frequency
        self.tips = tips
    }
}

/// Reads catalog files, YAML or JSON (JSON is read as YAML's flow style), and reports every
/// problem with its file, line and column, including errors inside rules:
///
/// ```yaml
/// frequency: immediate          # immediate, hourly, daily, weekly or monthly
/// tips:
///   - id: search-tip
///     container: home
///     anchor: search-button
///     trigger: (tap:search AND activation) OR scroll
///     dismissal: tap:search
///     priority: 10
///     group: onboarding         # tips of a group show in `order`
///     order: 1
///     policy:
///       maxDisplayCount: 3
///       maxDisplayDuration: 30s # or a number of seconds
///       expiresAt: 2027-01-01T00:00:00Z
/// ```
public enum CatalogDocument {
    /// Parses a catalog; throws ``DiagnosticsError`` with every problem found.
    public static func parse(_ text: String, file: String) throws(DiagnosticsError) -> Catalog {
        var reader = CatalogReader(text: text, file: file)
        let catalog = reader.read()
        if let catalog, reader.diagnostics.isEmpty { return catalog }
        throw DiagnosticsError(reader.diagnostics)
    }

    /// Reads and parses a catalog file.
    public static func load(path: String) throws(DiagnosticsError) -> Catalog {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DiagnosticsError([Diagnostic(file: path, line: 1, column: 1, message: "cannot read the file")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw DiagnosticsError([Diagnostic(file: path, line: 1, column: 1, message: "the file is not UTF-8 text")])
        }
        return try parse(text, file: path)
    }
}

private let tipKeys = ["id", "container", "anchor", "trigger", "dismissal", "priority", "group", "order", "policy"]
private let policyKeys = ["maxDisplayCount", "maxDisplayDuration", "expiresAt"]

private struct CatalogReader {
    let text: String
    let file: String
    let lines: [Substring]
    var diagnostics: [Diagnostic] = []

    init(text: String, file: String) {
        self.text = text
        self.file = file
        self.lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    mutating func read() -> Catalog? {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            report(error)
            return nil
        } catch {
            fail(line: 1, column: 1, "cannot read the file as YAML or JSON")
            return nil
        }
        guard let root, let mapping = root.mapping else {
            fail(at: root, "a catalog is a mapping with the keys frequency and tips")
            return nil
        }
        checkKeys(mapping, allowed: ["frequency", "tips"])
        var frequency = DisplayFrequency.immediate
        if let node = mapping["frequency"] {
            if let value = node.string.flatMap(DisplayFrequency.init(rawValue:)) {
                frequency = value
            } else {
                fail(at: node, "unknown frequency", expected: "immediate, hourly, daily, weekly or monthly")
            }
        }
        guard let tipsNode = mapping["tips"] else {
            fail(at: root, "the catalog has no tips", expected: "a key tips with a list of tips")
            return nil
        }
        guard let sequence = tipsNode.sequence else {
            fail(at: tipsNode, "tips must be a list")
            return nil
        }
        var tips: [Tip] = []
        var seen: [String: Node] = [:]
        var groupOrders: [String: [Int: String]] = [:]
        for node in sequence {
            if let idNode = node.mapping?["id"], let id = idNode.string {
                if seen[id] != nil { fail(at: idNode, "a second tip with the id \"\(id)\"") }
                seen[id] = idNode
            }
            guard let tip = readTip(node) else { continue }
            if let group = tip.group {
                if let other = groupOrders[group]?[tip.order] {
                    fail(
                        at: node.mapping?["order"] ?? node,
                        "tips \"\(other)\" and \"\(tip.id)\" of group \"\(group)\" have the same order \(tip.order)"
                    )
                }
                groupOrders[group, default: [:]][tip.order] = tip.id
            }
            tips.append(tip)
        }
        return Catalog(frequency: frequency, tips: tips)
    }

    mutating func readTip(_ node: Node) -> Tip? {
        guard let mapping = node.mapping else {
            fail(at: node, "a tip must be a mapping", expected: "keys such as id, container and trigger")
            return nil
        }
        checkKeys(mapping, allowed: tipKeys)
        let id = requiredName(mapping, "id", in: node)
        let container = requiredName(mapping, "container", in: node)
        let anchor = mapping["anchor"].flatMap { string($0, "anchor") }
        let trigger: Rule? = if let triggerNode = mapping["trigger"] { rule(triggerNode) } else {
            missing("trigger", in: node)
        }
        let dismissal = mapping["dismissal"].flatMap { rule($0) }
        let priority = mapping["priority"].flatMap { integer($0, "priority") } ?? 0
        let group = mapping["group"].flatMap { string($0, "group") }
        let order = mapping["order"].flatMap { integer($0, "order") } ?? 0
        let policy = mapping["policy"].map { readPolicy($0) } ?? DisplayPolicy()
        guard let id, let container, let trigger else { return nil }
        return Tip(
            id: id, container: container, anchor: anchor, trigger: trigger, dismissal: dismissal, priority: priority,
            group: group, order: order, policy: policy
        )
    }

    mutating func readPolicy(_ node: Node) -> DisplayPolicy {
        guard let mapping = node.mapping else {
            fail(at: node, "policy must be a mapping", expected: policyKeys.joined(separator: ", "))
            return DisplayPolicy()
        }
        checkKeys(mapping, allowed: policyKeys)
        var policy = DisplayPolicy()
        if let count = mapping["maxDisplayCount"] {
            if let value = integer(count, "maxDisplayCount") {
                if value >= 1 { policy.maxDisplayCount = value } else { fail(at: count, "maxDisplayCount must be at least 1") }
            }
        }
        if let duration = mapping["maxDisplayDuration"] {
            policy.maxDisplayDuration = seconds(duration)
        }
        if let expiry = mapping["expiresAt"] {
            if let text = expiry.string, let date = Timestamp.date(text) {
                policy.expiresAt = date
            } else {
                fail(at: expiry, "expiresAt must be an RFC 3339 date and time", expected: "such as 2027-01-01T00:00:00Z")
            }
        }
        return policy
    }

    /// A positive duration: a number of seconds, or a window such as `30s` or `5m`.
    mutating func seconds(_ node: Node) -> TimeInterval? {
        let text = node.string ?? ""
        if let number = Double(text), number > 0, number.isFinite { return number }
        if let last = text.last, let unit = Window.Unit(rawValue: String(last)), let amount = Int(text.dropLast()),
            amount > 0
        {
            return TimeInterval(amount) * TimeInterval(unit.milliseconds) / 1000
        }
        fail(at: node, "invalid maxDisplayDuration \"\(text)\"", expected: "a positive number of seconds, or such as 30s or 5m")
        return nil
    }

    // MARK: Values

    mutating func rule(_ node: Node) -> Rule? {
        guard let scalar = node.scalar else {
            fail(at: node, "a rule must be text")
            return nil
        }
        do {
            return try RuleParser().parse(scalar.string)
        } catch {
            report(error, in: scalar)
            return nil
        }
    }

    mutating func requiredName(_ mapping: Node.Mapping, _ key: String, in node: Node) -> String? {
        guard let value = mapping[key] else { return missing(key, in: node) }
        guard let text = string(value, key) else { return nil }
        guard !text.isEmpty, text.unicodeScalars.allSatisfy({ isIdentifierScalar($0) }) else {
            fail(at: value, "\(key) \"\(text)\" must be letters, digits, -, _ or .")
            return nil
        }
        return text
    }

    mutating func string(_ node: Node, _ key: String) -> String? {
        guard let scalar = node.scalar else {
            fail(at: node, "\(key) must be text")
            return nil
        }
        return scalar.string
    }

    mutating func integer(_ node: Node, _ key: String) -> Int? {
        guard let text = node.scalar?.string, let value = Int(text) else {
            fail(at: node, "\(key) must be a whole number")
            return nil
        }
        return value
    }

    mutating func missing<T>(_ key: String, in node: Node) -> T? {
        fail(at: node, "the tip has no \(key)")
        return nil
    }

    mutating func checkKeys(_ mapping: Node.Mapping, allowed: [String]) {
        for (key, _) in mapping {
            guard let name = key.string, !allowed.contains(name) else { continue }
            fail(at: key, "unknown key \"\(name)\"", expected: "one of \(allowed.joined(separator: ", "))")
        }
    }

    // MARK: Reporting

    mutating func fail(at node: Node?, _ message: String, expected: String? = nil) {
        let mark = node?.mark
        fail(line: mark?.line ?? 1, column: mark?.column ?? 1, message, expected: expected)
    }

    mutating func fail(line: Int, column: Int, _ message: String, expected: String? = nil) {
        let lineText = line - 1 < lines.count ? String(lines[line - 1]) : nil
        diagnostics.append(
            Diagnostic(file: file, line: line, column: column, message: message, expected: expected, lineText: lineText)
        )
    }

    /// A rule error, moved from the rule's own line and column to the file's.
    mutating func report(_ error: RuleError, in scalar: Node.Scalar) {
        guard let mark = scalar.mark else {
            fail(line: 1, column: 1, error.message, expected: error.expected)
            return
        }
        switch scalar.style {
        case .literal, .folded:
            // The text starts on the line after the indicator, at that line's indentation.
            let line = mark.line + error.line
            let indentation = line - 1 < lines.count ? lines[line - 1].prefix { $0 == " " }.count : 0
            fail(line: line, column: indentation + error.column, error.message, expected: error.expected)
        case .singleQuoted, .doubleQuoted:
            fail(line: mark.line + error.line - 1, column: mark.column + error.column, error.message, expected: error.expected)
        default:
            fail(line: mark.line + error.line - 1, column: mark.column + error.column - 1, error.message, expected: error.expected)
        }
    }

    mutating func report(_ error: YamlError) {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
            .composer(_, let problem, let mark, _):
            fail(line: mark.line, column: mark.column, "invalid YAML or JSON: \(problem)")
        default:
            fail(line: 1, column: 1, "invalid YAML or JSON: \(error)")
        }
    }
}

/// Ids and containers: `[A-Za-z0-9_.-]`.
private func isIdentifierScalar(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 48...57, 65...90, 97...122, 95, 45, 46: true
    default: false
    }
}
