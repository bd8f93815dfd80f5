import Foundation
import PostgresNIO
import Testing
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

@testable import WaymarkPostgres

/// What the PostgreSQL store promises beyond the contract: migrations that several servers may
/// run at once, and an audit log the database itself keeps append-only.
@Suite(.enabled(if: StoreUnderTest.available.contains(.postgres)), .timeLimit(.minutes(5)))
struct PostgresStoreTests {
    @Test func serversStartingAtOnceMigrateOnce() async throws {
        try await PostgresDatabase.withFresh(url: try StoreUnderTest.requirePostgresURL(), migrate: false) { first, url in
            let second = try PostgresStore(url: url, logger: PostgresDatabase.logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await second.run() }
                defer { group.cancelAll() }
                async let one: Void = first.migrate()
                async let two: Void = second.migrate()
                _ = try await (one, two)
                try await first.migrate()
                try await first.createApp(AppRecord(id: "a", name: "A", identitySecret: "s", createdAt: Date()))
                #expect(try await second.app(id: "a")?.name == "A")
            }
            let applied = try await PostgresDatabase.withClient(url: url) { client in
                var names: [String] = []
                for try await name in try await client.query("SELECT name FROM migrations ORDER BY name").decode(String.self) {
                    names.append(name)
                }
                return names
            }
            #expect(applied.count == Schema.migrations.count && Set(applied).count == Schema.migrations.count, "each migration once")
        }
    }

    /// An id the server once let through (Foundation's UUID parser took spaces and signs), and the
    /// UUID PostgreSQL makes of it when moving it into a `uuid` column.
    static let oldID = "40ef eb7-2263-452b-9d5b-d35a10692dc6"

    static func madeOfOldID(_ url: String) async throws -> String {
        try await PostgresDatabase.withClient(url: url) { client in
            var made: [String] = []
            for try await id in try await client.query("SELECT md5(\(Self.oldID))::UUID::TEXT").decode(String.self) { made.append(id) }
            return try #require(made.first)
        }
    }

    /// A database made before event ids were `uuid` (v3) keeps its events, ids and order through
    /// the migrations; an id that is no UUID becomes one made of its MD5. Events of an app missing
    /// from `apps` (the table has no foreign key) keep it: v5 makes the app, without keys.
    @Test func eventsKeepTheirIDsAndAppsThroughTheMigrations() async throws {
        try await PostgresDatabase.withFresh(url: try StoreUnderTest.requirePostgresURL(), migrate: false) { store, url in
            let ids = [
                EventID.make(milliseconds: 5, number: 2), EventID.make(milliseconds: 5, number: 1),
                EventID.make(milliseconds: 4, number: 9), Self.oldID,
            ]
            try await PostgresDatabase.withClient(url: url) { client in
                try await client.query("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
                for migration in Schema.migrations.prefix(3) {
                    for statement in migration.sql { try await client.query(PostgresQuery(unsafeSQL: statement)) }
                    try await client.query("INSERT INTO migrations (name) VALUES (\(migration.name))")
                }
                try await client.query("INSERT INTO apps (id, name, identity_secret, created_at) VALUES ('a', 'A', 'secret', 1)")
                for (index, id) in ids.enumerated() {
                    try await client.query(
                        "INSERT INTO events (app, id, user_id, name, timestamp, received_at, clamped) VALUES ('a', \(id), 'u', 'tap', \(Int64([5, 5, 4, 6][index])), 0, false)"
                    )
                }
                try await client.query(
                    "INSERT INTO events (app, id, user_id, name, timestamp, received_at, clamped) VALUES ('gone', \(ids[0]), 'u', 'tap', 5, 0, false)"
                )
            }
            try await store.migrate()
            let read = try await store.events(app: "a", period: Period(from: 0, to: 10), user: nil, after: nil, limit: 10)
            #expect(read.map(\.id) == [ids[2], ids[1], ids[0], try await Self.madeOfOldID(url)])
            #expect(
                try await store.insertEvents(
                    read.map { event in
                        var event = event
                        event.timestamp = 7
                        return event
                    }) == [false, false, false, false], "the same ids, as uuid now")
            #expect(
                try await store.events(app: "gone", period: Period(from: 0, to: 10), user: nil, after: nil, limit: 10).map(\.id) == [ids[0]]
            )
            let gone = try #require(try await store.app(id: "gone"))
            #expect(gone.identitySecret.hasPrefix("wm_id_") && gone.identitySecret.count == 70)
            #expect(try await store.keys(app: "gone").isEmpty)
            #expect(try await store.app(id: "a")?.identitySecret == "secret")
        }
    }

    /// Grants made before the ledger was numbered get numbers by when they were granted, per app,
    /// and the next grant follows them.
    @Test func earlierGrantsAreNumberedByTheirTime() async throws {
        try await PostgresDatabase.withFresh(url: try StoreUnderTest.requirePostgresURL(), migrate: false) { store, url in
            try await PostgresDatabase.withClient(url: url) { client in
                try await client.query("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
                for migration in Schema.migrations.prefix(while: { !$0.name.hasPrefix("v10:") }) {
                    for statement in migration.sql { try await client.query(PostgresQuery(unsafeSQL: statement)) }
                    try await client.query("INSERT INTO migrations (name) VALUES (\(migration.name))")
                }
                for (app, user, id, time) in [("a", "u1", "g3", 30), ("a", "u2", "g1", 10), ("b", "u1", "g9", 20), ("a", "u1", "g2", 20)] {
                    try await client.query(
                        "INSERT INTO grants (app, user_id, tour, page, id, credits, granted_at) VALUES (\(app), \(user), 't', \(id), \(id), 1, \(Int64(time)))"
                    )
                }
            }
            try await store.migrate()
            #expect(try await store.grants(app: "a", after: 0, limit: 10).map { "\($0.sequence) \($0.id)" } == ["1 g1", "2 g2", "3 g3"])
            #expect(try await store.grants(app: "b", after: 0, limit: 10).map(\.sequence) == [1])
            let next = try await store.claim(Grant(id: "g4", app: "a", user: "u3", tour: "t", page: "p", credits: 1, grantedAt: Date())) {
                _ in 1
            }
            #expect(next.grant.sequence == 4)
        }
    }

    /// `waymark migrate-data` keeps such an event too.
    @Test func anImportedEventWhoseIDIsNoUUIDIsKept() async throws {
        try await PostgresDatabase.withFresh(url: try StoreUnderTest.requirePostgresURL()) { store, url in
            let id = EventID.make(milliseconds: 5, number: 1)
            try await store.importAll { importer in
                try await importer.insert(.apps, [["a", "A", "secret", "0"]])
                try await importer.insert(
                    .events,
                    [
                        ["a", id, "u", "tap", nil, "5", "0", "0", nil, nil, nil],
                        ["a", Self.oldID, "u", "tap", nil, "6", "0", "1", nil, nil, nil],
                    ])
            }
            let read = try await store.events(app: "a", period: Period(from: 0, to: 10), user: nil, after: nil, limit: 10)
            #expect(read.map(\.id) == [id, try await Self.madeOfOldID(url)])
        }
    }

    @Test func theDatabaseRefusesToRewriteTheAuditLog() async throws {
        try await PostgresDatabase.withFresh(url: try StoreUnderTest.requirePostgresURL()) { store, url in
            try await store.appendAudit(
                AuditEntry(app: "a", actor: .cli, at: Date(), action: .publish, object: "version 1", before: nil, after: nil))
            try await PostgresDatabase.withClient(url: url) { client in
                await #expect(throws: PSQLError.self) { try await client.query("UPDATE audit SET actor = 'someone else'") }
                await #expect(throws: PSQLError.self) { try await client.query("DELETE FROM audit") }
                await #expect(throws: PSQLError.self) { try await client.query("TRUNCATE audit") }
            }
            #expect(try await store.auditLog(app: "a", limit: 10).map(\.actor) == [.cli])
        }
    }
}

