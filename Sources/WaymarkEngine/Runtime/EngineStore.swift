import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an engine's state survives restarts.
public protocol EngineStore: Sendable {
    /// The saved state, or `nil` if nothing was saved yet.
    func load() throws -> EngineSnapshot?
    /// Saves the state; after it returns, a crash loses nothing of it.
    func save(_ snapshot: EngineSnapshot) throws
}

/// An error of an ``EngineStore``.
public struct EngineStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var path: String

    public var description: String { "\(message): \(path)" }
}

/// Keeps the state in one JSON file, crash-safe: each save writes a new file, flushes it to disk
/// and renames it over the old one, so the file is always either the old state or the new.
public struct FileEngineStore: EngineStore {
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    public func load() throws -> EngineSnapshot? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data = try Data(contentsOf: url)
        do {
            return try JSONDecoder().decode(EngineSnapshot.self, from: data)
        } catch {
            throw EngineStoreError(message: "the saved engine state cannot be read (\(error))", path: url.path)
        }
    }

    public func save(_ snapshot: EngineSnapshot) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(snapshot)
        let temporary = url.path + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw failure("cannot create", temporary) }
        let written = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count <= 0 { return false }
                offset += count
            }
            return true
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written && synced else {
            unlink(temporary)
            throw failure("cannot write", temporary)
        }
        guard rename(temporary, url.path) == 0 else {
            unlink(temporary)
            throw failure("cannot replace", url.path)
        }
        // Make the rename itself durable.
        let directory = open(url.deletingLastPathComponent().path, O_RDONLY)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    private func failure(_ what: String, _ path: String) -> EngineStoreError {
        EngineStoreError(message: "\(what) the engine state file (\(String(cString: strerror(errno))))", path: path)
    }
}
