import Foundation
import GRDB
import WaymarkStore

extension SQLiteStore {
    static let previewsSchema = """
        CREATE TABLE previews (
            id TEXT PRIMARY KEY, app TEXT NOT NULL REFERENCES apps(id), hash TEXT NOT NULL UNIQUE, url TEXT NOT NULL,
            created_by TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, ended_at INTEGER
        );
        CREATE INDEX previews_by_app ON previews (app, created_at);
        CREATE TABLE preview_events (
            preview TEXT NOT NULL REFERENCES previews(id) ON DELETE CASCADE, id TEXT NOT NULL, name TEXT NOT NULL, target TEXT,
            timestamp INTEGER NOT NULL, received_at INTEGER NOT NULL, properties TEXT,
            PRIMARY KEY (preview, id)
        ) WITHOUT ROWID;
        """

    public func createPreview(_ preview: PreviewRecord, removingEndedBefore cutoff: Date) async throws(StoreError) {
        try await write { db in
            let ended = "min(coalesce(ended_at, expires_at), expires_at) < ?"
            try db.execute(
                sql: "DELETE FROM preview_events WHERE preview IN (SELECT id FROM previews WHERE \(ended))",
                arguments: [cutoff.millisecondsSince1970])
            try db.execute(sql: "DELETE FROM previews WHERE \(ended)", arguments: [cutoff.millisecondsSince1970])
            try db.execute(
                sql: """
                    INSERT INTO previews (id, app, hash, url, created_by, created_at, expires_at, ended_at, edits)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    preview.id, preview.app, preview.hash, preview.url, preview.createdBy, preview.createdAt.millisecondsSince1970,
                    preview.expiresAt.millisecondsSince1970, preview.endedAt?.millisecondsSince1970, preview.edits,
                ])
        }
    }

    public func preview(hash: String) async throws(StoreError) -> PreviewRecord? {
        try await read { db in try Row.fetchOne(db, sql: "SELECT * FROM previews WHERE hash = ?", arguments: [hash]).map(Self.preview) }
    }

    public func preview(app: String, id: String) async throws(StoreError) -> PreviewRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM previews WHERE app = ? AND id = ?", arguments: [app, id]).map(Self.preview)
        }
    }

    public func previews(app: String) async throws(StoreError) -> [PreviewRecord] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM previews WHERE app = ? ORDER BY created_at DESC, id", arguments: [app]).map(
                Self.preview)
        }
    }

    public func endPreview(app: String, id: String, at time: Date) async throws(StoreError) -> Bool {
        let now = time.millisecondsSince1970
        return try await write { db in
            try db.execute(
                sql: "UPDATE previews SET ended_at = ? WHERE app = ? AND id = ? AND ended_at IS NULL AND expires_at > ?",
                arguments: [now, app, id, now])
            return db.changesCount == 1
        }
    }

    public func recordPreviewEvents(preview: String, _ events: [PreviewEvent], limit: Int) async throws(StoreError) {
        try await write { db in
            var count = try Int.fetchOne(db, sql: "SELECT count(*) FROM preview_events WHERE preview = ?", arguments: [preview]) ?? 0
            for event in events where count < limit {
                try db.execute(
                    sql: """
                        INSERT INTO preview_events (preview, id, name, target, timestamp, received_at, properties)
                        VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING
                        """,
                    arguments: [preview, event.id, event.name, event.target, event.timestamp, event.receivedAt, event.properties])
                count += db.changesCount
            }
        }
    }

    public func previewEvents(preview: String, limit: Int) async throws(StoreError) -> [PreviewEvent] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM preview_events WHERE preview = ? ORDER BY timestamp DESC, id DESC LIMIT ?",
                arguments: [preview, limit]
            ).map { row in
                PreviewEvent(
                    id: row["id"], name: row["name"], target: row["target"], timestamp: row["timestamp"], receivedAt: row["received_at"],
                    properties: row["properties"])
            }
        }
    }

    private static func preview(_ row: Row) -> PreviewRecord {
        PreviewRecord(
            id: row["id"], app: row["app"], hash: row["hash"], url: row["url"], createdBy: row["created_by"],
            createdAt: Date(millisecondsSince1970: row["created_at"]), expiresAt: Date(millisecondsSince1970: row["expires_at"]),
            endedAt: (row["ended_at"] as Int64?).map(Date.init(millisecondsSince1970:)), edits: row["edits"])
    }
}
