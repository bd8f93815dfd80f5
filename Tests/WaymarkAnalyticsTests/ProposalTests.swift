import Foundation
import Testing
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules
import WaymarkStore

/// The tip proposed for each sign: where it shows, the rule written from the sign, the step people
/// missed as its dismissal, and words to finish in English and, when the catalog speaks it, Hindi.
@Suite struct ProposalTests {
    static func problem(_ signal: StruggleSignal, _ screen: String, _ element: String) -> Problem {
        Problem(
            signal: signal, screen: screen, element: element, occurrences: 12, users: 9, visits: 10, earlier: 4, later: 8, locales: [],
            platforms: [], addressedBy: [])
    }

    @Test func eachSignWritesARuleThatReads() throws {
        let catalog = Catalog(locales: ["hi"], tips: [])
        let cases: [(StruggleSignal, String, String, String, String?, String?)] = [
            (.rageTaps, "cart", "checkout", "count(tap:checkout) >= 3 within 3s", "screen:paid", "checkout"),
            (.deadTap, "home", "promo", "tap:promo", "screen:paid", "promo"),
            (.backAndForth, "product", "reviews", "screen:product THEN screen:reviews THEN screen:product within 60s", nil, nil),
            (.uTurn, "reviews", "product", "screen:reviews", nil, nil),
            (.failedSearch, "orders", "help_searched", "help_searched where results == 0", "article_opened", nil),
            (.stopped, "cart", "checkout", "screen:cart", "screen:checkout", nil),
        ]
        for (signal, screen, element, trigger, dismissal, anchor) in cases {
            let proposal = try #require(Self.problem(signal, screen, element).proposal(next: "paid", catalog: catalog), "\(signal)")
            let tip = proposal.tip
            #expect(tip.tip.trigger.description == trigger, "\(signal)")
            #expect(tip.tip.dismissal?.description == dismissal, "\(signal)")
            #expect(tip.tip.anchor == anchor && tip.tip.container == screen, "\(signal)")
            #expect(tip.renderer == (anchor == nil ? .banner : .tooltip))
            #expect(!tip.content.fallback.title.isEmpty && tip.content.locales["hi"] != nil, "\(signal)")
            #expect(tip.id.hasPrefix("lost-") && CatalogDocument.isIdentifier(tip.id))
            #expect(!proposal.reason.isEmpty)
        }
        let idle = try #require(Self.problem(.idle, "product", "").proposal(next: nil, catalog: catalog))
        #expect(idle.tip.tip.trigger.description.hasPrefix("screen:product AND NOT screen within 30s"))
    }

    @Test func theCatalogsIdsAndLocalesAreKept() throws {
        let problem = Self.problem(.stopped, "cart", "checkout")
        let first = try #require(problem.proposal(next: nil, catalog: Catalog(tips: [])))
        #expect(first.tip.id == "lost-stopped-cart-checkout" && first.tip.content.locales.isEmpty, "no Hindi for a catalog without it")
        let taken = Catalog(tips: [first.tip])
        #expect(problem.proposal(next: nil, catalog: taken)?.tip.id == "lost-stopped-cart-checkout-2")
        // A name no rule can hold: no proposal.
        #expect(Self.problem(.rageTaps, "cart", "pay now").proposal(next: nil, catalog: taken) == nil)
        #expect(Self.problem(.uTurn, "my cart", "").proposal(next: nil, catalog: taken) == nil)
        // A proposal is a tip the catalog takes whole.
        var catalog = taken
        catalog.tips.append(try #require(problem.proposal(next: nil, catalog: taken)).tip)
        let document = CatalogDocument.yaml(catalog)
        #expect(try CatalogDocument.parse(document, file: "draft").tips.count == 2)
    }
}
