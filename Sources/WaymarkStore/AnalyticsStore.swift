import Foundation

/// The reads that analytics make over the stored events: counts grouped by what the console
/// breaks them down by, and the events themselves for replays. Part of every ``Store``.
///
/// Every read is bounded by a period and uses the events' indexes (by time, by name and time), so
/// it stays fast as the table grows past a million events.
public protocol AnalyticsStore: Sendable {
    /// The events of the period with one of the names (all names when `names` is nil), counted per
    /// name (unless `byName` is false) and per value of each dimension: how many events and how
    /// many distinct users.
    func tally(app: String, _ query: TallyQuery) async throws(StoreError) -> [TallyRow]
    /// The same tally split by the users' groups, each group the last of a row's keys: how many
    /// events and distinct users each group has. (The default tallies per user and folds the
    /// users into their groups.)
    func tally(app: String, _ query: TallyQuery, grouping: UserGrouping) async throws(StoreError) -> [TallyRow]
    /// The events of the period, in (timestamp, id) order, a page of at most `limit` after `cursor`;
    /// only one user's when `user` is set.
    func events(app: String, period: Period, user: String?, after cursor: EventCursor?, limit: Int) async throws(StoreError)
        -> [StoredEvent]
    /// The credits granted in the period, per tour and page.
    func grantTotals(app: String, period: Period) async throws(StoreError) -> [GrantTotal]
    /// Folds the app's events of at most `limit` whole UTC days that ended by `before` and are not
    /// folded yet, oldest first, into the daily rollups ``tally(app:_:)`` reads instead of those
    /// days' events; answers how many days it folded (0: none is left). A folded day that gets an
    /// event later, or loses some to retention, is unfolded in the same transaction, and folded
    /// again by a later call; an erased user leaves the rollups with their events. Folding a day
    /// also numbers its new users and writes its user sets (``UserSet``), from which tallies that
    /// are not per user count distinct users.
    func rollUp(app: String, before: Int64, limit: Int) async throws(StoreError) -> Int
}

/// The events as an analytics store beside the database takes them (ClickHouse): in (timestamp,
/// id) order from a cursor, each with the texts this database's tally reads of its properties, so
/// that the other store counts exactly what this one would.
public protocol AnalyticsExport: Sendable {
    /// The app's events of the period after `cursor`, in (timestamp, id) order, at most `limit`.
    func analyticsRows(app: String, period: Period, after cursor: EventCursor?, limit: Int) async throws(StoreError) -> [AnalyticsRow]
}

extension AnalyticsStore {
    public func tally(app: String, _ query: TallyQuery, grouping: UserGrouping) async throws(StoreError) -> [TallyRow] {
        var perUser = query
        perUser.dimensions.append(.user)
        return grouping.fold(try await tally(app: app, perUser))
    }
}

/// What an analytics store beside the database (ClickHouse) must learn, kept in an outbox written
/// in the same transaction as the change itself, so that nothing is lost when either side stops.
public protocol AnalyticsOutbox: Sendable {
    /// From now on, every write to the database (by any server) keeps an outbox entry for each
    /// stored event, each erasure and each retention cut. Kept in the database; calling it again
    /// changes nothing.
    func keepAnalyticsOutbox() async throws(StoreError)
    /// From now on, writes keep no outbox entries, and the entries waiting are removed: what an
    /// installation leaving ClickHouse does once no server ships (a server started with
    /// `--analytics` keeps the outbox again). Answers how many entries it removed; calling it again
    /// removes none.
    @discardableResult func stopAnalyticsOutbox() async throws(StoreError) -> Int
    /// Whether writes keep the outbox, and how many entries wait in it.
    func analyticsOutbox() async throws(StoreError) -> (kept: Bool, waiting: Int)
    /// Hands the oldest entries (at most `limit`) to `ship`, in the order they were written, and
    /// removes them once it returns; nothing is removed when it throws, so a change is shipped at
    /// least once (and the receiver drops what it has). Answers how many entries there were. On
    /// PostgreSQL one server ships at a time; another answers 0 meanwhile.
    func shipAnalytics(limit: Int, _ ship: @escaping @Sendable ([AnalyticsChange]) async throws -> Void) async throws(StoreError)
        -> Int
    /// Runs `body` while no other server ships or runs one: on PostgreSQL under the shippers'
    /// lock, waiting for it. What changes the receiving tables (a migration) runs so, so that two
    /// servers starting at once do not change them over each other.
    func whileNoneShips(_ body: @escaping @Sendable () async throws -> Void) async throws(StoreError)
}

