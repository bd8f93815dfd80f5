import Foundation
import WaymarkAPI
import WaymarkEngine

/// A value the client keeps on disk beside the catalog as JSON (the user's tour and checklist
/// progress, what tour triggers have seen): read at start, written whole when it changes. A file
/// that does not read is as good as none.
struct KeptFile<Value: Codable & Sendable>: Sendable {
    /// The file, or `nil` to keep it in memory only.
    let url: URL?

    func load() -> Value? {
        guard let url, let data = try? Data(contentsOf: url) else { return nil }
        return try? JSONDecoder().decode(Value.self, from: data)
    }

    func save(_ value: Value) {
        guard let url, let data = try? JSONEncoder().encode(value) else { return }
        try? DurableFile.write(data, to: url)
    }
}

/// The last catalog the server delivered, with its ETag, kept on disk: the app starts from it
/// and runs from it while offline, and asks the server only whether it changed.
struct CatalogCache: Sendable {
    struct Entry: Codable, Sendable {
        var etag: String?
        /// The client context it was resolved for, as the query string sent.
        var query: String
        var catalog: DeliveredCatalog
    }

    /// The cache's file, or `nil` to keep it in memory only.
    let url: URL?

    func load() -> Entry? {
        guard let url, let data = try? Data(contentsOf: url) else { return nil }
        // A file that does not read (another SDK version, a damaged disk) is as good as none.
        return try? JSONDecoder().decode(Entry.self, from: data)
    }

    func save(_ entry: Entry) {
        guard let url else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(entry) else { return }
        try? DurableFile.write(data, to: url)
    }
}
