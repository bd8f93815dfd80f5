import Foundation
import Testing
import WaymarkConsole
import WaymarkPostgres
import WaymarkRules
import WaymarkSQLite
import WaymarkServer
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// `waymark migrate-data`: a SQLite database with something in every table, copied into a fresh
/// PostgreSQL database by the real binary, reads back the same through the protocol.
@Suite(.enabled(if: StoreUnderTest.available.contains(.postgres)), .timeLimit(.minutes(5)))
struct MigrateDataTests {
    static let t0 = Date(millisecondsSince1970: 1_790_000_000_000)

    /// Every table of `store` filled with a little of everything, NULLs and non-ASCII text included.
    static func fill(_ store: SQLiteStore) async throws {
        for app in ["shop", "blog"] {
            try await store.createApp(AppRecord(id: app, name: "App « \(app) »", identitySecret: "secret-\(app)", createdAt: t0))
            try await store.insertKey(KeyRecord(id: "key-\(app)-1", app: app, kind: .client, hash: "hash-\(app)-1", createdAt: t0))
            try await store.insertKey(
                KeyRecord(id: "key-\(app)-2", app: app, kind: .secret, hash: "hash-\(app)-2", createdAt: t0, revokedAt: t0 + 60))
            _ = try await store.saveDraft(app: app, document: "tips: []\n", at: t0, audit: [], accept: CatalogDraft.unchanged(since: nil))
            _ = try await store.saveDraft(
                app: app, document: "tips:\n  - id: héllo\n", at: t0 + 1, audit: [], accept: CatalogDraft.unchanged(since: 1))
            _ = try await store.publish(app: app, document: "tips: []\n", at: t0 + 2, note: nil, audit: AuditEntry.publication(by: .cli))
            _ = try await store.publish(
                app: app, document: "tips:\n  - id: héllo\n", at: t0 + 3, note: "second",
                audit: AuditEntry.publication(by: .user("ada@example.com")))
            var events: [StoredEvent] = []
            for index in 0..<12_345 {
                let target: String? = index % 5 == 0 ? nil : "t\(index % 11)"
                let platform = index % 4 == 1 ? "ios" : "web"
                let properties: [String: String]? = index % 2 == 0 ? nil : ["platform": platform, "appVersion": "1.\(index % 3)"]
                let time = t0.millisecondsSince1970 + Int64(index)
                events.append(
                    StoredEvent(
                        app: app, id: EventID.make(milliseconds: time, number: index), user: "u\(index % 37)",
                        name: index % 3 == 0 ? "tap" : "screen",
                        target: target, timestamp: time, receivedAt: t0.millisecondsSince1970, clamped: index % 7 == 0,
                        properties: properties
                    )
                )
            }
            _ = try await store.insertEvents(events)
            _ = try await store.claim(Grant(id: "g-\(app)", app: app, user: "u1", tour: "tour", page: "p", credits: 5, grantedAt: t0)) {
                _ in 5
            }
            // Audio with every byte value, and a failure.
            try await store.saveNarration(
                NarrationAudio(
                    app: app, key: "00ff", format: "audio/ogg", duration: 1.25, bytes: (0..<3_000).map { UInt8($0 % 256) },
                    source: .recording,
                    createdAt: t0
                )
            )
            try await store.narrationFailed(app: app, key: "0bad", message: "espeak-ng failed: ü", at: t0)
            _ = try await store.updateAttributes(
                app: app, user: "u1",
                [
                    "plan": .string("plus ü"), "cityTier": .number(2.5), "codUser": .bool(true), "firstOrderAt": .time(milliseconds: -1),
                    "appBuild": .version(Version([5, 2, 1])),
                ], at: t0, limit: 50)
            _ = try await store.updateProgress(app: app, user: "u1", at: t0) { _ in #"{"tips":{"tip é":{"shown":2,"finished":"closed"}}}"# }
            try await store.recordSightings(
                SightingBatch(app: app, platform: "web", screen: "products", anchors: ["product", "cart-link"], areas: ["products"]),
                at: t0, limit: 100)
            // A preview, ended, with what its device sent.
            try await store.createPreview(
                PreviewRecord(
                    id: "pv_\(app)", app: app, hash: "hash-\(app)", url: "myshop://home", createdBy: "user:ada@example.com", createdAt: t0,
                    expiresAt: t0.addingTimeInterval(1800), endedAt: t0.addingTimeInterval(60)), removingEndedBefore: t0)
            try await store.recordPreviewEvents(
                preview: "pv_\(app)",
                [
                    PreviewEvent(
                        id: "018f4b2a-0000-7000-8000-00000000000a", name: "tip_shown", target: "tip é", timestamp: 1, receivedAt: 2,
                        properties: #"{"platform":"web"}"#)
                ],
                limit: 10)
            // An endpoint mid-rotation and a notice on its way.
            _ = try await store.createWebhookEndpoint(
                WebhookEndpoint(
                    id: "whe-\(app)", app: app, url: "https://\(app).example/hooks", types: ["credit.granted", "user.erased"],
                    secret: "s-new",
                    previousSecret: "s-old", previousUntil: t0 + 3600, createdAt: t0),
                limit: 10,
                audit: AuditEntry(app: app, actor: .cli, at: t0, action: .webhookCreate, object: "webhook", before: nil, after: nil))
            _ = try await store.claim(Grant(id: "g2-\(app)", app: app, user: "u2", tour: "tour", page: "p", credits: 1, grantedAt: t0)) {
                _ in
                1
            } notice: { _ in
                WebhookNotice(id: "evt-\(app)", app: app, type: "credit.granted", user: "u2", createdAt: t0, body: #"{"note":"é"}"#)
            }
        }
        try await store.createUser(ConsoleUser(id: "ada", email: "ada@example.com", passwordHash: "$2b$hash", createdAt: t0))
        try await store.createUser(ConsoleUser(id: "vic", email: "vic@example.com", passwordHash: "$2b$hash2", createdAt: t0))
        try await store.changeRole(.owner, user: "ada", app: "shop", check: Accounts.keepsAnOwner)
        try await store.changeRole(.viewer, user: "vic", app: "shop", check: Accounts.keepsAnOwner)
        try await store.insertSession(ConsoleSession(id: "session-hash", user: "ada", csrfToken: "csrf", createdAt: t0, lastSeenAt: t0 + 5))
        try await store.appendAudit(
            AuditEntry(
                app: "shop", actor: .user("ada@example.com"), at: t0, action: .change(of: "tip", "added"), object: "tip héllo", before: nil,
                after: "id: héllo"))
    }

    /// What a server would read, table by table, through the protocol.
    static func contents(_ store: any Store) async throws -> [String] {
        var lines: [String] = []
        for app in try await store.apps() {
            lines.append("\(app)")
            lines += try await store.keys(app: app.id).map { "\($0)" }
            lines.append("\(String(describing: try await store.draft(app: app.id)))")
            for version in try await store.versions(app: app.id) {
                lines.append("\(String(describing: try await store.version(app: app.id, number: version.number)))")
            }
            var cursor: EventCursor?
            while true {
                let page = try await store.events(app: app.id, period: Period(from: 0, to: .max), user: nil, after: cursor, limit: 5_000)
                guard let last = page.last else { break }
                lines += page.map { "\($0)" }
                cursor = EventCursor(after: last)
            }
            lines.append("balance \(try await store.balance(app: app.id, user: "u1"))")
            lines += try await store.attributes(app: app.id, user: "u1").map { "\($0)" }
            lines.append("progress \(String(describing: try await store.progress(app: app.id, user: "u1")))")
            lines.append("\(try await store.narrationStates(app: app.id, keys: ["00ff", "0bad"]).sorted { $0.key < $1.key })")
            lines.append("\(String(describing: try await store.narrationAudio(app: app.id, key: "00ff")))")
            lines += try await store.members(app: app.id).map { "\($0)" }
            lines += try await store.auditLog(app: app.id, limit: 100).map { "\($0)" }
            lines += try await store.webhookEndpoints(app: app.id).map { "\($0)" }
            lines += try await store.webhookDeliveries(app: app.id, endpoint: nil, limit: 10).map { "\($0)" }
            lines += try await store.sightings(app: app.id).map { "\($0)" }
            for preview in try await store.previews(app: app.id) {
                lines.append("\(preview)")
                lines += try await store.previewEvents(preview: preview.id, limit: 10).map { "\($0)" }
            }
        }
        lines.append("\(String(describing: try await store.session(id: "session-hash")))")
        return lines
    }

    @Test func copiesEveryTableAndRefusesADatabaseInUse() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = try SQLiteStore(path: directory.appendingPathComponent("waymark.sqlite").path)
        try await Self.fill(source)
        let expected = try await Self.contents(source)
        #expect(expected.count > 24_000)

        try await PostgresDatabase.withFresh(url: try StoreUnderTest.requirePostgresURL()) { target, url in
            let output = try TwoServersTests.run(["migrate-data", "--data-dir", directory.path, "--database", url, "--log-level", "error"])
            #expect(output.contains("events: 24690 rows") && output.contains("audit: "), "\(output)")
            let copied = try await Self.contents(target)
            #expect(copied.count == expected.count)
            #expect(
                copied == expected, "first difference: \(zip(copied, expected).first { $0 != $1 }.map { "\($0) ≠ \($1)" } ?? "in length")")
            // The audit log continues from the copied numbers.
            let last = try #require(try await target.auditLog(app: "shop", limit: 1).first)
            let next = try await target.appendAudit(
                AuditEntry(app: "shop", actor: .cli, at: Self.t0, action: .publish, object: "version 3", before: nil, after: nil))
            #expect(next.sequence == last.sequence + 1)

            // A second copy into the same database is refused and changes nothing.
            let again = try TwoServersTests.run(
                ["migrate-data", "--data-dir", directory.path, "--database", url, "--log-level", "error"], expectFailure: true)
            #expect(again.contains("not empty"), "\(again)")
            #expect(try await target.eventCount(app: "shop") == 12_345)
        }
    }
}
