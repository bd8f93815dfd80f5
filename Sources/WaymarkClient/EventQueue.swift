import Foundation
import WaymarkAPI
import WaymarkEngine
import WaymarkSupport

/// Events waiting to be uploaded, kept on disk so that they survive the app being killed.
///
/// Each recorded event is appended to a JSON Lines file; after an upload the file is rewritten
/// with what is left (``DurableFile``). Events in flight stay in the queue until the server has
/// answered for them, so an upload that fails half-way is simply sent again, and the server drops
/// the ones it already has by their ids. A device that stays offline keeps at most ``limit``
/// events: the oldest are dropped first.
final class EventQueue: Sendable {
    struct State {
        var events: [IncomingEvent] = []
        var inFlight: Set<String> = []
        var dropped = 0
        var appender: FileHandle?
    }

    let url: URL?
    let limit: Int
    private let state = Locked(State())

    /// - Parameter url: the queue's file, or `nil` to keep events in memory only.
    init(url: URL?, limit: Int = 10_000) {
        self.url = url
        self.limit = limit
        guard let url, let data = try? Data(contentsOf: url) else { return }
        // A line cut short by a crash is skipped; every whole line is kept.
        let decoder = JSONDecoder()
        let events = data.split(separator: UInt8(ascii: "\n")).compactMap { try? decoder.decode(IncomingEvent.self, from: Data($0)) }
        state.withLock { state in
            state.events = Array(events.suffix(limit))
            // Later lines must not be glued to a cut one.
            if data.last != UInt8(ascii: "\n") && !data.isEmpty { rewrite(&state) }
        }
    }

    deinit {
        state.withLock { try? $0.appender?.close() }
    }

    var count: Int { state.withLock { $0.events.count } }

    /// Events dropped because the queue was full, since it was made.
    var dropped: Int { state.withLock { $0.dropped } }

    /// How each queued event is written: one JSON object per line.
    private static func line(_ event: IncomingEvent) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(event)).map { $0 + [UInt8(ascii: "\n")] }
    }

    func append(_ event: IncomingEvent) {
        let line = Self.line(event)
        state.withLock { state in
            state.events.append(event)
            if state.events.count > limit, let oldest = state.events.firstIndex(where: { !state.inFlight.contains($0.id) }) {
                state.events.remove(at: oldest)
                state.dropped += 1
            }
            guard let url, let line else { return }
            if state.appender == nil {
                if !FileManager.default.fileExists(atPath: url.path) {
                    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
                }
                state.appender = try? FileHandle(forWritingTo: url)
                _ = try? state.appender?.seekToEnd()
            }
            try? state.appender?.write(contentsOf: line)
        }
    }

    /// The oldest events not already being sent, at most `size`, now marked in flight.
    func takeBatch(size: Int) -> [IncomingEvent] {
        state.withLock { state in
            var batch: [IncomingEvent] = []
            for event in state.events where !state.inFlight.contains(event.id) {
                batch.append(event)
                if batch.count == size { break }
            }
            state.inFlight.formUnion(batch.map(\.id))
            return batch
        }
    }

    /// Ends an upload: the events of `batch` the server answered for (accepted, duplicate or
    /// rejected; a rejected event would be rejected again) leave the queue; the rest may be sent again.
    func finish(_ batch: [IncomingEvent], answered: Set<String>) {
        state.withLock { state in
            state.inFlight.subtract(batch.map(\.id))
            guard !answered.isEmpty else { return }
            state.events.removeAll { answered.contains($0.id) }
            rewrite(&state)
        }
    }

    private func rewrite(_ state: inout State) {
        guard let url else { return }
        try? state.appender?.close()
        state.appender = nil
        var data = Data()
        for event in state.events {
            if let line = Self.line(event) { data.append(line) }
        }
        // If this fails the old file stays, with events already sent: the server drops those by id.
        try? DurableFile.write(data, to: url)
    }
}
