import Foundation

/// Charts drawn on the server as SVG by the `chart-line` and `chart-bars` templates: this computes
/// the coordinates, the templates only place them, and every label goes through Mustache's
/// escaping like any other text. Colours come from the stylesheet (`.series-0`...), each series
/// also has a legend entry and every point a `<title>`, and every chart sits next to a table of
/// the same numbers.
enum Chart {
    static let width = 640.0
    static let height = 240.0
    static let left = 52.0
    static let right = 12.0
    static let top = 12.0
    static let bottom = 30.0

    /// One line per series over the same x labels (days); `nil` values leave a gap in the dots.
    static func line(title: String, labels: [String], series: [(name: String, values: [Double?])], format: (Double) -> String) -> [String:
        Any]
    {
        // Four steps of 1, 2 or 5 times a power of ten: round labels for counts and rates alike.
        let maximum = 4 * niceCeiling((series.flatMap { $0.values.compactMap { $0 } }.max() ?? 0) / 4)
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        func x(_ index: Int) -> Double { left + (labels.count > 1 ? plotWidth * Double(index) / Double(labels.count - 1) : plotWidth / 2) }
        func y(_ value: Double) -> Double { top + plotHeight * (1 - (maximum > 0 ? value / maximum : 0)) }
        let step = max(1, Int((Double(labels.count) / 7).rounded(.up)))
        return [
            "title": title, "width": width, "height": height, "left": left, "right": width - right, "baseline": top + plotHeight,
            "series": series.enumerated().map { index, entry in
                let points = entry.values.enumerated().compactMap { position, value in value.map { (position, $0) } }
                return [
                    "name": entry.name, "index": index % 6,
                    "points": points.map { "\(coordinate(x($0.0))),\(coordinate(y($0.1)))" }.joined(separator: " "),
                    "dots": points.map { position, value in
                        [
                            "x": coordinate(x(position)), "y": coordinate(y(value)),
                            "label": "\(entry.name), \(labels[position]): \(format(value))",
                        ]
                    },
                ] as [String: Any]
            },
            "xLabels": labels.indices.filter { $0 % step == 0 }.map { ["x": coordinate(x($0)), "y": height - 10, "text": labels[$0]] },
            "yLabels": (0...4).map { tick in
                let value = maximum * Double(tick) / 4
                return ["y": coordinate(y(value)), "x": left - 6, "text": format(value)] as [String: Any]
            },
        ]
    }

    /// Horizontal bars, one per row, scaled to the largest.
    static func bars(title: String, rows: [(label: String, value: Double, text: String)]) -> [String: Any] {
        let rowHeight = 28.0
        let labelWidth = 160.0
        let maximum = rows.map(\.value).max() ?? 0
        let plotWidth = width - labelWidth - 80
        return [
            "title": title, "width": width, "height": max(rowHeight, Double(rows.count) * rowHeight + 8),
            "bars": rows.enumerated().map { index, row in
                [
                    "label": row.label, "text": row.text, "labelX": labelWidth - 8, "x": labelWidth,
                    "y": coordinate(4 + Double(index) * rowHeight),
                    "textY": coordinate(4 + Double(index) * rowHeight + rowHeight / 2 + 4),
                    "width": coordinate(maximum > 0 && row.value > 0 ? max(1, plotWidth * row.value / maximum) : 0),
                    "barHeight": rowHeight - 8,
                    "valueX": coordinate(labelWidth + (maximum > 0 ? plotWidth * row.value / maximum : 0) + 6),
                ] as [String: Any]
            },
        ]
    }

    /// The smallest of 1, 2, 5 times a power of ten that is at least `value`.
    static func niceCeiling(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        let power = pow(10, floor(log10(value)))
        for factor in [1.0, 2, 5, 10] where factor * power >= value * (1 - 1e-12) { return factor * power }
        return 10 * power
    }

    static func coordinate(_ value: Double) -> String { String(format: "%.1f", value) }
}
