import Foundation
import Testing
import WaymarkAPI
import WaymarkRules
import WaymarkSupport

@testable import WaymarkServer

/// The JSON the server writes by hand reads back as what it was made from.
@Suite struct JSONTextTests {
    @Test func theEventAnswerDecodesAsTheAPIType() throws {
        let results = [
            EventResult(id: "0190c0de-0000-7000-8000-000000000001", status: .accepted),
            EventResult(id: "0190c0de-0000-7000-8000-000000000002", status: .accepted, clamped: true),
            EventResult(id: "0190c0de-0000-7000-8000-000000000003", status: .duplicate),
            EventResult(id: nil, status: .rejected, reason: "an event must be an object"),
            EventResult(id: "x\"y", status: .rejected, reason: "unknown field \"co\\lor\u{1}\""),
        ]
        let read = try JSONDecoder().decode(EventBatchResult.self, from: Data(WaymarkServer.answer(results)))
        #expect(read.results == results)
    }
}
