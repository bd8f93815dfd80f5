import Foundation
import Testing
import WaymarkConsole
import WaymarkRules
import WaymarkServer
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// The storage contract: what every ``Store`` must do, whatever the database. Each test runs
/// against every store in `StoreUnderTest` (SQLite; PostgreSQL where one runs) on a fresh database, through the protocol only, so
/// that the server's handlers may rely on exactly this and nothing more.
@Suite(.timeLimit(.minutes(5))) struct StoreContractTests {
    static let t0 = Date(millisecondsSince1970: 1_790_000_000_000)

    static func makeApp(_ id: String, in store: any Store) async throws {
        try await store.createApp(AppRecord(id: id, name: "App \(id)", identitySecret: "secret-\(id)", createdAt: t0))
    }

    /// The event id a short label in these tests stands for: a UUID whose last bytes are the
    /// label's (at most 6), so labels of one length sort as their ids do.
    static func id(_ label: String) -> String {
        EventID.make(milliseconds: 0, number: label.utf8.reduce(0) { $0 << 8 | Int($1) })
    }

    static func event(
        _ app: String, _ id: String, user: String = "u1", _ name: String = "tap", target: String? = nil, at offset: Int64 = 0,
        properties: [String: String]? = nil
    ) -> StoredEvent {
        let time = t0.millisecondsSince1970 + offset
        return StoredEvent(
            app: app, id: Self.id(id), user: user, name: name, target: target, timestamp: time, receivedAt: time, clamped: false,
            properties: properties
        )
    }

    // MARK: Apps and keys

    @Test(arguments: StoreUnderTest.available)
    func appsAndKeysBelongToOneApp(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            try await Self.makeApp("b", in: store)
            await #expect(throws: StoreError.self) { try await Self.makeApp("a", in: store) }
            #expect(try await store.app(id: "a")?.identitySecret == "secret-a")
            #expect(try await store.app(id: "nope") == nil)
            #expect(Set(try await store.apps().map(\.id)) == ["a", "b"])

            let first = KeyRecord(id: "key_1", app: "a", kind: .client, hash: "h1", createdAt: Self.t0)
            let second = KeyRecord(id: "key_2", app: "a", kind: .secret, hash: "h2", createdAt: Self.t0 + 1)
            try await store.insertKey(second)
            try await store.insertKey(first)
            await #expect(throws: StoreError.self) {
                try await store.insertKey(KeyRecord(id: "key_3", app: "b", kind: .client, hash: "h1", createdAt: Self.t0))
            }
            #expect(try await store.keys(app: "a").map(\.id) == ["key_1", "key_2"], "oldest first")
            #expect(try await store.keys(app: "b").isEmpty)
            #expect(try await store.key(hash: "h2") == second)
            #expect(try await store.key(hash: "nope") == nil)

            #expect(try await store.revokeKey(id: "key_1", app: "b", at: Self.t0) == false, "another app's key")
            #expect(try await store.key(hash: "h1")?.revokedAt == nil)
            #expect(try await store.revokeKey(id: "key_1", app: "a", at: Self.t0 + 10))
            #expect(try await store.revokeKey(id: "key_1", app: "a", at: Self.t0 + 20))
            #expect(try await store.key(hash: "h1")?.revokedAt == Self.t0 + 10, "the first revocation stands")
        }
    }

    // MARK: Narration

    @Test(arguments: StoreUnderTest.available)
    func narrationAudioIsKeptPerAppAndAFailureNeverHidesAudio(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            let bytes = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let audio = NarrationAudio(
                app: "a", key: "k1", format: "audio/ogg", duration: 2.345, bytes: bytes, source: .generated, createdAt: Self.t0
            )
            #expect(try await store.narrationStates(app: "a", keys: []).isEmpty)
            #expect(try await store.narrationStates(app: "a", keys: ["k1"]).isEmpty)
            try await store.saveNarration(audio)
            #expect(try await store.narrationAudio(app: "a", key: "k1") == audio)
            #expect(try await store.narrationAudio(app: "b", key: "k1") == nil, "another app's key")
            #expect(try await store.narrationStates(app: "b", keys: ["k1"]).isEmpty)
            #expect(try await store.narrationStates(app: "a", keys: ["k1", "k2"]) == ["k1": audio.state])

            // A failure recorded late (another server's, say) does not replace audio.
            try await store.narrationFailed(app: "a", key: "k1", message: "late", at: Self.t0 + 5)
            #expect(try await store.narrationAudio(app: "a", key: "k1") == audio)
            try await store.narrationFailed(app: "a", key: "k2", message: "espeak-ng failed", at: Self.t0)
            try await store.narrationFailed(app: "a", key: "k2", message: "again", at: Self.t0 + 1)
            #expect(try await store.narrationStates(app: "a", keys: ["k2"]) == ["k2": .failed(message: "again", at: Self.t0 + 1)])
            #expect(try await store.narrationAudio(app: "a", key: "k2") == nil)
            // Audio made later replaces the failure; deleting forgets either.
            var made = audio
            made.key = "k2"
            made.source = .recording
            try await store.saveNarration(made)
            #expect(try await store.narrationAudio(app: "a", key: "k2") == made)
            try await store.deleteNarration(app: "a", key: "k2")
            try await store.deleteNarration(app: "b", key: "k1")
            #expect(try await store.narrationStates(app: "a", keys: ["k1", "k2"]).keys.sorted() == ["k1"])
        }
    }

    // MARK: Catalog

    @Test(arguments: StoreUnderTest.available)
    func draftsAreRevisionedAndAuditedInTheSameChange(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            try await Self.makeApp("b", in: store)
            func audit(_ object: String) -> [AuditEntry] {
                [
                    AuditEntry(
                        app: "a", actor: .cli, at: Self.t0, action: .change(of: "tip", "added"), object: object, before: nil, after: "x")
                ]
            }
            #expect(try await store.draft(app: "a") == nil)
            let first = try #require(
                try await store.saveDraft(
                    app: "a", document: "one", at: Self.t0, audit: audit("tip one"), accept: CatalogDraft.unchanged(since: 0)))
            #expect(first.revision == 1 && first.document == "one")
            #expect(
                try await store.saveDraft(
                    app: "a", document: "lost", at: Self.t0, audit: audit("tip lost"), accept: CatalogDraft.unchanged(since: 0)) == nil)
            let second = try #require(
                try await store.saveDraft(
                    app: "a", document: "two", at: Self.t0 + 5, audit: audit("tip two"), accept: CatalogDraft.unchanged(since: 1)))
            #expect(second.revision == 2)
            let forced = try #require(
                try await store.saveDraft(
                    app: "a", document: "three", at: Self.t0 + 6, audit: [], accept: CatalogDraft.unchanged(since: nil)))
            #expect(forced.revision == 3)
            #expect(try await store.draft(app: "a")?.document == "three")
            #expect(try await store.draft(app: "b") == nil)
            // The refused save left no audit entry behind.
            #expect(try await store.auditLog(app: "a", limit: 10).map(\.object) == ["tip two", "tip one"])
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func versionsAreNumberedPerAppAndTheLatestIsLive(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            try await Self.makeApp("b", in: store)
            #expect(try await store.liveVersion(app: "a") == nil)
            #expect(try await store.liveVersionNumber(app: "a") == nil)
            let one = try await store.publish(
                app: "a", document: "doc 1", at: Self.t0, note: "first", audit: AuditEntry.publication(by: .user("ada@example.com")))
            let two = try await store.publish(
                app: "a", document: "doc 2", at: Self.t0 + 1, note: nil, audit: AuditEntry.publication(by: .cli))
            let other = try await store.publish(app: "b", document: "b 1", at: Self.t0, note: nil, audit: { _ in [] })
            #expect((one.number, two.number, other.number) == (1, 2, 1))
            // The entries made for each version are in the log, in the same change.
            #expect(
                try await store.auditLog(app: "a", limit: 10).map { "\($0.actor) \($0.action) \($0.object) \($0.after ?? "-")" } == [
                    "cli publish version 2 -", "user:ada@example.com publish version 1 first",
                ])
            #expect(try await store.auditLog(app: "b", limit: 10).isEmpty)
            #expect(try await store.liveVersion(app: "a")?.document == "doc 2")
            #expect(try await store.liveVersionNumber(app: "a") == 2)
            #expect(try await store.liveVersionNumber(app: "b") == 1)
            #expect(try await store.version(app: "a", number: 1) == one)
            #expect(try await store.version(app: "b", number: 2) == nil, "another app's version")
            let listed = try await store.versions(app: "a")
            #expect(listed.map(\.number) == [2, 1] && listed.map(\.note) == [nil, "first"])
            let entries = try await store.auditLog(app: "a", limit: 10)
            #expect(entries.map(\.action.description) == ["publish", "publish"])
            #expect(entries.last?.object == "version 1" && entries.last?.actor == .user("ada@example.com"))
        }
    }

    // MARK: Events

    @Test(arguments: StoreUnderTest.available)
    func eventsAreStoredOncePerAppAndID(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            try await Self.makeApp("b", in: store)
            let batch = [Self.event("a", "e1"), Self.event("a", "e2"), Self.event("a", "e1")]
            #expect(try await store.insertEvents(batch) == [true, true, false])
            #expect(
                try await store.insertEvents([Self.event("a", "e2"), Self.event("a", "e3"), Self.event("b", "e1")]) == [false, true, true])
            #expect(try await store.insertEvents([]) == [])
            #expect(try await store.eventCount(app: "a") == 3)
            #expect(try await store.eventCount(app: "b") == 1)
            // Apps taking turns in one batch (PostgreSQL looks an app's number up once per run of it).
            let mixed = [Self.event("b", "e2"), Self.event("a", "e4"), Self.event("b", "e3"), Self.event("a", "e5")]
            #expect(try await store.insertEvents(mixed) == [true, true, true, true])
            #expect(try await store.eventCount(app: "a") == 5)
            #expect(try await store.eventCount(app: "b") == 3)
        }
    }

    /// Events belong to an app that exists (PostgreSQL names it by a number in the events table).
    @Test(arguments: StoreUnderTest.available)
    func eventsOfAnAppThatDoesNotExistStoreNothing(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            await #expect(
                performing: { _ = try await store.insertEvents([Self.event("a", "e1"), Self.event("ghost", "e2")]) },
                throws: { error in
                    (error as? StoreError)?.code == .conflict && "\(error)".contains("ghost")
                })
            #expect(try await store.eventCount(app: "a") == 0)
            #expect(try await store.eventCount(app: "ghost") == 0)
            try await Self.makeApp("b", in: store)
            #expect(try await store.insertEvents([Self.event("a", "e1"), Self.event("b", "e1")]) == [true, true], "an app made later")
        }
    }

    /// Text is stored as sent, whatever it holds (PostgreSQL's COPY gives tabs, newlines and
    /// backslashes a meaning); ids that are not lowercase UUIDs store nothing.
    @Test(arguments: StoreUnderTest.available)
    func eventTextIsStoredAsSentAndIDsAreUUIDs(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            let awkward = "tab\tnew\nline\r\\N back\\slash \\t « \u{1F600} \u{2028}"
            let sent = [
                Self.event(
                    "a", "e1", user: awkward, "tap", target: "t\\1",
                    properties: ["note": awkward, "platform": "i\tos", "appVersion": "\\N"]),
                Self.event("a", "e2", user: "\\N", "tap"),
            ]
            #expect(try await store.insertEvents(sent) == [true, true])
            let from = Self.t0.millisecondsSince1970
            let read = try await store.events(app: "a", period: Period(from: from, to: from + 1), user: nil, after: nil, limit: 10)
            #expect(read == sent)
            #expect(
                try await store.events(app: "a", period: Period(from: from, to: from + 1), user: awkward, after: nil, limit: 10) == [
                    sent[0]
                ])
            for id in ["e3", "0190C0DE-0000-7000-8000-00000000000A", "0190c0de-0000-7000-8000-00000000000a "] {
                var event = Self.event("a", "e3")
                event.id = id
                await #expect(throws: StoreError.self) { try await store.insertEvents([Self.event("a", "e4"), event]) }
            }
            #expect(try await store.eventCount(app: "a") == 2)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func eventNamesAreOfferedMostFrequentFirst(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            try await Self.makeApp("b", in: store)
            var events: [StoredEvent] = []
            for index in 0..<3 { events.append(Self.event("a", "s\(index)", "tap", target: "search", at: 100)) }
            for index in 0..<2 { events.append(Self.event("a", "c\(index)", "scroll", at: 100)) }
            events.append(Self.event("a", "old", "activation", at: 0))
            events.append(Self.event("b", "x", "elsewhere", at: 100))
            _ = try await store.insertEvents(events)
            let since = Self.t0.millisecondsSince1970 + 50
            #expect(try await store.eventNames(app: "a", since: since, limit: 10) == ["tap:search", "scroll"])
            #expect(try await store.eventNames(app: "a", since: since, limit: 1) == ["tap:search"])
            #expect(try await store.eventNames(app: "a", since: 0, limit: 10) == ["tap:search", "scroll", "activation"])
        }
    }

    // MARK: Rewards

    /// Claims `grant` under the credit rule the server applies.
    static func claim(_ grant: Grant, cap: Int?, in store: any Store) async throws -> ClaimOutcome {
        try await store.claim(grant) { balance in CreditCap.credits(offered: grant.credits, balance: balance, cap: cap) }
    }

    @Test(arguments: StoreUnderTest.available)
    func aClaimIsGrantedOnceEvenWhenClaimedAtOnce(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            func grant(_ id: String, page: String, credits: Int, user: String = "u1") -> Grant {
                Grant(id: id, app: "a", user: user, tour: "tour", page: page, credits: credits, grantedAt: Self.t0)
            }
            let outcomes = try await withThrowingTaskGroup(of: ClaimOutcome.self) { group in
                for index in 0..<20 {
                    group.addTask { try await Self.claim(grant("g\(index)", page: "one", credits: 10), cap: 25, in: store) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter(\.created).count == 1)
            #expect(Set(outcomes.map(\.grant.id)).count == 1, "every claim returns the one grant")
            #expect(outcomes.allSatisfy { $0.balance == 10 })
            let capped = try await Self.claim(grant("g-two", page: "two", credits: 10), cap: 25, in: store)
            #expect(capped.created && capped.grant.credits == 10 && capped.balance == 20)
            let partial = try await Self.claim(grant("g-three", page: "three", credits: 10), cap: 25, in: store)
            #expect(partial.grant.credits == 5 && partial.balance == 25, "cut to the cap")
            let none = try await Self.claim(grant("g-four", page: "four", credits: 10), cap: 25, in: store)
            #expect(none.created && none.grant.credits == 0 && none.balance == 25)
            #expect(try await Self.claim(grant("g-other", page: "one", credits: 7, user: "u2"), cap: nil, in: store).balance == 7)
            #expect(try await store.balance(app: "a", user: "u1") == 25)
            #expect(try await store.balance(app: "a", user: "nobody") == 0)
        }
    }

    /// Grants are numbered 1, 2, 3... per app in the order they commit, so a reader paging through
    /// the ledger while grants are made, from the last number it saw, misses none and reads none
    /// twice; a repeated claim keeps its number; a user's grants come in order.
    @Test(arguments: StoreUnderTest.available)
    func theLedgerIsReadInTheOrderGrantsWereMade(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            try await Self.makeApp("b", in: store)
            func grant(_ user: String, page: String = "p", app: String = "a") -> Grant {
                Grant(id: "g-\(app)-\(user)-\(page)", app: app, user: user, tour: "tour", page: page, credits: 1, grantedAt: Self.t0)
            }
            let users = (0..<16).map { "u\($0)" }
            let read = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for user in users {
                    group.addTask {
                        _ = try await Self.claim(grant(user), cap: nil, in: store)
                        return []
                    }
                }
                // A backend reading as the grants are made, three at a time.
                group.addTask {
                    var seen: [Int64] = []
                    var after: Int64 = 0
                    while seen.count < users.count {
                        let page = try await store.grants(app: "a", after: after, limit: 3)
                        seen += page.map(\.sequence)
                        after = page.last?.sequence ?? after
                        if page.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
                    }
                    return seen
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(read == Array(1...Int64(users.count)), "every grant once, in order")
            let again = try await Self.claim(grant("u7"), cap: nil, in: store)
            let kept = try await store.grants(app: "a", user: "u7")
            #expect(!again.created && again.grant.sequence == kept.first?.sequence)
            _ = try await Self.claim(grant("u7", page: "q"), cap: nil, in: store)
            #expect(try await store.grants(app: "a", user: "u7").map(\.page) == ["p", "q"])
            #expect(try await store.grants(app: "a", after: 16, limit: 10).map(\.sequence) == [17])
            // Each app has its own numbers.
            #expect(try await Self.claim(grant("u1", app: "b"), cap: nil, in: store).grant.sequence == 1)
            #expect(try await store.grants(app: "b", after: 0, limit: 10).map(\.user) == ["u1"])
        }
    }

    // MARK: Accounts

    @Test(arguments: StoreUnderTest.available)
    func usersRolesAndTheLastOwner(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            try await Self.makeApp("b", in: store)
            let ada = ConsoleUser(id: "usr_ada", email: "ada@example.com", passwordHash: "hash-1", createdAt: Self.t0)
            let bob = ConsoleUser(id: "usr_bob", email: "bob@example.com", passwordHash: "hash-2", createdAt: Self.t0)
            try await store.createUser(ada)
            try await store.createUser(bob)
            await #expect(throws: StoreError.self) {
                try await store.createUser(ConsoleUser(id: "usr_other", email: "ada@example.com", passwordHash: "x", createdAt: Self.t0))
            }
            #expect(try await store.user(email: "ada@example.com") == ada)
            #expect(try await store.user(id: "usr_bob") == bob)
            #expect(try await store.user(email: "nobody@example.com") == nil)

            #expect(try await store.changeRole(.owner, user: ada.id, app: "a", check: Accounts.keepsAnOwner) == nil)
            #expect(try await store.changeRole(.viewer, user: bob.id, app: "a", check: Accounts.keepsAnOwner) == nil)
            #expect(try await store.changeRole(.owner, user: bob.id, app: "b", check: Accounts.keepsAnOwner) == nil)
            #expect(
                try await store.memberships(user: bob.id) == [
                    Membership(user: bob.id, app: "a", role: .viewer), Membership(user: bob.id, app: "b", role: .owner),
                ])
            #expect(try await store.members(app: "a") == [Member(user: ada, role: .owner), Member(user: bob, role: .viewer)])

            // The only owner can be neither demoted nor removed; once there is another, they can.
            await #expect(throws: StoreError.self) {
                try await store.changeRole(.editor, user: ada.id, app: "a", check: Accounts.keepsAnOwner)
            }
            await #expect(throws: StoreError.self) { try await store.changeRole(nil, user: ada.id, app: "a", check: Accounts.keepsAnOwner) }
            #expect(try await store.members(app: "a").first?.role == .owner)
            #expect(try await store.changeRole(.owner, user: bob.id, app: "a", check: Accounts.keepsAnOwner) == .viewer)
            #expect(try await store.changeRole(nil, user: ada.id, app: "a", check: Accounts.keepsAnOwner) == .owner)
            #expect(try await store.members(app: "a").map(\.user.id) == [bob.id])
            #expect(
                try await store.changeRole(nil, user: ada.id, app: "a", check: Accounts.keepsAnOwner) == nil,
                "removing a non-member changes nothing")

            // The check sees the change and the owners counted in its transaction; a refusal changes nothing.
            let seen = Locked<[MembershipChange]>([])
            await #expect(throws: StoreError.self) {
                try await store.changeRole(.viewer, user: bob.id, app: "a") { change throws(StoreError) in
                    seen.withLock { $0.append(change) }
                    throw StoreError(.conflict, "refused")
                }
            }
            #expect(seen.withLock { $0 } == [MembershipChange(before: .owner, after: .viewer, owners: 1)])
            #expect(try await store.members(app: "a").map(\.role) == [.owner])
        }
    }

    /// Two owners demoting each other at the same moment: the changes take turns, so the second
    /// sees one owner left and is refused, and the app keeps its owner.
    @Test(arguments: StoreUnderTest.available)
    func ownersDemotingEachOtherAtOnceLeaveOne(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            let users = ["usr_1", "usr_2"]
            for (index, id) in users.enumerated() {
                try await store.createUser(ConsoleUser(id: id, email: "owner\(index)@example.com", passwordHash: "h", createdAt: Self.t0))
                try await store.changeRole(.owner, user: id, app: "a", check: Accounts.keepsAnOwner)
            }
            for _ in 0..<10 {
                let refused = await withTaskGroup(of: Bool.self) { group in
                    for id in users {
                        group.addTask { (try? await store.changeRole(.editor, user: id, app: "a", check: Accounts.keepsAnOwner)) == nil }
                    }
                    return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                #expect(refused == 1)
                #expect(try await store.members(app: "a").filter { $0.role == .owner }.count == 1)
                for id in users { try await store.changeRole(.owner, user: id, app: "a", check: Accounts.keepsAnOwner) }
            }
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func sessionsAndAPasswordChangeThatEndsTheOthers(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            let ada = ConsoleUser(id: "usr_ada", email: "ada@example.com", passwordHash: "old", createdAt: Self.t0)
            try await store.createUser(ada)
            for id in ["s1", "s2", "s3"] {
                try await store.insertSession(
                    ConsoleSession(id: id, user: ada.id, csrfToken: "csrf-\(id)", createdAt: Self.t0, lastSeenAt: Self.t0))
            }
            try await store.touchSession(id: "s1", at: Self.t0 + 60)
            #expect(try await store.session(id: "s1")?.lastSeenAt == Self.t0 + 60)
            #expect(try await store.session(id: "s1")?.csrfToken == "csrf-s1")
            try await store.deleteSession(id: "s3")
            #expect(try await store.session(id: "s3") == nil)

            try await store.setPassword(user: ada.id, hash: "new", keeping: "s1")
            #expect(try await store.user(id: ada.id)?.passwordHash == "new")
            #expect(try await store.session(id: "s1") != nil)
            #expect(try await store.session(id: "s2") == nil)
            try await store.setPassword(user: ada.id, hash: "newer", keeping: nil)
            #expect(try await store.session(id: "s1") == nil)

            // Expiry: idle since before one time, or created before another.
            for (id, created, seen) in [("idle", 0.0, 10.0), ("old", -100.0, 90.0), ("live", 50.0, 95.0)] {
                try await store.insertSession(
                    ConsoleSession(id: id, user: ada.id, csrfToken: "c", createdAt: Self.t0 + created, lastSeenAt: Self.t0 + seen)
                )
            }
            #expect(try await store.deleteExpiredSessions(lastSeenBefore: Self.t0 + 20, createdBefore: Self.t0 - 50) == 2)
            #expect(try await store.session(id: "live") != nil)
            #expect(try await store.session(id: "idle") == nil)
            #expect(try await store.session(id: "old") == nil)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func failedLoginsAreCountedPerKeySinceATime(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            #expect(try await store.loginFailures(keys: ["email:ada"], since: Self.t0).isEmpty)
            func record(_ keys: [String], at time: Date) async throws {
                #expect(try await store.chargeLoginFailure(keys: keys.map { ($0, 100) }, at: time, since: Self.t0 - 3600) == nil)
            }
            try await record(["email:ada", "address:10.0.0.1"], at: Self.t0 - 10)
            try await record(["email:ada", "address:10.0.0.1"], at: Self.t0 + 5)
            try await record(["email:bob", "address:10.0.0.1"], at: Self.t0 + 7)
            try await record(["email:ada"], at: Self.t0 + 5)
            // At its limit a key takes no more, and none of the others' either.
            let refused = try await store.chargeLoginFailure(
                keys: [("email:ada", 3), ("email:eve", 5)], at: Self.t0 + 8, since: Self.t0 - 60)
            #expect(refused?["email:ada"]?.count == 3 && refused?["email:eve"] == nil)
            #expect(try await store.loginFailures(keys: ["email:eve"], since: Self.t0 - 60).isEmpty)
            // One try taken back, of two at the same moment.
            try await store.forgetLoginFailure(keys: ["email:ada"], at: Self.t0 + 5)
            #expect(try await store.loginFailures(keys: ["email:ada"], since: Self.t0 - 60)["email:ada"]?.count == 2)
            try await record(["email:ada"], at: Self.t0 + 5)

            let counted = try await store.loginFailures(keys: ["email:ada", "address:10.0.0.1", "email:eve"], since: Self.t0)
            #expect(
                counted == [
                    "email:ada": LoginFailures(count: 2, earliest: Self.t0 + 5),
                    "address:10.0.0.1": LoginFailures(count: 2, earliest: Self.t0 + 5),
                ], "failures before `since` do not count; a key with none is absent")
            #expect(try await store.loginFailures(keys: ["email:ada"], since: Self.t0 - 10)["email:ada"]?.count == 3)

            try await store.clearLoginFailures(key: "email:ada")
            #expect(try await store.loginFailures(keys: ["email:ada"], since: Self.t0 - 60).isEmpty)
            #expect(try await store.loginFailures(keys: ["address:10.0.0.1"], since: Self.t0 - 60)["address:10.0.0.1"]?.count == 3)

            #expect(try await store.deleteLoginFailures(before: Self.t0 + 6) == 2)
            #expect(
                try await store.loginFailures(keys: ["address:10.0.0.1", "email:bob"], since: Self.t0 - 60) == [
                    "address:10.0.0.1": LoginFailures(count: 1, earliest: Self.t0 + 7),
                    "email:bob": LoginFailures(count: 1, earliest: Self.t0 + 7),
                ])
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func theAuditLogNumbersEntriesAndListsThemNewestFirst(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            var sequences: [Int64] = []
            for index in 0..<5 {
                let entry = AuditEntry(
                    app: index % 2 == 0 ? "a" : "b", actor: .cli, at: Self.t0 + Double(index), action: .change(of: "tip", "changed"),
                    object: "tip t\(index)",
                    before: index == 0 ? nil : "before \(index)", after: "after \(index)"
                )
                sequences.append(try await store.appendAudit(entry).sequence)
            }
            #expect(sequences == sequences.sorted() && Set(sequences).count == 5 && sequences[0] > 0)
            let entries = try await store.auditLog(app: "a", limit: 10)
            #expect(entries.map(\.object) == ["tip t4", "tip t2", "tip t0"])
            #expect(entries.last?.before == nil && entries.first?.before == "before 4" && entries.first?.at == Self.t0 + 4)
            #expect(try await store.auditLog(app: "a", limit: 2).map(\.object) == ["tip t4", "tip t2"])
        }
    }

    // MARK: Analytics reads

    @Test(arguments: StoreUnderTest.available)
    func talliesCountEventsAndDistinctUsersPerGroup(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            try await Self.makeApp("b", in: store)
            let ios = ["platform": "ios", "appVersion": "1.2", "tip": "t1"]
            let web = ["platform": "web", "appVersion": "2.0", "tip": "t2"]
            _ = try await store.insertEvents([
                Self.event("a", "1", user: "u1", "tip_shown", target: "t1", at: 0, properties: ios),
                Self.event("a", "2", user: "u1", "tip_shown", target: "t1", at: 10, properties: ios),
                Self.event("a", "3", user: "u2", "tip_shown", target: "t1", at: 20, properties: ios),
                Self.event("a", "4", user: "u3", "tip_shown", target: "t2", at: Period.day, properties: web),
                Self.event("a", "5", user: "u3", "tap", target: "search", at: 30, properties: web),
                Self.event("a", "6", user: "u4", "tip_shown", target: "t1", at: 2 * Period.day, properties: ios),
                Self.event("b", "7", user: "u1", "tip_shown", target: "t1", at: 0, properties: ios),
            ])
            let from = Self.t0.millisecondsSince1970
            let period = Period(from: from, to: from + 2 * Period.day)
            let byTarget = try await store.tally(app: "a", TallyQuery(period: period, names: ["tip_shown"], by: [.target]))
            #expect(
                Set(byTarget) == [
                    TallyRow(name: "tip_shown", keys: ["t1"], events: 3, users: 2),
                    TallyRow(name: "tip_shown", keys: ["t2"], events: 1, users: 1),
                ])
            let split = try await store.tally(
                app: "a", TallyQuery(period: period, byName: false, by: [.platform, .appVersion, .property("tip")]))
            #expect(
                Set(split) == [
                    TallyRow(name: nil, keys: ["ios", "1.2", "t1"], events: 3, users: 2),
                    TallyRow(name: nil, keys: ["web", "2.0", "t2"], events: 2, users: 1),
                ])
            let days = try await store.tally(app: "a", TallyQuery(period: period, names: ["tip_shown"], byName: false, by: [.day]))
            #expect(
                Set(days) == [
                    TallyRow(name: nil, keys: [String(Period.startOfDay(from))], events: 3, users: 2),
                    TallyRow(name: nil, keys: [String(Period.startOfDay(from + Period.day))], events: 1, users: 1),
                ])
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func eventPagesFollowTimeThenIDWithoutGapsOrRepeats(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            // Several events in one millisecond, inserted out of order, and one of another app.
            let offsets: [(String, Int64, String)] = [
                ("e5", 2, "u1"), ("e1", 1, "u1"), ("e3", 1, "u2"), ("e2", 1, "u1"), ("e4", 1, "u1"), ("e6", 3, "u2"),
            ]
            _ = try await store.insertEvents(offsets.map { Self.event("a", $0.0, user: $0.2, at: $0.1, properties: ["platform": "ios"]) })
            try await Self.makeApp("b", in: store)
            _ = try await store.insertEvents([Self.event("b", "e0", at: 1)])
            let from = Self.t0.millisecondsSince1970
            let period = Period(from: from + 1, to: from + 3)
            var seen: [String] = []
            var cursor: EventCursor?
            while true {
                let page = try await store.events(app: "a", period: period, user: nil, after: cursor, limit: 2)
                seen += page.map(\.id)
                guard page.count == 2, let last = page.last else { break }
                cursor = EventCursor(after: last)
            }
            #expect(seen == ["e1", "e2", "e3", "e4", "e5"].map(Self.id), "e6 is at the period's end, which is outside")
            let one = try await store.events(app: "a", period: period, user: "u2", after: nil, limit: 10)
            #expect(one.map(\.id) == [Self.id("e3")])
            #expect(one.first?.platform == "ios" && one.first?.properties == #"{"platform":"ios"}"#)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func grantTotalsPerTourAndPage(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            for (index, (user, page, credits)) in [("u1", "one", 5), ("u2", "one", 5), ("u1", "two", 3)].enumerated() {
                _ = try await Self.claim(
                    Grant(
                        id: "g\(index)", app: "a", user: user, tour: "tour", page: page, credits: credits,
                        grantedAt: Self.t0 + Double(index)),
                    cap: nil, in: store
                )
            }
            let from = Self.t0.millisecondsSince1970
            #expect(
                try await store.grantTotals(app: "a", period: Period(from: from, to: from + 10_000)) == [
                    GrantTotal(tour: "tour", page: "one", grants: 2, credits: 10),
                    GrantTotal(tour: "tour", page: "two", grants: 1, credits: 3),
                ])
            #expect(try await store.grantTotals(app: "a", period: Period(from: from + 5_000, to: from + 10_000)).isEmpty)
        }
    }

    // MARK: Users

    @Test(arguments: StoreUnderTest.available)
    func attributesKeepTheirTypesAndWhenTheyChanged(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            try await Self.makeApp("b", in: store)
            #expect(try await store.attributes(app: "a", user: "u1").isEmpty)
            let first: [String: ContextValue?] = [
                "plan": .string("plus"), "cityTier": .number(2), "codUser": .bool(true),
                "firstOrderAt": .time(milliseconds: 1_768_435_200_250), "appBuild": .version(Version([5, 2, 1])), "gone": nil,
            ]
            let stored = try #require(try await store.updateAttributes(app: "a", user: "u1", first, at: Self.t0, limit: 5))
            #expect(stored.map(\.name) == ["appBuild", "cityTier", "codUser", "firstOrderAt", "plan"], "by name")
            #expect(Dictionary(uniqueKeysWithValues: stored.map { ($0.name, $0.value) }) == first.compactMapValues { $0 })
            #expect(stored.allSatisfy { $0.changedAt == Self.t0 })

            // The same value keeps its time; a new one, or a new type, takes the new time; nil removes.
            let later = Self.t0 + 60
            let second = try #require(
                try await store.updateAttributes(
                    app: "a", user: "u1", ["plan": .string("plus"), "cityTier": .string("2"), "codUser": nil], at: later, limit: 5))
            let byName = Dictionary(uniqueKeysWithValues: second.map { ($0.name, $0) })
            #expect(byName["plan"]?.changedAt == Self.t0)
            #expect(byName["cityTier"]?.value == .string("2") && byName["cityTier"]?.changedAt == later)
            #expect(byName["codUser"] == nil && second.count == 4)

            // Past the limit nothing changes, also what would have fit.
            let refused = try await store.updateAttributes(
                app: "a", user: "u1", ["x": .number(1), "y": .number(2), "plan": .string("free")], at: later + 1, limit: 5)
            #expect(refused == nil)
            #expect(try await store.attributes(app: "a", user: "u1") == second)
            // Removing one makes room for one, in the same update.
            #expect(
                try await store.updateAttributes(app: "a", user: "u1", ["appBuild": nil, "x": .number(1)], at: later, limit: 4)?.count == 4)

            // Users and apps are apart.
            #expect(try await store.attributes(app: "b", user: "u1").isEmpty)
            #expect(try await store.attributes(app: "a", user: "u2").isEmpty)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func theAttributeSummaryCountsUsersAndNamesTheMostCommonValues(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            try await Self.makeApp("b", in: store)
            #expect(try await store.attributeSummary(app: "a", examples: 3).isEmpty)
            let plans = ["plus", "plus", "plus", "free", "free", "gold", "<b>team</b>"]
            for (index, plan) in plans.enumerated() {
                var changes: [String: ContextValue?] = [
                    "plan": .string(plan), "firstOrderAt": .time(milliseconds: 1_768_435_200_000 + Int64(index)),
                ]
                if index < 3 { changes["cityTier"] = .number(Double(index % 2 + 1)) }
                if index == 3 { changes["cityTier"] = .string("2") }
                _ = try await store.updateAttributes(app: "a", user: "u\(index)", changes, at: Self.t0, limit: 50)
            }
            _ = try await store.updateAttributes(app: "b", user: "u0", ["plan": .string("elsewhere")], at: Self.t0, limit: 50)
            let summary = try await store.attributeSummary(app: "a", examples: 3)
            #expect(
                summary == [
                    AttributeSummary(name: "cityTier", type: "number", users: 3, examples: ["1", "2"]),
                    AttributeSummary(name: "cityTier", type: "text", users: 1, examples: ["2"]),
                    AttributeSummary(
                        name: "firstOrderAt", type: "time", users: 7,
                        examples: ["2026-01-15", "2026-01-15T00:00:00.001Z", "2026-01-15T00:00:00.002Z"]),
                    AttributeSummary(name: "plan", type: "text", users: 7, examples: ["plus", "free", "<b>team</b>"]),
                ], "\(summary)")
            #expect(try await store.attributeSummary(app: "a", examples: 1).map(\.examples) == [["1"], ["2"], ["2026-01-15"], ["plus"]])
            #expect(try await store.attributeSummary(app: "b", examples: 3).map(\.users) == [1])
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func progressIsOneDocumentPerUserAndUpdatesAtOnceEachSeeTheOneBefore(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            try await Self.makeApp("b", in: store)
            #expect(try await store.progress(app: "a", user: "u1") == nil)
            let first = try await store.updateProgress(app: "a", user: "u1", at: Self.t0) { current in
                #expect(current == nil)
                return "[]"
            }
            let read = try await store.progress(app: "a", user: "u1")
            #expect(first == "[]" && read == "[]")
            // Nil keeps what is there.
            #expect(try await store.updateProgress(app: "a", user: "u1", at: Self.t0) { _ in nil } == "[]")
            #expect(try await store.updateProgress(app: "a", user: "u9", at: Self.t0) { _ in nil } == nil)
            #expect(try await store.progress(app: "a", user: "u9") == nil)
            // Twelve devices at once, each adding itself to what is there: none is lost.
            try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        try await store.updateProgress(app: "a", user: "u1", at: Self.t0 + Double(index)) { current in
                            let list = (try? JSONDecoder().decode([Int].self, from: Data((current ?? "[]").utf8))) ?? []
                            return "[" + (list + [index]).map(String.init).joined(separator: ",") + "]"
                        }
                    }
                }
                try await group.waitForAll()
            }
            let stored = try #require(try await store.progress(app: "a", user: "u1"))
            #expect(try JSONDecoder().decode([Int].self, from: Data(stored.utf8)).sorted() == Array(0..<12))
            // Users and apps are apart.
            #expect(try await store.progress(app: "b", user: "u1") == nil)
            #expect(try await store.progress(app: "a", user: "u2") == nil)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func updatesAtOnceNeverPassTheLimit(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        try await store.updateAttributes(app: "a", user: "u1", ["n\(index)": .number(Double(index))], at: Self.t0, limit: 5)
                            != nil
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(accepted == 5)
            #expect(try await store.attributes(app: "a", user: "u1").count == 5)
        }
    }

    // MARK: Anchors the SDKs saw

    /// A name seen again moves its last sighting and count; an app at its limit keeps updating
    /// what it has and adds nothing; apps do not see each other's.
    @Test(arguments: StoreUnderTest.available)
    func sightingsAreKeptPerScreenAndBoundedPerApp(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            try await Self.makeApp("b", in: store)
            let products = SightingBatch(
                app: "a", platform: "web", screen: "products", anchors: ["product", "cart-link", "product"], areas: ["products"])
            try await store.recordSightings(products, at: Self.t0, limit: 4)
            try await store.recordSightings(products, at: Self.t0 + 60, limit: 4)
            // Earlier than the last sighting: the last sighting stays the latest.
            try await store.recordSightings(products, at: Self.t0 + 30, limit: 4)
            try await store.recordSightings(
                SightingBatch(app: "a", platform: "android", screen: "cart", anchors: ["checkout", "coupon"], areas: []), at: Self.t0,
                limit: 4)
            let kept = try await store.sightings(app: "a")
            #expect(
                kept.map { "\($0.screen) \($0.kind.rawValue) \($0.name) \($0.platform) \($0.reports)" } == [
                    "cart anchor checkout android 1", "products anchor cart-link web 3", "products anchor product web 3",
                    "products area products web 3",
                ], "the limit of 4 left coupon out")
            #expect(kept.first { $0.name == "product" }?.firstSeen == Self.t0)
            #expect(kept.first { $0.name == "product" }?.lastSeen == Self.t0 + 60)
            #expect(try await store.sightings(app: "b").isEmpty)
            // A selector keeps how many elements it matched the last time.
            let selecting = SightingBatch(app: "b", platform: "web", screen: "cart", anchors: [], areas: [], selectors: [".pay": 2])
            try await store.recordSightings(selecting, at: Self.t0, limit: 10)
            var again = selecting
            again.selectors = [".pay": 1]
            try await store.recordSightings(again, at: Self.t0 + 1, limit: 10)
            #expect(
                try await store.sightings(app: "b").map { "\($0.kind.rawValue) \($0.name) \($0.reports) \($0.matches ?? -1)" } == [
                    "selector .pay 2 1"
                ])
            #expect(try await store.sightings(app: "a").allSatisfy { $0.matches == nil })
        }
    }

    // MARK: Webhooks

    static func notice(_ app: String, _ type: String, user: String? = nil, at offset: TimeInterval = 0) -> WebhookNotice {
        let id = "evt_\(UUID().uuidString.prefix(8))"
        return WebhookNotice(id: id, app: app, type: type, user: user, createdAt: t0 + offset, body: #"{"id":"\#(id)"}"#)
    }

    /// Notices are written with their change, one delivery per endpoint that takes the type, and
    /// only for new events and grants; nothing for an app without endpoints.
    @Test(arguments: StoreUnderTest.available)
    func noticesAreWrittenWithTheirChangeForEachEndpoint(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            for app in ["a", "b"] { try await Self.makeApp(app, in: store) }
            let audit = AuditEntry(app: "a", actor: .cli, at: Self.t0, action: .webhookCreate, object: "webhook", before: nil, after: nil)
            #expect(
                try await store.createWebhookEndpoint(
                    WebhookEndpoint(id: "all", app: "a", url: "https://a.example/all", types: [], secret: "s1", createdAt: Self.t0),
                    limit: 2, audit: audit))
            #expect(
                try await store.createWebhookEndpoint(
                    WebhookEndpoint(
                        id: "grants", app: "a", url: "https://a.example/grants", types: ["credit.granted"], secret: "s2",
                        createdAt: Self.t0 + 1),
                    limit: 2, audit: audit))
            let third = WebhookEndpoint(id: "third", app: "a", url: "https://a.example/3", types: [], secret: "s3", createdAt: Self.t0)
            #expect(try await store.createWebhookEndpoint(third, limit: 2, audit: audit) == false, "the app has its two")
            // Eight added to app b at once, three at most: the count is read where the insert is.
            let added = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        try await store.createWebhookEndpoint(
                            WebhookEndpoint(
                                id: "b\(index)", app: "b", url: "https://b.example/", types: [], secret: "s", createdAt: Self.t0),
                            limit: 3, audit: audit)
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(added == 3)
            for index in 0..<8 {
                _ = try await store.deleteWebhookEndpoint(app: "b", endpoint: "b\(index)", audit: audit)
            }
            #expect(try await store.webhookEndpoints(app: "a").map(\.id) == ["all", "grants"])
            #expect(try await store.webhookEndpoints(app: "b").isEmpty)

            let survey = Self.event("a", "e1", "survey_answered", target: "nps")
            let inserted = try await store.insertEvents(
                [survey, Self.event("a", "e2"), survey, Self.event("b", "e3", "survey_answered")],
                notices: { new in
                    new.compactMap { $0.name == "survey_answered" ? Self.notice($0.app, "survey.answered", user: $0.user) : nil }
                })
            #expect(inserted == [true, true, false, true])
            #expect(
                try await store.insertEvents(
                    [survey], notices: { new in new.map { Self.notice($0.app, "survey.answered", user: $0.user) } })
                    == [false])
            var deliveries = try await store.webhookDeliveries(app: "a", endpoint: nil, limit: 10)
            #expect(deliveries.map(\.type) == ["survey.answered"] && deliveries.map(\.endpoint) == ["all"])
            #expect(try await store.webhookDeliveries(app: "b", endpoint: nil, limit: 10).isEmpty)

            let grant = Grant(id: "g1", app: "a", user: "u1", tour: "t", page: "p", credits: 5, grantedAt: Self.t0)
            for _ in 0..<2 {
                _ = try await store.claim(
                    grant, credits: { _ in 5 }, notice: { Self.notice($0.grant.app, "credit.granted", user: "u1", at: 2) })
            }
            deliveries = try await store.webhookDeliveries(app: "a", endpoint: nil, limit: 10)
            #expect(deliveries.map(\.type) == ["credit.granted", "credit.granted", "survey.answered"], "one grant, two endpoints")
            #expect(try await store.webhookDeliveries(app: "a", endpoint: "grants", limit: 10).count == 1)
            _ = try await store.publish(
                app: "a", document: "tips: []", at: Self.t0 + 3, note: nil, audit: { _ in [] },
                notice: { Self.notice($0.app, "catalog.published", at: 3) })
            #expect(try await store.webhookDeliveries(app: "a", endpoint: nil, limit: 10).count == 4)
            // A notice only for endpoints that name its type: "grants" gets it, "all" (every type) does not.
            _ = try await store.insertEvents(
                [Self.event("a", "e9")],
                notices: { new in
                    var notice = Self.notice("a", "credit.granted", user: "u1", at: 5)
                    notice.onlyWhenNamed = true
                    return new.isEmpty ? [] : [notice]
                })
            #expect(try await store.webhookDeliveries(app: "a", endpoint: "grants", limit: 10).count == 2)
            #expect(try await store.webhookDeliveries(app: "a", endpoint: "all", limit: 10).count == 3)

            // Erasing u1 takes their deliveries; its own notice is not theirs.
            _ = try await store.eraseUser(
                app: "a", user: "u1", audit: { _ in audit }, notice: { _ in Self.notice("a", "user.erased", at: 4) })
            #expect(
                try await store.webhookDeliveries(app: "a", endpoint: nil, limit: 10).map(\.type) == ["user.erased", "catalog.published"])
            // Removing an endpoint takes its deliveries.
            #expect(try await store.deleteWebhookEndpoint(app: "b", endpoint: "all", audit: audit) == false)
            #expect(try await store.deleteWebhookEndpoint(app: "a", endpoint: "all", audit: audit))
            #expect(try await store.webhookDeliveries(app: "a", endpoint: nil, limit: 10).isEmpty)
        }
    }

    /// A due delivery is leased by one caller at a time until its lease runs out; an answer is
    /// recorded only under the lease it was sent under; a rotation keeps the old secret for a while.
    @Test(arguments: StoreUnderTest.available)
    func deliveriesAreLeasedOnceAndRecordedUnderTheirLease(_ kind: StoreUnderTest) async throws {
        try await kind.with { store, _ in
            try await Self.makeApp("a", in: store)
            let audit = AuditEntry(app: "a", actor: .cli, at: Self.t0, action: .webhookCreate, object: "webhook", before: nil, after: nil)
            _ = try await store.createWebhookEndpoint(
                WebhookEndpoint(id: "e", app: "a", url: "https://a.example/", types: [], secret: "s1", createdAt: Self.t0), limit: 10,
                audit: audit)
            for offset in 0..<30 {
                _ = try await store.publish(
                    app: "a", document: "tips: []", at: Self.t0, note: nil, audit: { _ in [] },
                    notice: { _ in Self.notice("a", "catalog.published", at: TimeInterval(offset)) })
            }
            let now = Self.t0 + 100
            let until = now + 60
            // Eight callers at once, five each: every delivery leased exactly once.
            let leased = try await withThrowingTaskGroup(of: [String].self) { group in
                for _ in 0..<8 {
                    group.addTask { try await store.leaseWebhookDeliveries(now: now, until: until, limit: 5).map(\.event) }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(leased.count == 30 && Set(leased).count == 30)
            #expect(try await store.leaseWebhookDeliveries(now: now + 59, until: now + 120, limit: 50).isEmpty, "all leased")
            let first = try #require(try await store.leaseWebhookDeliveries(now: until, until: until + 60, limit: 1).first)
            #expect(first.endpoint.url == "https://a.example/" && first.endpoint.secret == "s1" && first.attempts == 0)

            // The first lease ran out: an answer under it changes nothing; under the new one it counts.
            let attempt = WebhookAttempt(
                event: first.event, endpoint: "e", at: until, status: 500, answer: "no", error: nil, state: .pending,
                nextAttemptAt: until + 30)
            #expect(try await store.recordWebhookAttempt(attempt, lease: until) == false)
            #expect(try await store.recordWebhookAttempt(attempt, lease: until + 60))
            var delivery = try #require(
                try await store.webhookDeliveries(app: "a", endpoint: nil, limit: 50).first { $0.event == first.event })
            #expect(delivery.state == .pending && delivery.attempts == 1 && delivery.lastStatus == 500 && delivery.lastAnswer == "no")
            #expect(delivery.nextAttemptAt == until + 30)
            #expect(
                try await store.leaseWebhookDeliveries(now: until + 29, until: until + 90, limit: 50).allSatisfy { $0.event != first.event }
            )
            let again = try await store.leaseWebhookDeliveries(now: until + 30, until: until + 90, limit: 50)
            #expect(again.contains { $0.event == first.event && $0.attempts == 1 })
            var delivered = attempt
            delivered.state = .delivered
            delivered.status = 200
            #expect(try await store.recordWebhookAttempt(delivered, lease: until + 90))
            delivery = try #require(try await store.webhookDeliveries(app: "a", endpoint: nil, limit: 50).first { $0.event == first.event })
            #expect(delivery.state == .delivered && delivery.attempts == 2)

            // Sent again on request; pruned once old and done.
            #expect(try await store.redeliverWebhook(app: "a", event: first.event, endpoint: "e", now: until + 100))
            #expect(try await store.redeliverWebhook(app: "b", event: first.event, endpoint: "e", now: until + 100) == false)
            #expect(
                try await store.leaseWebhookDeliveries(now: until + 100, until: until + 160, limit: 50).contains { $0.event == first.event }
            )
            #expect(try await store.recordWebhookAttempt(delivered, lease: until + 160))
            #expect(try await store.pruneWebhookDeliveries(before: Self.t0 + 1000) == 1, "only the delivered one")

            let rotated = try #require(
                try await store.rotateWebhookSecret(app: "a", endpoint: "e", secret: "s2", previousUntil: until, audit: audit))
            #expect(rotated.secret == "s2" && rotated.previousSecret == "s1")
            #expect(rotated.signingSecrets(at: until - 1) == ["s2", "s1"] && rotated.signingSecrets(at: until) == ["s2"])
            #expect(try await store.rotateWebhookSecret(app: "b", endpoint: "e", secret: "s3", previousUntil: until, audit: audit) == nil)
        }
    }
}
