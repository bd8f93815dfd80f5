import Foundation

/// A picture of one screen of a native app with where its anchors and screen areas are, sent
/// while the device is paired with the console (a client opened from a preview link):
/// `POST /v1/captures`. The console shows it with each anchor and area as a box an author picks to
/// write a tip there, without knowing the names developers gave them. The image is what the app
/// chose to send (its own screenshot of its own view); the frames are in the screen's points, the
/// same space as ``width`` and ``height``, whatever the image's pixel size.
public struct ScreenCapture: Hashable, Sendable {
    /// One named element on the screen, and where it is.
    public struct Frame: Codable, Hashable, Sendable {
        /// The anchor's or area's name, as a tip names it.
        public var name: String
        /// The left edge, in points from the screen's left.
        public var x: Double
        /// The top edge, in points from the screen's top.
        public var y: Double
        /// The width, in points.
        public var width: Double
        /// The height, in points.
        public var height: Double

        /// The element `name` at (`x`, `y`), `width` by `height` points.
        public init(name: String, x: Double, y: Double, width: Double, height: Double) {
            self.name = name
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// The SDK's platform: `ios`, `android`.
    public var platform: String
    /// The screen's name, as `screen:NAME` events have it.
    public var screen: String
    /// The screen's width in points: the space the frames are in.
    public var width: Double
    /// The screen's height in points.
    public var height: Double
    /// A PNG or a JPEG of the screen, at most ``maxImageBytes``.
    public var image: [UInt8]
    /// The anchors on the screen: elements a tip can point at.
    public var anchors: [Frame]
    /// The screen areas on it: where a tip can show.
    public var areas: [Frame]

    /// The largest image taken: a phone's screen as a JPEG, or a PNG at its size in points.
    public static let maxImageBytes = 700 * 1024
    /// At most this many anchors, and as many areas, in one capture.
    public static let maxFrames = 200

    /// A capture of `screen`; ``problem`` says whether the server takes it.
    public init(platform: String, screen: String, width: Double, height: Double, image: [UInt8], anchors: [Frame], areas: [Frame] = []) {
        self.platform = platform
        self.screen = screen
        self.width = width
        self.height = height
        self.image = image
        self.anchors = anchors
        self.areas = areas
    }

    /// The image's media type by its first bytes: `image/png` or `image/jpeg`, or nil for
    /// anything else (which is refused, however it is named).
    public var imageType: String? {
        if image.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if image.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        return nil
    }

    /// What is wrong with the capture, in words, or nil: names as ``AnchorReport`` has them, a
    /// size of 1 to 10,000 points a side, a PNG or JPEG image of at most ``maxImageBytes``, at
    /// most ``maxFrames`` anchors and as many areas, each of a positive size and touching the screen.
    public var problem: String? {
        if let problem = AnchorReport(platform: platform, screen: screen, anchors: [], areas: []).problem { return problem }
        guard (1...10_000).contains(width), (1...10_000).contains(height) else {
            return "width and height are the screen's size in points, 1 to 10000"
        }
        guard !image.isEmpty, image.count <= Self.maxImageBytes else {
            return "image is a PNG or JPEG of at most \(Self.maxImageBytes / 1024) KB, not \(image.count) bytes"
        }
        guard imageType != nil else { return "image is not a PNG or a JPEG" }
        for (field, frames) in [("anchors", anchors), ("areas", areas)] {
            guard frames.count <= Self.maxFrames else { return "at most \(Self.maxFrames) \(field) in a capture, not \(frames.count)" }
            for frame in frames {
                guard AnchorReport.isName(frame.name) else {
                    return
                        "\(field): \"\(frame.name.prefix(80))\" is not a name (1 to \(AnchorReport.maxNameBytes) printable ASCII characters, no spaces, [, ] or :)"
                }
                let values = [frame.x, frame.y, frame.width, frame.height]
                guard values.allSatisfy(\.isFinite), frame.width > 0, frame.height > 0, frame.x < width, frame.y < height,
                    frame.x + frame.width > 0, frame.y + frame.height > 0
                else {
                    return "\(field): \(frame.name) must have a positive size and touch the screen (\(Int(width)) by \(Int(height)) points)"
                }
            }
        }
        return nil
    }
}

extension ScreenCapture: Codable {
    private enum CodingKeys: String, CodingKey { case platform, screen, width, height, image, anchors, areas }

    /// Reads a capture as sent: the image in base64.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .image)
        guard let image = Data(base64Encoded: text) else {
            throw DecodingError.dataCorruptedError(forKey: .image, in: container, debugDescription: "image is not base64")
        }
        self.init(
            platform: try container.decode(String.self, forKey: .platform), screen: try container.decode(String.self, forKey: .screen),
            width: try container.decode(Double.self, forKey: .width), height: try container.decode(Double.self, forKey: .height),
            image: Array(image), anchors: try container.decode([Frame].self, forKey: .anchors),
            areas: try container.decodeIfPresent([Frame].self, forKey: .areas) ?? [])
    }

    /// Writes the capture as sent: the image in base64.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(platform, forKey: .platform)
        try container.encode(screen, forKey: .screen)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(Data(image).base64EncodedString(), forKey: .image)
        try container.encode(anchors, forKey: .anchors)
        try container.encode(areas, forKey: .areas)
    }
}
