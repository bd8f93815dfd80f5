import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// How long the server waits for a client before it closes the connection, so that connections
/// which send nothing, or send a request a byte at a time, cannot hold the server's file
/// descriptors. As Apache's mod_reqtimeout and nginx's client timeouts do:
///
/// - ``idle``: a connection open with no request under way (before the first, or after an answer)
///   is closed once this passes without a byte;
/// - ``header``: once the first byte of a request arrives, its request line and headers must have
///   arrived within this;
/// - ``body``: once its headers are in, its body must have arrived within this, plus a second for
///   every ``bodyMinimumRate`` bytes received (a 512 KB batch of events on a 4 kbit/s line still
///   gets through; a body dripped a byte at a time does not);
/// - after an answer that closes the connection (the request asked for it, or its body was too
///   large: a 413 before the body was read whole), what the client still sends is read and thrown away until it has sent nothing
///   for ``linger``, or ``lingerTotal`` has passed, then the connection is closed. A client that
///   writes its whole body before it reads (as Python's urllib does) so gets its 413 instead of
///   waiting for ever on a server that no longer reads.
///
/// While the server works on an answer the client is not timed.
public struct ConnectionLimits: Sendable, Hashable {
    /// How long a connection with no request under way may stay open without a byte.
    public var idle: Duration
    /// How long a request's line and headers may take to arrive, from its first byte.
    public var header: Duration
    /// How long a request's body may take to arrive, from its headers, before ``bodyMinimumRate``
    /// extends it.
    public var body: Duration
    /// Bytes of body that buy one more second: the slowest upload taken, in bytes a second.
    public var bodyMinimumRate: Int
    /// How long the server keeps reading and throwing away after an answer that closes, while the
    /// client keeps sending.
    public var linger: Duration
    /// The longest the server keeps reading after such an answer.
    public var lingerTotal: Duration

    /// Limits with the documented defaults: 60 s idle, 20 s for headers, 20 s for a body plus a
    /// second for every 500 bytes, and 5 s of lingering (30 s at most).
    public init(
        idle: Duration = .seconds(60), header: Duration = .seconds(20), body: Duration = .seconds(20), bodyMinimumRate: Int = 500,
        linger: Duration = .seconds(5), lingerTotal: Duration = .seconds(30)
    ) {
        self.idle = idle
        self.header = header
        self.body = body
        self.bodyMinimumRate = max(1, bodyMinimumRate)
        self.linger = linger
        self.lingerTotal = lingerTotal
    }
}

/// When one connection is due to be closed, as a pure state machine over the moments its bytes,
/// requests and answers pass: ``ConnectionLimits`` applied. The server's channel handlers tell it
/// what happens and close the connection when ``deadline`` has passed; tests drive it with times
/// of their own.
struct ConnectionDeadlines {
    /// Where the request the client is sending stands.
    enum Input: Equatable {
        /// No request under way since this moment.
        case waiting(since: NIODeadline)
        /// A request's first byte came at this moment; its headers have not all arrived.
        case head(since: NIODeadline)
        /// A request's headers came at this moment, and this many bytes of its body since.
        case body(since: NIODeadline, received: Int)
    }

    /// Why a connection was closed, for the log.
    enum Reason: String {
        case idle, header, body, linger
    }

    let limits: ConnectionLimits
    private(set) var input: Input
    /// Requests read whose answer has not ended.
    private(set) var answering = 0
    /// Whether the connection closes once the answers under way have ended.
    private(set) var closeAfterAnswer = false
    /// The status of the answer being written.
    private(set) var answerStatus = 0
    /// After such an answer: since when the server throws input away, and when it last read some.
    private(set) var lingering: (since: NIODeadline, lastRead: NIODeadline)?

    init(limits: ConnectionLimits, openedAt time: NIODeadline) {
        self.limits = limits
        input = .waiting(since: time)
    }

    /// Bytes came from the client; true when they are to be thrown away (the connection lingers).
    mutating func bytesArrived(at time: NIODeadline) -> Bool {
        if lingering != nil {
            lingering?.lastRead = time
            return true
        }
        if case .waiting = input { input = .head(since: time) }
        return false
    }

    /// A request's headers were read; `closing` when it asks for the connection to close.
    mutating func headRead(closing: Bool, at time: NIODeadline) {
        input = .body(since: time, received: 0)
        answering += 1
        if closing { closeAfterAnswer = true }
    }

    /// Part of a request's body was read.
    mutating func bodyRead(_ count: Int, at time: NIODeadline) {
        if case .body(let since, let received) = input { input = .body(since: since, received: received + count) }
    }

    /// A request was read to its end.
    mutating func endRead(at time: NIODeadline) {
        input = .waiting(since: time)
    }

    /// An answer's head is being written: with `Connection: close` the connection closes after it.
    mutating func answerStarted(status: Int, closing: Bool) {
        answerStatus = status
        if closing { closeAfterAnswer = true }
    }

