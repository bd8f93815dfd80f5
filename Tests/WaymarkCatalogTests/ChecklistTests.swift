import Foundation
import Testing
import WaymarkCatalog
import WaymarkRules

@Suite struct ChecklistTests {
    static let catalog = """
        tips:
          - { id: address-tip, container: c, trigger: screen:address, content: { title: Save it } }
        tours:
          - { id: welcome, screens: [home, product], pages: [{ id: p1, content: { title: One } }] }
        checklists:
          - id: first-steps
            content: { title: Get started, body: Four steps, locales: { hi: { title: शुरू करें } } }
            trigger: activation
            targeting: device.platform == "android"
            rollout: 50
            screens: [home]
            reward: 10
            items:
              - { id: browse, content: { title: Look at a product, locales: { hi: { title: कोई उत्पाद देखें } } }, done: screen:product, tour: welcome }
              - { id: address, content: { title: Save an address }, done: screen:address-saved, tip: address-tip }
              - { id: order, content: { title: Place an order }, done: count(purchase) >= 1 }
        """

    @Test func aChecklistReadsWithItsItemsAndSurvivesTheWrittenForm() throws {
        let catalog = try CatalogDocument.parse(Self.catalog, file: "test")
        let checklist = try #require(catalog.checklists.first)
        #expect(checklist.items.map(\.id) == ["browse", "address", "order"])
        #expect(checklist.items.map(\.start) == [.tour("welcome"), .tip("address-tip"), nil])
        #expect(checklist.items[2].done.description == "count(purchase) >= 1")
        #expect(checklist.reward == 10 && checklist.trigger?.description == "activation" && checklist.targeting.rollout == 50)
        #expect(checklist.screens == ["home"] && catalog.tours.first?.screens == ["home", "product"])
        let written = CatalogDocument.yaml(catalog)
        #expect(try CatalogDocument.parse(written, file: "written") == catalog)
        #expect(try CatalogDocument.parseChecklist(CatalogDocument.yaml(checklist), file: "one") == checklist)
    }

    @Test func badChecklistsAreRefusedWhereTheyAreWritten() {
        func problems(_ items: String, extra: String = "") -> [String] {
            ActionTests.problems("tips: []\nchecklists:\n  - id: c\n    content: { title: C }\n\(extra)    items:\n" + items)
        }
        #expect(
            problems("      - { id: a, content: { title: A }, done: tap:a, tour: nowhere }\n") == ["6:60 no tour with the id \"nowhere\""])
        #expect(
            problems("      - { id: a, content: { title: A }, done: tap:a, tip: nothing }\n") == ["6:59 no tip with the id \"nothing\""])
        #expect(problems("      - { id: a, content: { title: A } }\n") == ["6:9 done is missing"])
        #expect(problems("      - { id: a, content: { title: A }, done: 'tap:(' }\n").first?.hasPrefix("6:") == true)
        #expect(
            problems("      - { id: a, content: { title: A }, done: tap:a }\n      - { id: a, content: { title: B }, done: tap:b }\n")
                == ["7:15 a second item with the id \"a\""])
        #expect(
            problems((1...13).map { "      - { id: i\($0), content: { title: I }, done: tap:x }\n" }.joined())
                == ["18:9 a checklist has at most 12 items"])
        #expect(problems("      []\n").map { $0.hasSuffix(" a checklist needs at least one item") } == [true])
        #expect(
            problems("      - { id: a, content: { title: A }, done: tap:a }\n", extra: "    reward: 0\n")
                == ["5:13 reward must be from 1 to 1000000 credits"])
        #expect(
            problems("      - { id: a, content: { title: A }, done: tap:a }\n", extra: "    screens: [home, 'my orders']\n")
                == ["5:21 \"my orders\" is not a screen's name (letters, digits, _ and -)"])
        #expect(
            ActionTests.problems("tips: []\ntours:\n  - { id: t, screens: home, pages: [{ id: p, content: { title: P } }] }\n")
                == ["3:23 screens must be a list"])
    }
}

@Suite struct ArticleTests {
    @Test func anArticleReadsWithItsScreensAndKeywordsAndSurvivesTheWrittenForm() throws {
        let text = """
            tips: []
            articles:
              - id: delivery
                content: { title: When will it arrive?, body: In 3 days., locales: { hi: { title: कब आएगा? } } }
                screens: [cart, checkout]
                keywords: [delivery, डिलीवरी]
                rollout: 50
            """
        let catalog = try CatalogDocument.parse(text, file: "test")
        let article = try #require(catalog.articles.first)
        #expect(article.screens == ["cart", "checkout"] && article.keywords == ["delivery", "डिलीवरी"] && article.targeting.rollout == 50)
        #expect(try CatalogDocument.parse(CatalogDocument.yaml(catalog), file: "written") == catalog)
        #expect(try CatalogDocument.parseArticle(CatalogDocument.yaml(article), file: "one") == article)
        func problems(_ extra: String) -> [String] {
            ActionTests.problems("tips: []\narticles:\n  - id: a\n    content: { title: A }\n" + extra)
        }
        #expect(problems("    screens: [my cart]\n") == ["5:15 \"my cart\" is not a screen's name (letters, digits, _ and -)"])
        #expect(problems("    keywords: ['']\n") == ["5:16 a keyword is 1 to 64 bytes of text"])
        #expect(
            problems("    keywords: [\((1...21).map { "k\($0)" }.joined(separator: ", "))]\n")
                == ["5:15 an article has at most 20 keywords"])
    }
}
