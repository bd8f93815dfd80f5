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
    /// What failed, such as "cannot read the engine's state".
    public var message: String
    /// The file it failed on.
    public var path: String

    public var description: String { "\(message): \(path)" }
}

/// Keeps the state in one JSON file, crash-safe: each save writes a new file, flushes it to disk
/// and renames it over the old one, so the file is always either the old state or the new.
public struct FileEngineStore: EngineStore {
    /// The file the state is kept in.
    public let url: URL

    /// A store in the file at `url`; its directory must exist.
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
        do {
            try DurableFile.write(try encoder.encode(snapshot), to: url)
        } catch let error as DurableFile.WriteError {
            throw EngineStoreError(message: "\(error.message) the engine state file (\(error.reason))", path: error.path)
        }
    }
}

/// Writing a file so that a crash leaves either the old contents or the new, never a mix: the
/// data goes to a new file, is flushed to disk and renamed over the old one. The engine's state
/// and the client SDK's caches are written this way.
public enum DurableFile {
    /// A write that did not complete; the old contents are untouched.
    public struct WriteError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What failed, such as "cannot write".
        public var message: String
        /// The file it failed on.
        public var path: String
        /// What the system said.
        public var reason: String

        public var description: String { "\(message) \(path) (\(reason))" }
    }

    /// Replaces the contents of the file at `url` with `data`, crash-safely: a new file, flushed, then renamed over the old one.
    public static func write(_ data: Data, to url: URL) throws(WriteError) {
        let temporary = url.path + ".\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw failure("cannot create", temporary) }
        let written = data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let count = posixWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
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

    private static func failure(_ message: String, _ path: String) -> WriteError {
        WriteError(message: message, path: path, reason: String(cString: strerror(errno)))
    }
}

/// The system's `write`, which `DurableFile.write` would otherwise shadow.
private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
