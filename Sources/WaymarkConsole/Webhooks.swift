import Foundation
import HTTPTypes
import Hummingbird
import WaymarkServer
import WaymarkStore

/// The owner's webhooks page: the app's endpoints (added, their secrets rotated, removed) and the
/// latest deliveries with the answer each got, any of which can be sent again. A new or rotated
/// secret is shown once, in the answer to the form that made it.
extension WaymarkConsole {
    func webhooksPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        return try await webhooksPage(signedIn, app)
    }

    /// Adds an endpoint for the types ticked (none ticked: every type).
    func addWebhook(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        let types = WebhookType.allCases.filter { form["type-\($0.rawValue)"] != nil }
        let endpoint: WebhookEndpoint
        do {
            endpoint = try await WebhookEndpoints.create(
                app: app.id, url: (form["url"] ?? "").trimmingCharacters(in: .whitespaces), types: types,
                privateNetworks: server.webhooksToPrivateNetworks, actor: signedIn.actor, at: now(), in: store)
        } catch let error as APIError {
            return try await webhooksPage(signedIn, app, problem: error.message, status: error.status)
        }
        return try await webhooksPage(
            signedIn, app, notice: "Deliveries to \(endpoint.url) are signed with this secret. Keep it with your receiver.",
            secret: endpoint.secret)
    }

    /// A new secret for an endpoint; the old one keeps signing for the hours given (24 unless said).
    func rotateWebhook(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        let hours = Int((form["hours"] ?? "").trimmingCharacters(in: .whitespaces)) ?? WebhookEndpoints.defaultOverlapHours
        let rotated: WebhookEndpoint?
        do {
            rotated = try await WebhookEndpoints.rotate(
                app: app.id, endpoint: context.parameters.get("id") ?? "", overlapHours: hours, actor: signedIn.actor, at: now(), in: store)
        } catch let error as APIError {
            return try await webhooksPage(signedIn, app, problem: error.message, status: error.status)
        }
        guard let rotated else { throw ConsoleError.notFound }
        return try await webhooksPage(
            signedIn, app, notice: "The new secret of \(rotated.url). The old one keeps signing beside it for \(hours) hours.",
            secret: rotated.secret)
    }

    func deleteWebhook(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        guard
            try await WebhookEndpoints.delete(
                app: app.id, endpoint: context.parameters.get("id") ?? "", actor: signedIn.actor, at: now(), in: store)
        else { throw ConsoleError.notFound }
        return try await webhooksPage(signedIn, app, notice: "The endpoint and its deliveries are removed.")
    }

    func resendWebhook(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let event = context.parameters.get("event") ?? ""
        guard try await store.redeliverWebhook(app: app.id, event: event, endpoint: context.parameters.get("id") ?? "", now: now())
        else { throw ConsoleError.notFound }
        return try await webhooksPage(signedIn, app, notice: "\(event) will be sent again in a moment, with the same id.")
    }

    private func webhooksPage(
        _ signedIn: SignedIn, _ app: AppRecord, notice: String? = nil, problem: String? = nil, secret: String? = nil,
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        var values = frame("Webhooks", signedIn, app: app)
        values["notice"] = notice
        values["problem"] = problem
        values["secret"] = secret
        let time = now()
        let endpoints = try await store.webhookEndpoints(app: app.id)
        values["endpoints"] = endpoints.map { endpoint in
            [
                "id": endpoint.id, "url": endpoint.url,
                "types": endpoint.types.isEmpty ? "every type but guidance.events" : endpoint.types.joined(separator: ", "),
                "createdAt": Self.format(endpoint.createdAt),
                "rotating": endpoint.previousValid(at: time).map(Self.format) ?? "",
            ] as [String: Any]
        }
        values["types"] = WebhookType.allCases.map { ["name": $0.rawValue] }
        let urls = Dictionary(uniqueKeysWithValues: endpoints.map { ($0.id, $0.url) })
        values["deliveries"] = try await store.webhookDeliveries(app: app.id, endpoint: nil, limit: 50).map { delivery in
            [
                "event": delivery.event, "endpoint": delivery.endpoint, "url": urls[delivery.endpoint] ?? delivery.endpoint,
                "type": delivery.type, "createdAt": Self.format(delivery.createdAt), "state": delivery.state.rawValue,
                "attempts": delivery.attempts,
                "answer": delivery.lastStatus.map { "\($0) \(delivery.lastAnswer ?? "")" } ?? delivery.lastError ?? "",
                "next": delivery.state == .pending ? Self.format(delivery.nextAttemptAt) : "",
            ] as [String: Any]
        }
        return Templates.page("webhooks", values, status: status)
    }
}
