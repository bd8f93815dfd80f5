import Hummingbird
import WaymarkServer
import WaymarkStore

extension WaymarkConsole {
    /// How many of the most common values the attributes page shows for each attribute.
    static let attributeExamples = 3

    /// `GET /console/apps/:app/attributes`: every attribute the app's identified users have, with
    /// its type, how many users have it and its most common values. Any member may look.
    func attributesPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        var values = frame("User attributes", signedIn, app: app)
        let summaries = try await store.attributeSummary(app: app.id, examples: Self.attributeExamples)
        if !summaries.isEmpty {
            values["table"] =
                ReportTable(
                    "User attributes", ["Attribute", "Type", "Users", "Most common values"],
                    summaries.map { summary in
                        [
                            .init(text: "user." + summary.name), .init(text: summary.type), .init(text: String(summary.users)),
                            .init(text: summary.examples.joined(separator: ", ")),
                        ]
                    }
                ).values
        }
        return Templates.page("attributes", values)
    }
}
