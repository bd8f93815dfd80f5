import Foundation
import Logging
import ServiceLifecycle
import WaymarkStore
import WaymarkSupport

/// Generates narration in the background, one job at a time, never inside a request.
///
/// Servers ``request(app:speeches:)`` the speech a catalog lacks whenever they cache its live
/// version; the queue holds at most ``capacity`` jobs and each key once, and what does not fit is
/// asked for again the next time (the delivery cache asks while narration is missing). Each job
/// first asks the store: audio another server made, or a failure already recorded, is not made
/// again. A failure is stored with its reason and the tip goes on working without audio.
public final class Narrator: Service, Sendable {
    public struct Job: Hashable, Sendable {
        public var app: String
        public var speech: NarrationPlan.Speech

        public init(app: String, speech: NarrationPlan.Speech) {
            self.app = app
            self.speech = speech
        }

        var id: String { "\(app)/\(speech.key)" }
    }

    public let capacity: Int
    private let store: any NarrationStore
    private let synthesizer: any Synthesizer
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let state = Locked(Queue())
    private let wake = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    private struct Queue {
        var jobs: [Job] = []
        /// Queued or being made.
        var pending: Set<String> = []
    }

    public init(
        store: any NarrationStore, synthesizer: any Synthesizer, capacity: Int = 1_000, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.synthesizer = synthesizer
        self.capacity = capacity
        self.logger = logger
        self.now = now
    }

    /// Queues the speech of an app that is not queued already, as far as there is room; returns
    /// how many jobs were added.
    @discardableResult
    public func request(app: String, speeches: [NarrationPlan.Speech]) -> Int {
        let added = state.withLock { queue in
            var added = 0
            for speech in speeches where queue.jobs.count < capacity {
                let job = Job(app: app, speech: speech)
                if queue.pending.insert(job.id).inserted {
                    queue.jobs.append(job)
                    added += 1
                }
            }
            return added
        }
        if added > 0 { wake.continuation.yield() }
        return added
    }

    /// Jobs waiting, and the one being made.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            for await _ in self.wake.stream {
                while !Task.isCancelled, let job = self.next() {
                    await self.make(job)
                    _ = self.state.withLock { $0.pending.remove(job.id) }
                }
            }
        }
    }

    private func next() -> Job? {
        state.withLock { queue in queue.jobs.isEmpty ? nil : queue.jobs.removeFirst() }
    }

    /// Makes one job's audio and stores it, or stores why it failed; does nothing when the store
    /// already knows the key.
    public func make(_ job: Job) async {
        let key = job.speech.key
        do {
            if try await store.narrationStates(app: job.app, keys: [key])[key] != nil { return }
            let started = ContinuousClock.now
            do {
                let audio = try await synthesizer.speak(job.speech)
                try await store.saveNarration(
                    NarrationAudio(
                        app: job.app, key: key, format: audio.format, duration: audio.duration, bytes: audio.bytes, source: .generated,
                        createdAt: now()
                    )
                )
                logger.info(
                    "narration made",
                    metadata: [
                        "app": "\(job.app)", "key": "\(key)", "voice": "\(job.speech.voice)", "seconds": "\(audio.duration)",
                        "bytes": "\(audio.bytes.count)", "took": "\(ContinuousClock.now - started)",
                    ]
                )
            } catch let error as NarrationError {
                logger.warning("narration failed", metadata: ["app": "\(job.app)", "key": "\(key)", "error": "\(error)"])
                try await store.narrationFailed(app: job.app, key: key, message: error.message, at: now())
            }
        } catch {
            // The store failed: nothing is recorded, so the next request asks again.
            logger.error("narration not stored", metadata: ["app": "\(job.app)", "key": "\(key)", "error": "\(error)"])
        }
    }
}
