import Foundation
import Testing
import WaymarkAPI
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules

@testable import WaymarkDelivery

@Suite struct ResolverTests {
    static func catalog(_ text: String) throws -> Catalog { try CatalogDocument.parse(text, file: "test") }

    @Test func localesFallBackAlongTheChain() {
        let content = Localized(
            Content(title: "Default", html: ""),
            locales: ["hi": Content(title: "Hindi", html: ""), "pt-BR": Content(title: "Brazil", html: "")])
        #expect(content.resolve("hi-IN").value.title == "Hindi")
        #expect(content.resolve("HI").value.title == "Hindi")
        #expect(content.resolve("pt_BR").value.title == "Brazil")
        #expect(content.resolve("pt").value.title == "Default")
        #expect(content.resolve(nil).locale == "default")
    }

    @Test func mediaIsChosenByModelThenFamilyThenVersionThenLocale() {
        let media = Media(
            id: "m",
            variants: [
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
        let catalog = try Self.catalog(
            """
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
        let catalog = try Self.catalog(
            """
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
        for rule in ["tap:search", "user.plan.tier == \"pro\"", "account.plan == \"pro\""] {
            let text = "tips:\n  - { id: t, container: c, trigger: scroll, targeting: '\(rule)', content: { title: T } }\n"
            #expect(throws: DiagnosticsError.self) { try CatalogDocument.parse(text, file: "test") }
        }
    }

    @Test func targetingReadsTheUsersAttributes() throws {
        let catalog = try Self.catalog(
            """
            tips:
              - { id: cod, container: c, trigger: scroll, targeting: 'user.codUser == true AND user.firstOrderAt < 2026-01-01', content: { title: T } }
              - { id: all, container: d, trigger: scroll, targeting: 'user.id != "x"', content: { title: T } }
            """)
        let resolver = Resolver(catalog: catalog, version: 1)
        #expect(resolver.readsAttributes)
        #expect(
            !Resolver(
                catalog: try Self.catalog(
                    "tips: [{ id: a, container: c, trigger: scroll, targeting: 'user.id == \"u\"', content: { title: T } }]"), version: 1
            ).readsAttributes, "user.id is no attribute")
        let buyer = ClientContext(user: "u1", attributes: ["codUser": true, "firstOrderAt": .time(milliseconds: 0)])
        #expect(resolver.resolve(for: buyer).tips.map(\.id) == ["cod", "all"])
        #expect(resolver.resolveDirectly(for: buyer) == resolver.resolve(for: buyer))
        var later = buyer
        later.attributes["firstOrderAt"] = .time(milliseconds: RuleTime.parse("2026-01-01")!)
        #expect(resolver.resolve(for: later).tips.map(\.id) == ["all"])
        #expect(resolver.decide(for: later).etag != resolver.decide(for: buyer).etag)
        // An attribute cannot pose as the user's id or locale.
        let posing = ClientContext(user: "x", attributes: ["id": "y", "codUser": true])
        #expect(resolver.resolve(for: posing).tips.isEmpty)
    }

    static let segmented = """
        segments:
          - name: cod-users
            summary: Pays cash on delivery
            rule: user.codUser == true AND user.cityTier >= 2
          - name: big-spenders
            rule: count(purchase where amount >= 10000) >= 1 within 30d
        tips:
          - { id: cod, container: c, trigger: scroll, targeting: 'segment:cod-users', content: { title: T } }
          - { id: big, container: d, trigger: scroll, targeting: 'segment:big-spenders AND NOT segment:cod-users', content: { title: T } }
          - { id: all, container: e, trigger: scroll, content: { title: T } }
        """

    @Test func targetingNamesSegmentsTheServerDecides() throws {
        let catalog = try Self.catalog(Self.segmented)
        #expect(catalog.segments.map(\.name) == ["cod-users", "big-spenders"])
        #expect(catalog.segments.map(\.readsHistory) == [false, true])
        let resolver = Resolver(catalog: catalog, version: 1)
        #expect(resolver.readsSegments && resolver.readsSegmentMembers && resolver.readsAttributes)
        var cod = ClientContext(user: "u1", attributes: ["codUser": true, "cityTier": 2])
        // Attributes alone decide cod-users; big-spenders is whatever the refresher found.
        cod.segments = resolver.segments(for: cod, members: ["big-spenders"])
        #expect(cod.segments == ["cod-users", "big-spenders"])
        #expect(resolver.resolve(for: cod).tips.map(\.id) == ["cod", "all"])
        #expect(resolver.resolveDirectly(for: cod) == resolver.resolve(for: cod))
        var spender = ClientContext(user: "u2", attributes: ["codUser": false])
        spender.segments = resolver.segments(for: spender, members: ["big-spenders", "gone"])
        #expect(spender.segments == ["big-spenders"], "a member list naming a segment targeting does not name adds nothing")
        #expect(resolver.resolve(for: spender).tips.map(\.id) == ["big", "all"])
        #expect(resolver.decide(for: spender).etag != resolver.decide(for: cod).etag)
        // Without a proven user, no segment holds.
        #expect(resolver.resolve(for: ClientContext(user: "u3")).tips.map(\.id) == ["all"])
        let plain = Resolver(
            catalog: try Self.catalog("tips: [{ id: a, container: c, trigger: scroll, content: { title: T } }]"), version: 1)
        #expect(!plain.readsSegments && !plain.readsSegmentMembers)
    }

    @Test func segmentsAreCheckedWhereTheyAreWritten() throws {
        func problems(_ text: String) -> [String] {
            do {
                _ = try CatalogDocument.parse(text, file: "test")
                return []
            } catch { return error.diagnostics.map(\.message) }
        }
        let tip = "tips: [{ id: t, container: c, trigger: scroll, targeting: 'segment:nobody', content: { title: T } }]\n"
        #expect(problems(tip) == ["no segment named \"nobody\""])
        #expect(problems("segments:\n  - { name: a, rule: 'app.version >= v1' }\n" + tip).first?.contains("not app.version") == true)
        #expect(
            problems("segments:\n  - { name: a, rule: 'count(buy) >= 1 within 91d' }\ntips: []\n")
                == ["a segment's history reaches back 90 days: within 91d is longer"])
        #expect(problems("segments:\n  - { name: a, rule: 'segment:b' }\ntips: []\n") == ["a segment cannot include another segment"])
        #expect(problems("segments:\n  - { name: 'a b', rule: 'true' }\ntips: []\n").first?.hasPrefix("name \"a b\" must be") == true)
        #expect(
            problems("segments:\n  - { name: a, rule: 'true' }\n  - { name: a, rule: 'false' }\ntips: []\n")
                == ["a second segment named \"a\""])
        #expect(
            problems(
                "segments: [{ name: a, rule: 'true' }]\ntips: [{ id: t, container: c, trigger: scroll, targeting: 'segment:a where x == 1', content: { title: T } }]\n"
            )
                == ["segment:<name> takes no where: its rule is the segment's"])
        // The whole rule is the segment's: a window or a count of segment is an event, refused in targeting.
        #expect(
            problems(
                "segments: [{ name: a, rule: 'true' }]\ntips: [{ id: t, container: c, trigger: scroll, targeting: 'segment:a within 1d', content: { title: T } }]\n"
            )
            .first?.hasPrefix("targeting reads the client context") == true)
        #expect(
            Segment.isName("cod-users_2") && !Segment.isName("a.b") && !Segment.isName("")
                && !Segment.isName(String(repeating: "a", count: 65)))
    }

    @Test func segmentsSurviveTheWrittenForm() throws {
        let catalog = try Self.catalog(Self.segmented)
        let written = CatalogDocument.yaml(catalog)
        #expect(try CatalogDocument.parse(written, file: "written") == catalog)
        #expect(
            CatalogChange.changes(from: Catalog(tips: catalog.tips), to: catalog).map { "\($0.kind) \($0.id)" }.prefix(2)
                == ["segment cod-users", "segment big-spenders"])
    }

    @Test func buttonsSpeakTheLanguageOfTheirContent() throws {
        let catalog = try Self.catalog(
            """
            tips:
              - id: t
                container: c
                trigger: scroll
                content: { title: Order, locales: { hi: { title: ऑर्डर } } }
                variants:
                  - { id: plain, content: { title: Plain } }
                actions:
                  - { id: track, label: Track, locales: { hi: ट्रैक करें, ta: கண்காணி }, route: /orders/track }
                  - { id: later, label: Later, do: dismiss }
            """)
        let resolver = Resolver(catalog: catalog, version: 1)
        for (locale, labels) in [("hi-IN", ["ट्रैक करें", "Later"]), ("ta", ["Track", "Later"]), (nil, ["Track", "Later"])] {
            for user in ["a", "b", "c", "d"] {
                let client = ClientContext(locale: locale, user: user)
                let tip = try #require(resolver.resolve(for: client).tips.first)
                // The plain variant has no Hindi: its button stays in English beside its English text.
                let expected = tip.content.locale == "default" ? ["Track", "Later"] : labels
                #expect(tip.actions?.map(\.label) == expected, "\(client)")
                #expect(tip.actions?.map(\.style) == ["primary", "secondary"])
                #expect(tip.actions?.first?.kind == "route" && tip.actions?.first?.to == "/orders/track")
                #expect(resolver.resolveDirectly(for: client) == resolver.resolve(for: client))
            }
        }
    }

    @Test func anAnchorMayNameOneItemAmongMany() throws {
        for anchor in ["search", "product[sku-42]", "product:visible", "product:3"] {
            let catalog = try Self.catalog("tips: [{ id: t, container: c, anchor: '\(anchor)', trigger: scroll, content: { title: T } }]")
            #expect(Resolver(catalog: catalog, version: 1).resolve(for: ClientContext()).tips[0].anchor == anchor)
        }
        for anchor in ["product[]", "product:0", "product:first", "search button"] {
            let text = "tips:\n  - id: t\n    container: c\n    anchor: '\(anchor)'\n    trigger: scroll\n    content: { title: T }\n"
            let error = #expect(throws: DiagnosticsError.self) { try CatalogDocument.parse(text, file: "test") }
            let diagnostic = error?.diagnostics.first
            #expect(diagnostic?.message == "anchor \"\(anchor)\" names no element", "\(anchor)")
            #expect(diagnostic?.line == 4 && diagnostic?.column == 13 && diagnostic?.expected == Anchor.expectedForm, "\(anchor)")
        }
    }

    @Test func contentIsSanitized() throws {
        let catalog = try Self.catalog(
            #"tips: [{ id: t, container: c, trigger: scroll, content: { title: T, body: "**Tap** <script>alert(1)</script> & <img src=x onerror=alert(1)>" } }]"#
        )
        let html = Resolver(catalog: catalog, version: 1).resolve(for: ClientContext()).tips[0].content.html
        #expect(html == "<p><strong>Tap</strong> &lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(1)&gt;</p>")
        let markup = try Self.catalog(
            #"tips: [{ id: t, container: c, trigger: scroll, content: { title: T, html: "<b>Tap</b><script>alert(1)</script><img src=x onerror=alert(1)>" } }]"#
        )
        #expect(Resolver(catalog: markup, version: 1).resolve(for: ClientContext()).tips[0].content.html == "<b>Tap</b>")
    }
}

