import Foundation
import WaymarkEngine
import WaymarkRules
import WaymarkStore

/// A user's replay state as the eligible counts keep it at the end of a day: the evaluator's
/// snapshot and what ``TipWatch/User`` keeps besides, per tip in the ruleset's order.
///
/// Kept for every user on every day they have events, so it is written compactly: integers as
/// LEB128 (signed ones zigzagged, times as differences from the evaluator's time, wrapping), texts with
/// their length, and each term by its position among the compiled evaluator's terms
/// (``WaymarkEngine/Evaluator/termKeys``) instead of its text. A state names its number of terms
/// and tips, and is refused when they are not the ruleset's.
struct KeptState {
    var snapshot: EvaluatorSnapshot
    var properties: String?
    var platformVersion: PlatformVersion
    var seen: [(at: Int64, platformVersion: PlatformVersion)?]
    var done: [Bool]
    var actedAt: [Int64?]
    var context: [String?]
    var day: Int64?

    init(of user: TipWatch.User) {
        snapshot = user.evaluator.snapshot()
        properties = user.properties
        platformVersion = user.platformVersion
        seen = user.seen
        done = user.done
        actedAt = user.actedAt
        context = user.context
        day = user.day
    }

    func user(_ id: String, in watch: TipWatch) throws -> TipWatch.User {
        guard seen.count == watch.tips.count else {
            throw StoreError(.failed, "a kept eligibility state is of \(seen.count) tips, not \(watch.tips.count)")
        }
        var user = watch.newUser(id, markingDays: true)
        user.evaluator = watch.compiled.restoring(snapshot)
        user.properties = properties
        user.platformVersion = platformVersion
        user.seen = seen
        user.done = done
        user.actedAt = actedAt
        user.context = context
        user.day = day
        return user
    }

    // MARK: Writing

    func encoded(terms index: [String: Int]) -> Data {
        var out = Writer()
        let now = snapshot.now ?? 0
        out.optional(snapshot.now) { $0.signed($1) }
        out.unsigned(UInt64(index.count))
        let terms = snapshot.terms.compactMap { key, state in index[key].map { ($0, state) } }.sorted { $0.0 < $1.0 }
        out.unsigned(UInt64(terms.count))
        for (position, state) in terms {
            out.unsigned(UInt64(position))
            out.byte(
                (state.count != nil ? 1 : 0) | (state.last != nil ? 2 : 0) | (state.times != nil ? 4 : 0) | (state.done == true ? 8 : 0))
            if let count = state.count { out.signed(Int64(count)) }
            if let last = state.last { out.signed(last &- now) }
            if let times = state.times {
                out.unsigned(UInt64(times.count))
                for time in times { out.signed(time &- now) }
            }
        }
        out.unsigned(UInt64(snapshot.context.count))
        for (path, value) in snapshot.context.sorted(by: { $0.key < $1.key }) {
            out.text(path)
            if case .string(let text) = value {
                out.byte(0)
                out.text(text)
            } else {
                // Only what the events report is set here, as text; anything else as JSON.
                out.byte(1)
                out.text(String(decoding: (try? JSONEncoder().encode(value)) ?? Data(), as: UTF8.self))
            }
        }
        out.optional(properties) { $0.text($1) }
        out.place(platformVersion)
        out.optional(day) { $0.signed($1 &- now) }
        out.unsigned(UInt64(seen.count))
        for tip in seen.indices {
            out.byte((seen[tip] != nil ? 1 : 0) | (done[tip] ? 2 : 0) | (actedAt[tip] != nil ? 4 : 0))
            if let seen = seen[tip] {
                out.signed(seen.at &- now)
                out.place(seen.platformVersion)
            }
            if let acted = actedAt[tip] { out.signed(acted &- now) }
        }
        out.unsigned(UInt64(context.count))
        for value in context { out.optional(value) { $0.text($1) } }
        return Data(out.bytes)
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func byte(_ value: UInt8) { bytes.append(value) }

        mutating func unsigned(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(value & 0x7F) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }

        mutating func signed(_ value: Int64) { unsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }

        mutating func text(_ value: String) {
            unsigned(UInt64(value.utf8.count))
            bytes.append(contentsOf: value.utf8)
        }

        mutating func optional<T>(_ value: T?, _ write: (inout Writer, T) -> Void) {
            byte(value == nil ? 0 : 1)
            if let value { write(&self, value) }
        }

        mutating func place(_ place: PlatformVersion) {
            optional(place.platform) { $0.text($1) }
            optional(place.appVersion) { $0.text($1) }
        }
    }

