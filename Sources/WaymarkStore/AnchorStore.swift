import Foundation

/// What an app's SDKs saw on its screens (``WaymarkAPI/AnchorReport``): each anchor and screen
/// area per platform and screen, when first and last seen, and in how many reports. Names only,
/// no user: erasure has nothing here to erase. Part of every ``Store``.
public protocol AnchorStore: Sendable {
    /// Records that the names were seen on the screen at `time`: a name seen before moves its last
    /// sighting and count; a new one is added while the app has fewer than `limit` sightings (a
    /// hostile page cannot fill the database), and left out after.
    func recordSightings(_ sightings: SightingBatch, at time: Date, limit: Int) async throws(StoreError)
    /// The app's sightings, by screen, kind, name and platform.
    func sightings(app: String) async throws(StoreError) -> [Sighting]
}

/// Names seen together on one screen.
public struct SightingBatch: Hashable, Sendable {
    public var app: String
    public var platform: String
    public var screen: String
    public var anchors: [String]
    public var areas: [String]
    /// CSS selectors, each with how many elements it matched on the screen.
    public var selectors: [String: Int]

    public init(app: String, platform: String, screen: String, anchors: [String], areas: [String], selectors: [String: Int] = [:]) {
        self.app = app
        self.platform = platform
        self.screen = screen
        self.anchors = anchors
        self.areas = areas
        self.selectors = selectors
    }

    /// Each name with its kind, once, and a selector's matches.
    public var names: [(kind: Sighting.Kind, name: String, matches: Int?)] {
        Array(Set(anchors)).sorted().map { (Sighting.Kind.anchor, $0, nil) }
            + Array(Set(areas)).sorted().map { (Sighting.Kind.area, $0, nil) }
            + selectors.sorted { $0.key < $1.key }.map { (Sighting.Kind.selector, $0.key, $0.value) }
    }
}

/// One name seen on one screen of one platform.
public struct Sighting: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        /// An element a tip can point at.
        case anchor
        /// A screen area a tip can show in.
        case area
        /// A web tip's CSS selector, with how many elements it matched (``Sighting/matches``).
        case selector
    }

    public var platform: String
    public var screen: String
    public var kind: Kind
    public var name: String
    public var firstSeen: Date
    public var lastSeen: Date
    public var reports: Int
    /// For a selector: how many elements it matched the last time it was reported.
    public var matches: Int?

    public init(
        platform: String, screen: String, kind: Kind, name: String, firstSeen: Date, lastSeen: Date, reports: Int, matches: Int? = nil
    ) {
        self.platform = platform
        self.screen = screen
        self.kind = kind
        self.name = name
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.reports = reports
        self.matches = matches
    }
}
