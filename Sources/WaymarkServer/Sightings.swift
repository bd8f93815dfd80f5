import Foundation
import Hummingbird
import WaymarkAPI
import WaymarkStore
import WaymarkSupport

extension WaymarkServer {
    /// How many anchors and areas one app may have on record: reports past it update the names
    /// kept and add none, so a page that makes up names cannot fill the database.
    static let sightingsPerApp = 5_000

    /// `POST /v1/anchors`: the anchors and screen areas an SDK saw on one screen
    /// (``AnchorReport``), kept with when each was first and last seen, for the console's tip
    /// form to offer and its check to compare with. Names only: the report carries no user.
    func anchors(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let app = try await app(of: try context.key())
        let report = try await request.decodeBody(as: AnchorReportBody.self, context: context).report
        if let problem = report.problem { throw APIError.badRequest(problem) }
        if let problem = report.selectorProblem { throw APIError(.unprocessableContent, .badRequest, problem) }
        try await store.recordSightings(
            SightingBatch(
                app: app.id, platform: report.platform, screen: report.screen, anchors: report.anchors, areas: report.areas,
                selectors: Dictionary((report.selectors ?? []).map { ($0.selector, $0.matches) }, uniquingKeysWith: max)),
            at: now(), limit: Self.sightingsPerApp)
        return Response(status: .noContent)
    }
}

/// An ``AnchorReport`` as sent, refusing fields it does not have, in its selectors too.
struct AnchorReportBody: Decodable {
    var report: AnchorReport

    private enum CodingKeys: String, CodingKey { case platform, screen, anchors, areas, selectors }

    /// One of the report's selectors.
    struct Selector: Decodable {
        var match: AnchorReport.SelectorMatch

        init(from decoder: any Decoder) throws {
            try decoder.refuseUnknownFields(["selector", "matches"])
            match = try AnchorReport.SelectorMatch(from: decoder)
        }
    }

    init(from decoder: any Decoder) throws {
        try decoder.refuseUnknownFields(Set(["platform", "screen", "anchors", "areas", "selectors"]))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        report = AnchorReport(
            platform: try container.decode(String.self, forKey: .platform), screen: try container.decode(String.self, forKey: .screen),
            anchors: try container.decode([String].self, forKey: .anchors), areas: try container.decode([String].self, forKey: .areas),
            // Absent, or a list: null is neither.
            selectors: container.contains(.selectors) ? try container.decode([Selector].self, forKey: .selectors).map(\.match) : nil)
    }
}

/// `GET /v1/admin/anchors`: what the app's SDKs saw, by screen.
struct SightingsBody: Codable {
    struct Entry: Codable {
        var platform, screen, kind, name: String
        var firstSeen, lastSeen: String
        var reports: Int
        var matches: Int?
    }

    var sightings: [Entry]
}

extension WaymarkServer {
    func listSightings(_ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        return jsonResponse(
            SightingsBody(
                sightings: try await store.sightings(app: key.app).map {
                    SightingsBody.Entry(
                        platform: $0.platform, screen: $0.screen, kind: $0.kind.rawValue, name: $0.name,
                        firstSeen: Timestamp.format($0.firstSeen), lastSeen: Timestamp.format($0.lastSeen), reports: $0.reports,
                        matches: $0.matches)
                }))
    }
}
