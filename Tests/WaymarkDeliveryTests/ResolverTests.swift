import Testing
import WaymarkAPI
import WaymarkCatalog
import WaymarkRules
@testable import WaymarkDelivery

@Suite struct ResolverTests {
    static func catalog(_ text: String) throws -> Catalog { try CatalogDocument.parse(text, file: "test") }

    @Test func localesFallBackAlongTheChain() {
        let content = Localized(Content(title: "Default", html: ""), locales: ["hi": Content(title: "Hindi", html: ""), "pt-BR": Content(title: "Brazil", html: "")])
        #expect(content.resolve("hi-IN").value.title == "Hindi")
        #expect(content.resolve("HI").value.title == "Hindi")
        #expect(content.resolve("pt_BR").value.title == "Brazil")
        #expect(content.resolve("pt").value.title == "Default")
        #expect(content.resolve(nil).locale == "default")
    }

    @Test func mediaIsChosenByModelThenFamilyThenVersionThenLocale() {
        let media = Media(id: "m", variants: [
            MediaVariant(url: "https://x/exact", model: "iPhone15,2"),
            MediaVariant(url: "https://x/ipad", family: "iPad"),
            MediaVariant(url: "https://x/any-old"),
            MediaVariant(url: "https://x/any-1.2", minAppVersion: Version([1, 2])),
            MediaVariant(url: "https://x/any-1.2-hi", minAppVersion: Version([1, 2]), locale: "hi"),
            MediaVariant(url: "https://x/any-2.0", minAppVersion: Version([2, 0])),
        ])
        func pick(_ model: String?, _ version: String?, _ locale: String? = nil) -> String? {
            Resolver.choose(media, for: ClientContext(model: model, appVersion: version, locale: locale))?.url
        }
        #expect(pick("iPhone15,2", "1.0") == "https://x/exact")
        #expect(pick("iPad13,1", "1.0") == "https://x/ipad")
        #expect(pick("Pixel 8", "1.0") == "https://x/any-old")
        #expect(pick("Pixel 8", "1.10") == "https://x/any-1.2")
        #expect(pick("Pixel 8", "1.10", "hi-IN") == "https://x/any-1.2-hi")
        #expect(pick("Pixel 8", "2.0.1") == "https://x/any-2.0")
        #expect(pick(nil, nil) == "https://x/any-old")
    }

    @Test func rolloutIsStickyAndProportional() throws {
        let catalog = try Self.catalog("tips:\n  - { id: t, container: c, trigger: scroll, rollout: 30, content: { title: T } }\n")
        let resolver = Resolver(catalog: catalog, version: 1)
        let users = (0..<4000).map { "user-\($0)" }
        let included = users.filter { !resolver.resolve(for: ClientContext(user: $0)).tips.isEmpty }
        #expect(abs(Double(included.count) / 4000 - 0.30) < 0.03)
        #expect(included == users.filter { !resolver.resolve(for: ClientContext(user: $0)).tips.isEmpty })
        #expect(resolver.resolve(for: ClientContext()).tips.isEmpty)
    }

    @Test func variantsAreStableAndWeighted() throws {
        let catalog = try Self.catalog("""
            tips:
              - id: t
                container: c
                trigger: scroll
                content: { title: Base }
                variants:
                  - { id: a, weight: 3, content: { title: A } }
                  - { id: b, weight: 1, content: { title: B } }
            """)
        let resolver = Resolver(catalog: catalog, version: 1)
        let assigned = (0..<4000).map { resolver.resolve(for: ClientContext(user: "u\($0)")).tips[0] }
        #expect(assigned.allSatisfy { ($0.variant == "a") == ($0.content.title == "A") })
        let shareA = Double(assigned.filter { $0.variant == "a" }.count) / 4000
        #expect(abs(shareA - 0.75) < 0.03)
        #expect(resolver.resolve(for: ClientContext(user: "u7")).tips[0].variant == assigned[7].variant)
    }

    @Test func targetingReadsTheClientContext() throws {
        let catalog = try Self.catalog("""
            tips:
              - id: t
                container: c
                trigger: scroll
                targeting: device.platform in ["ios", "android"] AND app.version >= v1.3
                content: { title: T }
            """)
        let resolver = Resolver(catalog: catalog, version: 1)
        #expect(resolver.resolve(for: ClientContext(platform: "ios", appVersion: "1.10")).tips.count == 1)
        #expect(resolver.resolve(for: ClientContext(platform: "ios", appVersion: "1.2.9")).tips.isEmpty)
        #expect(resolver.resolve(for: ClientContext(platform: "web", appVersion: "2.0")).tips.isEmpty)
        #expect(resolver.resolve(for: ClientContext()).tips.isEmpty)
    }

    @Test func targetingMayNotReadEventsOrUnknownPaths() {
        for rule in ["tap:search", "user.plan == \"pro\""] {
            let text = "tips:\n  - { id: t, container: c, trigger: scroll, targeting: '\(rule)', content: { title: T } }\n"
            #expect(throws: DiagnosticsError.self) { try CatalogDocument.parse(text, file: "test") }
        }
    }

    @Test func contentIsSanitized() throws {
        let catalog = try Self.catalog(#"tips: [{ id: t, container: c, trigger: scroll, content: { title: T, body: "**Tap** <script>alert(1)</script> & <img src=x onerror=alert(1)>" } }]"#)
        let html = Resolver(catalog: catalog, version: 1).resolve(for: ClientContext()).tips[0].content.html
        #expect(html == "<p><strong>Tap</strong> &lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;</p>")
        let markup = try Self.catalog(#"tips: [{ id: t, container: c, trigger: scroll, content: { title: T, html: "<b>Tap</b><script>alert(1)</script><img src=x onerror=alert(1)>" } }]"#)
        #expect(Resolver(catalog: markup, version: 1).resolve(for: ClientContext()).tips[0].content.html == "<b>Tap</b>")
    }
}