/// The compiled resolver (rendered in advance, decided over integers) against the direct one,
/// the specification, on catalogs with every feature and on many clients.
@Suite struct CompiledResolverTests {
    static let shop = try! CatalogDocument.load(
        path: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("examples/shop.yaml").path
    )

    /// Tips with and without targeting, rollouts, weighted variants and locales (some spelled in
    /// capitals); tours with targeting, screens and media per model, version and locale.
    static let mixed = try! CatalogDocument.parse(
        """
        frequency: daily
        theme: { surface: "#ffffff", text: "#1f2933", accent: "#0b5cad", focus: "#b35c00", radius: 4, dark: { surface: "#1d2a44", text: "#ffffff", accent: "#9cd3ff", focus: "#ffbf47" } }
        tips:
        \((0..<40).map { index in """
          - id: t\(index)
            container: c\(index % 4)
            trigger: tap:b\(index)
            priority: \(index % 3)
            renderer: \(["tooltip", "banner", "modal"][index % 3])
        \(index % 3 == 0 ? "    targeting: device.platform in [\"ios\", \"android\"] AND app.version >= v1.3\n" : "")\
        \(index % 4 == 1 ? "    rollout: \(index * 2 % 100)\n" : "")\
        \(index % 7 == 0 ? "    theme: { surface: \"#fff4e5\", accent: \"#8a3b00\", spacing: 16 }\n" : "")\
            content:
              title: Tip \(index)
              body: Body \(index)
              locales:
                \(index % 2 == 0 ? "hi" : "HI"): { title: हिंदी \(index), body: पाठ }
                pt-BR: { title: Brasil \(index), body: Texto }
        \(index % 6 == 0 ? "    actions: [{ id: go, label: Go, locales: { hi: चलें, ta: போ }, route: /r\(index) }, { id: no, label: No, do: dismiss }]\n" : "")\
        \(index % 5 == 0 ? """
            variants:
              - { id: a, weight: 1, content: { title: A\(index), body: a, locales: { ta: { title: TA\(index), body: t } } } }
              - { id: b, weight: 3, content: { title: B\(index), body: b } }

        """ : "")
        """ }.joined(separator: "\n"))
        tours:
          - id: everyone
            trigger: tap:start
            screens: [checkout, cart]
            pages:
              - { id: p1, content: { title: One, body: First, locales: { hi: { title: एक, body: पहला } } }, media: video }
              - { id: p2, content: { title: Two, body: Second }, reward: 3, actions: [{ id: done, label: Done, locales: { hi: हो गया }, do: next }] }
          - id: phones
            targeting: device.platform == "ios"
            rollout: 50
            screens: [home]
            pages:
              - { id: q1, content: { title: Q, body: Q }, media: video }
        checklists:
          - id: everyone-steps
            content: { title: Steps, locales: { hi: { title: कदम }, pt-BR: { title: Passos } } }
            reward: 5
            items:
              - { id: a, content: { title: A, locales: { hi: { title: ए } } }, done: tap:a, tour: everyone }
              - { id: b, content: { title: B }, done: screen:b, tip: t1 }
          - id: android-steps
            targeting: device.platform == "android"
            rollout: 50
            screens: [home]
            content: { title: Android }
            items: [{ id: c, content: { title: C }, done: tap:c }]
        articles:
          - { id: help-a, content: { title: Help, locales: { hi: { title: मदद }, ta: { title: உதவி } } }, screens: [c0], keywords: [x] }
          - { id: help-ios, targeting: 'device.platform == "ios"', content: { title: iOS help } }
        media:
          - id: video
            variants:
              - { url: "https://m.example.com/exact.mp4", model: "iPhone15,2" }
              - { url: "https://m.example.com/ipad.mp4", family: iPad }
              - { url: "https://m.example.com/hi.mp4", locale: hi, minAppVersion: "1.3" }
              - { url: "https://m.example.com/any.mp4" }
        """,
        file: "mixed"
    )

