import Foundation

/// Narration audio, generated or uploaded, kept in the database so that every server sharing it
/// serves the same files. Part of every ``Store``.
///
/// Audio is addressed by a key per app: for generated speech a hash of the text, voice and
/// settings (the same text is generated once), for a recording a hash of its bytes. A failed
/// generation is kept too, with its reason, so that the console can say why a tip has no voice
/// and servers do not retry it on every request.
public protocol NarrationStore: Sendable {
    /// Stores audio under its key, replacing what was there (a failure, or older audio).
    func saveNarration(_ audio: NarrationAudio) async throws(StoreError)
    /// Records that generating `key` failed, unless audio is already there.
    func narrationFailed(app: String, key: String, message: String, at time: Date) async throws(StoreError)
    /// What is known of each of these keys of the app: keys with neither audio nor a failure are
    /// absent from the answer.
    func narrationStates(app: String, keys: [String]) async throws(StoreError) -> [String: NarrationState]
    /// The audio itself, bytes included.
    func narrationAudio(app: String, key: String) async throws(StoreError) -> NarrationAudio?
    /// Forgets audio or a failure, so that it is generated again.
    func deleteNarration(app: String, key: String) async throws(StoreError)
}

public struct NarrationAudio: Hashable, Sendable {
    public enum Source: String, Hashable, Sendable, CaseIterable {
        /// Speech the server made from the text.
        case generated
        /// A recording an author uploaded.
        case recording
    }

    public var app: String
    public var key: String
    /// The MIME type: `audio/ogg` (Opus), `audio/mpeg` (MP3) or `audio/wav`.
    public var format: String
    /// Seconds.
    public var duration: Double
    public var bytes: [UInt8]
    public var source: Source
    public var createdAt: Date

    public init(app: String, key: String, format: String, duration: Double, bytes: [UInt8], source: Source, createdAt: Date) {
        self.app = app
        self.key = key
        self.format = format
        self.duration = duration
        self.bytes = bytes
        self.source = source
        self.createdAt = createdAt
    }

    /// What a listing says of this audio, without the bytes.
    public var state: NarrationState {
        .ready(NarrationState.Ready(format: format, duration: duration, byteCount: bytes.count, source: source, createdAt: createdAt))
    }
}

/// What a store knows of one narration key.
public enum NarrationState: Hashable, Sendable {
    public struct Ready: Hashable, Sendable {
        public var format: String
        public var duration: Double
        public var byteCount: Int
        public var source: NarrationAudio.Source
        public var createdAt: Date

        public init(format: String, duration: Double, byteCount: Int, source: NarrationAudio.Source, createdAt: Date) {
            self.format = format
            self.duration = duration
            self.byteCount = byteCount
            self.source = source
            self.createdAt = createdAt
        }
    }

    case ready(Ready)
    case failed(message: String, at: Date)
}

extension NarrationState {
    /// A row of a store's `narrations` table: `ready` with its audio's facts, else failed.
    public init(
        status: String, format: String?, durationMS: Int64?, size: Int64?, source: String?, message: String?, createdAt: Int64
    ) {
        if status == "ready" {
            self = .ready(
                Ready(
                    format: format ?? "", duration: Double(durationMS ?? 0) / 1000, byteCount: Int(size ?? 0),
                    source: source.flatMap(NarrationAudio.Source.init(rawValue:)) ?? .generated,
                    createdAt: Date(millisecondsSince1970: createdAt)
                )
            )
        } else {
            self = .failed(message: message ?? "", at: Date(millisecondsSince1970: createdAt))
        }
    }
}
