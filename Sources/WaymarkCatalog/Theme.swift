import Foundation

/// How an app's guidance looks: the colours of a tip's surface, its text, its links and buttons
/// (accent) and the focus ring, for a phone in light mode and (optionally) dark mode; the font
/// family, the corner radius and the spacing inside a tip. A catalog's `theme:` applies to
/// everything the SDKs draw; a tip's own `theme:` changes what it names for that tip only. What
/// a theme leaves out keeps Waymark's look.
///
/// ```yaml
/// theme:
///   surface: "#ffffff"
///   text: "#1f2933"
///   accent: "#0b5cad"
///   focus: "#b35c00"
///   font: Noto Sans
///   radius: 12
///   spacing: 14
///   dark: { surface: "#1d2a44", text: "#ffffff", accent: "#9cd3ff", focus: "#ffbf47" }
/// ```
///
/// Text and accent must stand out from the surface at a contrast of at least 4.5:1 (WCAG's AA
/// for text), and the focus ring at 3:1 (for what is not text), in each mode.
public struct Theme: Hashable, Sendable {
    /// The four colours of one mode, each `#rrggbb` (lowercase) or nil for Waymark's.
    public struct Colors: Hashable, Sendable {
        public var surface: String?
        public var text: String?
        public var accent: String?
        public var focus: String?

        public init(surface: String? = nil, text: String? = nil, accent: String? = nil, focus: String? = nil) {
            self.surface = surface
            self.text = text
            self.accent = accent
            self.focus = focus
        }

        /// Each colour of `self`, else of `base`.
        public func over(_ base: Colors) -> Colors {
            Colors(surface: surface ?? base.surface, text: text ?? base.text, accent: accent ?? base.accent, focus: focus ?? base.focus)
        }

        var isEmpty: Bool { surface == nil && text == nil && accent == nil && focus == nil }
    }

    /// The colours in light mode (and in dark mode unless ``dark`` says otherwise).
    public var colors: Colors
    /// The colours when the phone is in dark mode; nil: the same as in light mode.
    public var dark: Colors?
    /// A font family (`Noto Sans`), or a list of them, as CSS names them.
    public var font: String?
    /// The corner radius, in points.
    public var radius: Int?
    /// The space inside a tip, in points.
    public var spacing: Int?

    public init(colors: Colors = Colors(), dark: Colors? = nil, font: String? = nil, radius: Int? = nil, spacing: Int? = nil) {
        self.colors = colors
        self.dark = dark
        self.font = font
        self.radius = radius
        self.spacing = spacing
    }

    /// Waymark's own look: a dark blue surface, white text, light blue links, an amber focus ring.
    public static let waymark = Theme(
        colors: Colors(surface: "#1d2a44", text: "#ffffff", accent: "#9cd3ff", focus: "#ffbf47"), font: "system-ui, sans-serif",
        radius: 10, spacing: 12)

    /// The radii and spacings a theme may have.
    public static let radii = 0...24
    public static let spacings = 4...24

    /// What `self` sets, else what `base` does. Colours set without dark ones hold in both modes:
    /// a tip given its own look keeps it when the phone is in dark mode.
    public func over(_ base: Theme) -> Theme {
        let light = colors.over(base.colors)
        let dark: Colors? =
            if let own = self.dark { own.over(base.dark ?? base.colors) } else if colors.isEmpty { base.dark } else { nil }
        return Theme(
            colors: light, dark: dark == light ? nil : dark, font: font ?? base.font, radius: radius ?? base.radius,
            spacing: spacing ?? base.spacing)
    }

    /// `#rgb` or `#rrggbb` (any case) as `#rrggbb` in lowercase; nil for anything else.
    public static func color(_ text: String) -> String? {
        let hex = text.lowercased()
        guard hex.first == "#", hex.dropFirst().allSatisfy(\.isHexDigit) else { return nil }
        switch hex.count {
        case 7: return hex
        case 4: return "#" + hex.dropFirst().map { "\($0)\($0)" }.joined()
        default: return nil
        }
    }

    /// Whether a font family list is safe to hand to CSS and to apps: ASCII letters, digits,
    /// spaces, hyphens and commas, 1 to 100 characters, with a letter.
    public static func isFont(_ text: String) -> Bool {
        (1...100).contains(text.utf8.count) && text.contains(where: \.isLetter)
            && text.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || " ,-".unicodeScalars.contains($0)
            }
    }

    /// The contrast ratio of two `#rrggbb` colours (WCAG 2): 1 to 21.
    public static func contrast(_ first: String, _ second: String) -> Double {
        func luminance(_ hex: String) -> Double {
            let digits = Array(hex.dropFirst())
            let channels = stride(from: 0, to: 6, by: 2).map { index -> Double in
                let value = Double(Int(String(digits[index..<index + 2]), radix: 16) ?? 0) / 255
                return value <= 0.04045 ? value / 12.92 : pow((value + 0.055) / 1.055, 2.4)
            }
            return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
        }
        let (a, b) = (luminance(first), luminance(second))
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    /// Each pair of the theme, as Waymark's look completes it, that stands out too little, in
    /// words for the author: text and accent against the surface under 4.5:1, the focus ring
    /// under 3:1, in light and in dark mode.
    public var contrastProblems: [String] {
        let whole = over(.waymark)
        var problems: [String] = []
        for (mode, colors) in [("", whole.colors)] + (whole.dark.map { [(" in dark mode", $0)] } ?? []) {
            guard let surface = colors.surface else { continue }
            for (name, color, least) in [("text", colors.text, 4.5), ("accent", colors.accent, 4.5), ("focus", colors.focus, 3.0)] {
                guard let color else { continue }
                let ratio = Self.contrast(color, surface)
                if ratio < least {
                    let what = name == "focus" ? "the focus ring" : name == "text" ? "text" : "links and buttons (accent)"
                    problems.append(
                        "\(what) \(color) on the surface \(surface)\(mode) has a contrast of \(String(format: "%.2f", ratio)):1; "
                            + "it needs at least \(least == 3 ? "3" : "4.5"):1 to be read")
                }
            }
        }
        return problems
    }
}
