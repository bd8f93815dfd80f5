import Foundation
import WaymarkEngine
import WaymarkRules
import WaymarkSupport

/// Plays an ``EventScript`` through an engine or an evaluator, and writes what happened as JSON
/// Lines: the output of `waymark simulate` and `waymark eval`.
public enum Replay {
    /// Plays a script through an engine for the catalog; returns the engine at the end and the render
    /// commands as JSON lines: `{"t":"...","show":"search-tip","container":"home"}`.
    public static func simulate(_ catalog: Catalog, _ script: EventScript) -> (engine: Engine, lines: [String]) {
        var engine = Engine(tips: catalog.engineTips, configuration: .init(frequency: catalog.frequency))
        var output: [String] = []
        for line in script.lines {
            output += play(line, on: &engine).map(jsonLine)
        }
        return (engine, output)
    }

    /// Gives one line of a script to an engine; returns what the engine then asks renderers to do.
    public static func play(_ line: EventScript.Line, on engine: inout Engine) -> [RenderCommand] {
        switch line.input {
        case .event(let name, let target): engine.record(name, target: target, at: line.time)
        case .tick: engine.advance(to: line.time)
        case .context(let values): engine.setContext(values, at: line.time)
        case .container(let container, let visible): engine.setContainer(container, visible: visible, at: line.time)
        case .close(let tip): engine.close(tip: tip, at: line.time)
        }
    }

    /// Plays a script through one rule: one line per input, `{"t":"...","value":true}`.
    /// Container and close lines are not inputs of a rule and are errors here.
    public static func evaluate(_ rule: Rule, _ script: EventScript, file: String) throws(DiagnosticsError) -> [String] {
        var evaluator = Evaluator(rules: [rule])
        var output: [String] = []
        var diagnostics: [Diagnostic] = []
        for line in script.lines {
            switch line.input {
            case .event(let name, let target): evaluator.record(name, target: target, at: line.time)
            case .tick: evaluator.advance(to: line.time)
            case .context(let values):
                for (path, value) in values.sorted(by: { $0.key < $1.key }) {
                    evaluator.setContext(path, to: value, at: line.time)
                }
            case .container, .close:
                diagnostics.append(
                    Diagnostic(file: file, line: line.number, column: 1, message: "eval takes events, ticks and context lines only")
                )
            }
            let time = Timestamp.format(evaluator.currentTime ?? line.time)
            output.append("{\"t\":\(jsonString(time)),\"value\":\(evaluator.value(ofRule: 0))}")
        }
        if !diagnostics.isEmpty { throw DiagnosticsError(diagnostics) }
        return output
    }

    /// One render command as a JSON line, keys in a fixed order.
    public static func jsonLine(_ command: RenderCommand) -> String {
        var text = "{\"t\":\(jsonString(Timestamp.format(command.time))),"
        text += "\(jsonString(command.action.rawValue)):\(jsonString(command.tip)),"
        text += "\"container\":\(jsonString(command.container))"
        if let anchor = command.anchor { text += ",\"anchor\":\(jsonString(anchor))" }
        if let reason = command.reason { text += ",\"reason\":\(jsonString(reason.rawValue))" }
        return text + "}"
    }
}
