import Foundation
import Logging
import WaymarkEngine
import WaymarkSupport

/// How `waymark serve` writes its log.
enum LogFormat: String {
    /// swift-log's default: one readable line per message.
    case text
    /// One JSON object per line on standard error, for log collectors: `time`, `level`, `label`,
    /// `message`, `source`, and every metadata key (`route`, `status`, `duration_ms`, `error`...).
    case json
}

/// A swift-log handler that writes each message as one line of JSON.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    private static let output = Locked(FileHandle.standardError)

    func log(event: LogEvent) {
        var object: [String: Any] = [:]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) { object[key] = Self.json(value) }
        if let error = event.error { object["error"] = "\(error)" }
        object["time"] = Timestamp.format(Date())
        object["level"] = event.level.rawValue
        object["label"] = label
        object["message"] = event.message.description
        object["source"] = event.source
        guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return
        }
        data.append(UInt8(ascii: "\n"))
        Self.output.withLock { $0.write(data) }
    }

    private static func json(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let text): text
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }
}