/// A change the analytics store must make.
public enum AnalyticsChange: Hashable, Sendable {
    /// Events stored (an event erased or forgotten before it was shipped is left out).
    case stored([AnalyticsRow])
    /// A user's events erased.
    case erased(app: String, user: String)
    /// An app's events before a time removed by retention.
    case forgotten(app: String, before: Int64)

    /// Entries in order as changes: consecutive events in one ``stored(_:)``.
    public static func grouping(_ entries: [AnalyticsChange]) -> [AnalyticsChange] {
        var changes: [AnalyticsChange] = []
        for entry in entries {
            if case .stored(let rows) = entry, case .stored(let earlier)? = changes.last {
                changes[changes.count - 1] = .stored(earlier + rows)
            } else if changes.last != entry {
                changes.append(entry)
            }
        }
        return changes
    }
}

/// An event and the texts of its reported properties.
public struct AnalyticsRow: Hashable, Sendable {
    public var event: StoredEvent
    /// The text of each of ``TallyDimension/rolledUpProperties``, in that order, as the database's
    /// tally reads it (`true` and `false` for flags, a number as the database writes it); nil where
    /// the event has none.
    public var reported: [String?]

    public init(event: StoredEvent, reported: [String?]) {
        self.event = event
        self.reported = reported
    }

    /// The row from the JSON array of texts a database made (`["next", null, …]`), which must
    /// have one member per reported property.
    public init(event: StoredEvent, reportedJSON: String) throws(StoreError) {
        guard let texts = try? JSONDecoder().decode([String?].self, from: Data(reportedJSON.utf8)),
            texts.count == TallyDimension.rolledUpProperties.count
        else { throw StoreError(.failed, "the reported properties of event \(event.id) are not one text or null each: \(reportedJSON)") }
        self.init(event: event, reported: texts)
    }
}

/// A half-open span of time, `from <= t < to`, in ms since 1970.
public struct Period: Hashable, Sendable {
    public var from: Int64
    public var to: Int64

    /// Every time there is: a user's whole history.
    public static let always = Period(from: Int64.min, to: Int64.max)

    public init(from: Int64, to: Int64) {
        self.from = from
        self.to = max(from, to)
    }

    public init(from: Date, to: Date) {
        self.init(from: from.millisecondsSince1970, to: to.millisecondsSince1970)
    }

    public static let day: Int64 = 86_400_000

    /// Midnight (UTC) of the day of a time, in ms since 1970.
    public static func startOfDay(_ millis: Int64) -> Int64 { millis - millis % day }

    /// Midnight (UTC) of each day the period touches.
    public var days: [Int64] {
        var days: [Int64] = []
        var day = Self.startOfDay(from)
        while day < to {
            days.append(day)
            day += Self.day
        }
        return days
    }
}

/// What a ``TallyRow`` is grouped by besides the event's name.
public enum TallyDimension: Hashable, Sendable {
    /// The UTC day, as ms since 1970 at midnight.
    case day
    /// The `platform` property every SDK sends.
    case platform
    /// The `appVersion` property.
    case appVersion
    /// The event's target.
    case target
    /// Any other property (`tip`, `tour`, `page`, `variant`, `score`): letters, digits and `_` only.
    case property(String)
    /// The user: one row per user, for breakdowns decided per user outside the database (a
    /// segment's members).
    case user
}

public struct TallyQuery: Hashable, Sendable {
    public var period: Period
    public var names: [String]?
    /// Whether rows are per name; without, a user counts once across all the names.
    public var byName: Bool
    public var dimensions: [TallyDimension]
    /// Whether to read the events of every day, folded or not: the same rows, the way they were
    /// counted before rollups (the benchmarks' yardstick).
    public var fromEvents: Bool

    public init(
        period: Period, names: [String]? = nil, byName: Bool = true, by dimensions: [TallyDimension] = [], fromEvents: Bool = false
    ) {
        self.period = period
        self.names = names
        self.byName = byName
        self.dimensions = dimensions
        self.fromEvents = fromEvents
    }
}

