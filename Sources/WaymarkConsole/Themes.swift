import Foundation
import Hummingbird
import WaymarkCatalog
import WaymarkServer
import WaymarkStore

/// The app's look: the theme every tip, tour and panel is drawn with, authored with a live
/// sample and refused, in words, where text would not stand out from its surface.
extension WaymarkConsole {
    /// The theme's fields, by form name, and what each sets.
    static let themeColorFields = ["surface", "text", "accent", "focus"]

    /// `GET /console/apps/:app/theme`.
    func themePage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let theme = try await server.draftCatalog(app: access.app.id)?.catalog.theme
        return themeForm(access, fields: Self.themeFields(theme ?? Theme()), problems: [])
    }

    /// `POST /console/apps/:app/theme`: saves the theme to the draft, or shows why not.
    func saveTheme(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        var fields: [String: String] = [:]
        for name in Self.themeColorFields.flatMap({ [$0, "dark-" + $0] }) + ["font", "radius", "spacing", "dark"] {
            fields[name] = (form[name] ?? "").trimmingCharacters(in: .whitespaces)
        }
        let (theme, problems) = Self.theme(from: fields)
        guard problems.isEmpty, let theme else {
            return themeForm(access, fields: fields, problems: problems, status: .unprocessableContent)
        }
        let errors = try await saveEdit(app: access.app, actor: access.signedIn.actor) { catalog in
            catalog.theme = theme == Theme() ? nil : theme
        }
        if let error = errors.values.first {
            return themeForm(access, fields: fields, problems: [error["message"] ?? "not saved"], status: .unprocessableContent)
        }
        return .redirect(to: "/console/apps/\(access.app.id)/theme?saved=1", type: .normal)
    }

    /// A theme read from the form's fields, or the problems that keep it from being one: every
    /// colour `#rrggbb`, a font of plain names, a radius and a spacing in range, legible.
    static func theme(from fields: [String: String]) -> (Theme?, [String]) {
        var problems: [String] = []
        func color(_ name: String) -> String? {
            guard let text = fields[name], !text.isEmpty else { return nil }
            // The # may be left out, as colour pickers and design tools often copy it.
            guard let color = Theme.color(text.hasPrefix("#") ? text : "#" + text) else {
                problems.append("\(name.replacingOccurrences(of: "-", with: " ")) \"\(text.prefix(40))\" is not a colour such as #0b5cad")
                return nil
            }
            return color
        }
        func colors(_ prefix: String) -> Theme.Colors {
            Theme.Colors(
                surface: color(prefix + "surface"), text: color(prefix + "text"), accent: color(prefix + "accent"),
                focus: color(prefix + "focus"))
        }
        var theme = Theme(colors: colors(""))
        if fields["dark"] == "on" {
            let dark = colors("dark-")
            theme.dark = dark == Theme.Colors() ? nil : dark
        }
        if let font = fields["font"], !font.isEmpty {
            if Theme.isFont(font) {
                theme.font = font
            } else {
                problems.append("the font is named by letters, digits, spaces, hyphens and commas, such as Noto Sans")
            }
        }
        for (name, range) in [("radius", Theme.radii), ("spacing", Theme.spacings)] {
            guard let text = fields[name], !text.isEmpty else { continue }
            guard let value = Int(text), range.contains(value) else {
                problems.append("the \(name) is a whole number of points from \(range.lowerBound) to \(range.upperBound)")
                continue
            }
            if name == "radius" { theme.radius = value } else { theme.spacing = value }
        }
        problems += theme.contrastProblems
        return (problems.isEmpty ? theme : nil, problems)
    }

    /// The form's fields for a theme: what it sets, empty where it keeps Waymark's look.
    static func themeFields(_ theme: Theme) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in [
            ("surface", theme.colors.surface), ("text", theme.colors.text), ("accent", theme.colors.accent), ("focus", theme.colors.focus),
        ] {
            fields[name] = value ?? ""
            fields["dark-" + name] =
                switch name {
                case "surface": theme.dark?.surface ?? ""
                case "text": theme.dark?.text ?? ""
                case "accent": theme.dark?.accent ?? ""
                default: theme.dark?.focus ?? ""
                }
        }
        fields["dark"] = theme.dark == nil ? "" : "on"
        fields["font"] = theme.font ?? ""
        fields["radius"] = theme.radius.map(String.init) ?? ""
        fields["spacing"] = theme.spacing.map(String.init) ?? ""
        return fields
    }

    private func themeForm(_ access: AppAccess, fields: [String: String], problems: [String], status: HTTPResponse.Status = .ok) -> Response
    {
        var values = frame("The app's look", access.signedIn, app: access.app)
        let waymark = Theme.waymark.colors
        let defaults = ["surface": waymark.surface!, "text": waymark.text!, "accent": waymark.accent!, "focus": waymark.focus!]
        values["colors"] = Self.themeColorFields.map { name in
            [
                "name": name, "label": ["surface": "Surface", "text": "Text", "accent": "Links and buttons", "focus": "Focus ring"][name]!,
                "value": fields[name] ?? "", "shown": (fields[name] ?? "").isEmpty ? defaults[name]! : fields[name]!,
                "darkValue": fields["dark-" + name] ?? "",
                "darkShown": (fields["dark-" + name] ?? "").isEmpty ? defaults[name]! : fields["dark-" + name]!,
            ]
        }
        values["dark"] = fields["dark"] == "on"
        values["font"] = fields["font"] ?? ""
        values["radius"] = fields["radius"] ?? ""
        values["spacing"] = fields["spacing"] ?? ""
        values["problems"] = problems
        values["hasProblems"] = !problems.isEmpty
        return Templates.page("theme", values, status: status)
    }
}
