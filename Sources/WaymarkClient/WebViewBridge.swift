import Foundation
import WaymarkAPI
import WaymarkEngine
import WaymarkRules
import WaymarkSupport

/// Waymark's web SDK in the app's `WKWebView`, joined to this client: one user, one history, one
/// engine. The client decides; the page draws the tips of its own containers as it is told and
/// tells the client what the user does there, so events from both sides go to the one queue in
/// the order they happen, and a tip closed in the page is closed for the app (docs/hybrid-apps.md).
///
/// The page's containers are those it has an element for (`data-waymark-container`) and says it
/// shows; the app's render loop hands the bridge every command first, and draws those it does not
/// take:
///
/// ```swift
/// let bridge = WebViewBridge(client: waymark) { message in
///     Task { @MainActor in _ = try? await webView.evaluateJavaScript(WebViewBridge.script(message)) }
/// }
/// webView.configuration.userContentController.add(handler, name: "waymark")  // handler: bridge.receive(body)
/// Task { for await command in waymark.commands where !bridge.take(command) { renderer.apply(command) } }
/// ```
///
/// Messages are JSON text, one object each, with a `type`. From the page: `hello` (it started: it
/// is sent the catalog), `event` (name, target, properties), `container` (container, visible),
/// `sight` (tip, visible), `close` (tip), `press` (action, tip), `answer` (survey, score, comment),
/// `context` (values) and `anchorMissing` (tip: its anchor is not in the page). To the page:
/// `catalog` (catalog, server, listening) and `render` (commands: action, tip, container, anchor,
/// reason).
public final class WebViewBridge: Sendable {
    private struct State {
        /// The page's containers: those it has an element for and told of.
        var pageContainers: Set<String> = []
        /// Whether a page said hello since the WebView last went: only then is it sent anything.
        var greeted = false
        /// The version of the catalog the page has.
        var sentVersion: Int?
    }

    private let client: WaymarkClient
    private let send: @Sendable (String) -> Void
    private let state = Locked(State())

    /// `send` carries a message to the page (in the order they are made, from any thread).
    public init(client: WaymarkClient, send: @escaping @Sendable (String) -> Void) {
        self.client = client
        self.send = send
    }

    /// The JavaScript that hands the page a message: for `evaluateJavaScript`.
    public static func script(_ message: String) -> String {
        "window.waymarkBridge&&window.waymarkBridge.receive(\(jsonString(message)))"
    }

    /// A message from the page. Answers false (and changes nothing) for one that does not read or
    /// that the bridge does not know.
    @discardableResult
    public func receive(_ text: String) -> Bool {
        guard let message = try? JSONDecoder().decode(Incoming.self, from: Data(text.utf8)) else { return false }
        switch message.type {
        case "hello":
            detach()
            state.withLock { state in
                state.pageContainers = []
                state.greeted = true
            }
            sendCatalog()
        case "event":
            guard let name = message.name else { return false }
            client.record(name, target: message.target, properties: (message.properties ?? [:]).compactMapValues(\.value))
        case "container":
            guard let container = message.container else { return false }
            self.container(container, visible: message.visible ?? false)
        case "sight":
            guard let tip = message.tip else { return false }
            client.setTip(tip, visible: message.visible ?? false)
        case "close":
            guard let tip = message.tip else { return false }
            client.close(tip: tip)
        case "press":
            guard let tip = message.tip, let action = message.action, (try? client.press(action: action, tip: tip)) != nil else {
                return false
            }
        case "answer":
            guard let survey = message.survey, let score = message.score,
                (try? client.answer(survey: survey, score: score, comment: message.comment)) != nil
            else { return false }
        case "context":
            client.setContext((message.values ?? [:]).mapValues(\.value))
        case "anchorMissing":
            guard let tip = message.tip, client.tip(tip) != nil else { return false }
            client.anchorNotFound(tip: tip)
        default:
            return false
        }
        return true
    }

    /// Whether `command` is for the page, which it was then sent; the app draws those it is not.
    public func take(_ command: RenderCommand) -> Bool {
        let (onPage, stale) = state.withLock { state in
            (state.pageContainers.contains(command.container), state.greeted && state.sentVersion != client.catalog?.version)
        }
        guard onPage else { return false }
        // A new catalog reaches the page before the commands of its tips.
        if stale { sendCatalog() }
        sendCommands([Outgoing.Command(command, action: command.action)])
        return true
    }

    /// The WebView went away (its screen closed): the tips in its containers pause until a page
    /// says hello again, and the page is sent nothing meanwhile.
    public func detach() {
        let had = state.withLock { state in
            state.greeted = false
            return state.pageContainers
        }
        for container in had { client.setContainer(container, visible: false) }
    }

    /// The page says whether a container shows. The first time, the container becomes the page's:
    /// it pauses, the page is told of the tip that shows there (paused), and then it shows as the
    /// page says.
    private func container(_ container: String, visible: Bool) {
        let claimed = state.withLock { !$0.pageContainers.contains(container) }
        if claimed {
            client.setContainer(container, visible: false)
            state.withLock { _ = $0.pageContainers.insert(container) }
            if let showing = client.engine.occupant(of: container) {
                sendCommands([Outgoing.Command(showing, action: .show), Outgoing.Command(showing, action: .pause)])
            }
        }
        client.setContainer(container, visible: visible)
    }

    private func sendCatalog() {
        let catalog = client.catalog
        state.withLock { $0.sentVersion = catalog?.version }
        write(
            Outgoing(
                type: "catalog", catalog: catalog ?? DeliveredCatalog(version: 0, frequency: "immediate", tips: [], tours: []),
                server: client.server.absoluteString, listening: client.listensToTips))
    }

    private func sendCommands(_ commands: [Outgoing.Command]) {
        guard state.withLock({ $0.greeted }) else { return }
        write(Outgoing(type: "render", commands: commands))
    }

    private func write(_ message: Outgoing) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(message) else { return }
        send(String(decoding: data, as: UTF8.self))
    }

    /// What the page sends.
    private struct Incoming: Decodable {
        var type: String
        var name: String?
        var target: String?
        var properties: [String: Scalar]?
        var values: [String: Scalar]?
        var container: String?
        var visible: Bool?
        var tip: String?
        var action: String?
        var survey: String?
        var score: Int?
        var comment: String?
    }

    /// A value events and rules carry: text, a number or a flag (null: none).
    private struct Scalar: Decodable {
        var value: ContextValue?

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = nil
            } else if let flag = try? container.decode(Bool.self) {
                value = .bool(flag)
            } else if let number = try? container.decode(Double.self) {
                value = .number(number)
            } else {
                value = .string(try container.decode(String.self))
            }
        }
    }

    /// What the page is sent.
    private struct Outgoing: Encodable {
        struct Command: Encodable {
            var action: String
            var tip: String
            var container: String
            var anchor: String?
            var reason: String?

            init(_ command: RenderCommand, action: RenderCommand.Action) {
                self.action = action.rawValue
                tip = command.tip
                container = command.container
                anchor = command.anchor
                reason = command.reason?.rawValue
            }
        }

        var type: String
        var catalog: DeliveredCatalog?
        var server: String?
        /// Whether the user hears every tip as it appears: the app's listener's mode.
        var listening: Bool?
        var commands: [Command]?
    }
}