public struct TallyRow: Hashable, Sendable {
    /// nil when the query was not by name.
    public var name: String?
    /// One value per dimension of the query, in its order; nil where the event has none.
    public var keys: [String?]
    public var events: Int
    /// Distinct users.
    public var users: Int

    public init(name: String?, keys: [String?], events: Int, users: Int) {
        self.name = name
        self.keys = keys
        self.events = events
        self.users = users
    }
}

/// Where a page of ``AnalyticsStore/events(app:period:user:after:limit:)`` ended.
public struct EventCursor: Hashable, Sendable {
    public var timestamp: Int64
    public var id: String

    public init(timestamp: Int64, id: String) {
        self.timestamp = timestamp
        self.id = id
    }

    public init(after event: StoredEvent) { self.init(timestamp: event.timestamp, id: event.id) }
}

public struct GrantTotal: Hashable, Sendable {
    public var tour: String
    public var page: String
    public var grants: Int
    public var credits: Int

    public init(tour: String, page: String, grants: Int, credits: Int) {
        self.tour = tour
        self.page = page
        self.grants = grants
        self.credits = credits
    }
}

extension TallyDimension {
    /// The properties the daily rollups keep, the ones the console's reports break events down
    /// by; a tally by any other property reads the events.
    public static let rolledUpProperties = [
        "action", "anchor", "comment", "item", "kind", "page", "query", "results", "score", "screen", "seconds", "to", "tour",
        "variant",
    ]

    /// Whether a property name can be used: it goes into a query as a JSON path.
    public static func isPropertyName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || CharacterSet.alphanumerics.contains($0)) }
    }
}

/// The SQL of a ``TallyQuery``, written once for every database; a store names the few places
/// where its dialect differs. The rows it selects are, in order: the name (or NULL) as `event_name`,
/// one text key per dimension (`k0`, `k1`, …), the number of `events` and of distinct `users`.
public struct TallySQL: Sendable {
    /// A value bound to a placeholder.
    public enum Value: Hashable, Sendable {
        case text(String)
        case integer(Int64)
    }

    /// Where a database's SQL differs.
    public struct Dialect: Sendable {
        /// The placeholder of the nth bound value, from 1: `?` or `$1`.
        public var placeholder: @Sendable (Int) -> String
        /// The condition that selects the app's events, given the placeholder of its id.
        public var app: @Sendable (String) -> String
        /// The column of the user's id.
        public var user: String
        /// As text, an integer expression (the UTC day's midnight, in ms since 1970).
        public var text: @Sendable (String) -> String
        /// The text of a property, given its name (letters, digits and `_` only).
        public var property: @Sendable (String) -> String
        /// A NULL of type text.
        public var nullText: String
        /// The text of a property a rollup row kept (as text), given its name.
        public var rolledProperty: @Sendable (String) -> String
        /// A sum of counts, as an integer.
        public var sum: @Sendable (String) -> String
        /// The number of distinct values of a column (users' ids).
        public var distinct: @Sendable (String) -> String

        public init(
            placeholder: @escaping @Sendable (Int) -> String, app: @escaping @Sendable (String) -> String, user: String,
            text: @escaping @Sendable (String) -> String,
            property: @escaping @Sendable (String) -> String, nullText: String,
            rolledProperty: @escaping @Sendable (String) -> String, sum: @escaping @Sendable (String) -> String,
            distinct: @escaping @Sendable (String) -> String = { "COUNT(DISTINCT \($0))" }
        ) {
            self.placeholder = placeholder
            self.app = app
            self.user = user
            self.text = text
            self.property = property
            self.nullText = nullText
            self.rolledProperty = rolledProperty
            self.sum = sum
            self.distinct = distinct
        }
    }

    public var sql: String
    public var arguments: [Value]
    /// How many keys each row has.
    public var dimensions: Int

