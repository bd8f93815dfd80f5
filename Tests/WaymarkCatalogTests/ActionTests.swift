import Foundation
import Testing
import WaymarkCatalog

@Suite struct ActionTests {
    static let catalog = """
        tips:
          - id: order
            container: home
            trigger: screen:orders
            dismissal: tip_action:order
            content: { title: Where is my order?, locales: { hi: { title: मेरा ऑर्डर कहाँ है? } } }
            actions:
              - { id: track, label: Track my order, locales: { hi: ऑर्डर ट्रैक करें }, route: "/orders/track?from=tip" }
              - { id: learn, label: How delivery works, tour: delivery }
              - { id: later, label: Not now, do: dismiss, style: primary }
          - id: step-1
            container: home
            trigger: screen:home
            group: onboarding
            order: 1
            content: { title: Step one }
            actions: [{ id: next, label: Next, do: next }, { id: help, label: Help, url: "https://help.example.com/start" }]
        tours:
          - id: delivery
            pages:
              - id: first
                content: { title: Delivery }
                actions: [{ id: skip, label: Skip, do: dismiss, style: secondary }, { id: on, label: Go on, do: next }]
        """

    static func problems(_ text: String) -> [String] {
        do {
            _ = try CatalogDocument.parse(text, file: "test")
            return []
        } catch { return error.diagnostics.map { "\($0.line):\($0.column) \($0.message)" } }
    }

    @Test func buttonsReadWithWhatTheyDoAndTheirStyle() throws {
        let catalog = try CatalogDocument.parse(Self.catalog, file: "test")
        let order = catalog.tips[0].actions
        #expect(order.map(\.id) == ["track", "learn", "later"])
        #expect(order.map(\.effect) == [.route("/orders/track?from=tip"), .tour("delivery"), .dismiss])
        // The first is the main button unless the author says; the rest are its alternatives.
        #expect(order.map(\.style) == [.primary, .secondary, .primary])
        #expect(order[0].label.resolve("hi-IN").value == "ऑर्डर ट्रैक करें" && order[1].label.resolve("hi").value == "How delivery works")
        #expect(order.map(\.effect.kind) == ["route", "tour", "dismiss"])
        #expect(order.map(\.effect.destination) == ["/orders/track?from=tip", "delivery", nil])
        #expect(catalog.tips[1].actions.map(\.effect) == [.next, .url("https://help.example.com/start")])
        #expect(catalog.tours[0].pages[0].actions.map(\.style) == [.secondary, .secondary])
    }

    @Test func buttonsSurviveTheWrittenForm() throws {
        let catalog = try CatalogDocument.parse(Self.catalog, file: "test")
        let written = CatalogDocument.yaml(catalog)
        #expect(try CatalogDocument.parse(written, file: "written") == catalog)
        #expect(written.contains("style: primary") && written.contains("style: secondary"))
        #expect(try CatalogDocument.parseTip(CatalogDocument.yaml(catalog.tips[0]), file: "tip") == catalog.tips[0])
    }

    @Test func badButtonsAreRefusedWhereTheyAreWritten() {
        func tip(_ actions: String, group: Bool = false) -> String {
            "tips:\n  - id: t\n    container: c\n    trigger: scroll\n" + (group ? "    group: g\n" : "")
                + "    content: { title: T }\n    actions:\n" + actions
        }
        #expect(Self.problems(tip("      - { id: a, label: A, tour: nowhere }\n")) == ["7:34 no tour with the id \"nowhere\""])
        #expect(
            Self.problems(tip("      - { id: a, label: A, do: next }\n"))
                == ["7:32 a tip outside a group has no next step"])
        #expect(Self.problems(tip("      - { id: a, label: A, do: next }\n", group: true)).isEmpty)
        #expect(Self.problems(tip("      - { id: a, label: A, do: jump }\n")) == ["7:32 unknown do \"jump\""])
        #expect(Self.problems(tip("      - { id: a, label: A }\n")) == ["7:9 an action says what it does"])
        #expect(
            Self.problems(tip("      - { id: a, label: A, do: dismiss, url: 'https://x.example' }\n"))
                == ["7:46 an action does one thing"])
        #expect(
            Self.problems(tip("      - { id: a, label: A, route: orders }\n"))
                == ["7:35 a route is a path in the app, such as /orders/track (a web page is url:)"])
        #expect(
            Self.problems(tip("      - { id: a, label: A, route: '/my orders' }\n"))
                == ["7:35 a route has no spaces or control characters"])
        #expect(
            Self.problems(tip("      - { id: a, label: A, url: 'javascript:alert(1)' }\n")) == ["7:33 url must be an http or https URL"])
        #expect(Self.problems(tip("      - { id: a, label: '  ', do: dismiss }\n")) == ["7:25 a button needs a label"])
        #expect(
            Self.problems(tip("      - { id: a, label: \(String(repeating: "x", count: 41)), do: dismiss }\n"))
                == ["7:25 a label is at most 40 characters: this one has 41"])
        #expect(
            Self.problems(tip("      - { id: a, label: A, do: dismiss }\n      - { id: a, label: B, do: dismiss }\n"))
                == ["8:15 a second action with the id \"a\""])
        #expect(
            Self.problems(tip((1...4).map { "      - { id: a\($0), label: A, do: dismiss }\n" }.joined()))
                == ["10:9 a tip or page has at most 3 buttons"])
        #expect(Self.problems(tip("      - { id: a, label: A, do: dismiss, style: loud }\n")) == ["7:48 unknown style \"loud\""])
    }
}

@Suite struct HotspotTests {
    @Test func aHotspotMarksAnElement() throws {
        let tip = "tips: [{ id: h, container: c, trigger: scroll, renderer: hotspot, content: { title: T } }]\n"
        #expect(ActionTests.problems(tip) == ["1:58 a hotspot marks an element: it needs an anchor or a selector"])
        let anchored = try CatalogDocument.parse(tip.replacingOccurrences(of: "renderer:", with: "anchor: cart, renderer:"), file: "t")
        #expect(anchored.tips[0].renderer == .hotspot)
        #expect(try CatalogDocument.parse(CatalogDocument.yaml(anchored), file: "written") == anchored)
    }
}