    /// An answer ended; true when the connection now lingers, to be closed: after an answer with
    /// `Connection: close`, or a 413 given before the body was read to its end (the rest is not
    /// worth reading; a 413 for a body read whole, too many events, keeps the connection).
    mutating func answerEnded(at time: NIODeadline) -> Bool {
        answering = max(0, answering - 1)
        if answerStatus == 413, case .body = input { closeAfterAnswer = true }
        if closeAfterAnswer && answering == 0 {
            if lingering == nil { lingering = (time, time) }
            return true
        }
        if case .waiting = input, answering == 0 { input = .waiting(since: time) }
        return false
    }

    /// When the connection is to be closed if nothing more happens, and why; nil while the server
    /// works on an answer.
    var deadline: (at: NIODeadline, reason: Reason)? {
        if let lingering {
            return (min(lingering.since + TimeAmount(limits.lingerTotal), lingering.lastRead + TimeAmount(limits.linger)), .linger)
        }
        switch input {
        case .waiting(let since):
            return answering > 0 ? nil : (since + TimeAmount(limits.idle), .idle)
        case .head(let since):
            return (since + TimeAmount(limits.header), .header)
        case .body(let since, let received):
            let earned = TimeAmount.nanoseconds(Int64(min(received / limits.bodyMinimumRate, 1 << 30)) * 1_000_000_000)
            return (since + TimeAmount(limits.body) + earned, .body)
        }
    }
}

/// The first handler of a connection, next to the socket: it sees every byte the client sends,
/// keeps the connection's ``ConnectionDeadlines`` and its timer, and closes the connection when a
/// deadline passes. While the connection lingers it throws the client's bytes away and keeps
/// reading, whatever the handlers behind it want.
final class ConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var state: ConnectionDeadlines
    private var context: ChannelHandlerContext?
    private var timer: Scheduled<Void>?
    private var timerAt: NIODeadline?
    private let logger: Logger

    init(limits: ConnectionLimits, logger: Logger) {
        state = ConnectionDeadlines(limits: limits, openedAt: .now())
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        rearm()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if state.bytesArrived(at: .now()) {
            rearm()
            return  // thrown away: the answer that closes the connection has been sent
        }
        rearm()
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // The handlers behind may have stopped asking for bytes; a lingering connection reads on.
        if state.lingering != nil { context.read() }
        context.fireChannelReadComplete()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    /// What ``ConnectionParts`` saw pass, told to the state.
    func update(_ change: (inout ConnectionDeadlines, NIODeadline) -> Bool) {
        if change(&state, .now()), let context {
            // The answer that closes the connection has ended: the client reads EOF after it, and
            // what it still sends is thrown away until the connection closes.
            context.close(mode: .output, promise: nil)
            context.read()
        }
        rearm()
    }

    /// Sets the timer for the state's deadline, if it comes before the one set.
    private func rearm() {
        guard let context, let (deadline, _) = state.deadline else { return }
        if let timerAt, timerAt <= deadline { return }
        timer?.cancel()
        timerAt = deadline
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            timerAt = nil
            guard let context = self.context, let (due, reason) = state.deadline else { return }
            if due <= .now() {
                logger.debug("closing a slow connection", metadata: ["connection.limit": "\(reason.rawValue)"])
                context.close(promise: nil)
            } else {
                rearm()
            }
        }
    }
}

/// The handler after HTTP decoding: tells the connection's ``ConnectionGuard`` when a request's
/// head, body and end are read and when an answer starts and ends.
final class ConnectionParts: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let guarding: ConnectionGuard

    init(_ guarding: ConnectionGuard) { self.guarding = guarding }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            let closing = Self.closes(request.headerFields)
            guarding.update { state, time in
                state.headRead(closing: closing, at: time)
                return false
            }
        case .body(let buffer):
            let count = buffer.readableBytes
            guarding.update { state, time in
                state.bodyRead(count, at: time)
                return false
            }
        case .end:
            guarding.update { state, time in
                state.endRead(at: time)
                return false
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let response):
            let closing = Self.closes(response.headerFields)
            guarding.update { state, _ in
                state.answerStarted(status: response.status.code, closing: closing)
                return false
            }
            context.write(data, promise: promise)
        case .body:
            context.write(data, promise: promise)
        case .end:
            context.write(data, promise: promise)
            context.flush()
            guarding.update { state, time in state.answerEnded(at: time) }
        }
    }

    static func closes(_ fields: HTTPFields) -> Bool {
        fields[values: .connection].contains {
            $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "close" }
        }
    }
}

/// HTTP/1.1 connections under ``ConnectionLimits``: Hummingbird's `HTTP1Channel` with a
/// ``ConnectionGuard`` in front of its decoder and ``ConnectionParts`` behind it.
struct LimitedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let responder: HTTPChannelHandler.Responder
    let limits: ConnectionLimits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let guarding = ConnectionGuard(limits: limits, logger: logger)
        do {
            try channel.pipeline.syncOperations.addHandler(guarding, position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let bound = NIOLoopBound(guarding, eventLoop: channel.eventLoop)
        var configuration = HTTP1Channel.Configuration()
        configuration.additionalChannelHandlers = { [ConnectionParts(bound.value)] }
        return HTTP1Channel(responder: responder, configuration: configuration).setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with Waymark's ``ConnectionLimits``.
    public static func http1(limits: ConnectionLimits) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in LimitedHTTP1Channel(responder: responder, limits: limits) }
    }
}
