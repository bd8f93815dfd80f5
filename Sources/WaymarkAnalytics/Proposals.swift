import Foundation
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules
import WaymarkStore

/// The tip Waymark proposes for a problem: where it shows, a trigger written from the sign, a
/// dismissal (the step people missed, where it is known), and draft words in English and, when the
/// catalog speaks it, Hindi, for the author to finish.
public struct Proposal: Hashable, Sendable {
    public var tip: CatalogTip
    /// Why this rule, in a sentence for the author.
    public var reason: String
}

extension Problem {
    /// The tip for this problem, or nil when a rule cannot name its screen or element (a name
    /// with spaces, say). `next` is the screen most visits go on to from this one, when known
    /// (what a stopped visit missed); `catalog` the draft, whose ids the new one must not take
    /// and whose locales it is written in.
    public func proposal(next: String?, catalog: Catalog) -> Proposal? {
        guard Self.isName(screen) else { return nil }
        let e = element
        var anchor: String?
        var renderer = Renderer.banner
        let trigger: String
        var dismissal: String?
        let reason: String
        var words: (en: (String, String), hi: (String, String))
        switch signal {
        case .rageTaps:
            guard Self.isName(e) else { return nil }
            (anchor, renderer) = (e, .tooltip)
            trigger = "count(tap:\(e)) >= 3 within 3s"
            dismissal = next.map { "screen:\($0)" }
            reason = "It shows at \(e) the moment someone taps it a third time within 3 seconds, as people did \(occurrences) times."
            words = (
                ("This takes a moment", "After one tap, please wait a few seconds: the next screen is on its way."),
                ("इसमें थोड़ा समय लगता है", "एक बार दबाने के बाद कुछ सेकंड रुकें: अगली स्क्रीन आ रही है।")
            )
        case .deadTap:
            guard Self.isName(e) else { return nil }
            (anchor, renderer) = (e, .tooltip)
            trigger = "tap:\(e)"
            dismissal = next.map { "screen:\($0)" }
            reason =
                "It shows at \(e) when someone taps it, which led nowhere \(occurrences) times: say what it is for, or where to go instead."
            words = (
                ("What this is for", "Say here what this does, and where to tap instead to go on."),
                ("यह किस लिए है", "यहाँ बताएँ कि यह क्या करता है, और आगे बढ़ने के लिए कहाँ दबाएँ।")
            )
        case .backAndForth:
            guard Self.isName(e) else { return nil }
            trigger = "screen:\(screen) THEN screen:\(e) THEN screen:\(screen) within 60s"
            reason =
                "It shows on \(screen) when someone comes back to it from \(e) within a minute, as \(users) people did again and again."
            words = (
                ("Looking for something?", "Say here where people find what they look for between these two screens."),
                ("कुछ ढूँढ रहे हैं?", "यहाँ बताएँ कि इन दो स्क्रीन के बीच जो ढूँढा जाता है, वह कहाँ मिलेगा।")
            )
        case .uTurn:
            trigger = "screen:\(screen)"
            reason = "It shows as people arrive on \(screen), which \(users) people left at once."
            words = (
                ("What you can do here", "Say here what this screen is for, so people know it is the right place."),
                ("यहाँ आप क्या कर सकते हैं", "यहाँ बताएँ कि यह स्क्रीन किस लिए है, ताकि लोग जानें कि वे सही जगह हैं।")
            )
        case .failedSearch:
            guard Self.isName(e) else { return nil }
            trigger = "\(e) where results == 0"
            dismissal = e == "help_searched" ? "article_opened" : nil
            reason = "It shows on \(screen) after a search that found nothing, as \(occurrences) searches did."
            words = (
                ("Can't find it?", "Say here where to find what people search for and do not find."),
                ("नहीं मिला?", "यहाँ बताएँ कि लोग जो खोजते हैं और नहीं पाते, वह कहाँ मिलेगा।")
            )
        case .idle:
            let quiet = ["screen", "tap", "scroll", "keystroke"].map { "NOT \($0) within 30s" }.joined(separator: " AND ")
            trigger = "screen:\(screen) AND \(quiet)"
            reason = "It shows when someone has done nothing on \(screen) for 30 seconds, as \(users) people waited a minute or more."
            words = (("Need a hand?", "Say here what to do next on this screen."), ("कोई मदद चाहिए?", "यहाँ बताएँ कि इस स्क्रीन पर आगे क्या करना है।"))
        case .stopped:
            guard Self.isName(e) else { return nil }
            trigger = "screen:\(screen)"
            dismissal = "screen:\(e)"
            reason = "It shows on \(screen) until people reach \(e), the next step \(users) people did not take."
            words = (("One step left", "Say here how to go on to \(e)."), ("बस एक कदम बाकी", "यहाँ बताएँ कि आगे कैसे बढ़ें।"))
        }
        guard let triggerRule = try? Rule(parsing: trigger) else { return nil }
        let dismissalRule = dismissal.flatMap { try? Rule(parsing: $0) }
        var content = Localized(Content(title: words.en.0, markdown: words.en.1))
        if catalog.locales.contains(where: { $0 == "hi" || $0.hasPrefix("hi-") }) {
            content.locales["hi"] = Content(title: words.hi.0, markdown: words.hi.1)
        }
        let tip = CatalogTip(
            tip: Tip(
                id: Self.freeID(for: self, in: catalog), container: screen, anchor: anchor, trigger: triggerRule, dismissal: dismissalRule),
            renderer: renderer, content: content)
        return Proposal(tip: tip, reason: reason)
    }

    /// A name a rule and a catalog can hold as it is.
    static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 100
            && text.unicodeScalars.allSatisfy {
                ("0"..."9").contains($0) || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || "_-".unicodeScalars.contains($0)
            }
    }

    /// `lost-SIGNAL-SCREEN[-ELEMENT]`, with a number after it when the catalog has that id already.
    static func freeID(for problem: Problem, in catalog: Catalog) -> String {
        let parts =
            ["lost", problem.signal.rawValue.replacingOccurrences(of: "_", with: "-"), problem.screen]
            + (problem.element.isEmpty ? [] : [problem.element])
        let base = String(parts.joined(separator: "-").prefix(110))
        let taken = Set(catalog.tips.map(\.id))
        var id = base
        var number = 2
        while taken.contains(id) {
            id = "\(base)-\(number)"
            number += 1
        }
        return id
    }
}
