import Foundation
import Testing
import WaymarkCatalog

@Suite struct ThemeTests {
    /// WCAG 2's ratios: black on white is 21:1, a colour on itself 1:1, and the standard's grey.
    @Test func contrastIsWCAGs() {
        #expect(abs(Theme.contrast("#000000", "#ffffff") - 21) < 0.001)
        #expect(abs(Theme.contrast("#777777", "#777777") - 1) < 0.001)
        #expect(abs(Theme.contrast("#767676", "#ffffff") - 4.54) < 0.01)
        #expect(Theme.contrast("#777777", "#ffffff") < 4.5)
        #expect(Theme.color("#0B5CAD") == "#0b5cad" && Theme.color("#fa0") == "#ffaa00")
        #expect(Theme.color("red") == nil && Theme.color("#12345") == nil && Theme.color("#ggg") == nil)
        #expect(Theme.isFont("Noto Sans, sans-serif") && !Theme.isFont("नोटो सैन्स"))
        #expect(!Theme.isFont("x;}body{display:none") && !Theme.isFont("'Noto'") && !Theme.isFont("") && !Theme.isFont("123"))
    }

    @Test func aThemeAndATipsOwnReadBackAsThemselves() throws {
        let text = """
            theme:
              surface: "#FFF"
              text: "#1f2933"
              accent: "#0b5cad"
              focus: "#b35c00"
              font: Noto Sans, sans-serif
              radius: 4
              spacing: 16
              dark: { surface: "#1d2a44", text: "#ffffff", accent: "#9cd3ff" }
            tips:
              - id: warm
                container: home
                trigger: activation
                theme: { surface: "#fff4e5", accent: "#8a3b00" }
                content: { title: Hello }
            """
        let catalog = try CatalogDocument.parse(text, file: "test")
        let theme = try #require(catalog.theme)
        #expect(theme.colors == Theme.Colors(surface: "#ffffff", text: "#1f2933", accent: "#0b5cad", focus: "#b35c00"))
        #expect(theme.dark == Theme.Colors(surface: "#1d2a44", text: "#ffffff", accent: "#9cd3ff"))
        #expect(theme.font == "Noto Sans, sans-serif" && theme.radius == 4 && theme.spacing == 16)
        #expect(catalog.tips[0].theme?.colors.accent == "#8a3b00")
        let written = CatalogDocument.yaml(catalog)
        #expect(try CatalogDocument.parse(written, file: "written") == catalog)
        // Over the catalog's, a tip's theme changes only what it names, and a tip given its own
        // colours keeps them in dark mode; one that sets none keeps the catalog's dark mode.
        let merged = try #require(catalog.tips[0].theme).over(theme)
        #expect(merged.colors == Theme.Colors(surface: "#fff4e5", text: "#1f2933", accent: "#8a3b00", focus: "#b35c00"))
        #expect(merged.dark == nil)
        #expect(Theme(radius: 2).over(theme).dark?.surface == "#1d2a44")
    }

    @Test func illegibleOrUnsafeThemesAreRefusedInWords() {
        func problems(_ theme: String, tip: String = "") -> [String] {
            ActionTests.problems("theme: \(theme)\ntips:\n  - { id: t, container: c, trigger: tap, content: { title: T }\(tip) }\n")
        }
        #expect(
            problems(##"{ surface: "#ffffff", text: "#999999" }"##) == [
                "1:8 theme: text #999999 on the surface #ffffff has a contrast of 2.85:1; it needs at least 4.5:1 to be read",
                "1:8 theme: links and buttons (accent) #9cd3ff on the surface #ffffff has a contrast of 1.59:1; it needs at least 4.5:1 to be read",
                "1:8 theme: the focus ring #ffbf47 on the surface #ffffff has a contrast of 1.64:1; it needs at least 3:1 to be read",
            ])
        #expect(
            problems(##"{ dark: { surface: "#000", text: "#111" } }"##).first
                == "1:8 theme: text #111111 on the surface #000000 in dark mode has a contrast of 1.11:1; it needs at least 4.5:1 to be read"
        )
        // A tip's own surface must still carry the catalog's text.
        #expect(
            problems(##"{ text: "#ffffff" }"##, tip: ##", theme: { surface: "#eeeeee" }"##).first?.contains(
                "theme: text #ffffff on the surface #eeeeee has a contrast of") == true)
        #expect(problems(##"{ surface: red }"##).first?.hasPrefix("1:19 surface \"red\" is not a colour") == true)
        #expect(problems(##"{ font: "x;}body{display:none" }"##).first?.contains("is not a font family") == true)
        #expect(problems("{ radius: 40 }").first?.contains("radius is 40 points; it must be from 0 to 24") == true)
        #expect(problems("{ spacing: 2 }").first?.contains("spacing is 2 points; it must be from 4 to 24") == true)
        #expect(problems("{ shadow: 1 }").first?.contains("unknown key \"shadow\"") == true)
        #expect(problems(##"{ surface: "#ffffff", text: "#1f2933", accent: "#0b5cad", focus: "#b35c00" }"##) == [])
    }
}
