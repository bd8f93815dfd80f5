import Foundation
import Hummingbird
import WaymarkAPI
import WaymarkStore
import WaymarkSupport

extension WaymarkServer {
    /// How many captures an app keeps: the newest, enough for an author's look at every screen.
    static let capturesPerApp = 50

    /// `POST /v1/captures`: a paired device's picture of one screen with where its anchors and
    /// areas are (``ScreenCapture``), kept for the console to offer as boxes to pick. Only with a
    /// preview's token, while it lasts: the app's own client key is refused (403 `not_paired`), so
    /// what users' phones show never reaches the server.
    func captures(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        guard key.kind == .preview, key.revokedAt == nil else {
            throw APIError(
                .forbidden, .notPaired, "captures are sent while paired with the console: open a preview link on the device first")
        }
        let capture = try await request.decodeBody(as: CaptureBody.self, context: context).capture
        if let problem = capture.problem { throw APIError(.unprocessableContent, .badRequest, problem) }
        let frames = CaptureFrames(anchors: capture.anchors, areas: capture.areas)
        let stored = StoredCapture(
            id: "cap_" + Secrets.randomHex(bytes: 6), app: key.app, preview: key.id, platform: capture.platform, screen: capture.screen,
            width: capture.width, height: capture.height, frames: String(decoding: try JSONEncoder().encode(frames), as: UTF8.self),
            imageType: capture.imageType ?? "image/png", image: capture.image, createdAt: now())
        try await store.saveCapture(stored, keeping: Self.capturesPerApp)
        return jsonResponse(["id": stored.id], status: .created)
    }

    /// `GET /v1/admin/captures`: the app's captured screens, newest first, without their images.
    func listCaptures(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let captures = try await store.captures(app: key.app)
        return jsonResponse(CaptureList(captures: captures.map(CaptureList.Entry.init)))
    }

    /// `GET /v1/admin/captures/{id}/image`: a capture's picture, as the device sent it.
    func captureImage(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        guard let capture = try await store.capture(app: key.app, id: context.parameters.get("id") ?? "") else {
            throw APIError(.notFound, .notFound, "no such capture")
        }
        return Self.imageResponse(capture)
    }

    /// A capture's image with its type, never sniffed as anything else.
    public static func imageResponse(_ capture: StoredCapture) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: capture.imageType, .xContentTypeOptions: "nosniff", .cacheControl: "private, max-age=86400"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: capture.image)))
    }
}

/// A capture's anchors and areas, as kept in ``StoredCapture/frames``.
public struct CaptureFrames: Codable, Sendable {
    public var anchors: [ScreenCapture.Frame]
    public var areas: [ScreenCapture.Frame]

    /// The frames kept with a capture; empty when they do not read.
    public init(_ capture: StoredCapture) {
        self = (try? JSONDecoder().decode(CaptureFrames.self, from: Data(capture.frames.utf8))) ?? CaptureFrames(anchors: [], areas: [])
    }

    init(anchors: [ScreenCapture.Frame], areas: [ScreenCapture.Frame]) {
        self.anchors = anchors
        self.areas = areas
    }
}

/// `POST /v1/captures`, refusing fields it does not have, in its frames too.
struct CaptureBody: Decodable {
    var capture: ScreenCapture

    struct Frame: Decodable {
        var frame: ScreenCapture.Frame

        init(from decoder: any Decoder) throws {
            try decoder.refuseUnknownFields(["name", "x", "y", "width", "height"])
            frame = try ScreenCapture.Frame(from: decoder)
        }
    }

    private enum CodingKeys: String, CodingKey { case platform, screen, width, height, image, anchors, areas }

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(["platform", "screen", "width", "height", "image", "anchors", "areas"])
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .image)
        guard let image = Data(base64Encoded: text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [CodingKeys.image], debugDescription: "image",
                    underlyingError: FieldError(message: "\"image\" is not base64")))
        }
        capture = ScreenCapture(
            platform: try container.decode(String.self, forKey: .platform), screen: try container.decode(String.self, forKey: .screen),
            width: try container.decode(Double.self, forKey: .width), height: try container.decode(Double.self, forKey: .height),
            image: Array(image), anchors: try container.decode([Frame].self, forKey: .anchors).map(\.frame),
            areas: container.contains(.areas) ? try container.decode([Frame].self, forKey: .areas).map(\.frame) : [])
    }
}

/// `GET /v1/admin/captures`.
struct CaptureList: Encodable {
    struct Entry: Encodable {
        var id, platform, screen, imageType, createdAt: String
        var width, height: Double
        var anchors, areas: [ScreenCapture.Frame]

        init(_ capture: StoredCapture) {
            let frames = CaptureFrames(capture)
            id = capture.id
            platform = capture.platform
            screen = capture.screen
            imageType = capture.imageType
            createdAt = Timestamp.format(capture.createdAt)
            width = capture.width
            height = capture.height
            anchors = frames.anchors
            areas = frames.areas
        }
    }

    var captures: [Entry]
}
