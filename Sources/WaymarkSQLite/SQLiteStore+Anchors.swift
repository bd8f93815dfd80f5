import Foundation
import GRDB
import WaymarkStore

extension SQLiteStore {
    static let anchorSightingsSchema = """
        CREATE TABLE anchor_sightings (
            app TEXT NOT NULL, platform TEXT NOT NULL, screen TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
            first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL, reports INTEGER NOT NULL, matches INTEGER,
            PRIMARY KEY (app, platform, screen, kind, name)
        ) WITHOUT ROWID
        """

    public func recordSightings(_ sightings: SightingBatch, at time: Date, limit: Int) async throws(StoreError) {
        let now = time.millisecondsSince1970
        try await write { db in
            var count = try Int.fetchOne(db, sql: "SELECT count(*) FROM anchor_sightings WHERE app = ?", arguments: [sightings.app]) ?? 0
            for (kind, name, matches) in sightings.names {
                let key: StatementArguments = [sightings.app, sightings.platform, sightings.screen, kind.rawValue, name]
                try db.execute(
                    sql: """
                        UPDATE anchor_sightings SET last_seen = max(last_seen, ?), reports = reports + 1, matches = ?
                        WHERE app = ? AND platform = ? AND screen = ? AND kind = ? AND name = ?
                        """,
                    arguments: [now, matches] + key)
                guard db.changesCount == 0, count < limit else { continue }
                try db.execute(
                    sql: """
                        INSERT INTO anchor_sightings (app, platform, screen, kind, name, first_seen, last_seen, reports, matches)
                        VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?)
                        """,
                    arguments: key + [now, now, matches])
                count += 1
            }
        }
    }

    public func sightings(app: String) async throws(StoreError) -> [Sighting] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT platform, screen, kind, name, first_seen, last_seen, reports, matches FROM anchor_sightings WHERE app = ?
                    ORDER BY screen, kind, name, platform
                    """,
                arguments: [app]
            ).compactMap { row in
                Sighting.Kind(rawValue: row["kind"]).map { kind in
                    Sighting(
                        platform: row["platform"], screen: row["screen"], kind: kind, name: row["name"],
                        firstSeen: Date(millisecondsSince1970: row["first_seen"]), lastSeen: Date(millisecondsSince1970: row["last_seen"]),
                        reports: row["reports"], matches: row["matches"])
                }
            }
        }
    }
}
