import WaymarkStore

/// The PostgreSQL schema, one migration per element, applied in order under an advisory lock so
/// that several servers starting at once apply each exactly once.
///
/// Times are milliseconds since 1970 (BIGINT), as in the SQLite store; `user` is a reserved word
/// here, so the columns are `user_id`.
enum Schema {
    /// The advisory lock key migrations hold ("waymark" in ASCII, in an Int64).
    static let migrationLock: Int64 = 0x77_61_79_6D_61_72_6B

    static let migrations: [(name: String, sql: [String])] = [
        (
            "v1: apps, keys, catalog, events, grants",
            [
                """
                CREATE TABLE apps (
                    id TEXT PRIMARY KEY, name TEXT NOT NULL, identity_secret TEXT NOT NULL, created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE keys (
                    id TEXT PRIMARY KEY, app TEXT NOT NULL REFERENCES apps(id), kind TEXT NOT NULL, hash TEXT NOT NULL UNIQUE,
                    created_at BIGINT NOT NULL, revoked_at BIGINT
                )
                """,
                "CREATE INDEX keys_by_app ON keys(app)",
                """
                CREATE TABLE drafts (
                    app TEXT PRIMARY KEY REFERENCES apps(id), document TEXT NOT NULL, updated_at BIGINT NOT NULL, revision BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE versions (
                    app TEXT NOT NULL REFERENCES apps(id), number BIGINT NOT NULL, document TEXT NOT NULL, published_at BIGINT NOT NULL,
                    note TEXT, PRIMARY KEY (app, number)
                )
                """,
                """
                CREATE TABLE events (
                    app TEXT NOT NULL, id TEXT NOT NULL, user_id TEXT NOT NULL, name TEXT NOT NULL, target TEXT, timestamp BIGINT NOT NULL,
                    received_at BIGINT NOT NULL, clamped BOOLEAN NOT NULL, properties TEXT, platform TEXT, app_version TEXT,
                    PRIMARY KEY (app, id)
                )
                """,
                "CREATE INDEX events_by_time ON events(app, timestamp, id) INCLUDE (platform, user_id, name)",
                "CREATE INDEX events_by_name ON events(app, name, timestamp)",
                """
                CREATE TABLE grants (
                    app TEXT NOT NULL, user_id TEXT NOT NULL, tour TEXT NOT NULL, page TEXT NOT NULL, id TEXT NOT NULL UNIQUE,
                    credits BIGINT NOT NULL, granted_at BIGINT NOT NULL, PRIMARY KEY (app, user_id, tour, page)
                )
                """,
                "CREATE INDEX grants_by_time ON grants(app, granted_at)",
            ]
        ),
        (
            "v2: console accounts and the append-only audit log",
            [
                "CREATE TABLE users (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, password_hash TEXT NOT NULL, created_at BIGINT NOT NULL)",
                """
                CREATE TABLE memberships (
                    user_id TEXT NOT NULL REFERENCES users(id), app TEXT NOT NULL REFERENCES apps(id), role TEXT NOT NULL,
                    PRIMARY KEY (user_id, app)
                )
                """,
                "CREATE INDEX memberships_by_app ON memberships(app)",
                """
                CREATE TABLE sessions (
                    id TEXT PRIMARY KEY, user_id TEXT NOT NULL REFERENCES users(id), csrf_token TEXT NOT NULL,
                    created_at BIGINT NOT NULL, last_seen_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX sessions_by_user ON sessions(user_id)",
                """
                CREATE TABLE audit (
                    sequence BIGSERIAL PRIMARY KEY, app TEXT NOT NULL, actor TEXT NOT NULL, at BIGINT NOT NULL, action TEXT NOT NULL,
                    object TEXT NOT NULL, before TEXT, after TEXT
                )
                """,
                "CREATE INDEX audit_by_app ON audit(app, sequence)",
                """
                CREATE FUNCTION audit_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'the audit log cannot be changed'; END $$
                """,
                """
                CREATE TRIGGER audit_is_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit
                FOR EACH STATEMENT EXECUTE FUNCTION audit_is_append_only()
                """,
            ]
        ),
        (
            "v3: narration audio",
            [
                """
                CREATE TABLE narrations (
                    app TEXT NOT NULL, key TEXT NOT NULL, status TEXT NOT NULL, format TEXT, duration_ms BIGINT, bytes BYTEA, source TEXT,
                    message TEXT, created_at BIGINT NOT NULL, PRIMARY KEY (app, key)
                )
                """
            ]
        ),
        (
            // Ingestion's cost on PostgreSQL is mostly B-tree comparisons and bytes written. Ids are
            // UUIDs (the server accepts nothing else): 16 bytes instead of 37, in the table and in
            // two indexes, compared as bytes. The primary key leads with the id, which decides
            // almost every comparison alone (the app is the same in most). The other identifiers
            // compare as bytes (collation "C"), as SQLite compares them, so names and users also
            // sort as they do there. What limits ingestion: docs/performance.md.
            "v4: event ids as uuid, event identifiers in byte order",
            [
                """
                ALTER TABLE events
                    ALTER COLUMN id TYPE UUID USING \(uuid(fromText: "id")), ALTER COLUMN app TYPE TEXT COLLATE "C",
                    ALTER COLUMN user_id TYPE TEXT COLLATE "C", ALTER COLUMN name TYPE TEXT COLLATE "C",
                    ALTER COLUMN target TYPE TEXT COLLATE "C", ALTER COLUMN platform TYPE TEXT COLLATE "C",
                    ALTER COLUMN app_version TYPE TEXT COLLATE "C",
                    DROP CONSTRAINT events_pkey, ADD PRIMARY KEY (id, app)
                """
            ]
        ),
        (
            // Every event index led with the app's id, text of variable length: PostgreSQL cannot
            // keep the offsets of the columns after it, so each comparison in a descent found the
            // timestamp (and the name) again from the start of the tuple (`nocache_index_getattr`,
            // second in the ingestion profile after `_bt_compare`). Events name their app by a
            // number of four bytes instead: every column before the timestamp has a fixed width,
            // and an event with its index entries takes about 314 bytes instead of 346. The
            // table is made again (a dropped column would stay in every row, as a NULL) with the
            // fixed-width columns first, so none needs padding. Events whose app is not in `apps`
            // (none the server stores; a hand-made database could hold some) keep their app, made
            // with no keys and a fresh identity secret, rather than being lost.
            "v5: events name their app by number",
            [
                "ALTER TABLE apps ADD COLUMN number INTEGER GENERATED ALWAYS AS IDENTITY UNIQUE",
                """
                INSERT INTO apps (id, name, identity_secret, created_at)
                SELECT DISTINCT app, app, 'wm_id_' || replace(gen_random_uuid()::TEXT || gen_random_uuid()::TEXT, '-', ''), 0
                FROM events WHERE app NOT IN (SELECT id FROM apps)
                """,
                """
                CREATE TABLE events_by_number (
                    id UUID NOT NULL, timestamp BIGINT NOT NULL, received_at BIGINT NOT NULL, app_number INTEGER NOT NULL,
                    clamped BOOLEAN NOT NULL, user_id TEXT COLLATE "C" NOT NULL, name TEXT COLLATE "C" NOT NULL, target TEXT COLLATE "C",
                    properties TEXT, platform TEXT COLLATE "C", app_version TEXT COLLATE "C"
                )
                """,
                """
                INSERT INTO events_by_number
                SELECT e.id, e.timestamp, e.received_at, a.number, e.clamped, e.user_id, e.name, e.target, e.properties, e.platform, e.app_version
                FROM events e JOIN apps a ON a.id = e.app
                """,
                "DROP TABLE events",
                "ALTER TABLE events_by_number RENAME TO events",
                "ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (id, app_number)",
                "CREATE INDEX events_by_time ON events(app_number, timestamp, id) INCLUDE (platform, user_id, name)",
                "CREATE INDEX events_by_name ON events(app_number, name, timestamp)",
            ]
        ),
        (
            // Failed logins, which the console's throttle counts per email and per client address:
            // here, every server behind the load balancer counts the same ones.
            "v6: failed logins",
            [
                "CREATE TABLE login_failures (key TEXT NOT NULL, at BIGINT NOT NULL)",
                "CREATE INDEX login_failures_by_key ON login_failures(key, at)",
            ]
        ),
        (
            // Each identified user's latest attributes, with when each took its value.
            "v7: user attributes",
            [
                """
                CREATE TABLE user_attributes (
                    app TEXT NOT NULL, user_id TEXT COLLATE "C" NOT NULL, name TEXT COLLATE "C" NOT NULL, type TEXT NOT NULL,
                    value TEXT NOT NULL, changed_at BIGINT NOT NULL, PRIMARY KEY (app, user_id, name)
                )
                """,
                "CREATE INDEX user_attributes_by_name ON user_attributes(app, name)",
            ]
        ),
        (
            // Each identified user's progress with tips and tours, merged from all their devices.
            "v8: user progress",
            [
                """
                CREATE TABLE user_progress (
                    app TEXT NOT NULL, user_id TEXT COLLATE "C" NOT NULL, document TEXT NOT NULL, updated_at BIGINT NOT NULL,
                    PRIMARY KEY (app, user_id)
                )
                """
            ]
        ),
        (
            // Who is in each segment that reads history, as the refresher last found them: derived,
            // so migrate-data leaves it to the next refresh.
            "v9: segment members",
            [
                """
                CREATE TABLE segment_members (
                    app TEXT NOT NULL, user_id TEXT COLLATE "C" NOT NULL, segment TEXT COLLATE "C" NOT NULL,
                    PRIMARY KEY (app, user_id, segment)
                )
                """
            ]
        ),
        (
            // Each grant's place in its app's ledger, for backends that page through it: existing
            // grants numbered by when they were granted, new ones by the claim that makes them.
            "v10: grants numbered in the order they were made",
            [
                "ALTER TABLE grants ADD COLUMN sequence BIGINT",
                """
                UPDATE grants SET sequence = numbered.n
                FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY app ORDER BY granted_at, id) AS n FROM grants) AS numbered
                WHERE grants.id = numbered.id
                """,
                "ALTER TABLE grants ALTER COLUMN sequence SET NOT NULL",
                "CREATE UNIQUE INDEX grants_by_sequence ON grants(app, sequence)",
            ]
        ),
        (
            // A credit claim reads the user's own page events. An index by user over every event
            // would slow every insert; this one holds the two names a claim reads and nothing else.
            "v11: reading events by user",
            [
                """
                CREATE INDEX events_for_reading ON events(app_number, user_id, target, timestamp)
                WHERE name IN ('page_viewed', 'page_read_to_bottom')
                """
            ]
        ),
        (
            // How many days an app keeps its events; an app without a row keeps them forever.
            "v12: event retention",
            ["CREATE TABLE event_retention (app TEXT PRIMARY KEY, days BIGINT NOT NULL)"]
        ),
        (
            // Each app's webhook endpoints, and the outbox: a delivery per notice and endpoint,
            // written in the transaction of the change it reports. The due index holds only
            // pending deliveries, so the servers' polling reads what is to send and nothing else.
            "v13: webhook endpoints and their outbox",
            [
                """
                CREATE TABLE webhook_endpoints (
                    id TEXT PRIMARY KEY,
                    app TEXT NOT NULL REFERENCES apps(id),
                    url TEXT NOT NULL,
                    types TEXT NOT NULL,
                    secret TEXT NOT NULL,
                    previous_secret TEXT,
                    previous_until BIGINT,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX webhook_endpoints_by_app ON webhook_endpoints(app)",
                """
                CREATE TABLE webhook_deliveries (
                    event TEXT NOT NULL,
                    endpoint TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
                    app TEXT NOT NULL,
                    type TEXT NOT NULL,
                    user_id TEXT,
                    body TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    state TEXT NOT NULL,
                    attempts BIGINT NOT NULL,
                    next_attempt_at BIGINT NOT NULL,
                    lease_until BIGINT,
                    last_attempt_at BIGINT,
                    last_status BIGINT,
                    last_answer TEXT,
                    last_error TEXT,
                    PRIMARY KEY (event, endpoint)
                )
                """,
                "CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_attempt_at) WHERE state = 'pending'",
                "CREATE INDEX webhook_deliveries_by_app ON webhook_deliveries(app, created_at)",
                "CREATE INDEX webhook_deliveries_by_user ON webhook_deliveries(app, user_id) WHERE user_id IS NOT NULL",
            ]
        ),
        (
            // The anchors and screen areas the SDKs saw, per screen and platform: names only, no user.
            "v14: anchors and areas the SDKs saw",
            [
                """
                CREATE TABLE anchor_sightings (
                    app TEXT NOT NULL, platform TEXT COLLATE "C" NOT NULL, screen TEXT COLLATE "C" NOT NULL,
                    kind TEXT COLLATE "C" NOT NULL, name TEXT COLLATE "C" NOT NULL,
                    first_seen BIGINT NOT NULL, last_seen BIGINT NOT NULL, reports BIGINT NOT NULL, matches BIGINT,
                    PRIMARY KEY (app, platform, screen, kind, name)
                )
                """
            ]
        ),
        (
            // Draft previews, and what previewing devices sent: apart from events, so no report counts them.
            "v15: draft previews",
            [
                """
                CREATE TABLE previews (
                    id TEXT PRIMARY KEY, app TEXT NOT NULL REFERENCES apps(id), hash TEXT NOT NULL UNIQUE, url TEXT NOT NULL,
                    created_by TEXT NOT NULL, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL, ended_at BIGINT
                )
                """,
                "CREATE INDEX previews_by_app ON previews (app, created_at)",
                """
                CREATE TABLE preview_events (
                    preview TEXT NOT NULL REFERENCES previews(id) ON DELETE CASCADE, id TEXT COLLATE "C" NOT NULL, name TEXT NOT NULL,
                    target TEXT, timestamp BIGINT NOT NULL, received_at BIGINT NOT NULL, properties TEXT,
                    PRIMARY KEY (preview, id)
                )
                """,
            ]
        ),
        (
            // What paired devices captured of their screens: a picture and where the anchors are, no user.
            "v16: screens paired devices captured",
            [
                """
                CREATE TABLE captures (
                    id TEXT PRIMARY KEY, app TEXT NOT NULL REFERENCES apps(id), preview TEXT NOT NULL, platform TEXT NOT NULL,
                    screen TEXT NOT NULL, width DOUBLE PRECISION NOT NULL, height DOUBLE PRECISION NOT NULL, frames TEXT NOT NULL,
                    image_type TEXT NOT NULL, image BYTEA NOT NULL, created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX captures_by_app ON captures (app, created_at)",
            ]
        ),
        (
            // A page builder is a preview that may save one draft tip: the one it edits.
            "v17: page builders",
            ["ALTER TABLE previews ADD COLUMN edits TEXT"]
        ),
        (
            // The signs of struggle found in each day's events, and the days looked at: derived, so
            // a database copy leaves them out.
            "v18: where people get lost",
            [
                """
                CREATE TABLE struggles (
                    app TEXT NOT NULL, day BIGINT NOT NULL, signal TEXT COLLATE "C" NOT NULL, screen TEXT COLLATE "C" NOT NULL,
                    element TEXT COLLATE "C" NOT NULL, user_id TEXT COLLATE "C" NOT NULL, visit BIGINT NOT NULL, at BIGINT NOT NULL,
                    platform TEXT NOT NULL, locale TEXT NOT NULL, query TEXT
                )
                """,
                "CREATE INDEX struggles_by_day ON struggles (app, day)",
                "CREATE INDEX struggles_by_place ON struggles (app, signal, screen, element, at)",
                "CREATE INDEX struggles_by_user ON struggles (app, user_id)",
                """
                CREATE TABLE struggle_days (
                    app TEXT NOT NULL, day BIGINT NOT NULL, computed_at BIGINT NOT NULL, PRIMARY KEY (app, day)
                )
                """,
            ]
        ),
        (
            // The daily rollups the reports read for the days in rolled_days (per app, day, name,
            // user, target, platform, app version and the reports' properties, how many events),
            // derived, so a database copy leaves them out. A day is folded once it ended; events
            // stored for it later unfold it, in their own transaction, by a trigger once a
            // statement (so COPY does too): ingestion writes nothing more than that. The
            // advisory lock on (app, day) orders a fold after the inserts under way in its day and
            // an insert's unfolding after the fold under way.
            "v19: daily rollups of events",
            [
                """
                CREATE TABLE event_days (
                    app_number INTEGER NOT NULL, day BIGINT NOT NULL, events BIGINT NOT NULL, name TEXT COLLATE "C" NOT NULL,
                    user_id TEXT COLLATE "C" NOT NULL, target TEXT COLLATE "C", platform TEXT COLLATE "C", app_version TEXT COLLATE "C",
                    properties JSONB NOT NULL
                )
                """,
                "CREATE INDEX event_days_by_day ON event_days (app_number, day, name)",
                "CREATE INDEX event_days_by_user ON event_days (app_number, user_id)",
                "CREATE TABLE rolled_days (app_number INTEGER NOT NULL, day BIGINT NOT NULL, PRIMARY KEY (app_number, day))",
                """
                CREATE FUNCTION events_unfold() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM pg_advisory_xact_lock_shared(app_number, (day / \(Period.day))::INT4)
                    FROM (SELECT DISTINCT app_number, timestamp - timestamp % \(Period.day) AS day FROM stored) AS days
                    ORDER BY days.app_number, days.day;
                    DELETE FROM rolled_days AS r
                    USING (SELECT DISTINCT app_number, timestamp - timestamp % \(Period.day) AS day FROM stored) AS days
                    WHERE r.app_number = days.app_number AND r.day = days.day;
                    RETURN NULL;
                END $$
                """,
                """
                CREATE TRIGGER events_unfold AFTER INSERT ON events REFERENCING NEW TABLE AS stored
                FOR EACH STATEMENT EXECUTE FUNCTION events_unfold()
                """,
            ]
        ),
        (
            // What ClickHouse must learn, once analytics_outbox_kept has its row: each event stored
            // (by a trigger once a statement, so COPY writes it too, in its own transaction), each
            // erasure and each retention cut, in the transaction of the change.
            "v20: the analytics outbox",
            [
                "CREATE TABLE analytics_outbox_kept (id INTEGER PRIMARY KEY CHECK (id = 1))",
                """
                CREATE TABLE analytics_outbox (
                    seq BIGSERIAL PRIMARY KEY, app_number INTEGER NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('event', 'erase', 'forget')), event_id UUID, user_id TEXT, before BIGINT
                )
                """,
                """
                CREATE FUNCTION events_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF EXISTS (SELECT 1 FROM analytics_outbox_kept) THEN
                        INSERT INTO analytics_outbox (app_number, kind, event_id) SELECT app_number, 'event', id FROM stored;
                    END IF;
                    RETURN NULL;
                END $$
                """,
                """
                CREATE TRIGGER events_outbox AFTER INSERT ON events REFERENCING NEW TABLE AS stored
                FOR EACH STATEMENT EXECUTE FUNCTION events_outbox()
                """,
            ]
        ),
        (
            // Users numbered per app as the days they appear in are folded, and each folded day's
            // groups of events (the rollups' columns but the user) with their count of events and
            // their set of user numbers (UserSet), which tallies unite in the server. Derived like
            // the rollups. A day folded with its sets says so in rolled_days; one folded before, or
            // by a server of an earlier release during a rolling upgrade (whose insert takes the
            // default), has none, so tallies the sets would answer read its events until a fold
            // makes them.
            "v21: user numbers and each folded day's user sets",
            [
                """
                CREATE TABLE user_numbers (
                    app_number INTEGER NOT NULL, user_id TEXT COLLATE "C" NOT NULL, number INTEGER NOT NULL,
                    PRIMARY KEY (app_number, user_id)
                )
                """,
                "CREATE UNIQUE INDEX user_numbers_by_number ON user_numbers (app_number, number)",
                """
                CREATE TABLE event_day_users (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, app_number INTEGER NOT NULL, day BIGINT NOT NULL,
                    name TEXT COLLATE "C" NOT NULL, target TEXT COLLATE "C", platform TEXT COLLATE "C", app_version TEXT COLLATE "C",
                    properties JSONB NOT NULL, events BIGINT NOT NULL, users BYTEA NOT NULL
                )
                """,
                "CREATE INDEX event_day_users_by_day ON event_day_users (app_number, day, name)",
                "ALTER TABLE rolled_days ADD COLUMN sets BOOLEAN NOT NULL DEFAULT false",
            ]
        ),
        (
            // What the eligible counts keep day by day (EligibilityStore): the days of each
            // ruleset kept, each user's state at the end of each of their days, the sets of users
            // who could have been shown each tip, and per app an epoch. Derived, like the rollups.
            // An insert that unfolds a folded day takes every kept day from it on: it first moves
            // the app's epoch on (a fold saving holds that row, so the insert waits for it), then,
            // in statements that see what the fold saved, deletes; from the first day when the
            // unfolded one is as far back as the kept states were thinned (the epochs' thinned).
            // A fold saves only under the epoch it read. A server of an earlier release inserts
            // through the same trigger.
            "v22: eligible counts kept day by day",
            [
                """
                CREATE TABLE eligibility_days (
                    app_number INTEGER NOT NULL, ruleset TEXT COLLATE "C" NOT NULL, day BIGINT NOT NULL,
                    PRIMARY KEY (app_number, ruleset, day)
                )
                """,
                """
                CREATE TABLE eligibility_states (
                    app_number INTEGER NOT NULL, ruleset TEXT COLLATE "C" NOT NULL, user_id TEXT COLLATE "C" NOT NULL,
                    day BIGINT NOT NULL, state BYTEA NOT NULL, PRIMARY KEY (app_number, ruleset, user_id, day)
                )
                """,
                "CREATE INDEX eligibility_states_by_day ON eligibility_states (app_number, day)",
                """
                CREATE TABLE eligible_sets (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, app_number INTEGER NOT NULL, ruleset TEXT COLLATE "C" NOT NULL,
                    day BIGINT NOT NULL, tip TEXT COLLATE "C" NOT NULL, platform TEXT COLLATE "C", app_version TEXT COLLATE "C",
                    users BYTEA NOT NULL
                )
                """,
                "CREATE INDEX eligible_sets_by_day ON eligible_sets (app_number, ruleset, day)",
                "CREATE TABLE eligibility_epochs (app_number INTEGER PRIMARY KEY, epoch BIGINT NOT NULL, thinned BIGINT)",
                """
                CREATE OR REPLACE FUNCTION events_unfold() RETURNS trigger LANGUAGE plpgsql AS $$
                DECLARE
                    apps INTEGER[];
                    firsts BIGINT[];
                    horizon BIGINT;
                    cut BIGINT;
                BEGIN
                    PERFORM pg_advisory_xact_lock_shared(app_number, (day / \(Period.day))::INT4)
                    FROM (SELECT DISTINCT app_number, timestamp - timestamp % \(Period.day) AS day FROM stored) AS days
                    ORDER BY days.app_number, days.day;
                    WITH gone AS (
                        DELETE FROM rolled_days AS r
                        USING (SELECT DISTINCT app_number, timestamp - timestamp % \(Period.day) AS day FROM stored) AS days
                        WHERE r.app_number = days.app_number AND r.day = days.day
                        RETURNING r.app_number, r.day
                    )
                    SELECT array_agg(app_number ORDER BY app_number), array_agg(first ORDER BY app_number) INTO apps, firsts
                    FROM (SELECT app_number, MIN(day) AS first FROM gone GROUP BY app_number) AS unfolded;
                    FOR i IN 1..COALESCE(array_length(apps, 1), 0) LOOP
                        INSERT INTO eligibility_epochs AS e (app_number, epoch) VALUES (apps[i], 1)
                        ON CONFLICT (app_number) DO UPDATE SET epoch = e.epoch + 1 RETURNING thinned INTO horizon;
                        -- As far back as the states were thinned: every kept day goes.
                        cut := CASE WHEN firsts[i] <= horizon THEN -9223372036854775808 ELSE firsts[i] END;
                        DELETE FROM eligibility_days WHERE app_number = apps[i] AND day >= cut;
                        DELETE FROM eligibility_states WHERE app_number = apps[i] AND day >= cut;
                        DELETE FROM eligible_sets WHERE app_number = apps[i] AND day >= cut;
                        IF firsts[i] <= horizon THEN
                            UPDATE eligibility_epochs SET thinned = NULL WHERE app_number = apps[i];
                        END IF;
                    END LOOP;
                    RETURN NULL;
                END $$
                """,
            ]
        ),
    ]

    /// Where a column of the portable form (``PortableTable``, given as text) goes in this schema
    /// when it is not stored as is: the column's name here and SQL making its value of the text.
    static let importedColumns: [String: (name: String, value: @Sendable (String) -> String)] = [
        "events.id": ("id", { uuid(fromText: $0) }),
        "events.app": ("app_number", { "(SELECT number FROM apps WHERE id = \($0))" }),
    ]

    /// SQL making a uuid of the text `column`: the UUID it writes, or, for text that is none, a
    /// UUID made of its MD5, so that the event is kept (the server once checked ids with
    /// Foundation's parser, which also takes spaces and signs between the digits).
    static func uuid(fromText column: String) -> String {
        "CASE WHEN \(column) ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN \(column)::UUID ELSE md5(\(column))::UUID END"
    }
}
