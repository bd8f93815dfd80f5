import Foundation
import PostgresNIO
import WaymarkStore

extension PostgresStore {
    public func saveCapture(_ capture: StoredCapture, keeping limit: Int) async throws(StoreError) {
        let image = ByteBuffer(bytes: capture.image)
        let created = capture.createdAt.millisecondsSince1970
        try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO captures (id, app, preview, platform, screen, width, height, frames, image_type, image, created_at)
                VALUES (\(capture.id), \(capture.app), \(capture.preview), \(capture.platform), \(capture.screen), \(capture.width),
                \(capture.height), \(capture.frames), \(capture.imageType), \(image), \(created))
                """, logger: self.logger)
            try await connection.query(
                """
                DELETE FROM captures WHERE app = \(capture.app) AND id NOT IN
                (SELECT id FROM captures WHERE app = \(capture.app) ORDER BY created_at DESC, id DESC LIMIT \(Int64(limit)))
                """, logger: self.logger)
        }
    }

    public func captures(app: String) async throws(StoreError) -> [StoredCapture] {
        try await all(
            """
            SELECT id, app, preview, platform, screen, width, height, frames, image_type, created_at FROM captures
            WHERE app = \(app) ORDER BY created_at DESC, id DESC
            """, as: (String, String, String, String, String, Double, Double, String, String, Int64).self
        ).map { id, app, preview, platform, screen, width, height, frames, type, created in
            StoredCapture(
                id: id, app: app, preview: preview, platform: platform, screen: screen, width: width, height: height, frames: frames,
                imageType: type, image: [], createdAt: Date(millisecondsSince1970: created))
        }
    }

    public func capture(app: String, id: String) async throws(StoreError) -> StoredCapture? {
        try await all(
            """
            SELECT id, app, preview, platform, screen, width, height, frames, image_type, image, created_at FROM captures
            WHERE app = \(app) AND id = \(id)
            """, as: (String, String, String, String, String, Double, Double, String, String, ByteBuffer, Int64).self
        ).first.map { id, app, preview, platform, screen, width, height, frames, type, image, created in
            StoredCapture(
                id: id, app: app, preview: preview, platform: platform, screen: screen, width: width, height: height, frames: frames,
                imageType: type, image: Array(image.readableBytesView), createdAt: Date(millisecondsSince1970: created))
        }
    }
}
