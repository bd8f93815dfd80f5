import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP connection to a server on this machine through plain sockets, for tests of what a client
/// that misbehaves does to the server: one that sends nothing, sends a byte at a time, or writes
/// a large body before it reads. Its blocking calls run on a dispatch queue, off the tasks' threads.
public final class RawConnection: @unchecked Sendable {
    private let descriptor: Int32
    private let queue = DispatchQueue(label: "raw-connection")

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// A connection to `127.0.0.1:port`.
    public init(port: Int) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure(description: "connect to port \(port): \(errno)")
        }
        // Reads wait at most a quarter of a second, so that waiting loops can look at the clock.
        var wait = timeval(tv_sec: 0, tv_usec: 250_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    private func blocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in queue.async { continuation.resume(returning: work()) } }
    }

    /// Sends all of `bytes`; false when the server has closed the connection (or reset it) first.
    @discardableResult
    public func send(_ bytes: [UInt8]) async -> Bool {
        await blocking { [descriptor] in
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { systemSend(descriptor, $0.baseAddress, $0.count) }
                if count <= 0 { return false }
                sent += count
            }
            return true
        }
    }

    /// Sends `text` as UTF-8.
    @discardableResult
    public func send(_ text: String) async -> Bool { await send(Array(text.utf8)) }

    /// What the server sent until it closed the connection, or until `seconds` passed: the bytes,
    /// and whether it closed.
    public func readUntilClosed(within seconds: TimeInterval) async -> (bytes: [UInt8], closed: Bool) {
        await blocking { [descriptor] in
            let end = Date().addingTimeInterval(seconds)
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while Date() < end {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    received += buffer[0..<count]
                } else if count == 0 {
                    return (received, true)
                } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                    return (received, true)  // reset: closed as well
                }
            }
            return (received, false)
        }
    }

    /// Whether the server has closed the connection within `seconds`, whatever it sent before.
    public func isClosed(within seconds: TimeInterval) async -> Bool {
        await readUntilClosed(within: seconds).closed
    }
}

/// The C library's `send`, named apart from `RawConnection.send`; it never raises SIGPIPE.
private func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    send(descriptor, bytes, count, Int32(MSG_NOSIGNAL))
}
