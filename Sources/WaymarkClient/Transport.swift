import Foundation
import WaymarkAPI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Why a call to the server failed.
public struct WaymarkClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The HTTP status, or `nil` when no answer came (offline, refused, timed out).
    public var status: Int?
    /// The API's error code (`unauthorized`, `bad_user_hash`...), `unreachable` or `bad_response`.
    public var code: String
    /// A sentence for people: what the server said, or why no answer came.
    public var message: String

    /// An error with the answer's status (nil when none came), the API's code and its message.
    public init(status: Int?, code: String, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// Whether the same request may succeed later: no answer, a server failure, or too many requests.
    public var isTransient: Bool {
        guard let status else { return true }
        return status >= 500 || status == 429 || status == 408
    }

    public var description: String {
        status.map { "\($0) \(code): \(message)" } ?? "\(code): \(message)"
    }
}

/// How long to wait after failures: exponential, capped, with jitter so that many devices that
/// lost the server at once do not all come back in the same second.
public struct RetryPolicy: Hashable, Sendable {
    /// The wait after the first failure, in seconds.
    public var initialDelay: TimeInterval
    /// The longest wait, however many failures come in a row, in seconds.
    public var maximumDelay: TimeInterval

    /// A policy that starts at `initialDelay` and doubles up to `maximumDelay`.
    public init(initialDelay: TimeInterval = 2, maximumDelay: TimeInterval = 600) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// The wait after `failures` failures in a row (1 or more); `jitter` in 0...1 picks a point in
    /// the upper half of the window, so the wait never drops below half of it.
    public func delay(afterFailures failures: Int, jitter: Double = Double.random(in: 0...1)) -> TimeInterval {
        let window = min(maximumDelay, initialDelay * pow(2, Double(min(max(failures, 1), 40) - 1)))
        return window / 2 + window / 2 * min(max(jitter, 0), 1)
    }
}

/// Requests to one Waymark server with one key, over URLSession.
struct Transport: Sendable {
    let server: URL
    let key: String
    let session: URLSession

    /// An answer of the server: any status (errors included), with its headers and body.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: Data

        func header(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }

        /// The API's error, from the body when it has one.
        var error: WaymarkClientError {
            if let body = try? JSONDecoder().decode(APIErrorBody.self, from: body) {
                return WaymarkClientError(status: status, code: body.error.code, message: body.error.message)
            }
            return WaymarkClientError(status: status, code: "http_\(status)", message: "the server answered \(status)")
        }
    }

    /// A session for the SDK: no URL cache (the SDK keeps its own, with ETags), short timeouts.
    static func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = 20
        configuration.timeoutIntervalForResource = 60
        return URLSession(configuration: configuration)
    }

    func send(
        _ method: String, _ path: String, query: [URLQueryItem] = [], headers: [String: String] = [:], body: Data? = nil
    ) async throws(WaymarkClientError) -> Answer {
        guard var components = URLComponents(url: server.appendingPathComponent(path), resolvingAgainstBaseURL: false) else {
            throw WaymarkClientError(status: nil, code: "bad_server_url", message: "\(server) is not a server URL")
        }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else {
            throw WaymarkClientError(status: nil, code: "bad_server_url", message: "\(server) is not a server URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.cachePolicy = .reloadIgnoringLocalCacheData
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw WaymarkClientError(
                status: nil, code: "unreachable", message: "\(server) cannot be reached: \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw WaymarkClientError(status: nil, code: "bad_response", message: "the answer is not HTTP")
        }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name] = value }
        }
        return Answer(status: http.statusCode, headers: fields, body: data)
    }

    /// Decodes a successful answer's JSON body.
    func decode<T: Decodable>(_ type: T.Type, from answer: Answer) throws(WaymarkClientError) -> T {
        do {
            return try JSONDecoder().decode(type, from: answer.body)
        } catch {
            throw WaymarkClientError(status: answer.status, code: "bad_response", message: "the answer does not read as \(type): \(error)")
        }
    }
}
