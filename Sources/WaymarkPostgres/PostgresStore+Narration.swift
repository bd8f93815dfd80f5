import Foundation
import PostgresNIO
import WaymarkStore

extension PostgresStore {
    public func saveNarration(_ audio: NarrationAudio) async throws(StoreError) {
        let durationMS = Int64((audio.duration * 1000).rounded())
        let bytes = ByteBuffer(bytes: audio.bytes)
        try await execute(
            """
            INSERT INTO narrations (app, key, status, format, duration_ms, bytes, source, message, created_at)
            VALUES (\(audio.app), \(audio.key), 'ready', \(audio.format), \(durationMS), \(bytes), \(audio.source.rawValue), NULL,
                    \(audio.createdAt.millisecondsSince1970))
            ON CONFLICT (app, key) DO UPDATE SET status = 'ready', format = excluded.format, duration_ms = excluded.duration_ms,
                bytes = excluded.bytes, source = excluded.source, message = NULL, created_at = excluded.created_at
            """
        )
    }

    public func narrationFailed(app: String, key: String, message: String, at time: Date) async throws(StoreError) {
        try await execute(
            """
            INSERT INTO narrations (app, key, status, message, created_at) VALUES (\(app), \(key), 'failed', \(message), \(time.millisecondsSince1970))
            ON CONFLICT (app, key) DO UPDATE SET message = excluded.message, created_at = excluded.created_at
            WHERE narrations.status = 'failed'
            """
        )
    }

    public func narrationStates(app: String, keys: [String]) async throws(StoreError) -> [String: NarrationState] {
        guard !keys.isEmpty else { return [:] }
        let rows = try await all(
            """
            SELECT key, status, format, duration_ms, octet_length(bytes)::BIGINT, source, message, created_at
            FROM narrations WHERE app = \(app) AND key = ANY(\(keys))
            """,
            as: (String, String, String?, Int64?, Int64?, String?, String?, Int64).self
        )
        var states: [String: NarrationState] = [:]
        for (key, status, format, duration, size, source, message, created) in rows {
            states[key] = NarrationState(
                status: status, format: format, durationMS: duration, size: size, source: source, message: message, createdAt: created
            )
        }
        return states
    }

    public func narrationAudio(app: String, key: String) async throws(StoreError) -> NarrationAudio? {
        let rows = try await all(
            """
            SELECT format, duration_ms, bytes, source, created_at FROM narrations
            WHERE app = \(app) AND key = \(key) AND status = 'ready'
            """,
            as: (String?, Int64?, ByteBuffer?, String?, Int64).self
        )
        return rows.first.map { format, duration, bytes, source, created in
            NarrationAudio(
                app: app, key: key, format: format ?? "", duration: Double(duration ?? 0) / 1000,
                bytes: bytes.map { Array($0.readableBytesView) } ?? [],
                source: source.flatMap(NarrationAudio.Source.init(rawValue:)) ?? .generated,
                createdAt: Date(millisecondsSince1970: created)
            )
        }
    }

    public func deleteNarration(app: String, key: String) async throws(StoreError) {
        try await execute("DELETE FROM narrations WHERE app = \(app) AND key = \(key)")
    }
}
