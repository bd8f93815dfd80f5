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

    public init(app: String, platform: String, screen: String, anchors: [String], areas: [String]) {
        self.app = app
        self.platform = platform
        self.screen = screen
        self.anchors = anchors
        self.areas = areas
    }

    /// Each name with its kind, once.
    public var names: [(kind: Sighting.Kind, name: String)] {
        Array(Set(anchors)).sorted().map { (Sighting.Kind.anchor, $0) } + Array(Set(areas)).sorted().map { (Sighting.Kind.area, $0) }
    }
}

/// One name seen on one screen of one platform.
public struct Sighting: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        /// An element a tip can point at.
        case anchor
        /// A screen area a tip can show in.
        case area
    }

    public var platform: String
    public var screen: String
    public var kind: Kind
    public var name: String
    public var firstSeen: Date
    public var lastSeen: Date
    public var reports: Int

    public init(platform: String, screen: String, kind: Kind, name: String, firstSeen: Date, lastSeen: Date, reports: Int) {
        self.platform = platform
        self.screen = screen
        self.kind = kind
        self.name = name
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
        self.reports = reports
    }
}