    /// The tally's SQL, or nil when it can select nothing (an empty list of names). A property
    /// name that is not letters, digits and `_` is refused: names go into the SQL as text.
    ///
    /// Days in `folded` (midnights) that lie wholly in the period are read from the rollups
    /// (`event_days`, one row per app, day, name, user, target, platform, app version and the
    /// properties in ``TallyDimension/rolledUpProperties``, with its count of events), the rest of
    /// the period from the events; a query by another property reads only events. A query the
    /// user sets can answer (``UserSetTallySQL``) is better read that way.
    public init?(_ query: TallyQuery, app: String, dialect: Dialect, folded: Set<Int64> = []) throws(StoreError) {
        let parts = try Parts(query, dialect: dialect)
        let (days, rest) = parts.rollable ? Self.split(query.period, folded: folded) : ([], [query.period])
        if query.names?.isEmpty == true { return nil }
        var binder = Binder(query: query, app: app, dialect: dialect)
        let groups = (query.byName ? ["name"] : []) + parts.columns.indices.map { "k\($0)" }
        let name = parts.eventName
        if days.isEmpty {
            let keys = [name] + parts.columns.enumerated().map { "\($1) AS k\($0)" }
            sql = """
                SELECT \(keys.joined(separator: ", ")), COUNT(*) AS events, \(dialect.distinct(dialect.user)) AS users
                FROM events WHERE \(binder.condition("timestamp", rest))
                """
        } else {
            // Both halves select the name, the user, the keys and a count of events; the user
            // column is `u` in both, so the outer query names it once.
            let fromRollups = (["name", "\(dialect.user) AS u"] + parts.rolled.enumerated().map { "\($1) AS k\($0)" } + ["events AS n"])
            var union = "SELECT \(fromRollups.joined(separator: ", ")) FROM event_days WHERE \(binder.condition("day", days))"
            if !rest.isEmpty {
                let fromEvents = (["name", "\(dialect.user) AS u"] + parts.columns.enumerated().map { "\($1) AS k\($0)" } + ["1 AS n"])
                union += " UNION ALL SELECT \(fromEvents.joined(separator: ", ")) FROM events WHERE \(binder.condition("timestamp", rest))"
            }
            let keys = [name] + parts.columns.indices.map { "k\($0)" }
            sql = """
                SELECT \(keys.joined(separator: ", ")), \(dialect.sum("n")) AS events, \(dialect.distinct("u")) AS users
                FROM (\(union)) AS tallied
                """
        }
        if !groups.isEmpty { sql += " GROUP BY \(groups.joined(separator: ", "))" }
        self.arguments = binder.arguments
        dimensions = parts.columns.count
    }

    /// What every form of a tally's SQL selects: each dimension's column in the events and in
    /// the rollups, and the name.
    struct Parts {
        var columns: [String] = []
        var rolled: [String] = []
        /// Whether the rollups keep every dimension.
        var rollable: Bool
        /// The name (or a NULL) as `event_name`. Not aliased `name`: ClickHouse would read the
        /// alias for the column in the conditions.
        var eventName: String

        init(_ query: TallyQuery, dialect: Dialect) throws(StoreError) {
            for dimension in query.dimensions {
                let (column, rolledColumn): (String, String)
                switch dimension {
                case .day: (column, rolledColumn) = (dialect.text("timestamp - timestamp % \(Period.day)"), dialect.text("day"))
                case .platform: (column, rolledColumn) = ("platform", "platform")
                case .appVersion: (column, rolledColumn) = ("app_version", "app_version")
                case .target: (column, rolledColumn) = ("target", "target")
                case .user: (column, rolledColumn) = (dialect.user, dialect.user)
                case .property(let name):
                    guard TallyDimension.isPropertyName(name) else { throw StoreError(.failed, "not a property name: \(name)") }
                    (column, rolledColumn) = (dialect.property(name), dialect.rolledProperty(name))
                }
                columns.append(column)
                rolled.append(rolledColumn)
            }
            rollable =
                !query.fromEvents
                && query.dimensions.allSatisfy {
                    if case .property(let name) = $0 { return TallyDimension.rolledUpProperties.contains(name) }
                    return true
                }
            eventName = (query.byName ? "name" : dialect.nullText) + " AS event_name"
        }
    }

    /// Binds values in the order the SQL is written (SQLite's `?` are positional).
    struct Binder {
        let query: TallyQuery
        let app: String
        let dialect: Dialect
        var arguments: [Value] = []

