import Foundation
import WaymarkEngine
import WaymarkRules
import WaymarkSupport

/// Plays an ``EventScript`` through an engine or an evaluator, and writes what happened as JSON
/// Lines: the output of `waymark simulate` and `waymark eval`. Scripts are streamed: a line is read,
/// played and written before the next is read, and output goes out in blocks of about 64 KB, so a
/// replay's memory does not grow with its file.
public enum Replay {
    /// Output lines gathered into blocks for `write`, which gets each block once.
    public struct Output {
        /// The block being filled.
        var bytes: [UInt8] = []
        let write: ([UInt8]) -> Void

        /// Output handed to `write` in blocks.
        public init(write: @escaping ([UInt8]) -> Void) {
            self.write = write
            bytes.reserveCapacity(Self.blockSize + 512)
        }

        static let blockSize = 1 << 16

        /// Hands on the block when it is full.
        mutating func lineWritten() {
            if bytes.count >= Self.blockSize { flush() }
        }

        /// Hands on what is left.
        mutating func flush() {
            guard !bytes.isEmpty else { return }
            write(bytes)
            bytes.removeAll(keepingCapacity: true)
        }
    }

    /// Plays the script file at `path` through an engine for the catalog, writing each render command
    /// as a JSON line (`{"t":"...","show":"search-tip","container":"home"}`) to `output`, if given;
    /// returns the engine at the end. A bad line stops the replay there (see ``EventScript/read(path:_:)``).
    public static func simulate(_ catalog: Catalog, events path: String, output: Output?) throws(DiagnosticsError) -> Engine {
        var engine = Engine(tips: catalog.engineTips, configuration: .init(frequency: catalog.frequency))
        var output = output
        defer { output?.flush() }
        try EventScript.read(path: path) { line in
            let commands = play(line, on: &engine)
            guard output != nil, !commands.isEmpty else { return }
            for command in commands { append(command, to: &output!.bytes) }
            output!.lineWritten()
        }
        return engine
    }

    /// Gives one line of a script to an engine; returns what the engine then asks renderers to do.
    public static func play(_ line: EventScript.Line, on engine: inout Engine) -> [RenderCommand] {
        switch line.input {
        case .event(let name, let target, let properties): engine.record(name, target: target, properties: properties, at: line.time)
        case .tick: engine.advance(to: line.time)
        case .context(let values): engine.setContext(values, at: line.time)
        case .container(let container, let visible): engine.setContainer(container, visible: visible, at: line.time)
        case .close(let tip): engine.close(tip: tip, at: line.time)
        case .tip(let tip, let visible): engine.setTip(tip, visible: visible, at: line.time)
        }
    }

    /// Plays the script file at `path` through one rule, writing one line per input to `output`:
    /// `{"t":"...","value":true}`. Container, close and tip lines are not inputs of a rule and are errors here.
    public static func evaluate(_ rule: Rule, events path: String, output: Output) throws(DiagnosticsError) {
        var evaluator = Evaluator(rules: [rule])
        var output = output
        defer { output.flush() }
        try EventScript.read(path: path) { line throws(EventScript.LineRefused) in
            switch line.input {
            case .event(let name, let target, let properties): evaluator.record(name, target: target, properties: properties, at: line.time)
            case .tick: evaluator.advance(to: line.time)
            case .context(let values):
                for (path, value) in values.sorted(by: { $0.key < $1.key }) {
                    evaluator.setContext(path, to: value, at: line.time)
                }
            case .container, .close, .tip:
                throw EventScript.LineRefused("eval takes events, ticks and context lines only")
            }
            output.bytes.append(contentsOf: #"{"t":""#.utf8)
            Timestamp.append(evaluator.currentTime ?? line.time, to: &output.bytes)
            output.bytes.append(contentsOf: evaluator.value(ofRule: 0) ? #"","value":true}"#.utf8 : #"","value":false}"#.utf8)
            output.bytes.append(UInt8(ascii: "\n"))
            output.lineWritten()
        }
    }

    /// Appends a render command's JSON line, keys in a fixed order, with its line end, to `output`.
    static func append(_ command: RenderCommand, to output: inout [UInt8]) {
        output.append(contentsOf: #"{"t":""#.utf8)
        Timestamp.append(command.time, to: &output)
        output.append(contentsOf: #"","#.utf8)
        appendJSONString(command.action.rawValue, to: &output)
        output.append(UInt8(ascii: ":"))
        appendJSONString(command.tip, to: &output)
        output.append(contentsOf: #","container":"#.utf8)
        appendJSONString(command.container, to: &output)
        if let anchor = command.anchor {
            output.append(contentsOf: #","anchor":"#.utf8)
            appendJSONString(anchor, to: &output)
        }
        if let reason = command.reason {
            output.append(contentsOf: #","reason":"#.utf8)
            appendJSONString(reason.rawValue, to: &output)
        }
        output.append(contentsOf: "}\n".utf8)
    }
}