/// Integers go into COPY's text digit by digit, without a `String`: every sign and length.
@Test(.timeLimit(.minutes(1))) func copyTextWritesIntegersAsSwiftDoes() {
    for value: Int64 in [0, 7, -1, 10, 1_795_386_193_000, -1_795_386_193_000, .max, .min] {
        var output: [UInt8] = []
        PostgresStore.appendDecimal(value, to: &output)
        #expect(String(decoding: output, as: UTF8.self) == String(value))
    }
}

/// A database that does not answer fails each operation once the store's patience has passed, as
/// `.unavailable` (the server answers 503), instead of after the pool's minute of retries: the
/// error is the patience's own, which names it.
@Test(.timeLimit(.minutes(1)))
func aDatabaseThatDoesNotAnswerIsUnavailableWithinThePatience() async throws {
    let store = try PostgresStore(
        url: "postgres://nobody@127.0.0.1:1/nothing", logger: PostgresDatabase.logger, patience: .milliseconds(300))
    await withTaskGroup(of: Void.self) { group in
        group.addTask { await store.run() }
        defer { group.cancelAll() }
        await #expect(
            performing: { _ = try await store.app(id: "a") },
            throws: { error in
                guard let error = error as? StoreError else { return false }
                return error.code == .unavailable && error.message.contains("no database connection within 0.3 seconds")
            })
    }
}
