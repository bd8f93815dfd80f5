import Foundation
import PostgresNIO
import WaymarkStore

extension PostgresStore {
    public func recordSightings(_ sightings: SightingBatch, at time: Date, limit: Int) async throws(StoreError) {
        let now = time.millisecondsSince1970
        let (app, platform, screen) = (sightings.app, sightings.platform, sightings.screen)
        try await transaction { connection in
            var count =
                try await Self.all("SELECT count(*) FROM anchor_sightings WHERE app = \(app)", as: Int64.self, connection, self.logger)
                .first ?? 0
            for (kind, name, matches) in sightings.names {
                let kind = kind.rawValue
                let matches = matches.map(Int64.init)
                let updated = try await Self.all(
                    """
                    UPDATE anchor_sightings SET last_seen = GREATEST(last_seen, \(now)), reports = reports + 1, matches = \(matches)
                    WHERE app = \(app) AND platform = \(platform) AND screen = \(screen) AND kind = \(kind) AND name = \(name)
                    RETURNING reports
                    """, as: Int64.self, connection, self.logger)
                guard updated.isEmpty, count < limit else { continue }
                // Another server may have added it meanwhile: then it is counted there.
                try await connection.query(
                    """
                    INSERT INTO anchor_sightings (app, platform, screen, kind, name, first_seen, last_seen, reports, matches)
                    VALUES (\(app), \(platform), \(screen), \(kind), \(name), \(now), \(now), 1, \(matches))
                    ON CONFLICT (app, platform, screen, kind, name) DO UPDATE
                    SET last_seen = GREATEST(anchor_sightings.last_seen, excluded.last_seen), reports = anchor_sightings.reports + 1,
                    matches = excluded.matches
                    """, logger: self.logger)
                count += 1
            }
        }
    }

    public func sightings(app: String) async throws(StoreError) -> [Sighting] {
        try await all(
            """
            SELECT platform, screen, kind, name, first_seen, last_seen, reports, matches FROM anchor_sightings WHERE app = \(app)
            ORDER BY screen, kind, name, platform
            """, as: (String, String, String, String, Int64, Int64, Int64, Int64?).self
        ).compactMap { platform, screen, kind, name, first, last, reports, matches in
            Sighting.Kind(rawValue: kind).map { kind in
                Sighting(
                    platform: platform, screen: screen, kind: kind, name: name, firstSeen: Date(millisecondsSince1970: first),
                    lastSeen: Date(millisecondsSince1970: last), reports: Int(reports), matches: matches.map(Int.init))
            }
        }
    }
}
