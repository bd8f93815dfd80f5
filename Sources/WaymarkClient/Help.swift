import Foundation
import WaymarkAPI
import WaymarkRules

/// How help is searched, the same in every SDK: text is compared with its compatibility forms
/// composed (a nukta letter typed as two code points finds the one-code-point form), in lower
/// case, without zero-width joiners or soft hyphens, with single spaces; a query finds what holds
/// every one of its words. Scripts without case (Devanagari, Tamil, Bengali...) compare as written.
public enum HelpSearch {
    /// `text` as search compares it.
    public static func fold(_ text: String) -> String {
        let composed = text.precomposedStringWithCompatibilityMapping.lowercased()
        let kept = composed.unicodeScalars.filter { !(0x200B...0x200D).contains($0.value) && $0.value != 0xAD }
        return String(String.UnicodeScalarView(kept)).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Whether every word of `query` is in `text`, both folded.
    public static func matches(_ text: String, _ query: String) -> Bool {
        query.split(separator: " ").allSatisfy { text.contains($0) }
    }

    /// The words an article is found by: its title, its text without markup, its keywords.
    static func text(of article: DeliveredArticle) -> String {
        var body = article.content.html.replacingOccurrences(of: "<[^>]*>", with: " ", options: .regularExpression)
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            body = body.replacingOccurrences(of: entity, with: character)
        }
        return fold(([article.content.title, body] + (article.keywords ?? [])).joined(separator: " "))
    }
}

/// What the help launcher shows: articles, tours and checklists, for a screen or for a search.
public struct HelpResults: Hashable, Sendable {
    /// Articles: for a screen, those that belong to it, then the others; for a search, those found.
    public var articles: [DeliveredArticle]
    /// How many of `articles` belong to the screen (the first ones); 0 for a search.
    public var forScreen: Int
    /// Tours: for a screen, those listed on it (their `screens` hold it, or they have none); for a
    /// search, those found on any screen.
    public var tours: [DeliveredTour]
    /// Checklists: for a screen, those listed on it; for a search, those found.
    public var checklists: [DeliveredChecklist]

    /// Everything found.
    public var count: Int { articles.count + tours.count + checklists.count }
}

extension WaymarkClient {
    /// What the help launcher lists on `screen` (as `screen:NAME` names it): the articles that
    /// belong to it first, then the others; the tours and the checklists that belong to it or to
    /// every screen. Opening the launcher sends `help_opened`.
    @discardableResult
    public func helpOpened(screen: String?) -> HelpResults {
        enqueueHelp(DeliveredArticle.helpOpenedEvent, target: nil, ["screen": screen ?? "home"])
        return listing(screen)
    }

    /// What a search of the help finds (see ``HelpSearch``), and sends `help_searched` with the
    /// query (folded, at most 100 characters), the number found and the screen: a search that
    /// finds nothing is what the console lists as help people looked for and did not find. Call it
    /// when the user stops typing or submits, not on every key.
    @discardableResult
    public func searchHelp(_ query: String, screen: String?) -> HelpResults {
        let folded = String(HelpSearch.fold(query).prefix(100))
        guard !folded.isEmpty else { return listing(screen) }
        let catalog = self.catalog
        let results = HelpResults(
            articles: (catalog?.articles ?? []).filter { HelpSearch.matches(HelpSearch.text(of: $0), folded) }, forScreen: 0,
            tours: (catalog?.tours ?? []).filter { HelpSearch.matches(HelpSearch.fold($0.pages.first?.content.title ?? $0.id), folded) },
            checklists: (catalog?.checklists ?? []).filter { HelpSearch.matches(HelpSearch.fold($0.content.title), folded) })
        enqueueHelp(
            DeliveredArticle.searchedEvent, target: nil,
            ["query": folded, "screen": screen ?? "home"], results: results.count)
        return results
    }

    /// The user opened an article: sends `article_opened` (target: the article).
    public func articleOpened(_ id: String) {
        enqueueHelp(DeliveredArticle.openedEvent, target: id, ["article": id])
    }

    /// Every article, the screen's first; the tours and checklists of the screen or of every screen.
    private func listing(_ screen: String?) -> HelpResults {
        let articles = catalog?.articles ?? []
        let here = articles.filter { article in screen.map { (article.screens ?? []).contains($0) } ?? false }
        func belongs(_ screens: [String]?) -> Bool { screens.map { screens in screen.map(screens.contains) ?? false } ?? true }
        return HelpResults(
            articles: here + articles.filter { !here.contains($0) }, forScreen: here.count,
            tours: (catalog?.tours ?? []).filter { belongs($0.screens) },
            checklists: (catalog?.checklists ?? []).filter { belongs($0.screens) })
    }

    private func enqueueHelp(_ name: String, target: String?, _ properties: [String: String], results: Int? = nil) {
        var typed = properties.mapValues(ContextValue.string)
        typed["results"] = results.map { .number(Double($0)) }
        enqueue(name, target: target, properties: typed)
    }
}