        mutating func bind(_ value: Value) -> String {
            arguments.append(value)
            return dialect.placeholder(arguments.count)
        }

        /// The app's rows whose `column` (a time) lies in one of the spans, with one of the query's
        /// names.
        mutating func condition(_ column: String, _ spans: [Period]) -> String {
            let app = dialect.app(bind(.text(self.app)))
            let time = spans.map { "\(column) >= \(bind(.integer($0.from))) AND \(column) < \(bind(.integer($0.to)))" }
            let names = query.names.map { " AND name IN (" + $0.map { bind(.text($0)) }.joined(separator: ", ") + ")" } ?? ""
            return "\(app) AND (\(time.joined(separator: " OR ")))\(names)"
        }
    }

    /// The whole days of `period` that are folded, and what is left of it, each as the fewest
    /// spans of time.
    static func split(_ period: Period, folded: Set<Int64>) -> (days: [Period], rest: [Period]) {
        var days: [Period] = []
        var rest: [Period] = []
        func add(_ span: Period, to spans: inout [Period]) {
            guard span.from < span.to else { return }
            if let last = spans.last, last.to == span.from {
                spans[spans.count - 1].to = span.to
            } else {
                spans.append(span)
            }
        }
        var start = period.from
        for day in folded.sorted() where day >= period.from && period.to - day >= Period.day {
            add(Period(from: start, to: day), to: &rest)
            add(Period(from: day, to: day + Period.day), to: &days)
            start = day + Period.day
        }
        add(Period(from: start, to: period.to), to: &rest)
        if rest.isEmpty && days.isEmpty { rest = [period] }
        return (days, rest)
    }
}

/// A tally counted in the server from the user sets of the folded days (``UserSet``): two
/// statements, one selecting each folded group's `event_name`, keys (`k0`, `k1`, …), `events` and
/// set of `users`, the other selecting, for the days not folded, each group's users one row each
/// (`event_name`, keys, `events`, the user's `number` or NULL, and the user's id as `u`), which
/// ``UserSetTally`` unites.
public struct UserSetTallySQL: Sendable {
    public var sets: (sql: String, arguments: [TallySQL.Value])
    public var rest: (sql: String, arguments: [TallySQL.Value])?
    /// How many keys each row has.
    public var dimensions: Int

    /// The statements, or nil where the sets cannot answer: a tally by user or by a property the
    /// rollups do not keep, one read from the events, or one whose period has no folded day.
    public init?(_ query: TallyQuery, app: String, dialect: TallySQL.Dialect, folded: Set<Int64>) throws(StoreError) {
        let parts = try TallySQL.Parts(query, dialect: dialect)
        guard parts.rollable, !query.dimensions.contains(.user), query.names?.isEmpty != true else { return nil }
        let (days, rest) = TallySQL.split(query.period, folded: folded)
        guard !days.isEmpty else { return nil }
        var binder = TallySQL.Binder(query: query, app: app, dialect: dialect)
        let keys = [parts.eventName] + parts.rolled.enumerated().map { "\($1) AS k\($0)" }
        sets = (
            "SELECT \(keys.joined(separator: ", ")), events, users FROM event_day_users WHERE \(binder.condition("day", days))",
            binder.arguments
        )
        dimensions = parts.columns.count
        guard !rest.isEmpty else { return }
        var restBinder = TallySQL.Binder(query: query, app: app, dialect: dialect)
        // The user's number, looked up once a user and group (bound first: it is written first).
        let number = "(SELECT number FROM user_numbers WHERE \(dialect.app(restBinder.bind(.text(app)))) AND \(dialect.user) = g.u)"
        let eventKeys = [parts.eventName] + parts.columns.enumerated().map { "\($1) AS k\($0)" } + ["\(dialect.user) AS u"]
        let groups = (query.byName ? ["name"] : []) + parts.columns.indices.map { "k\($0)" } + ["u"]
        self.rest = (
            """
            SELECT g.*, \(number) AS number FROM (
                SELECT \(eventKeys.joined(separator: ", ")), COUNT(*) AS events FROM events
                WHERE \(restBinder.condition("timestamp", rest)) GROUP BY \(groups.joined(separator: ", "))) AS g
            """,
            restBinder.arguments
        )
    }
}
