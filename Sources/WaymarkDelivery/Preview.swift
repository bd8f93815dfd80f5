import WaymarkAPI
import WaymarkCatalog
import WaymarkEngine

extension Catalog {
    /// The catalog as a preview shows it on a device: every tip, tour, checklist and article for
    /// everyone (no targeting rule, full rollout), tips without display limits, and no least time
    /// between tips. Triggers and dismissals stay: the author sees each tip when its rule says.
    public var previewed: Catalog {
        var catalog = self
        catalog.frequency = .immediate
        for index in catalog.tips.indices {
            catalog.tips[index].targeting = Targeting()
            catalog.tips[index].tip.policy = DisplayPolicy()
        }
        for index in catalog.tours.indices { catalog.tours[index].targeting = Targeting() }
        for index in catalog.checklists.indices { catalog.checklists[index].targeting = Targeting() }
        for index in catalog.articles.indices { catalog.articles[index].targeting = Targeting() }
        return catalog
    }
}

extension DeliveredTheme {
    /// The theme as delivered: what it sets, and Waymark's look for the rest.
    public init(_ theme: Theme) {
        let whole = theme.over(.waymark)
        func colors(_ colors: Theme.Colors) -> Colors {
            let base = Theme.waymark.colors
            return Colors(
                surface: colors.surface ?? base.surface!, text: colors.text ?? base.text!, accent: colors.accent ?? base.accent!,
                focus: colors.focus ?? base.focus!)
        }
        self.init(
            colors: colors(whole.colors), dark: whole.dark.map(colors), font: whole.font ?? Theme.waymark.font!,
            radius: whole.radius ?? Theme.waymark.radius!, spacing: whole.spacing ?? Theme.waymark.spacing!)
    }
}
