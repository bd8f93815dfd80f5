import Foundation
import Testing
import WaymarkEngine
import WaymarkRules
import WaymarkStore
import WaymarkSupport

@testable import WaymarkServer

/// The hand-written reader of event uploads against Foundation's JSONSerialization, on random
/// bodies: valid ones with every kind of value where events' fields go, and mutated ones.
@Suite struct EventBatchReaderTests {
    typealias Fields = EventBatchReader.Fields

    /// What the reader must answer, worked out from JSONSerialization's reading.
    enum Expected: Equatable {
        case failure
        case unknownField
        case eventsNotAList
        case notAnObject
        case events([Fields?])
    }

    /// The fields of an event, as the API documents them.
    static let eventKeys: Set<String> = ["id", "user", "name", "target", "timestamp", "properties"]

    static func expected(_ data: Data) -> Expected {
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return .failure }
        guard let object = value as? [String: Any] else { return .notAnObject }
        if object.keys.contains(where: { $0 != "events" }) { return .unknownField }
        guard let list = object["events"] as? [Any] else { return .eventsNotAList }
        return .events(
            list.map { item -> Fields? in
                guard let event = item as? [String: Any] else { return nil }
                func text(_ key: String) -> String? { event[key] as? String }
                var fields = Fields(
                    id: text("id"), user: text("user"), name: text("name"), timestamp: text("timestamp").flatMap(Timestamp.parse))
                fields.unknownKey = event.keys.filter { !Self.eventKeys.contains($0) }.min()
                if let target = event["target"], !(target is NSNull) {
                    fields.target = target as? String
                    fields.badTarget = fields.target == nil
                }
                if let properties = event["properties"], !(properties is NSNull) {
                    if let object = properties as? [String: Any], let members = Self.members(object) {
                        fields.properties = members
                    } else {
                        fields.badProperties = true
                    }
                }
                return fields
            })
    }

    /// An object's members as the reader keeps them, numbers written as Swift writes the double
    /// (see ``numbersAsDoubles(_:)``), or nil when a value is not a string, number or boolean.
    static func members(_ object: [String: Any]) -> [JSONMember]? {
        var members: [JSONMember] = []
        for (key, value) in object {
            if let text = value as? String {
                members.append(JSONMember(key: key, value: .text(text)))
            } else if let number = value as? NSNumber {
                // JSONSerialization reads `true` and `false` as numbers of the C type `char`.
                let isFlag = String(cString: number.objCType) == "c"
                members.append(JSONMember(key: key, value: isFlag ? .bool(number.boolValue) : .number("\(number.doubleValue)")))
            } else {
                return nil
            }
        }
        return members.sorted { $0.key < $1.key }
    }

    /// The reader keeps a number's text (`1e9`); JSONSerialization only its value.
    static func numbersAsDoubles(_ events: [Fields?]) -> [Fields?] {
        events.map { fields in
            guard var fields else { return nil }
            fields.properties = fields.properties?.map { member in
                guard case .number(let literal) = member.value, let number = Double(literal) else { return member }
                return JSONMember(key: member.key, value: .number("\(number)"))
            }
            return fields
        }
    }

    static func actual(_ data: Data) -> Expected {
        do {
            return .events(numbersAsDoubles(try EventBatchReader.read(data)))
        } catch .unknownField {
            return .unknownField
        } catch .eventsNotAList {
            return .eventsNotAList
        } catch .notAnObject {
            return .notAnObject
        } catch {
            return .failure
        }
    }

    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state ^ (state >> 29)
        }
    }

    static let pieces = [
        "a", "Z", "0", " ", "é", "हि", "👩🏽‍💻", "\\\"", "\\\\", "\\/", "\\n", "\\t", "\\u0041", "\\u00e9", "\\ud83d\\ude00", "\\u0000",
        "\\b", "\\f", "\\r", "<", "}", "]", ",", ":",
    ]

    static func string(_ random: inout Random) -> String {
        "\"" + (0..<Int.random(in: 0..<6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined() + "\""
    }

    static func value(_ random: inout Random, depth: Int = 0) -> String {
        switch Int.random(in: 0..<(depth > 2 ? 6 : 8), using: &random) {
        case 0, 1: return string(&random)
        case 2: return ["0", "-1", "3.25", "1e9", "-0.5E-3", "12345678901234567890"].randomElement(using: &random)!
        case 3: return ["true", "false"].randomElement(using: &random)!
        case 4: return "null"
        // Timestamps, read into milliseconds: valid (one written with escapes), and not.
        case 5:
            return ["\"2026-11-22T10:00:00.250Z\"", "\"2026-11-22T10:00:00\\u002e5+05:30\"", "\"2026-02-30T10:00:00Z\"", string(&random)]
                .randomElement(using: &random)!
        case 6:
            return "[" + (0..<Int.random(in: 0..<3, using: &random)).map { _ in value(&random, depth: depth + 1) }.joined(separator: ",")
                + "]"
        default: return object(&random, keys: ["k1", "k2", "x"], depth: depth + 1)
        }
    }

    static func object(_ random: inout Random, keys: [String], depth: Int) -> String {
        let chosen = keys.shuffled(using: &random).prefix(Int.random(in: 0...keys.count, using: &random))
        return "{" + chosen.map { "\"\($0)\" : " + value(&random, depth: depth) }.joined(separator: ", ") + "}"
    }

    static func body(_ random: inout Random) -> String {
        let eventKeys = ["id", "user", "name", "target", "timestamp", "properties", "color", "Zeta"]
        let events = (0..<Int.random(in: 0..<4, using: &random)).map { _ -> String in
            switch Int.random(in: 0..<5, using: &random) {
            case 0: return value(&random)
            default: return object(&random, keys: eventKeys, depth: 1)
            }
        }
        var text = "{\"events\": [" + events.joined(separator: ",\n") + "]}"
        if Int.random(in: 0..<20, using: &random) == 0 { text = value(&random) }
        if Int.random(in: 0..<8, using: &random) == 0 { text = "{\"events\": " + value(&random) + "}" }
        if Int.random(in: 0..<10, using: &random) == 0 {
            text = text.replacingOccurrences(of: "{\"events\"", with: "{\"more\": 1, \"events\"")
        }
        // Mutations: a byte cut, a byte added, the end cut off.
        var bytes = Array(text.utf8)
        for _ in 0..<Int.random(in: 0..<3, using: &random) where !bytes.isEmpty {
            let position = Int.random(in: 0..<bytes.count, using: &random)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: bytes.remove(at: position)
            case 1: bytes.insert(Array("{}[]\",:\\ 0a-e.".utf8).randomElement(using: &random)!, at: position)
            default: bytes = Array(bytes[..<position])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func readsLikeJSONSerialization() {
        var random = Random(state: 20_261_122)
        var outcomes: [String: Int] = [:]
        for _ in 0..<5_000 {
            let text = Self.body(&random)
            let data = Data(text.utf8)
            let expected = Self.expected(data)
            let actual = Self.actual(data)
            // JSONSerialization takes a comma before a closing bracket; JSON does not, nor does the reader.
            if actual == .failure, expected != .failure, text.range(of: #",\s*[}\]]"#, options: .regularExpression) != nil { continue }
            // Where JSONSerialization fails (it also refuses numbers out of Double's range, which
            // JSON allows), the reader must refuse the body too, if not always for the same reason.
            if expected == .failure, actual != .failure {
                let outOfRange = text.range(of: #"[0-9][eE][+-]?[0-9]{3,}"#, options: .regularExpression) != nil
                guard case .events = actual, !outOfRange else {
                    outcomes["failure", default: 0] += 1
                    continue
                }
            }
            #expect(actual == expected, "\(text)")
            outcomes["\(expected)".prefix(8).description, default: 0] += 1
        }
        // Every kind of outcome came up.
        #expect(outcomes.count == 5, "\(outcomes)")
    }

    @Test func propertiesKeepTheirTypesAndNumbersTheirText() throws {
        let body =
            #"{"events":[{"properties":{"amount":799,"price":-0.5e2,"cod":true,"new":false,"sku":"42","a":null}},"#
            + #"{"properties":{"sku":"42","list":[1]}},{"properties":{"sku":"42","object":{}}}]}"#
        #expect(
            try EventBatchReader.read(Data(body.utf8)) == [
                Fields(badProperties: true), Fields(badProperties: true), Fields(badProperties: true),
            ])
        let typed = #"{"events":[{"properties":{"amount":799,"price":-0.5e2,"cod":true,"new":false,"sku":"42"}}]}"#
        #expect(
            try EventBatchReader.read(Data(typed.utf8)) == [
                Fields(properties: [
                    JSONMember(key: "amount", value: .number("799")), JSONMember(key: "cod", value: .bool(true)),
                    JSONMember(key: "new", value: .bool(false)), JSONMember(key: "price", value: .number("-0.5e2")),
                    JSONMember(key: "sku", value: .text("42")),
                ])
            ])
    }

    @Test func propertiesAreKeptSortedWithTheLastValueOfARepeatedKey() throws {
        let body = #"{"events":[{"properties":{"b":"1","a":"2","b":"3","\u0061":"4","c":"5"}}]}"#
        #expect(
            try EventBatchReader.read(Data(body.utf8)) == [
                Fields(properties: [JSONMember(key: "a", value: "4"), JSONMember(key: "b", value: "3"), JSONMember(key: "c", value: "5")])
            ])
        // Events with the same properties object read the same (the reader reuses its reading).
        let repeated =
            #"{"events":[{"properties":{"a":"1"}},{"properties":{"a":"1"}},{"properties":{"a":"1","b":"2"}},"#
            + #"{"properties":{"a":"1","b":"2"}},{"properties":{"a":"1"} },{"properties":{"a":1}},{"properties":{"a":1}},"#
            + #"{"properties":{"a":[]}}]}"#
        let one = [JSONMember(key: "a", value: "1")]
        let two = one + [JSONMember(key: "b", value: "2")]
        #expect(
            try EventBatchReader.read(Data(repeated.utf8)) == [
                Fields(properties: one), Fields(properties: one), Fields(properties: two), Fields(properties: two), Fields(properties: one),
                Fields(properties: [JSONMember(key: "a", value: .number("1"))]),
                Fields(properties: [JSONMember(key: "a", value: .number("1"))]),
                Fields(badProperties: true),
            ])
        func properties(_ count: Int) throws -> Fields? {
            let members = (0..<count).reversed().map { "\"k\($0)\":\"v\"" }.joined(separator: ",")
            return try EventBatchReader.read(Data(#"{"events":[{"properties":{\#(members)}}]}"#.utf8)).first ?? nil
        }
        let most = try properties(EventBatchReader.maximumProperties)
        #expect(most?.properties?.map(\.key) == (0..<EventBatchReader.maximumProperties).map { "k\($0)" }.sorted())
        #expect(most?.badProperties == false)
        // One more is bad (the server refuses more than 32 anyway), and no body makes it slow.
        let tooMany = try properties(EventBatchReader.maximumProperties + 1)
        #expect(tooMany?.properties == nil && tooMany?.badProperties == true)
    }

    /// The properties' limits hold for every event, including those whose properties repeat the
    /// previous event's (checked once, the verdict kept with the text).
    @Test func propertiesLimitsHoldForRepeatedPropertiesToo() throws {
        func object(_ count: Int, value: String = "v") -> String {
            "{" + (0..<count).map { "\"k\($0)\":\"\(value)\"" }.joined(separator: ",") + "}"
        }
        let objects = [
            object(2), object(2), object(33), object(33), object(32), object(1, value: String(repeating: "x", count: 513)),
            object(1, value: String(repeating: "x", count: 513)), object(2),
        ]
        let events = objects.map {
            #"{"id":"\#(UUID().uuidString)","user":"u1","name":"tap","timestamp":"2026-11-20T10:00:00Z","properties":\#($0)}"#
        }
        let read = try EventBatchReader.read(Data(#"{"events":[\#(events.joined(separator: ","))]}"#.utf8))
        var properties = WaymarkServer.PropertiesText()
        let accepted = read.map {
            (try? WaymarkServer.validate($0, app: "app", receivedAt: 1_795_000_000_000, properties: &properties).get()) != nil
        }
        #expect(accepted == [true, true, false, false, true, false, false, true])
        let stored = try WaymarkServer.validate(read[0], app: "app", receivedAt: 1_795_000_000_000, properties: &properties).get()
        #expect(stored.properties == #"{"k0":"v","k1":"v"}"#)
    }

    /// Numbers and flags are stored as sent; a number too large for a double is refused, and only
    /// text is taken for the platform and app version columns.
    @Test func typedPropertiesAreStoredAsSent() throws {
        let objects = [
            #"{"amount":799.50,"cod":true,"platform":"web"}"#, #"{"amount":1e400}"#, #"{"amount":-1e308}"#,
            #"{"platform":1,"appVersion":true}"#, #"{"a":1\#(String(repeating: "0", count: 64))}"#,
        ]
        let events = objects.map {
            #"{"id":"\#(UUID().uuidString)","user":"u1","name":"buy","timestamp":"2026-11-20T10:00:00Z","properties":\#($0)}"#
        }
        let read = try EventBatchReader.read(Data(#"{"events":[\#(events.joined(separator: ","))]}"#.utf8))
        var properties = WaymarkServer.PropertiesText()
        let stored = read.map { try? WaymarkServer.validate($0, app: "app", receivedAt: 1_795_000_000_000, properties: &properties).get() }
        #expect(stored[0]?.properties == #"{"amount":799.50,"cod":true,"platform":"web"}"#)
        #expect(stored[0]?.platform == "web")
        #expect(stored[1] == nil)
        #expect(stored[2]?.properties == #"{"amount":-1e308}"#)
        #expect(stored[3]?.properties == #"{"appVersion":true,"platform":1}"#)
        #expect(stored[3]?.platform == nil && stored[3]?.appVersion == nil)
        #expect(stored[4] == nil)
    }

    @Test func deepNestingIsRefusedWithoutRecursingFar() {
        for body in [
            String(repeating: "[", count: 100_000), "{\"events\":[" + String(repeating: "[", count: 100_000),
            "{\"events\":[{\"x\":" + String(repeating: "{\"a\":", count: 10_000),
        ] {
            #expect(throws: EventBatchReader.Failure.invalidJSON) { try EventBatchReader.read(Data(body.utf8)) }
        }
    }
}