    // MARK: Reading

    /// A kept state, its terms named by position among `terms`; damaged bytes are refused.
    init(decoding data: Data, terms keys: [String]) throws {
        var input = Reader(bytes: [UInt8](data))
        let now = try input.optional { try $0.signed() }
        let base = now ?? 0
        guard try input.unsigned() == UInt64(keys.count) else {
            throw StoreError(.failed, "a kept eligibility state is of other rules")
        }
        var terms: [String: EvaluatorSnapshot.TermState] = [:]
        for _ in 0..<(try input.count()) {
            let position = try input.count()
            guard position < keys.count else { throw StoreError(.failed, "a kept eligibility state names a term past the rules'") }
            let flags = try input.byte()
            var state = EvaluatorSnapshot.TermState()
            if flags & 1 != 0 { state.count = Int32(clamping: try input.signed()) }
            if flags & 2 != 0 { state.last = base &+ (try input.signed()) }
            if flags & 4 != 0 { state.times = try (0..<(try input.count())).map { _ in base &+ (try input.signed()) } }
            if flags & 8 != 0 { state.done = true }
            terms[keys[position]] = state
        }
        var values: [String: ContextValue] = [:]
        for _ in 0..<(try input.count()) {
            let path = try input.text()
            let kind = try input.byte()
            let text = try input.text()
            values[path] = kind == 0 ? .string(text) : try JSONDecoder().decode(ContextValue.self, from: Data(text.utf8))
        }
        snapshot = EvaluatorSnapshot(now: now, context: values, terms: terms)
        properties = try input.optional { try $0.text() }
        platformVersion = try input.place()
        day = try input.optional { base &+ (try $0.signed()) }
        let tips = try input.count()
        seen = []
        done = []
        actedAt = []
        for _ in 0..<tips {
            let flags = try input.byte()
            seen.append(flags & 1 != 0 ? (at: base &+ (try input.signed()), platformVersion: try input.place()) : nil)
            done.append(flags & 2 != 0)
            actedAt.append(flags & 4 != 0 ? base &+ (try input.signed()) : nil)
        }
        context = try (0..<(try input.count())).map { _ in try input.optional { try $0.text() } }
        guard input.isAtEnd else { throw StoreError(.failed, "a kept eligibility state has bytes past its end") }
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw StoreError(.failed, "a kept eligibility state ends early") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func unsigned() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = try byte()
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
                guard shift < 64 else { throw StoreError(.failed, "a kept eligibility state has a number longer than ten bytes") }
            }
        }

        /// A count or a position: at most what the bytes left could hold.
        mutating func count() throws -> Int {
            let value = try unsigned()
            guard value <= UInt64(bytes.count) else { throw StoreError(.failed, "a kept eligibility state counts past its end") }
            return Int(value)
        }

        mutating func signed() throws -> Int64 {
            let value = try unsigned()
            return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
        }

        mutating func text() throws -> String {
            let length = try count()
            guard offset + length <= bytes.count else { throw StoreError(.failed, "a kept eligibility state ends inside a text") }
            defer { offset += length }
            return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
        }

        mutating func optional<T>(_ read: (inout Reader) throws -> T) throws -> T? {
            try byte() == 0 ? nil : try read(&self)
        }

        mutating func place() throws -> PlatformVersion {
            PlatformVersion(platform: try optional { try $0.text() }, appVersion: try optional { try $0.text() })
        }
    }
}
