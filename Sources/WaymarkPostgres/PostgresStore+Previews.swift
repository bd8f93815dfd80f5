import Foundation
import PostgresNIO
import WaymarkStore

extension PostgresStore {
    private typealias PreviewRow = (String, String, String, String, String, Int64, Int64, Int64?, String?)
    private static let previewColumns = "id, app, hash, url, created_by, created_at, expires_at, ended_at, edits"

    public func createPreview(_ preview: PreviewRecord, removingEndedBefore cutoff: Date) async throws(StoreError) {
        let cutoff = cutoff.millisecondsSince1970
        let (created, expires, ended) = (
            preview.createdAt.millisecondsSince1970, preview.expiresAt.millisecondsSince1970, preview.endedAt?.millisecondsSince1970
        )
        try await transaction { connection in
            // Their events go with them (ON DELETE CASCADE).
            try await connection.query(
                "DELETE FROM previews WHERE LEAST(COALESCE(ended_at, expires_at), expires_at) < \(cutoff)", logger: self.logger)
            try await connection.query(
                """
                INSERT INTO previews (id, app, hash, url, created_by, created_at, expires_at, ended_at, edits)
                VALUES (
                    \(preview.id), \(preview.app), \(preview.hash), \(preview.url), \(preview.createdBy), \(created), \(expires), \(ended),
                    \(preview.edits)
                )
                """, logger: self.logger)
        }
    }

    public func preview(hash: String) async throws(StoreError) -> PreviewRecord? {
        try await all("SELECT \(unescaped: Self.previewColumns) FROM previews WHERE hash = \(hash)", as: PreviewRow.self).first.map(
            Self.preview)
    }

    public func preview(app: String, id: String) async throws(StoreError) -> PreviewRecord? {
        try await all(
            "SELECT \(unescaped: Self.previewColumns) FROM previews WHERE app = \(app) AND id = \(id)", as: PreviewRow.self
        ).first.map(Self.preview)
    }

    public func previews(app: String) async throws(StoreError) -> [PreviewRecord] {
        try await all(
            "SELECT \(unescaped: Self.previewColumns) FROM previews WHERE app = \(app) ORDER BY created_at DESC, id", as: PreviewRow.self
        ).map(Self.preview)
    }

    public func endPreview(app: String, id: String, at time: Date) async throws(StoreError) -> Bool {
        let now = time.millisecondsSince1970
        return try await !all(
            """
            UPDATE previews SET ended_at = \(now) WHERE app = \(app) AND id = \(id) AND ended_at IS NULL AND expires_at > \(now)
            RETURNING id
            """, as: String.self
        ).isEmpty
    }

    public func recordPreviewEvents(preview: String, _ events: [PreviewEvent], limit: Int) async throws(StoreError) {
        try await transaction { connection in
            // The preview's row, locked, keeps two batches from passing the limit together.
            _ = try await Self.all("SELECT id FROM previews WHERE id = \(preview) FOR UPDATE", as: String.self, connection, self.logger)
            var count =
                try await Self.all(
                    "SELECT count(*) FROM preview_events WHERE preview = \(preview)", as: Int64.self, connection, self.logger
                )
                .first ?? 0
            for event in events where count < limit {
                let inserted = try await Self.all(
                    """
                    INSERT INTO preview_events (preview, id, name, target, timestamp, received_at, properties)
                    VALUES (\(preview), \(event.id), \(event.name), \(event.target), \(event.timestamp), \(event.receivedAt), \(event.properties))
                    ON CONFLICT DO NOTHING RETURNING id
                    """, as: String.self, connection, self.logger)
                count += Int64(inserted.count)
            }
        }
    }

    public func previewEvents(preview: String, limit: Int) async throws(StoreError) -> [PreviewEvent] {
        try await all(
            """
            SELECT id, name, target, timestamp, received_at, properties FROM preview_events WHERE preview = \(preview)
            ORDER BY timestamp DESC, id DESC LIMIT \(Int64(limit))
            """, as: (String, String, String?, Int64, Int64, String?).self
        ).map { id, name, target, timestamp, receivedAt, properties in
            PreviewEvent(id: id, name: name, target: target, timestamp: timestamp, receivedAt: receivedAt, properties: properties)
        }
    }

    private static func preview(_ row: PreviewRow) -> PreviewRecord {
        let (id, app, hash, url, createdBy, created, expires, ended, edits) = row
        return PreviewRecord(
            id: id, app: app, hash: hash, url: url, createdBy: createdBy, createdAt: Date(millisecondsSince1970: created),
            expiresAt: Date(millisecondsSince1970: expires), endedAt: ended.map(Date.init(millisecondsSince1970:)), edits: edits)
    }
}
