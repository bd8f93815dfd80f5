import Foundation
import WaymarkRules

/// The properties the fuzzer checks on every input and the tests check on every file of its corpus
/// (`Fuzz/corpus`). This file is shared: `Fuzz/Sources/FuzzRules` links to it.
///
/// For any bytes: parsing them as a rule either fails with an error that points inside the text,
/// or gives a rule whose printed form parses back to the same rule and whose JSON form decodes
/// back to it; decoding them as a JSON rule either fails or gives a rule that prints and parses
/// back. Nothing traps. Returns what broke, or `nil`.
func roundTripFailure(_ bytes: [UInt8]) -> String? {
    let text = String(decoding: bytes, as: UTF8.self)
    do {
        let rule = try Rule(parsing: text)
        let printed = rule.description
        guard let reparsed = try? Rule(parsing: printed) else { return "the printed form does not parse: \(printed)" }
        guard reparsed == rule else { return "the printed form parses to another rule: \(printed)" }
        do {
            let decoded = try JSONDecoder().decode(Rule.self, from: JSONEncoder().encode(rule))
            guard decoded == rule else { return "the JSON form decodes to another rule: \(printed)" }
        } catch {
            return "the JSON form does not decode: \(printed): \(error)"
        }
    } catch {
        let length = text.unicodeScalars.count
        guard error.line >= 1, error.column >= 1, error.offset >= 0, error.offset <= length else {
            return "the error points outside the text: \(error)"
        }
        guard !error.excerpt(source: text).isEmpty else { return "empty error excerpt: \(error)" }
    }
    if let decoded = try? JSONDecoder().decode(Rule.self, from: Data(bytes)) {
        guard let reparsed = try? Rule(parsing: decoded.description), reparsed == decoded else {
            return "a decoded JSON rule does not print back: \(decoded)"
        }
    }
    return nil
}
