import Foundation
import GRDB
import WaymarkStore

extension SQLiteStore {
    static let capturesSchema = """
        CREATE TABLE captures (
            id TEXT PRIMARY KEY, app TEXT NOT NULL REFERENCES apps(id), preview TEXT NOT NULL, platform TEXT NOT NULL, screen TEXT NOT NULL,
            width REAL NOT NULL, height REAL NOT NULL, frames TEXT NOT NULL, image_type TEXT NOT NULL, image BLOB NOT NULL,
            created_at INTEGER NOT NULL
        );
        CREATE INDEX captures_by_app ON captures (app, created_at);
        """

    public func saveCapture(_ capture: StoredCapture, keeping limit: Int) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO captures (id, app, preview, platform, screen, width, height, frames, image_type, image, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    capture.id, capture.app, capture.preview, capture.platform, capture.screen, capture.width, capture.height,
                    capture.frames, capture.imageType, Data(capture.image), capture.createdAt.millisecondsSince1970,
                ])
            try db.execute(
                sql: """
                    DELETE FROM captures WHERE app = ? AND id NOT IN
                    (SELECT id FROM captures WHERE app = ? ORDER BY created_at DESC, id DESC LIMIT ?)
                    """,
                arguments: [capture.app, capture.app, limit])
        }
    }

    public func captures(app: String) async throws(StoreError) -> [StoredCapture] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, app, preview, platform, screen, width, height, frames, image_type, created_at FROM captures
                    WHERE app = ? ORDER BY created_at DESC, id DESC
                    """,
                arguments: [app]
            ).map { Self.capture($0, image: []) }
        }
    }

    public func capture(app: String, id: String) async throws(StoreError) -> StoredCapture? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM captures WHERE app = ? AND id = ?", arguments: [app, id]).map { row in
                Self.capture(row, image: Array((row["image"] as Data?) ?? Data()))
            }
        }
    }

    private static func capture(_ row: Row, image: [UInt8]) -> StoredCapture {
        StoredCapture(
            id: row["id"], app: row["app"], preview: row["preview"], platform: row["platform"], screen: row["screen"], width: row["width"],
            height: row["height"], frames: row["frames"], imageType: row["image_type"], image: image,
            createdAt: Date(millisecondsSince1970: row["created_at"]))
    }
}
