import Foundation
import GRDB
import WaymarkStore

/// One row per (app, key): `ready` with the audio, or `failed` with the reason.
let narrationSchema = """
    CREATE TABLE narrations (
        app TEXT NOT NULL,
        key TEXT NOT NULL,
        status TEXT NOT NULL,
        format TEXT,
        duration_ms INTEGER,
        bytes BLOB,
        source TEXT,
        message TEXT,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (app, key)
    );
    """

extension SQLiteStore {
    public func saveNarration(_ audio: NarrationAudio) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO narrations (app, key, status, format, duration_ms, bytes, source, message, created_at)
                    VALUES (?, ?, 'ready', ?, ?, ?, ?, NULL, ?)
                    """,
                arguments: [
                    audio.app, audio.key, audio.format, Int64((audio.duration * 1000).rounded()), Data(audio.bytes), audio.source.rawValue,
                    audio.createdAt.millisecondsSince1970,
                ]
            )
        }
    }

    public func narrationFailed(app: String, key: String, message: String, at time: Date) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO narrations (app, key, status, message, created_at) VALUES (?, ?, 'failed', ?, ?)
                    ON CONFLICT (app, key) DO UPDATE SET message = excluded.message, created_at = excluded.created_at
                    WHERE narrations.status = 'failed'
                    """,
                arguments: [app, key, message, time.millisecondsSince1970]
            )
        }
    }

    public func narrationStates(app: String, keys: [String]) async throws(StoreError) -> [String: NarrationState] {
        guard !keys.isEmpty else { return [:] }
        return try await read { db in
            var states: [String: NarrationState] = [:]
            // SQLite binds at most 32,766 values per statement.
            for chunk in stride(from: 0, to: keys.count, by: 10_000).map({ Array(keys[$0..<min($0 + 10_000, keys.count)]) }) {
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT key, status, format, duration_ms, length(bytes) AS size, source, message, created_at
                        FROM narrations WHERE app = ? AND key IN (\(placeholders))
                        """,
                    arguments: StatementArguments([app] + chunk)
                )
                for row in rows {
                    states[row["key"]] = NarrationState(
                        status: row["status"], format: row["format"], durationMS: row["duration_ms"], size: row["size"],
                        source: row["source"], message: row["message"], createdAt: row["created_at"]
                    )
                }
            }
            return states
        }
    }

    public func narrationAudio(app: String, key: String) async throws(StoreError) -> NarrationAudio? {
        try await read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM narrations WHERE app = ? AND key = ? AND status = 'ready'", arguments: [app, key]
                )
            else { return nil }
            let bytes: Data = row["bytes"] ?? Data()
            return NarrationAudio(
                app: app, key: key, format: row["format"] ?? "", duration: Double(row["duration_ms"] as Int64? ?? 0) / 1000,
                bytes: [UInt8](bytes), source: NarrationAudio.Source(rawValue: row["source"] ?? "") ?? .generated,
                createdAt: Date(millisecondsSince1970: row["created_at"])
            )
        }
    }

    public func deleteNarration(app: String, key: String) async throws(StoreError) {
        try await write { db in try db.execute(sql: "DELETE FROM narrations WHERE app = ? AND key = ?", arguments: [app, key]) }
    }
}
