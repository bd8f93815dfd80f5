import CoreMetrics
import Foundation
import Hummingbird
import NIOFoundationEssentialsCompat
import WaymarkAPI
import WaymarkRules
import WaymarkStore
import WaymarkSupport

extension WaymarkServer {
    /// How far in the future a timestamp may be before it is clamped to the receive time.
    static let clockSkew: Int64 = 5 * 60 * 1000

    /// `POST /v1/events`: stores each valid event once and answers, per event, accepted,
    /// duplicate or rejected with the reason. Events are committed before the answer.
    func events(_ request: Request, _ context: WaymarkRequestContext) async throws -> Response {
        let key = try context.key()
        let buffer = try await request.body.collect(upTo: EventBatch.maxBodyBytes)
        let list = try Self.readBatch(Data(buffer: buffer))
        guard list.count <= EventBatch.maxEvents else {
            throw APIError(.badRequest, .tooManyEvents, "at most \(EventBatch.maxEvents) events per request")
        }
        let receivedAt = now().millisecondsSince1970
        var results: [EventResult] = []
        var stored: [StoredEvent] = []
        var storedIndex: [Int] = []
        var properties = PropertiesText()
        for item in list {
            switch Self.validate(item, app: key.app, receivedAt: receivedAt, properties: &properties) {
            case .success(let event):
                storedIndex.append(results.count)
                stored.append(event)
                results.append(EventResult(id: event.id, status: .accepted, clamped: event.clamped ? true : nil))
            case .failure(let rejection):
                results.append(EventResult(id: rejection.id, status: .rejected, reason: rejection.reason))
            }
        }
        if key.kind == .preview {
            // Kept with the preview, apart from the app's events: no report or webhook sees them.
            try await previewEvents(&results, stored, key: key)
        } else {
            let inserted = try await eventWriter.insert(stored)
            for (position, isNew) in zip(storedIndex, inserted) where !isNew {
                results[position].status = .duplicate
            }
            let duplicates = inserted.count { !$0 }
            metrics.eventsAccepted.increment(by: inserted.count - duplicates)
            metrics.eventsDuplicate.increment(by: duplicates)
            metrics.eventsRejected.increment(by: results.count - inserted.count)
        }
        var headers: HTTPFields = [:]
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: Self.answer(results))))
    }

    struct Rejection: Error {
        var id: String?
        var reason: String
    }

    /// The events of a body `{"events": [...]}`, or a 400 that says what is wrong with the body
    /// as a whole.
    static func readBatch(_ data: Data) throws -> [EventBatchReader.Fields?] {
        try requireUTF8(data)
        do {
            return try EventBatchReader.read(data)
        } catch {
            switch error {
            case .invalidJSON: throw APIError.badRequest("the body is not valid JSON")
            case .notAnObject: throw APIError.badRequest("the body must be a JSON object")
            case .unknownField(let name):
                throw APIError.badRequest("unknown field \"\(name)\"; the body is {\"events\": [...]}")
            case .eventsNotAList: throw APIError.badRequest("events must be a list")
            }
        }
    }

    /// Checks one event of a batch; `properties` writes its properties as stored.
    static func validate(
        _ item: EventBatchReader.Fields?, app: String, receivedAt: Int64, properties written: inout PropertiesText
    ) -> Result<StoredEvent, Rejection> {
        guard let fields = item else { return .failure(Rejection(reason: "an event must be an object")) }
        let id = fields.id
        func reject(_ reason: String) -> Result<StoredEvent, Rejection> { .failure(Rejection(id: id, reason: reason)) }
        if let extra = fields.unknownKey { return reject("unknown field \"\(extra)\"") }
        guard let id, let storedID = EventID.stored(id) else { return reject("id must be a UUID (UUIDv7, made by the client)") }
        // No NUL anywhere: PostgreSQL's text cannot hold it, and one such event would fail the
        // transaction it shares with other uploads.
        guard let user = fields.user, (1...256).contains(user.utf8.count), !user.utf8.contains(0) else {
            return reject("user must be text of 1 to 256 bytes, without NUL")
        }
        guard let name = fields.name, isName(name) else {
            return reject("name must be 1 to 64 letters, digits, - or _")
        }
        if fields.badTarget || fields.target.map({ !isName($0) }) == true {
            return reject("target must be 1 to 64 letters, digits, - or _")
        }
        guard var timestamp = fields.timestamp else {
            return reject("timestamp must be an RFC 3339 date and time")
        }
        var clamped = false
        if timestamp > receivedAt + clockSkew {
            timestamp = receivedAt
            clamped = true
        }
        if fields.badProperties { return reject(propertiesRule) }
        var properties: PropertiesText.Text?
        if let members = fields.properties {
            guard let text = written.text(members) else { return reject(propertiesRule) }
            properties = text
        }
        return .success(
            StoredEvent(
                app: app, id: storedID, user: user, name: name, target: fields.target, timestamp: timestamp, receivedAt: receivedAt,
                clamped: clamped, propertiesJSON: properties?.json, platform: properties?.platform, appVersion: properties?.appVersion
            )
        )
    }

    /// Events' properties as stored: JSON text, with the platform and app version apart. An
    /// upload's events mostly carry the same properties (the reader then hands out one list for
    /// them), which are checked and written once and share one string.
    struct PropertiesText {
        typealias Text = (json: String, platform: String?, appVersion: String?)

        /// The last members seen, and their text, or nil when they break ``propertiesRule``.
        private var last: (members: [JSONMember], text: Text?)?

        /// The stored form of `members` (sorted by key, as the reader keeps them), or nil when
        /// they break ``propertiesRule``.
        mutating func text(_ members: [JSONMember]) -> Text? {
            if let last, last.members == members { return last.text }
            let text = Self.allowed(members) ? Self.text(members) : nil
            last = (members, text)
            return text
        }

        private static func allowed(_ members: [JSONMember]) -> Bool {
            members.count <= 32
                && members.allSatisfy { member in
                    guard member.key.utf8.count <= 64, !member.key.utf8.contains(0) else { return false }
                    switch member.value {
                    case .text(let text): return text.utf8.count <= 512 && !text.utf8.contains(0)
                    // The reader checked the grammar; what is left is a number too large for a double.
                    case .number(let literal): return literal.utf8.count <= 64 && Double(literal)?.isFinite == true
                    case .bool: return true
                    }
                }
        }

        private static func text(_ members: [JSONMember]) -> Text {
            func value(_ key: String) -> String? { members.first { $0.key == key }?.text }
            return (json: jsonText(members), platform: value("platform"), appVersion: value("appVersion"))
        }
    }

    static let propertiesRule =
        "properties must be an object of at most 32 values, each text of at most 512 bytes without NUL, a finite number or a boolean"

    /// `{"results":[...]}`, written directly: this answer goes out for every upload.
    static func answer(_ results: [EventResult]) -> [UInt8] {
        var output = Array(#"{"results":["#.utf8)
        output.reserveCapacity(results.count * 64 + 16)
        // Each field is read in place: a copy of a result would retain and release its strings.
        for position in results.indices {
            if position > 0 { output.append(UInt8(ascii: ",")) }
            output.append(UInt8(ascii: "{"))
            if results[position].clamped == true { output.append(contentsOf: #""clamped":true,"#.utf8) }
            let status = results[position].status
            if let id = results[position].id {
                output.append(contentsOf: #""id":"#.utf8)
                if status == .rejected {
                    appendJSONString(id, to: &output)
                } else {
                    // A stored id: a lowercase UUID, nothing to escape.
                    output.append(UInt8(ascii: "\""))
                    output.append(contentsOf: id.utf8)
                    output.append(UInt8(ascii: "\""))
                }
                output.append(UInt8(ascii: ","))
            }
            if let reason = results[position].reason {
                output.append(contentsOf: #""reason":"#.utf8)
                appendJSONString(reason, to: &output)
                output.append(UInt8(ascii: ","))
            }
            switch status {
            case .accepted: output.append(contentsOf: #""status":"accepted"}"#.utf8)
            case .duplicate: output.append(contentsOf: #""status":"duplicate"}"#.utf8)
            case .rejected: output.append(contentsOf: #""status":"rejected"}"#.utf8)
            }
        }
        output.append(contentsOf: "]}".utf8)
        return output
    }

    /// Event names and targets: what rules can name, at most 64 bytes.
    static func isName(_ text: String) -> Bool {
        text.utf8.count <= 64 && EventPattern.isName(text)
    }
}
