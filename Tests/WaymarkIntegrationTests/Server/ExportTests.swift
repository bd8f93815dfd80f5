import CompressNIO
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import WaymarkSQLite
import WaymarkServer
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

/// An app's events leave as NDJSON or CSV, in order, a page at a time, resumable from any line's
/// cursor; through the admin API (secret key, one app's events) and `waymark export`.
@Suite(.timeLimit(.minutes(5))) struct ExportTests {
    static let t0: Int64 = 1_795_000_000_000

    /// `count` events of three users, a millisecond apart; some with awkward text for CSV.
    static func events(app: String, count: Int) -> [StoredEvent] {
        (0..<count).map { index in
            let time = t0 + Int64(index)
            return StoredEvent(
                app: app, id: EventID.make(milliseconds: time, number: index), user: "u\(index % 3)",
                name: index % 2 == 0 ? "tap" : "screen",
                target: index % 5 == 0 ? "say \"hi\", then =go" : "t\(index % 7)", timestamp: time, receivedAt: time + 5, clamped: false,
                properties: index % 4 == 0 ? ["platform": "android", "note": "a,b\nc"] : nil)
        }
    }

    @Test(arguments: StoreUnderTest.available)
    func eventsLeaveInOrderAndAnExportGoesOnFromAnyCursor(_ kind: StoreUnderTest) async throws {
        try await ServerTests().withServer(kind) { client, app, other, store in
            let stored = Self.events(app: app.appId, count: 2_345)
            _ = try await store.insertEvents(stored)
            func get(_ query: String, key: String = app.secretKey, gzip: Bool = false) async throws -> TestResponse {
                var headers = ServerTests.auth(key)
                if gzip { headers[.acceptEncoding] = "gzip" }
                return try await client.execute(uri: "/v1/admin/events" + query, method: .get, headers: headers)
            }
            func lines(_ response: TestResponse) throws -> [[String: Any]] {
                try String(buffer: response.body).split(separator: "\n").map {
                    try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
                }
            }
            let all = try await get("")
            #expect(all.status == .ok && all.headers[.contentType] == "application/x-ndjson; charset=utf-8")
            let exported = try lines(all)
            try #require(exported.count == stored.count)
            #expect(exported.map { $0["id"] as? String } == stored.map(\.id), "every event once, in order")
            let first = exported[0]
            #expect(
                first["user"] as? String == "u0" && first["name"] as? String == "tap"
                    && first["target"] as? String == #"say "hi", then =go"#)
            #expect(first["timestamp"] as? String == Timestamp.format(Self.t0) && first["clamped"] as? Bool == false)
            #expect((first["properties"] as? [String: Any])?["note"] as? String == "a,b\nc")
            #expect(exported[1]["properties"] == nil)

            // Cut off after 1,000 lines: the rest comes after the last line's cursor.
            let cursor = try #require(exported[999]["cursor"] as? String)
            let rest = try lines(try await get("?after=\(cursor)"))
            #expect(rest.map { $0["id"] as? String } == stored.dropFirst(1000).map(\.id))

            // A period, and CSV.
            let from = Timestamp.format(Self.t0 + 10)
            let to = Timestamp.format(Self.t0 + 20)
            let csv = try await get("?format=csv&from=\(from)&to=\(to)")
            #expect(csv.headers[.contentType] == "text/csv; charset=utf-8")
            let text = String(buffer: csv.body)
            let rows = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
            #expect(rows.first == "cursor,id,user,name,target,timestamp,receivedAt,clamped,properties")
            #expect(text.contains(#""say ""hi"", then =go""#))
            #expect(text.contains(#""{""note"":""a,b"#), "a property with a line break stays in its quoted cell")
            #expect(text.components(separatedBy: "\r\n").count - 2 == 10, "ten rows of [from, to): \(rows.count)")

            // Compressed as it is written for a client that takes gzip.
            let zipped = try await get("", gzip: true)
            #expect(zipped.headers[.contentEncoding] == "gzip")
            var body = zipped.body
            let unzipped = try body.decompress(with: .gzip())
            #expect(String(buffer: unzipped) == String(buffer: all.body))

            #expect(try await get("", key: app.clientKey).status == .unauthorized)
            #expect(String(buffer: try await get("", key: other.secretKey).body).isEmpty, "another app's events are its own")
            for bad in ["?format=xml", "?from=yesterday", "?after=nope", "?after=12_"] {
                let response = try await get(bad)
                #expect(response.status == .badRequest, "\(bad)")
            }
        }
    }
}

/// `waymark export` writes what the endpoint streams, from the database, in constant memory: its
/// peak is that of exporting almost nothing, though what it writes is many times a page.
@Suite(.timeLimit(.minutes(5))) struct ExportCommandTests {
    @Test func theCommandExportsFromTheDatabaseWithoutHoldingTheEvents() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let count = 60_000
        let events = ExportTests.events(app: "shop", count: count)
        do {
            let store = try SQLiteStore(path: directory.appendingPathComponent("waymark.sqlite").path)
            for app in ["shop", "tiny"] {
                try await store.createApp(AppRecord(id: app, name: app, identitySecret: "s", createdAt: Date()))
            }
            for start in stride(from: 0, to: count, by: 5_000) { _ = try await store.insertEvents(Array(events[start..<(start + 5_000)])) }
            _ = try await store.insertEvents(ExportTests.events(app: "tiny", count: 10))
        }
        /// The command's own account of its peak memory: "Exported N events (peak memory M MB)."
        func export(_ app: String, to out: String) throws -> (errors: String, peak: Int) {
            let run = try WaymarkBinary.run(["export", "--data-dir", directory.path, "--app", app, "--out", out])
            #expect(run.status == 0, "\(run.errors)")
            let peak = try #require(run.errors.split(separator: "(peak memory ").last?.split(separator: " ").first.flatMap { Int($0) })
            return (run.errors, peak)
        }
        let tiny = try export("tiny", to: directory.appendingPathComponent("tiny.ndjson").path)
        let out = directory.appendingPathComponent("events.ndjson").path
        let shop = try export("shop", to: out)
        let written = try String(contentsOfFile: out, encoding: .utf8)
        #expect(shop.errors.contains("Exported \(count) events"))
        #expect(written.utf8.count > 12_000_000)
        #expect(written.utf8.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 } == count)
        #expect(
            shop.peak < tiny.peak + 8, "\(shop.peak) MB against \(tiny.peak) MB for \(written.utf8.count >> 20) MB of events: it held them"
        )

        let csv = try WaymarkBinary.run([
            "export", "--data-dir", directory.path, "--app", "shop", "--format", "csv", "--after", EventExport.cursor(events[count - 3]),
        ])
        #expect(csv.output.components(separatedBy: "\r\n").filter { !$0.isEmpty }.count == 3, "the header and the last two events")
        #expect(try WaymarkBinary.run(["export", "--data-dir", directory.path, "--app", "nope"]).errors.contains("error: no app nope"))
        #expect(try WaymarkBinary.run(["export", "--data-dir", directory.path, "--app", "shop", "--from", "soon"]).status != 0)
    }
}
