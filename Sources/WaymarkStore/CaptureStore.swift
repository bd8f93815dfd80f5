import Foundation

/// Screens that paired devices captured (`POST /v1/captures`): a picture of each and where its
/// anchors and areas are, for the console to offer as boxes to pick. Names and the app's own
/// picture of its own screen, no user. Part of every ``Store``.
public protocol CaptureStore: Sendable {
    /// Keeps a capture, and only the app's `keeping` newest ones after it.
    func saveCapture(_ capture: StoredCapture, keeping limit: Int) async throws(StoreError)
    /// The app's captures, newest first, without their images (``StoredCapture/image`` empty).
    func captures(app: String) async throws(StoreError) -> [StoredCapture]
    /// One of the app's captures with its image.
    func capture(app: String, id: String) async throws(StoreError) -> StoredCapture?
}

/// A captured screen as kept.
public struct StoredCapture: Hashable, Sendable {
    public var id: String
    public var app: String
    /// The preview the device was paired through.
    public var preview: String
    public var platform: String
    public var screen: String
    /// The screen's size in points, the space of the frames.
    public var width: Double
    public var height: Double
    /// The anchors and areas as JSON: `{"anchors":[{"name","x","y","width","height"}],"areas":[...]}`.
    public var frames: String
    /// `image/png` or `image/jpeg`.
    public var imageType: String
    public var image: [UInt8]
    public var createdAt: Date

    public init(
        id: String, app: String, preview: String, platform: String, screen: String, width: Double, height: Double, frames: String,
        imageType: String, image: [UInt8], createdAt: Date
    ) {
        self.id = id
        self.app = app
        self.preview = preview
        self.platform = platform
        self.screen = screen
        self.width = width
        self.height = height
        self.frames = frames
        self.imageType = imageType
        self.image = image
        self.createdAt = createdAt
    }
}