    static let clients: [ClientContext] = {
        var clients: [ClientContext] = [ClientContext()]
        let platforms: [String?] = ["ios", "android", "web", nil]
        let models: [String?] = ["iPhone15,2", "iPad13,1", "Pixel 8", nil]
        let versions: [String?] = ["1.2", "1.3", "2.0", "x", nil]
        let locales: [String?] = ["hi-IN", "HI", "pt_BR", "ta", "en", nil]
        for index in 0..<600 {
            clients.append(
                ClientContext(
                    platform: platforms[index % 4], model: models[index / 4 % 4], appVersion: versions[index % 5],
                    locale: locales[index % 6], user: index % 7 == 0 ? nil : "user-\(index)"
                )
            )
        }
        return clients
    }()

    /// The catalog's theme reaches every client whole (Waymark's look where it is silent), and a
    /// tip's own theme comes with the tip, over the catalog's.
    @Test func themesAreDeliveredWhole() throws {
        let catalog = Resolver(catalog: Self.mixed, version: 1).resolve(for: ClientContext(platform: "ios", appVersion: "2.0", user: "u"))
        let theme = try #require(catalog.theme)
        #expect(theme.colors == DeliveredTheme.Colors(surface: "#ffffff", text: "#1f2933", accent: "#0b5cad", focus: "#b35c00"))
        #expect(theme.dark == DeliveredTheme.Colors(surface: "#1d2a44", text: "#ffffff", accent: "#9cd3ff", focus: "#ffbf47"))
        #expect(theme.font == "system-ui, sans-serif" && theme.radius == 4 && theme.spacing == 12)
        let own = try #require(catalog.tips.first { $0.id == "t0" }?.theme)
        #expect(own.colors.surface == "#fff4e5" && own.colors.text == "#1f2933" && own.spacing == 16 && own.radius == 4 && own.dark == nil)
        #expect(catalog.tips.first { $0.id == "t1" }?.theme == nil)
    }

