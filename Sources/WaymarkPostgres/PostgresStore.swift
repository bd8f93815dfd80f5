import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import WaymarkStore
import WaymarkSupport

/// The ``Store`` on PostgreSQL, for several stateless servers on one database.
///
/// It runs as a `Service` (its connection pool runs with the server); ``migrate()`` brings the
/// schema up to date under an advisory lock, so servers starting at once migrate once. Every
/// method is one statement or one transaction; the changes that read before they write (a draft's
/// revision, the next version number, the last owner, a user's credit balance) lock the row or
/// key they depend on first, so concurrent servers serialize exactly where they must.
public final class PostgresStore: Store, Service {
    let client: PostgresClient
    let logger: Logger
    /// The longest an operation waits for a connection (while the database is down or every
    /// connection busy) before it fails as `.unavailable`. The pool itself would wait a minute.
    let patience: Duration
    /// App numbers read so far, by app id: see ``appNumbers(_:)``.
    let knownAppNumbers = Locked<[String: Int32]>([:])

    /// The URL the store was opened with, if it was: what ``checkConnection()`` connects with.
    let url: PostgresURL?

    /// - Parameter url: `postgres://user[:password]@host[:port]/database`, with TLS as libpq's
    ///   `sslmode` and `sslrootcert` say (see ``PostgresURL``).
    public convenience init(url: String, logger: Logger, patience: Duration = .seconds(5)) throws(StoreError) {
        let parsed = try PostgresURL(url)
        self.init(configuration: try parsed.clientConfiguration(), url: parsed, logger: logger, patience: patience)
    }

    /// The client configuration a `postgres://` URL names (see ``PostgresURL``).
    public static func configuration(url: String) throws(StoreError) -> PostgresClient.Configuration {
        try PostgresURL(url).clientConfiguration()
    }

