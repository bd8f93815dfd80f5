import Foundation
import Hummingbird
import WaymarkAPI
import WaymarkServer
import WaymarkStore

/// Captured screens: what paired phones of a native app sent (a picture of a screen and where
/// its anchors and areas are), shown with each anchor and area as a box an author picks to write a
/// tip there, without knowing the names developers gave them.
extension WaymarkConsole {
    /// `GET /console/apps/:app/captures`: the newest capture of each screen and platform.
    func capturesPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let app = access.app
        var values = frame("Captured screens", access.signedIn, app: app)
        var seen: Set<String> = []
        let newest = try await store.captures(app: app.id).filter { seen.insert("\($0.platform)/\($0.screen)").inserted }
        values["captures"] = newest.map { capture in
            let frames = CaptureFrames(capture)
            func box(_ frame: ScreenCapture.Frame, area: String?, kind: String) -> [String: Any] {
                var query = kind == "area" ? ["container": frame.name] : ["anchor": frame.name]
                if let area { query["container"] = area }
                return [
                    "name": frame.name, "x": frame.x, "y": frame.y, "width": frame.width, "height": frame.height,
                    "newTip": "/console/apps/\(app.id)/new-tip?"
                        + query.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.queryValue($0.value))" }.joined(separator: "&"),
                ]
            }
            return [
                "id": capture.id, "screen": capture.screen, "platform": capture.platform, "width": capture.width, "height": capture.height,
                "createdAt": Self.format(capture.createdAt),
                "areas": frames.areas.map { box($0, area: nil, kind: "area") },
                "anchors": frames.anchors.map {
                    box($0, area: Self.area(around: $0, in: frames.areas, screen: capture.screen), kind: "anchor")
                },
            ] as [String: Any]
        }
        values["empty"] = newest.isEmpty
        return Templates.page("captures", values)
    }

    /// `GET /console/apps/:app/captures/:id/image`: a capture's picture.
    func captureImage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        guard let capture = try await store.capture(app: access.app.id, id: context.parameters.get("id") ?? "") else {
            throw ConsoleError.notFound
        }
        return WaymarkServer.imageResponse(capture)
    }

    /// The area a tip on `anchor` would show in: the smallest area around the anchor's centre,
    /// else the area named as the screen, else none.
    static func area(around anchor: ScreenCapture.Frame, in areas: [ScreenCapture.Frame], screen: String) -> String? {
        let (x, y) = (anchor.x + anchor.width / 2, anchor.y + anchor.height / 2)
        let around = areas.filter { $0.x <= x && x <= $0.x + $0.width && $0.y <= y && y <= $0.y + $0.height }
        return around.min { $0.width * $0.height < $1.width * $1.height }?.name ?? areas.first { $0.name == screen }?.name
    }
}