    @Test(arguments: ["shop", "mixed"])
    func decidesExactlyAsTheDirectResolver(_ name: String) throws {
        let resolver = Resolver(catalog: name == "shop" ? Self.shop : Self.mixed, version: 7)
        var bodies: [String: [UInt8]] = [:]
        for client in Self.clients {
            let expected = resolver.resolveDirectly(for: client)
            let resolution = resolver.decide(for: client)
            #expect(resolver.resolve(for: client) == expected, "\(client)")
            let json = resolver.json(resolution)
            #expect(resolver.jsonByteCount(resolution) == json.count)
            #expect(try JSONDecoder().decode(DeliveredCatalog.self, from: Data(json)) == expected, "\(client)")
            // One ETag, one body.
            if let earlier = bodies[resolution.etag] { #expect(earlier == json) }
            bodies[resolution.etag] = json
        }
        let distinct = Set(Self.clients.map { resolver.json(resolver.decide(for: $0)) })
        #expect(distinct.count == bodies.count, "different bodies have different ETags")
        #expect(distinct.count > 10)
    }

    @Test func anotherCatalogWithTheSameChoicesHasAnotherETag() throws {
        var changed = Self.shop
        changed.tips[0].content.fallback.title += "!"
        let client = ClientContext(platform: "ios", appVersion: "1.4", user: "u1")
        #expect(
            Resolver(catalog: Self.shop, version: 1).decide(for: client).etag
                != Resolver(catalog: changed, version: 1).decide(for: client).etag)
        #expect(
            Resolver(catalog: Self.shop, version: 1).decide(for: client).etag
                == Resolver(catalog: Self.shop, version: 1).decide(for: client).etag)
        // The listener's mode by default for Hindi is part of what a client has.
        var silent = Self.shop
        silent.listen = []
        #expect(Self.shop.listen == ["hi"])
        #expect(
            Resolver(catalog: Self.shop, version: 1).decide(for: client).etag
                != Resolver(catalog: silent, version: 1).decide(for: client).etag)
        #expect(Resolver(catalog: silent, version: 1).resolve(for: client).listen == nil)
    }
}
