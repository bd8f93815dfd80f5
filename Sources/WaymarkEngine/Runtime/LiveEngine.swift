import Foundation
import WaymarkRules
import WaymarkSupport

/// An ``Engine`` for an app to hold: it reads a clock, publishes render commands as an
/// `AsyncStream`, persists its state to an ``EngineStore``, and wakes itself when a window expires.
///
/// ```swift
/// let live = try LiveEngine(tips: tips, store: FileEngineStore(url: stateURL))
/// Task { for await command in live.commands { renderer.apply(command) } }
/// Task { await live.run() }        // wakes at each `nextChange`
/// live.record("tap", target: "search")
/// ```
///
/// State is saved whenever a call produced a render command (so a tip the user closed never comes
/// back, even after a crash) and when ``persist()`` is called, which a host does when it goes to
/// the background. Counts of events since the last save may be lost in a crash; decisions are not.
public final class LiveEngine: Sendable {
    /// Render commands, in order, as they happen.
    public let commands: AsyncStream<RenderCommand>

    private let state: Locked<Engine>
    private let continuation: AsyncStream<RenderCommand>.Continuation
    private let store: (any EngineStore)?
    private let clock: @Sendable () -> Date
    private let saveFailed: (@Sendable (any Error) -> Void)?
    private let observe: (@Sendable ([RenderCommand]) -> Void)?
    /// The sleep of ``run()`` and the moment it wakes, so that a call that brings the next change
    /// forward can wake it early.
    private let wake = Locked<(sleeper: Task<Void, Never>?, at: Date?)>((nil, nil))

    /// An engine running `tips` on the clock, its state kept in `store`.
    ///
    /// - Parameters:
    ///   - tips: the tips to schedule.
    ///   - configuration: how the engine schedules across tips.
    ///   - store: where the state is kept; its saved state is restored now.
    ///   - clock: the time source; tests inject their own.
    ///   - saveFailed: told when a save after a change fails (the engine goes on in memory).
    ///   - observe: told of the commands each call produced, before they reach ``commands``
    ///     (the client SDK records tip lifecycle events from them). Not told of the tips drawn
    ///     again at start.
    public init(
        tips: [Tip], configuration: Engine.Configuration = Engine.Configuration(), store: (any EngineStore)? = nil,
        clock: @escaping @Sendable () -> Date = { Date() }, saveFailed: (@Sendable (any Error) -> Void)? = nil,
        observe: (@Sendable ([RenderCommand]) -> Void)? = nil
    ) throws {
        self.store = store
        self.saveFailed = saveFailed
        self.observe = observe
        self.clock = clock
        let snapshot = try store?.load()
        let engine = Engine(tips: tips, configuration: configuration, restoring: snapshot)
        state = Locked(engine)
        (commands, continuation) = AsyncStream.makeStream(of: RenderCommand.self, bufferingPolicy: .unbounded)
        // Tips that were showing when the app stopped are drawn again.
        for command in engine.activeTips { continuation.yield(command) }
    }

    deinit {
        continuation.finish()
    }

    /// Records an event now, such as `record("tap", target: "search")` or
    /// `record("purchase", properties: ["amount": .number(799)])`; returns the render commands it
    /// caused, which also go to ``commands``.
    @discardableResult
    public func record(_ name: String, target: String? = nil, properties: [String: ContextValue] = [:]) -> [RenderCommand] {
        apply { $0.record(name, target: target, properties: properties, at: $1) }
    }

    /// Sets context values now (`nil` removes one), such as `["app.version": .string("1.4")]`; returns the render commands it caused.
    @discardableResult
    public func setContext(_ values: [String: ContextValue?]) -> [RenderCommand] {
        apply { $0.setContext(values, at: $1) }
    }

    /// Says that a screen area became visible or hidden: its tip pauses while it is hidden and resumes as it was.
    @discardableResult
    public func setContainer(_ container: String, visible: Bool) -> [RenderCommand] {
        apply { $0.setContainer(container, visible: visible, at: $1) }
    }

    /// Says whether a showing tip is where the user can see it; display time counts only while it is.
    @discardableResult
    public func setTip(_ id: String, visible: Bool) -> [RenderCommand] {
        apply { $0.setTip(id, visible: visible, at: $1) }
    }

    /// The user closed a tip: it finishes for good (`closed`).
    @discardableResult
    public func close(tip id: String) -> [RenderCommand] {
        apply { $0.close(tip: id, at: $1) }
    }

    /// Runs a new set of tips (a new catalog), keeping what the engine knows of the tips it had.
    @discardableResult
    public func update(tips: [Tip]) -> [RenderCommand] {
        apply { $0.update(tips: tips, at: $1) }
    }

    /// Takes in the user's progress from their other devices (see ``Engine/merge(_:at:)``) and
    /// saves the state, even when nothing shows or hides. `observe` is not told of the tips it
    /// hides: the user closed or finished them elsewhere, and that device told of it.
    @discardableResult
    public func merge(_ progress: [String: TipProgress]) -> [RenderCommand] {
        let produced = apply(observing: { $0.action != .hide }, { $0.merge(progress, at: $1) })
        if produced.isEmpty {
            do { try persist() } catch { saveFailed?(error) }
        }
        return produced
    }

    /// What the user has seen and done with each tip, to share with their other devices.
    public var progress: [String: TipProgress] {
        state.withLock { $0.progress }
    }

    /// Plays everything due by now.
    @discardableResult
    public func tick() -> [RenderCommand] {
        apply { $0.advance(to: $1) }
    }

    /// Where a tip is in its lifecycle; `nil` for a tip the engine does not know.
    public func phase(of tip: String) -> TipPhase? {
        state.withLock { $0.phase(of: tip) }
    }

    /// A `show` for the tip that shows in `container` now (paused, if it is hidden), or `nil`.
    public func occupant(of container: String) -> RenderCommand? {
        state.withLock { $0.occupant(of: container) }
    }

    /// Saves the state now.
    public func persist() throws {
        try store?.save(state.withLock { $0.snapshot() })
    }

    /// The next moment something can change by itself (a window closes, a tip expires).
    public var nextChange: Date? {
        state.withLock { $0.nextChange }
    }

    /// Wakes at each moment something can change by itself, until the task is cancelled. A call
    /// that brings that moment forward (an event opening a short window) wakes it early.
    public func run() async {
        while !Task.isCancelled {
            let next = nextChange
            let delay = min(next.map { max(0, $0.timeIntervalSince(clock())) } ?? 3600, 3600)
            let sleeper = Task<Void, Never> { try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000) + 1_000_000) }
            wake.withLock { $0 = (sleeper, next) }
            await withTaskCancellationHandler {
                await sleeper.value
            } onCancel: {
                sleeper.cancel()
            }
            wake.withLock { $0 = (nil, nil) }
            tick()
        }
    }

    private func apply(
        observing observed: (RenderCommand) -> Bool = { _ in true }, _ body: (inout Engine, Date) -> [RenderCommand]
    ) -> [RenderCommand] {
        let now = clock()
        let (produced, snapshot, next) = state.withLock { engine in
            let produced = body(&engine, now)
            return (produced, produced.isEmpty || store == nil ? nil : engine.snapshot(), engine.nextChange)
        }
        let told = produced.filter(observed)
        if !told.isEmpty { observe?(told) }
        for command in produced { continuation.yield(command) }
        if let next {
            wake.withLock { wake in
                if let sleeper = wake.sleeper, wake.at.map({ next < $0 }) ?? true { sleeper.cancel() }
            }
        }
        if let snapshot {
            do { try store?.save(snapshot) } catch { saveFailed?(error) }
        }
        return produced
    }
}