    /// Connects once, outside the pool, and says why that fails, if it does: a server without
    /// TLS where the URL requires it, a certificate no trusted CA signed or not issued for the
    /// host, a wrong password. The pool would only retry until its patience ran out.
    public func checkConnection() async throws(StoreError) {
        guard let url else { return }
        let configuration = try url.connectionConfiguration()
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try await connection.close()
        } catch {
            throw StoreError(.unavailable, PostgresURL.reason(error, mode: url.mode, host: url.host))
        }
    }

    public convenience init(configuration: PostgresClient.Configuration, logger: Logger, patience: Duration = .seconds(5)) {
        self.init(configuration: configuration, url: nil, logger: logger, patience: patience)
    }

    init(configuration: PostgresClient.Configuration, url: PostgresURL?, logger: Logger, patience: Duration) {
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.url = url
        self.logger = logger
        self.patience = patience
    }

    /// Runs the connection pool until cancelled or shut down.
    public func run() async {
        await cancelWhenGracefulShutdown { await self.client.run() }
    }

    /// Applies the migrations this database lacks, holding an advisory lock meanwhile.
    public func migrate() async throws(StoreError) {
        try await perform { connection in
            try await connection.query("SELECT pg_advisory_lock(\(Schema.migrationLock))", logger: self.logger)
            do {
                try await connection.query(
                    "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
                    logger: self.logger
                )
                var applied: Set<String> = []
                for try await name in try await connection.query("SELECT name FROM migrations", logger: self.logger).decode(String.self) {
                    applied.insert(name)
                }
                for migration in Schema.migrations where !applied.contains(migration.name) {
                    try await connection.withTransaction(logger: self.logger) { connection in
                        for statement in migration.sql {
                            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: self.logger)
                        }
                        try await connection.query("INSERT INTO migrations (name) VALUES (\(migration.name))", logger: self.logger)
                    }
                }
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Schema.migrationLock))", logger: self.logger)
                throw error
            }
            try await connection.query("SELECT pg_advisory_unlock(\(Schema.migrationLock))", logger: self.logger)
        }
    }

    // MARK: Apps and keys

    public func createApp(_ app: AppRecord) async throws(StoreError) {
        try await execute(
            "INSERT INTO apps (id, name, identity_secret, created_at) VALUES (\(app.id), \(app.name), \(app.identitySecret), \(app.createdAt.millisecondsSince1970))"
        )
    }

    public func app(id: String) async throws(StoreError) -> AppRecord? {
        try await all("SELECT id, name, identity_secret, created_at FROM apps WHERE id = \(id)", as: (String, String, String, Int64).self)
            .first.map(Self.app)
    }

    public func apps() async throws(StoreError) -> [AppRecord] {
        try await all(
            "SELECT id, name, identity_secret, created_at FROM apps ORDER BY created_at, id", as: (String, String, String, Int64).self
        )
        .map(Self.app)
    }

    public func insertKey(_ key: KeyRecord) async throws(StoreError) {
        try await execute(
            """
            INSERT INTO keys (id, app, kind, hash, created_at, revoked_at)
            VALUES (\(key.id), \(key.app), \(key.kind.rawValue), \(key.hash), \(key.createdAt.millisecondsSince1970), \(key.revokedAt?.millisecondsSince1970))
            """
        )
    }

    public func key(hash: String) async throws(StoreError) -> KeyRecord? {
        try await all("SELECT id, app, kind, hash, created_at, revoked_at FROM keys WHERE hash = \(hash)", as: KeyRow.self).first.map(
            Self.key)
    }

    public func keys(app: String) async throws(StoreError) -> [KeyRecord] {
        try await all(
            "SELECT id, app, kind, hash, created_at, revoked_at FROM keys WHERE app = \(app) ORDER BY created_at, id", as: KeyRow.self
        )
        .map(Self.key)
    }

    public func revokeKey(id: String, app: String, at time: Date) async throws(StoreError) -> Bool {
        try await !all(
            "UPDATE keys SET revoked_at = COALESCE(revoked_at, \(time.millisecondsSince1970)) WHERE id = \(id) AND app = \(app) RETURNING id",
            as: String.self
        ).isEmpty
    }

    // MARK: Catalog

    public func draft(app: String) async throws(StoreError) -> CatalogDraft? {
        try await all("SELECT document, updated_at, revision FROM drafts WHERE app = \(app)", as: (String, Int64, Int64).self).first.map {
            CatalogDraft(app: app, document: $0.0, updatedAt: Date(millisecondsSince1970: $0.1), revision: Int($0.2))
        }
    }

    public func saveDraft(
        app: String, document: String, at time: Date, audit: [AuditEntry], accept: @escaping @Sendable (_ currentRevision: Int) -> Bool
    ) async throws(StoreError) -> CatalogDraft? {
        try await transaction { connection in
            // The app's row is the lock every change of its draft takes first.
            try await Self.lockApp(app, connection, self.logger)
            let current =
                try await Self.all("SELECT revision FROM drafts WHERE app = \(app)", as: Int64.self, connection, self.logger).first ?? 0
            guard accept(Int(current)) else { return nil }
            try await connection.query(
                """
                INSERT INTO drafts (app, document, updated_at, revision) VALUES (\(app), \(document), \(time.millisecondsSince1970), \(current + 1))
                ON CONFLICT (app) DO UPDATE SET document = excluded.document, updated_at = excluded.updated_at, revision = excluded.revision
                """,
                logger: self.logger
            )
            for entry in audit { _ = try await Self.insertAudit(entry, connection, self.logger) }
            return CatalogDraft(app: app, document: document, updatedAt: time, revision: Int(current) + 1)
        }
    }

    public func publish(
        app: String, document: String, at time: Date, note: String?, audit: @escaping @Sendable (CatalogVersion) -> [AuditEntry],
        notice: @escaping @Sendable (CatalogVersion) -> WebhookNotice?
    ) async throws(StoreError) -> CatalogVersion {
        try await transaction { connection in
            try await Self.lockApp(app, connection, self.logger)
            let last =
                try await Self.all(
                    "SELECT COALESCE(MAX(number), 0) FROM versions WHERE app = \(app)", as: Int64.self, connection, self.logger
                )
                .first ?? 0
            let version = CatalogVersion(app: app, number: Int(last) + 1, document: document, publishedAt: time, note: note)
            try await connection.query(
                """
                INSERT INTO versions (app, number, document, published_at, note)
                VALUES (\(app), \(Int64(version.number)), \(document), \(time.millisecondsSince1970), \(note))
                """,
                logger: self.logger
            )
            for entry in audit(version) { _ = try await Self.insertAudit(entry, connection, self.logger) }
            if let notice = notice(version) { try await Self.enqueue(notice, connection, self.logger) }
            return version
        }
    }

    public func liveVersion(app: String) async throws(StoreError) -> CatalogVersion? {
        try await all(
            "SELECT number, document, published_at, note FROM versions WHERE app = \(app) ORDER BY number DESC LIMIT 1", as: VersionRow.self
        ).first.map { Self.version(app, $0) }
    }

    public var isShared: Bool { true }

    public func liveVersionNumber(app: String) async throws(StoreError) -> Int? {
        try await all("SELECT MAX(number) FROM versions WHERE app = \(app)", as: Int64?.self).first?.map(Int.init)
    }

    public func version(app: String, number: Int) async throws(StoreError) -> CatalogVersion? {
        try await all(
            "SELECT number, document, published_at, note FROM versions WHERE app = \(app) AND number = \(Int64(number))",
            as: VersionRow.self
        ).first.map { Self.version(app, $0) }
    }

    public func versions(app: String) async throws(StoreError) -> [CatalogVersion] {
        try await all("SELECT number, '', published_at, note FROM versions WHERE app = \(app) ORDER BY number DESC", as: VersionRow.self)
            .map { Self.version(app, $0) }
    }

    // MARK: Events

    /// One COPY per batch: no statement to plan, the table written a page at a time, and no
    /// speculative insertion (which `ON CONFLICT` needs for every row). COPY takes no `ON CONFLICT`,
    /// so a batch holding an event stored before (a client's retry, or one id twice) fails as a
    /// whole on the primary key, and is then inserted with ``insertEventsSkippingStored(_:numbers:)``.
    public func insertEvents(
        _ events: [StoredEvent], notices: @escaping @Sendable ([StoredEvent]) -> [WebhookNotice]
    ) async throws(StoreError) -> [Bool] {
        guard !events.isEmpty else { return [] }
        if let error = StoreError.invalidEventIDs(events) { throw error }
        let numbers = try await appNumbers(events)
        if !notices(events).isEmpty {
            // The batches a webhook hears of take the slower way, in one transaction with their
            // notices, made of the events that were new.
            return try await transaction { connection in
                let inserted = try await Self.insertEventsSkippingStored(events, numbers: numbers, connection, self.logger)
                let new = zip(events, inserted).compactMap { $1 ? $0 : nil }
                for notice in notices(new) { try await Self.enqueue(notice, connection, self.logger) }
                return inserted
            }
        }
        // Written before the COPY starts: its backend would otherwise wait for it (`ClientRead`).
        let text = Self.copyText(events, numbers: numbers)
        do {
            try await perform { connection in
                try await connection.copyFrom(table: "events", columns: Self.eventColumnNames, logger: logger) { writer in
                    try await writer.write(text)
                }
            }
            return Array(repeating: true, count: events.count)
        } catch  where error.code == .conflict {
            return try await perform { connection in
                try await Self.insertEventsSkippingStored(events, numbers: numbers, connection, self.logger)
            }
        }
    }

    /// The numbers events carry for their apps (migration v5), by app id. An app's number never
    /// changes and apps are never deleted, so each server keeps those it has read; a batch naming
    /// an app that does not exist stores nothing (`.conflict`, as a foreign key would refuse it).
    func appNumbers(_ events: [StoredEvent]) async throws(StoreError) -> [String: Int32] {
        var numbers: [String: Int32] = [:]
        var missing: [String] = []
        var previous: String?
        knownAppNumbers.withLock { known in
            // A batch's events are runs of one app (an upload is one app's): one lookup per run.
            for event in events where event.app != previous {
                previous = event.app
                guard numbers[event.app] == nil else { continue }
                if let number = known[event.app] {
                    numbers[event.app] = number
                } else if !missing.contains(event.app) {
                    missing.append(event.app)
                }
            }
        }
        guard !missing.isEmpty else { return numbers }
        let read = try await all("SELECT id, number FROM apps WHERE id = ANY(\(missing))", as: (String, Int32).self)
        knownAppNumbers.withLock { known in
            for (app, number) in read {
                known[app] = number
                numbers[app] = number
            }
        }
        if let unknown = missing.first(where: { numbers[$0] == nil }) {
            throw StoreError(.conflict, "events of an app that does not exist: \(unknown)")
        }
        return numbers
    }

    static let eventColumnNames = [
        "app_number", "id", "user_id", "name", "target", "timestamp", "received_at", "clamped", "properties", "platform", "app_version",
    ]

    /// Events as COPY's text format: a line per event, columns separated by tabs, NULL as `\N`.
    /// `numbers` has every app of `events` (``appNumbers(_:)`` throws otherwise).
    static func copyText(_ events: [StoredEvent], numbers: [String: Int32]) -> ByteBuffer {
        var output: [UInt8] = []
        output.reserveCapacity(events.count * 256)
        let tab = UInt8(ascii: "\t")
        // Each column is followed by a tab; the line's last tab becomes its newline.
        func column(_ value: String?) {
            appendCopyText(value, to: &output)
            output.append(tab)
        }
        func column(_ value: Int64) {
            appendDecimal(value, to: &output)
            output.append(tab)
        }
        var app = ""
        var number: Int32 = 0
        // Each field is read in place: a copy of an event would retain and release its strings.
        for index in events.indices {
            if events[index].app != app {
                app = events[index].app
                number = numbers[app]!
            }
            // In the order of `eventColumnNames`.
            column(Int64(number))
            column(events[index].id)
            column(events[index].user)
            column(events[index].name)
            column(events[index].target)
            column(events[index].timestamp)
            column(events[index].receivedAt)
            output.append(events[index].clamped ? UInt8(ascii: "t") : UInt8(ascii: "f"))
            output.append(tab)
            column(events[index].properties)
            column(events[index].platform)
            column(events[index].appVersion)
            output[output.count - 1] = UInt8(ascii: "\n")
        }
        return ByteBuffer(bytes: output)
    }

    /// An integer in decimal digits, written without making a `String`.
    static func appendDecimal(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // At most 20 digits, written from the right into a buffer on the stack.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// One value in COPY's text format: backslash, tab, newline and carriage return escaped with a
    /// backslash; NULL as `\N`.
    static func appendCopyText(_ value: String?, to output: inout [UInt8]) {
        guard let value else { return output.append(contentsOf: #"\N"#.utf8) }
        // Reading the string's bytes in place (a `var` copy for `withUTF8` costs a retain per value).
        let appended: Void? = value.utf8.withContiguousStorageIfAvailable { appendCopyText($0, to: &output) }
        if appended == nil { Array(value.utf8).withUnsafeBufferPointer { appendCopyText($0, to: &output) } }
    }

    private static func appendCopyText(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var start = 0
        for index in bytes.indices {
            let byte = bytes[index]
            // Most bytes are none of the four: one comparison each.
            guard byte <= UInt8(ascii: "\r") || byte == UInt8(ascii: "\\") else { continue }
            let escaped: UInt8
            switch byte {
            case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
            case UInt8(ascii: "\t"): escaped = UInt8(ascii: "t")
            case UInt8(ascii: "\n"): escaped = UInt8(ascii: "n")
            case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
            default: continue
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            output.append(UInt8(ascii: "\\"))
            output.append(escaped)
            start = index + 1
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
    }

    /// Inserts those of `events` not stored yet, and says which: one INSERT with its columns bound
    /// as eleven arrays and unnested (the statement's text is the same for every batch, planned
    /// once per call however many rows it carries), returning the ids it stored.
    private static func insertEventsSkippingStored(
        _ events: [StoredEvent], numbers: [String: Int32], _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [Bool] {
        var columns = EventColumns(capacity: events.count)
        for event in events { columns.append(event, number: numbers[event.app]!) }
        let query: PostgresQuery = """
            INSERT INTO events (app_number, id, user_id, name, target, timestamp, received_at, clamped, properties, platform, app_version)
            SELECT * FROM unnest(
                \(columns.app)::INT4[], \(columns.id)::TEXT[]::UUID[], \(columns.user)::TEXT[], \(columns.name)::TEXT[], \(columns.target)::TEXT[],
                \(columns.timestamp)::BIGINT[], \(columns.receivedAt)::BIGINT[], \(columns.clamped)::BOOLEAN[], \(columns.properties)::TEXT[],
                \(columns.platform)::TEXT[], \(columns.appVersion)::TEXT[])
            ON CONFLICT DO NOTHING RETURNING app_number, id::TEXT
            """
        var inserted: Set<EventKey> = []
        for (app, id) in try await all(query, as: (Int32, String).self, connection, logger) { inserted.insert(EventKey(app: app, id: id)) }
        // A repeat within the batch is a duplicate of its first occurrence.
        return events.map { inserted.remove(EventKey(app: numbers[$0.app]!, id: $0.id)) != nil }
    }

    /// Events as columns, for ``insertEvents(_:)``.
    private struct EventColumns {
        var app: [Int32] = [], id = TextArray(), user = TextArray(), name = TextArray(), target = TextArray()
        var timestamp: [Int64] = [], receivedAt: [Int64] = [], clamped: [Bool] = []
        var properties = TextArray(), platform = TextArray(), appVersion = TextArray()

        init(capacity: Int) {
            app.reserveCapacity(capacity)
            timestamp.reserveCapacity(capacity)
            receivedAt.reserveCapacity(capacity)
            clamped.reserveCapacity(capacity)
        }

        mutating func append(_ event: StoredEvent, number: Int32) {
            app.append(number)
            id.append(event.id)
            user.append(event.user)
            name.append(event.name)
            target.append(event.target)
            timestamp.append(event.timestamp)
            receivedAt.append(event.receivedAt)
            clamped.append(event.clamped)
            properties.append(event.properties)
            platform.append(event.platform)
            appVersion.append(event.appVersion)
        }
    }

    private struct EventKey: Hashable {
        var app: Int32
        var id: String
    }

    public func eventCount(app: String) async throws(StoreError) -> Int {
        Int(
            try await all("SELECT COUNT(*) FROM events WHERE app_number = (SELECT number FROM apps WHERE id = \(app))", as: Int64.self)
                .first ?? 0)
    }

    public func eventNames(app: String, since: Int64, limit: Int) async throws(StoreError) -> [String] {
        try await all(
            """
            SELECT name, target FROM events WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND timestamp >= \(since)
            GROUP BY name, target ORDER BY COUNT(*) DESC, name, target LIMIT \(Int64(limit))
            """,
            as: (String, String?).self
        ).map { name, target in target.map { "\(name):\($0)" } ?? name }
    }

    public func deleteEvents(app: String, before: Int64, limit: Int) async throws(StoreError) -> Int {
        try await transaction { connection in
            // The days wholly before `before` leave the rollups; the day it falls in, which loses
            // some of its events, is unfolded.
            let day = Period.startOfDay(before)
            // The users left with no rollups are no longer numbered: no set keeps their number.
            try await connection.query(
                """
                DELETE FROM user_numbers AS n WHERE app_number = (SELECT number FROM apps WHERE id = \(app))
                AND user_id IN (SELECT user_id FROM event_days WHERE app_number = n.app_number AND day < \(day))
                AND NOT EXISTS (SELECT 1 FROM event_days AS d WHERE d.app_number = n.app_number AND d.user_id = n.user_id AND d.day >= \(day))
                """, logger: self.logger)
            try await connection.query(
                """
                DELETE FROM event_day_users WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND day < \(day)
                """, logger: self.logger)
            try await connection.query(
                """
                DELETE FROM event_days WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND day < \(day)
                """, logger: self.logger)
            try await connection.query(
                """
                DELETE FROM rolled_days WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND day <= \(day)
                """, logger: self.logger)
            try await Self.forgetEligibility(app: app, before: day, connection, self.logger)
            let deleted = Int(
                try await Self.all(
                    """
                    WITH app AS (SELECT number FROM apps WHERE id = \(app)),
                    gone AS (
                        DELETE FROM events WHERE app_number = (SELECT number FROM app) AND id IN (
                            SELECT id FROM events WHERE app_number = (SELECT number FROM app) AND timestamp < \(before)
                            ORDER BY timestamp LIMIT \(Int64(limit)))
                        RETURNING 1)
                    SELECT COUNT(*) FROM gone
                    """,
                    as: Int64.self, connection, self.logger
                ).first ?? 0)
            if deleted > 0 {
                try await connection.query(
                    """
                    INSERT INTO analytics_outbox (app_number, kind, before)
                    SELECT number, 'forget', \(before) FROM apps WHERE id = \(app) AND EXISTS (SELECT 1 FROM analytics_outbox_kept)
                    """, logger: self.logger)
            }
            return deleted
        }
    }

    public func eventRetentions() async throws(StoreError) -> [String: Int] {
        Dictionary(
            try await all("SELECT app, days FROM event_retention", as: (String, Int64).self).map { ($0.0, Int($0.1)) },
            uniquingKeysWith: { first, _ in first })
    }

    public func setEventRetention(app: String, days: Int?, audit: AuditEntry) async throws(StoreError) {
        try await transaction { connection in
            if let days {
                try await connection.query(
                    """
                    INSERT INTO event_retention (app, days) VALUES (\(app), \(Int64(days)))
                    ON CONFLICT (app) DO UPDATE SET days = excluded.days
                    """,
                    logger: self.logger)
            } else {
                try await connection.query("DELETE FROM event_retention WHERE app = \(app)", logger: self.logger)
            }
            _ = try await Self.insertAudit(audit, connection, self.logger)
        }
    }

    public func readingEvents(app: String, user: String, page: String, limit: Int) async throws(StoreError) -> [StoredEvent] {
        // The condition on the names is the partial index's own, so the planner takes it.
        try await all(
            """
            SELECT id::TEXT, name, timestamp, received_at, clamped, properties, platform, app_version FROM events
            WHERE app_number = (SELECT number FROM apps WHERE id = \(app)) AND user_id = \(user) AND target = \(page)
              AND name IN ('page_viewed', 'page_read_to_bottom')
            ORDER BY timestamp DESC LIMIT \(Int64(limit))
            """,
            as: (String, String, Int64, Int64, Bool, String?, String?, String?).self
        ).map { id, name, timestamp, received, clamped, properties, platform, appVersion in
            StoredEvent(
                app: app, id: id, user: user, name: name, target: page, timestamp: timestamp, receivedAt: received, clamped: clamped,
                propertiesJSON: properties, platform: platform, appVersion: appVersion)
        }
    }

    // MARK: Rewards

    public func claim(
        _ grant: Grant, credits: @escaping @Sendable (_ balance: Int) -> Int, notice: @escaping @Sendable (ClaimOutcome) -> WebhookNotice?
    ) async throws(StoreError) -> ClaimOutcome {
        try await transaction { connection in
            // One user's claims take turns: the cap reads their balance before it grants.
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(\(grant.app + "\u{1F}" + grant.user), 0))", logger: self.logger)
            let balance = try await Self.balance(app: grant.app, user: grant.user, connection, self.logger)
            let existing = try await Self.all(
                """
                SELECT \(unescaped: Self.grantColumns) FROM grants
                WHERE app = \(grant.app) AND user_id = \(grant.user) AND tour = \(grant.tour) AND page = \(grant.page)
                """,
                as: GrantRow.self, connection, self.logger
            )
            if let row = existing.first { return ClaimOutcome(grant: Self.grant(row), created: false, balance: balance) }
            var granted = grant
            granted.credits = credits(balance)
            // The app's grants are numbered one at a time, the lock held until this one commits:
            // a reader never sees a number before a smaller one that is still to come.
            try await connection.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(\("grants" + "\u{1F}" + grant.app), 0))", logger: self.logger)
            granted.sequence =
                try await Self.all(
                    """
                    INSERT INTO grants (app, user_id, tour, page, id, credits, granted_at, sequence)
                    VALUES (\(granted.app), \(granted.user), \(granted.tour), \(granted.page), \(granted.id), \(Int64(granted.credits)),
                            \(granted.grantedAt.millisecondsSince1970),
                            (SELECT COALESCE(MAX(sequence), 0) + 1 FROM grants WHERE app = \(granted.app)))
                    RETURNING sequence
                    """,
                    as: Int64.self, connection, self.logger
                ).first ?? 0
            let outcome = ClaimOutcome(grant: granted, created: true, balance: balance + granted.credits)
            if let notice = notice(outcome) { try await Self.enqueue(notice, connection, self.logger) }
            return outcome
        }
    }

    public func balance(app: String, user: String) async throws(StoreError) -> Int {
        try await perform { try await Self.balance(app: app, user: user, $0, self.logger) }
    }

    public func grants(app: String, user: String) async throws(StoreError) -> [Grant] {
        try await perform { connection in
            try await Self.all(
                "SELECT \(unescaped: Self.grantColumns) FROM grants WHERE app = \(app) AND user_id = \(user) ORDER BY sequence",
                as: GrantRow.self, connection, self.logger
            ).map(Self.grant)
        }
    }

    public func grants(app: String, after sequence: Int64, limit: Int) async throws(StoreError) -> [Grant] {
        try await perform { connection in
            try await Self.all(
                """
                SELECT \(unescaped: Self.grantColumns) FROM grants WHERE app = \(app) AND sequence > \(sequence)
                ORDER BY sequence LIMIT \(Int64(limit))
                """,
                as: GrantRow.self, connection, self.logger
            ).map(Self.grant)
        }
    }

    private static func balance(app: String, user: String, _ connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        Int(
            try await all(
                "SELECT COALESCE(SUM(credits), 0)::BIGINT FROM grants WHERE app = \(app) AND user_id = \(user)", as: Int64.self, connection,
                logger
            )
            .first ?? 0)
    }

    // MARK: Rows

    typealias KeyRow = (String, String, String, String, Int64, Int64?)
    typealias GrantRow = (String, String, String, String, String, Int64, Int64, Int64)
    static let grantColumns = "id, app, user_id, tour, page, credits, granted_at, sequence"

    static func grant(_ row: GrantRow) -> Grant {
        Grant(
            id: row.0, app: row.1, user: row.2, tour: row.3, page: row.4, credits: Int(row.5),
            grantedAt: Date(millisecondsSince1970: row.6), sequence: row.7)
    }
    typealias VersionRow = (Int64, String, Int64, String?)

    static func app(_ row: (String, String, String, Int64)) -> AppRecord {
        AppRecord(id: row.0, name: row.1, identitySecret: row.2, createdAt: Date(millisecondsSince1970: row.3))
    }

    static func key(_ row: KeyRow) -> KeyRecord {
        KeyRecord(
            id: row.0, app: row.1, kind: KeyRecord.Kind(rawValue: row.2) ?? .client, hash: row.3,
            createdAt: Date(millisecondsSince1970: row.4),
            revokedAt: row.5.map(Date.init(millisecondsSince1970:))
        )
    }

    static func version(_ app: String, _ row: VersionRow) -> CatalogVersion {
        CatalogVersion(app: app, number: Int(row.0), document: row.1, publishedAt: Date(millisecondsSince1970: row.2), note: row.3)
    }

    static func lockApp(_ app: String, _ connection: PostgresConnection, _ logger: Logger) async throws {
        try await connection.query("SELECT id FROM apps WHERE id = \(app) FOR UPDATE", logger: logger)
    }

    // MARK: Running queries

    /// Runs `body` on a connection from the pool, turning PostgreSQL's errors into ``StoreError``s:
    /// a unique or foreign key violation is `.conflict`; a database that cannot be reached, or no
    /// connection within ``patience``, `.unavailable` (the server answers 503 and clients retry).
    /// Once it has its connection, `body` runs to its end however long it takes.
    func perform<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws(StoreError) -> T {
        do {
            return try await withoutActuallyEscaping(body) { body in
                // The closure only runs within this call, in the child below.
                nonisolated(unsafe) let body = body
                let leased = Flag()
                return try await withThrowingTaskGroup(of: T?.self) { group in
                    group.addTask {
                        try await self.client.withConnection { connection in
                            leased.set()
                            return try await body(connection)
                        }
                    }
                    group.addTask {
                        try await Task.sleep(for: self.patience)
                        if leased.isSet { return nil }
                        throw StoreError(.unavailable, "no database connection within \(self.patience)")
                    }
                    while let result = try await group.next() {
                        if let result {
                            group.cancelAll()
                            return result
                        }
                    }
                    throw CancellationError()
                }
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let error as PSQLError:
            let state = error.serverInfo?[.sqlState] ?? ""
            let message = error.serverInfo?[.message] ?? "\(error.code)"
            // 23: integrity constraints; 08: connection; 53: resources; 57: the server shutting down.
            if state == "23505" || state == "23503" { return StoreError(.conflict, message) }
            // 22: a value the database cannot take (22021: a NUL character in text).
            if state.hasPrefix("22") { return StoreError(.invalidValue, message) }
            if error.serverInfo == nil || ["08", "53", "57"].contains(state.prefix(2)) { return StoreError(.unavailable, message) }
            return StoreError(.failed, message)
        case let error as PostgresTransactionError:
            if let cause = error.closureError ?? error.beginError ?? error.commitError { return storeError(cause) }
            return StoreError(.failed, "\(error)")
        default:
            return StoreError(.failed, "\(error)")
        }
    }

    func execute(_ query: PostgresQuery) async throws(StoreError) {
        try await perform { _ = try await $0.query(query, logger: logger) }
    }

    func all<Column: PostgresDecodable & Sendable>(_ query: PostgresQuery, as type: Column.Type) async throws(StoreError) -> [Column] {
        try await perform { try await Self.all(query, as: type, $0, logger) }
    }

    func all<each Column: PostgresDecodable & Sendable>(_ query: PostgresQuery, as type: (repeat each Column).Type) async throws(StoreError)
        -> [(repeat each Column)]
    {
        try await perform { try await Self.all(query, as: type, $0, logger) }
    }

    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws(StoreError) -> T {
        try await perform { connection in try await connection.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }

    static func all<Column: PostgresDecodable>(
        _ query: PostgresQuery, as type: Column.Type, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [Column] {
        var rows: [Column] = []
        for try await row in try await connection.query(query, logger: logger) { rows.append(try row.decode(Column.self)) }
        return rows
    }

    static func all<each Column: PostgresDecodable>(
        _ query: PostgresQuery, as type: (repeat each Column).Type, _ connection: PostgresConnection, _ logger: Logger
    ) async throws -> [(repeat each Column)] {
        var rows: [(repeat each Column)] = []
        for try await row in try await connection.query(query, logger: logger) { rows.append(try row.decode(type)) }
        return rows
    }
}

/// Set once, read from another task.
final class Flag: Sendable {
    private let value = Locked(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// A `TEXT[]` parameter whose elements may be NULL (PostgresNIO's arrays take no optionals),
/// written in PostgreSQL's binary array format as it grows.
struct TextArray: PostgresNonThrowingEncodable {
    private var elements = ByteBuffer()
    private var count: Int32 = 0
    private var hasNulls = false

    static var psqlType: PostgresDataType { .textArray }
    static var psqlFormat: PostgresFormat { .binary }

    mutating func append(_ value: String?) {
        count += 1
        guard let value else {
            hasNulls = true
            elements.writeInteger(-1, as: Int32.self)
            return
        }
        let lengthAt = elements.writerIndex
        elements.writeInteger(0, as: Int32.self)
        let length = elements.writeString(value)
        elements.setInteger(Int32(length), at: lengthAt)
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // Dimensions, whether any element is NULL, the element type; then the one dimension's
        // length and lower bound; then each element as its length (-1: NULL) and bytes.
        buffer.writeInteger(count == 0 ? 0 : 1, as: Int32.self)
        buffer.writeInteger(hasNulls ? 1 : 0, as: Int32.self)
        buffer.writeInteger(PostgresDataType.text.rawValue)
        guard count > 0 else { return }
        buffer.writeInteger(count, as: Int32.self)
        buffer.writeInteger(1, as: Int32.self)
        var elements = elements
        buffer.writeBuffer(&elements)
    }
}
