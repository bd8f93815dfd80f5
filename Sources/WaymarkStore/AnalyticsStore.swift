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
    /// The events of the period, in (timestamp, id) order, a page of at most `limit` after `cursor`;
    /// only one user's when `user` is set.
    func events(app: String, period: Period, user: String?, after cursor: EventCursor?, limit: Int) async throws(StoreError)
        -> [StoredEvent]
    /// The credits granted in the period, per tour and page.
    func grantTotals(app: String, period: Period) async throws(StoreError) -> [GrantTotal]
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

    public init(period: Period, names: [String]? = nil, byName: Bool = true, by dimensions: [TallyDimension] = []) {
        self.period = period
        self.names = names
        self.byName = byName
        self.dimensions = dimensions
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
    /// Whether a property name can be used: it goes into a query as a JSON path.
    public static func isPropertyName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || CharacterSet.alphanumerics.contains($0)) }
    }
}

/// The SQL of a ``TallyQuery``, written once for every database; a store names the few places
/// where its dialect differs. The rows it selects are, in order: the name (or NULL), one text key
/// per dimension, the number of events and the number of distinct users.
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
        /// The UTC day of `timestamp`, as text of ms since 1970.
        public var day: String
        /// The text of a property, given its name (letters, digits and `_` only).
        public var property: @Sendable (String) -> String
        /// A NULL of type text.
        public var nullText: String

        public init(
            placeholder: @escaping @Sendable (Int) -> String, app: @escaping @Sendable (String) -> String, user: String, day: String,
            property: @escaping @Sendable (String) -> String, nullText: String
        ) {
            self.placeholder = placeholder
            self.app = app
            self.user = user
            self.day = day
            self.property = property
            self.nullText = nullText
        }
    }

    public var sql: String
    public var arguments: [Value]
    /// How many keys each row has.
    public var dimensions: Int

    /// The tally's SQL, or nil when it can select nothing (an empty list of names). A property
    /// name that is not letters, digits and `_` is refused: names go into the SQL as text.
    public init?(_ query: TallyQuery, app: String, dialect: Dialect) throws(StoreError) {
        var arguments: [Value] = [.text(app), .integer(query.period.from), .integer(query.period.to)]
        var columns: [String] = []
        for dimension in query.dimensions {
            switch dimension {
            case .day: columns.append(dialect.day)
            case .platform: columns.append("platform")
            case .appVersion: columns.append("app_version")
            case .target: columns.append("target")
            case .user: columns.append(dialect.user)
            case .property(let name):
                guard TallyDimension.isPropertyName(name) else { throw StoreError(.failed, "not a property name: \(name)") }
                columns.append(dialect.property(name))
            }
        }
        var filter = ""
        if let names = query.names {
            guard !names.isEmpty else { return nil }
            filter =
                " AND name IN ("
                + names.map { name in
                    arguments.append(.text(name))
                    return dialect.placeholder(arguments.count)
                }.joined(separator: ", ") + ")"
        }
        let keys = [(query.byName ? "name" : dialect.nullText) + " AS name"] + columns.enumerated().map { "\($1) AS k\($0)" }
        let groups = (query.byName ? ["name"] : []) + columns.indices.map { "k\($0)" }
        sql = """
            SELECT \(keys.joined(separator: ", ")), COUNT(*) AS events, COUNT(DISTINCT \(dialect.user)) AS users
            FROM events WHERE \(dialect.app(dialect.placeholder(1))) AND timestamp >= \(dialect.placeholder(2)) AND timestamp < \(dialect.placeholder(3))\(filter)
            """
        if !groups.isEmpty { sql += " GROUP BY \(groups.joined(separator: ", "))" }
        self.arguments = arguments
        dimensions = columns.count
    }
}
