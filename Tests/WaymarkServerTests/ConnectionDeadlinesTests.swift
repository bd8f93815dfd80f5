import HTTPTypes
import NIOCore
import Testing

@testable import WaymarkServer

/// When a connection is due to close, by the state machine alone, on a clock the test moves.
@Suite struct ConnectionDeadlinesTests {
    static let limits = ConnectionLimits(
        idle: .seconds(60), header: .seconds(20), body: .seconds(20), bodyMinimumRate: 500, linger: .seconds(5), lingerTotal: .seconds(30))

    /// `seconds` after the connection opened.
    static func at(_ seconds: Double) -> NIODeadline { .uptimeNanoseconds(UInt64(1_000_000_000 + seconds * 1_000_000_000)) }

    func deadline(_ state: ConnectionDeadlines) -> (Double, ConnectionDeadlines.Reason)? {
        state.deadline.map { (Double($0.at.uptimeNanoseconds - Self.at(0).uptimeNanoseconds) / 1e9, $0.reason) }
    }

    @Test func anIdleConnectionClosesAfterTheIdleLimitCountedFromItsLastAnswer() {
        var state = ConnectionDeadlines(limits: Self.limits, openedAt: Self.at(0))
        #expect(deadline(state)! == (60, .idle))
        // A request, read whole at 10 s and answered at 25 s: no limit while the server answers.
        let thrownAway = state.bytesArrived(at: Self.at(10))
        #expect(!thrownAway)
        state.headRead(closing: false, at: Self.at(10))
        state.endRead(at: Self.at(10))
        #expect(deadline(state) == nil)
        state.answerStarted(status: 200, closing: false)
        let lingers = state.answerEnded(at: Self.at(25))
        #expect(!lingers)
        #expect(deadline(state)! == (85, .idle))
    }

    @Test func headersMustArriveWithinTheirLimitFromTheFirstByteHoweverSlowlyTheyCome() {
        var state = ConnectionDeadlines(limits: Self.limits, openedAt: Self.at(0))
        _ = state.bytesArrived(at: Self.at(3))
        for second in stride(from: 4.0, to: 40, by: 1) {
            _ = state.bytesArrived(at: Self.at(second))
            #expect(deadline(state)! == (23, .header), "a byte a second does not move it")
        }
        state.headRead(closing: false, at: Self.at(22))
        #expect(deadline(state)! == (42, .body))
    }

    @Test func aBodyGetsASecondMoreForEveryBytesOfTheMinimumRate() {
        var state = ConnectionDeadlines(limits: Self.limits, openedAt: Self.at(0))
        _ = state.bytesArrived(at: Self.at(0))
        state.headRead(closing: false, at: Self.at(1))
        #expect(deadline(state)! == (21, .body))
        state.bodyRead(499, at: Self.at(5))
        #expect(deadline(state)! == (21, .body), "less than 500 bytes buys nothing")
        state.bodyRead(1, at: Self.at(6))
        #expect(deadline(state)! == (22, .body))
        // 512 KB at the minimum rate: 1,048 s more.
        state.bodyRead(512 * 1024 - 500, at: Self.at(900))
        #expect(deadline(state)! == (21 + 1048, .body))
        state.endRead(at: Self.at(1000))
        #expect(deadline(state) == nil, "read whole: the server answers")
    }

    @Test func anAnswerThatClosesLingersWhileTheClientSendsThenCloses() {
        for (status, closingAnswer, closingRequest) in [(413, false, false), (200, true, false), (200, false, true)] {
            var state = ConnectionDeadlines(limits: Self.limits, openedAt: Self.at(0))
            _ = state.bytesArrived(at: Self.at(0))
            state.headRead(closing: closingRequest, at: Self.at(0))
            state.bodyRead(1 << 20, at: Self.at(1))
            state.answerStarted(status: status, closing: closingAnswer)
            let lingers = state.answerEnded(at: Self.at(2))
            #expect(lingers, "\(status) \(closingAnswer) \(closingRequest)")
            #expect(deadline(state)! == (7, .linger))
            // What still comes is thrown away, and keeps the connection a while, 30 s at most.
            for second in stride(from: 3.0, to: 40, by: 1) {
                let thrownAway = state.bytesArrived(at: Self.at(second))
                #expect(thrownAway)
            }
            #expect(deadline(state)! == (32, .linger))
        }
        // A 413 for a body read whole (too many events) keeps the connection, as any other answer.
        var plain = ConnectionDeadlines(limits: Self.limits, openedAt: Self.at(0))
        _ = plain.bytesArrived(at: Self.at(0))
        plain.headRead(closing: false, at: Self.at(0))
        plain.endRead(at: Self.at(0))
        plain.answerStarted(status: 413, closing: false)
        let lingers = plain.answerEnded(at: Self.at(1))
        #expect(!lingers)
        let thrownAway = plain.bytesArrived(at: Self.at(2))
        #expect(!thrownAway)
    }

    @Test func theHeaderThatClosesIsReadAsHTTPReadsIt() {
        #expect(ConnectionParts.closes([.connection: "close"]))
        #expect(ConnectionParts.closes([.connection: "keep-alive, Close"]))
        #expect(!ConnectionParts.closes([.connection: "keep-alive"]))
        #expect(!ConnectionParts.closes([:]))
    }
}
