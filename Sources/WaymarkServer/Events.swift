import Foundation
import Hummingbird
import WaymarkAPI
import WaymarkEngine
import WaymarkRules
import WaymarkStore

extension WaymarkServer {
    /// How far in the future a timestamp may be before it is clamped to the receive time.
    static let clockSkew: Int64 = 5 * 60 * 1000

    /// `POST /v1/events`: stores each valid event once and answers, per event, accepted,
    /// duplicate or rejected with the reason. Events are committed before the answer.
    func events(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try await authenticate(request, allow: [.client, .secret])
        let buffer = try await request.body.collect(upTo: EventBatch.maxBodyBytes)
        let object = try jsonObject(Data(buffer: buffer))
        if let extra = object.keys.first(where: { $0 != "events" }) {
            throw APIError.badRequest("unknown field \"\(extra)\"; the body is {\"events\": [...]}")
        }
        guard let list = object["events"] as? [Any] else { throw APIError.badRequest("events must be a list") }
        guard list.count <= EventBatch.maxEvents else {
            throw APIError(.contentTooLarge, "too_many_events", "at most \(EventBatch.maxEvents) events per request")
        }
        let receivedAt = now().millisecondsSince1970
        var results: [EventResult] = []
        var stored: [StoredEvent] = []
        var storedIndex: [Int] = []
        for item in list {
            switch Self.validate(item, app: key.app, receivedAt: receivedAt) {
            case .success(let event):
                storedIndex.append(results.count)
                stored.append(event)
                results.append(EventResult(id: event.id, status: .accepted, clamped: event.clamped ? true : nil))
            case .failure(let rejection):
                results.append(EventResult(id: rejection.id, status: .rejected, reason: rejection.reason))
            }
        }
        let inserted = try await store.insertEvents(stored)
        for (position, isNew) in zip(storedIndex, inserted) where !isNew {
            results[position].status = .duplicate
        }
        let duplicates = inserted.count { !$0 }
        metrics.eventsAccepted.increment(by: inserted.count - duplicates)
        metrics.eventsDuplicate.increment(by: duplicates)
        metrics.eventsRejected.increment(by: results.count - inserted.count)
        return jsonResponse(EventBatchResult(results: results))
    }

    struct Rejection: Error {
        var id: String?
        var reason: String
    }

    static let eventKeys: Set<String> = ["id", "user", "name", "target", "timestamp", "properties"]

    /// Checks one event of a batch.
    static func validate(_ item: Any, app: String, receivedAt: Int64) -> Result<StoredEvent, Rejection> {
        guard let fields = item as? [String: Any] else { return .failure(Rejection(reason: "an event must be an object")) }
        let id = fields["id"] as? String
        func reject(_ reason: String) -> Result<StoredEvent, Rejection> { .failure(Rejection(id: id, reason: reason)) }
        if let extra = fields.keys.sorted().first(where: { !eventKeys.contains($0) }) { return reject("unknown field \"\(extra)\"") }
        guard let id, isEventID(id) else { return reject("id must be a UUID (UUIDv7, made by the client)") }
        guard let user = fields["user"] as? String, (1...256).contains(user.utf8.count) else {
            return reject("user must be text of 1 to 256 bytes")
        }
        guard let name = fields["name"] as? String, isName(name) else {
            return reject("name must be 1 to 64 letters, digits, - or _")
        }
        var target: String?
        if let value = fields["target"], !(value is NSNull) {
            guard let text = value as? String, isName(text) else { return reject("target must be 1 to 64 letters, digits, - or _") }
            target = text
        }
        guard let text = fields["timestamp"] as? String, var timestamp = Timestamp.parse(text) else {
            return reject("timestamp must be an RFC 3339 date and time")
        }
        var clamped = false
        if timestamp > receivedAt + clockSkew {
            timestamp = receivedAt
            clamped = true
        }
        var properties: String?
        if let value = fields["properties"], !(value is NSNull) {
            guard let object = value as? [String: Any], object.count <= 32,
                object.allSatisfy({ $0.key.utf8.count <= 64 && (($0.value as? String)?.utf8.count ?? .max) <= 512 })
            else {
                return reject("properties must be an object of at most 32 text values of at most 512 bytes")
            }
            properties = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
                .map { String(decoding: $0, as: UTF8.self) }
        }
        return .success(
            StoredEvent(
                app: app, id: id.lowercased(), user: user, name: name, target: target, timestamp: timestamp,
                receivedAt: receivedAt, clamped: clamped, properties: properties
            )
        )
    }

    static func isEventID(_ text: String) -> Bool {
        text.utf8.count == 36 && UUID(uuidString: text) != nil
    }

    /// Event names and targets: what rules can name, at most 64 bytes.
    static func isName(_ text: String) -> Bool {
        text.utf8.count <= 64 && EventPattern.isName(text)
    }
}

/// A JSON object from a body, or a 400 that says what is wrong.
func jsonObject(_ data: Data) throws -> [String: Any] {
    guard String(data: data, encoding: .utf8) != nil else { throw APIError.badRequest("the body is not UTF-8") }
    let value: Any
    do {
        value = try JSONSerialization.jsonObject(with: data)
    } catch {
        throw APIError.badRequest("the body is not valid JSON")
    }
    guard let object = value as? [String: Any] else { throw APIError.badRequest("the body must be a JSON object") }
    return object
}
