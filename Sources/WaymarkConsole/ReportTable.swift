import Foundation
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkEngine
import WaymarkStore
import WaymarkSupport

/// One table of figures, drawn by the `table` template and exported as CSV from the same rows, so
/// the page and the file cannot disagree.
struct ReportTable {
    struct Cell {
        var text: String
        var link: String?
    }

    var caption: String
    var columns: [String]
    var rows: [[Cell]]

    init(_ caption: String, _ columns: [String], _ rows: [[Cell]]) {
        self.caption = caption
        self.columns = columns
        self.rows = rows
    }

    var values: [String: Any] {
        [
            "caption": caption, "columns": columns, "empty": rows.isEmpty, "span": columns.count,
            "rows": rows.map { row in
                [
                    "key": row.first?.text ?? "",
                    "cells": row.map { cell -> [String: Any] in
                        var values: [String: Any] = ["text": cell.text]
                        if let link = cell.link { values["link"] = link }
                        return values
                    },
                ] as [String: Any]
            },
        ]
    }

    /// RFC 4180 CSV, each cell as ``csvField(_:)`` writes it (platform names and versions come
    /// from clients).
    var csv: String {
        ([columns] + rows.map { $0.map(\.text) }).map { $0.map(csvField).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }
}

extension ReportTable.Cell: ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    init(stringLiteral value: String) { self.init(text: value, link: nil) }
}

extension ReportTable {
    static func number(_ value: Int) -> Cell { Cell(text: String(value)) }
    static func number(_ value: Int?) -> Cell { Cell(text: value.map(String.init) ?? "—") }
    static func decimal(_ value: Double) -> Cell { Cell(text: String(format: "%.2f", value)) }
    static func percent(_ value: Double?) -> Cell { Cell(text: value.map { String(format: "%.1f%%", $0 * 100) } ?? "—") }
    static func interval(_ proportion: Proportion) -> Cell {
        Cell(text: proportion.interval.map { String(format: "%.1f%% – %.1f%%", $0.lowerBound * 100, $0.upperBound * 100) } ?? "—")
    }
    static func day(_ millis: Int64?) -> Cell { Cell(text: millis.map { String(Timestamp.format($0).prefix(10)) } ?? "") }
    static func name(_ value: String?) -> Cell { Cell(text: value ?? "unknown") }

    static func engagement(_ report: EngagementReport) -> ReportTable {
        ReportTable(
            "Engagement by platform",
            ["Platform", "Active users", "Sessions", "Events", "Sessions per user", "Events per user", "Relative engagement"],
            report.platforms.map {
                [
                    name($0.platform), number($0.users), number($0.sessions), number($0.events), decimal($0.sessionsPerUser),
                    decimal($0.eventsPerUser),
                    percent(report.ratio($0)),
                ]
            }
        )
    }

    static func daily(_ report: EngagementReport) -> ReportTable {
        ReportTable(
            "Engagement per day", ["Day", "Platform", "Active users", "Sessions", "Events", "Events per user"],
            report.days.map {
                [day($0.day), name($0.platform), number($0.users), number($0.sessions), number($0.events), decimal($0.eventsPerUser)]
            }
        )
    }

    static let funnelColumns = ["Eligible", "Shown", "Acted on", "Closed", "Conversion", "95% interval", "Listened", "Heard to the end"]

    static func funnel(_ funnel: TipFunnel) -> [Cell] {
        [
            number(funnel.eligible), number(funnel.shown), number(funnel.acted), number(funnel.closed), percent(funnel.conversion.rate),
            interval(funnel.conversion), number(funnel.listened), number(funnel.heardToTheEnd),
        ]
    }

    static func tips(_ reports: [TipReport], link: String?, query: String) -> ReportTable {
        ReportTable(
            "Tips", ["Tip"] + funnelColumns,
            reports.map { [Cell(text: $0.tip, link: link.map { [tip = $0.tip] in "\($0)\(tip)?\(query)" })] + funnel($0.total) }
        )
    }

    /// The hotspots among `reports`: users who saw the marker, opened it, the share who did, and
    /// those who then did what it teaches or closed it.
    static func hotspots(_ reports: [TipReport]) -> ReportTable {
        ReportTable(
            "Hotspots: markers opened",
            ["Hotspot", "Saw the marker", "Opened it", "Open rate", "95% interval", "Acted on", "Closed"],
            reports.map {
                [
                    Cell(text: $0.tip), number($0.total.shown), number($0.total.opened), percent($0.total.openRate.rate),
                    interval($0.total.openRate), number($0.total.acted), number($0.total.closed),
                ]
            })
    }

    static func platforms(_ report: TipReport) -> ReportTable {
        ReportTable(
            "By platform and app version", ["Platform", "App version"] + funnelColumns,
            report.byPlatform.map { [name($0.platformVersion.platform), name($0.platformVersion.appVersion)] + funnel($0.funnel) }
        )
    }

    static func tipGroups(_ parts: [(group: String, funnel: TipFunnel)], label: String) -> ReportTable {
        ReportTable("By \(label)", [label] + funnelColumns, parts.map { [Cell(text: $0.group)] + funnel($0.funnel) })
    }

    static func surveyGroups(_ parts: [(group: String, score: SurveyScore)], label: String) -> ReportTable {
        ReportTable("Answers by \(label)", [label] + surveyColumns, parts.map { [Cell(text: $0.group)] + survey($0.score) })
    }

    static func tourGroups(_ tour: String, _ parts: [(group: String, report: TourReport)], label: String) -> ReportTable {
        ReportTable(
            "Tour \(tour) by \(label)", [label, "Page", "Viewed", "Reached", "Read to bottom", "Read rate", "Video plays"],
            parts.flatMap { group, report in
                report.pages.enumerated().map { index, page in
                    [
                        Cell(text: group), Cell(text: page.page), number(page.viewed), percent(report.reached(index).rate),
                        number(page.readToBottom), percent(page.readRate.rate), number(page.videoPlays),
                    ]
                }
            }
        )
    }

    static func tour(_ tour: TourReport) -> ReportTable {
        ReportTable(
            "Tour \(tour.tour)", ["Page", "Viewed", "Reached", "Read to bottom", "Read rate", "Video plays", "Credits granted"],
            tour.pages.enumerated().map { index, page in
                [
                    Cell(text: page.page), number(page.viewed), percent(tour.reached(index).rate), number(page.readToBottom),
                    percent(page.readRate.rate), number(page.videoPlays), number(page.credits),
                ]
            }
        )
    }

    static let experimentColumns = ["Variant", "Shown", "Acted on", "Conversion", "95% interval", "p-value against the first"]

    static func arm(_ arm: Experiment.Arm) -> [Cell] {
        [
            Cell(text: arm.variant), number(arm.conversion.trials), number(arm.conversion.successes), percent(arm.conversion.rate),
            interval(arm.conversion), Cell(text: arm.pValue.map { String(format: "%.4f", $0) } ?? "—"),
        ]
    }

    /// The help launcher: opens and searches.
    static func help(_ report: HelpReport) -> ReportTable {
        ReportTable(
            "Help: opens and searches", ["", "Users", "Times"],
            [
                [Cell(text: "opened the help"), number(report.openedUsers), number(report.opened)],
                [Cell(text: "searched"), number(report.searchers), number(report.searches)],
                [
                    Cell(text: "searched and found nothing"), number(report.unanswered.reduce(0) { $0 + $1.users }),
                    number(report.unanswered.reduce(0) { $0 + $1.searches }),
                ],
            ])
    }

    /// What people looked for in the help and did not find, most searched first.
    static func unanswered(_ report: HelpReport) -> ReportTable {
        ReportTable(
            "Searches that found nothing", ["What they typed", "Searches", "Users"],
            report.unanswered.map { [Cell(text: $0.query), number($0.searches), number($0.users)] })
    }

    /// Each help article: the users who opened it, and how often.
    static func articles(_ report: HelpReport) -> ReportTable {
        ReportTable(
            "Articles read", ["Article", "Users", "Opens"],
            report.articles.map { [Cell(text: $0.article), number($0.users), number($0.opens)] })
    }

    /// A checklist's completion funnel: users who had it (opened it, did an item or completed it:
    /// items are often done in the app without opening the panel), who opened it, who did each
    /// item and who completed it, each with its share of those who had it (never over 100%), the
    /// median time it took, and the credits granted.
    static func checklist(_ report: ChecklistReport) -> ReportTable {
        let had = report.users
        func share(_ users: Int) -> Cell { percent(had > 0 ? Double(users) / Double(had) : nil) }
        return ReportTable(
            "Checklist \(report.checklist)", ["Step", "Users", "Share of those who had it"],
            [[Cell(text: "had it"), number(had), share(had)], [Cell(text: "opened"), number(report.opened), share(report.opened)]]
                + report.items.map { [Cell(text: "item \($0.item)"), number($0.users), share($0.users)] }
                + [
                    [Cell(text: "completed"), number(report.completed), share(report.completed)],
                    [
                        Cell(text: "median time to complete"), Cell(text: report.medianSeconds.map { duration($0) } ?? "—"),
                        Cell(text: "—"),
                    ],
                    [Cell(text: "credits granted"), number(report.credits), Cell(text: "—")],
                ])
    }

    /// Buttons and their presses; `seen` gives the users who saw each tip (by id) or tour page
    /// (`tour/page`), for the share who pressed.
    /// Where tips' anchors were not found; the tip links to its page when `link` is given.
    static func missingAnchors(_ rows: [MissingAnchor], link: String?, query: String) -> ReportTable {
        ReportTable(
            "Anchors not found on the screen", (link == nil ? [] : ["Tip"]) + ["Screen", "Anchor", "Times", "Users"],
            rows.map { row in
                (link.map { [Cell(text: row.tip, link: "\($0)\(row.tip)?\(query)")] } ?? [])
                    + [name(row.screen), name(row.anchor), number(row.times), number(row.users)]
            })
    }

    static func actions(_ reports: [ActionReport], seen: [String: Int]) -> ReportTable {
        ReportTable(
            "Buttons: users who pressed each, and where it led",
            ["Where", "Button", "Does", "Leads to", "Users", "Presses", "Share of users who saw it"],
            reports.map { report in
                let place = report.page.map { "\(report.owner)/\($0)" } ?? report.owner
                let viewers = seen[place]
                return [
                    Cell(text: report.page.map { "tour \(report.owner), page \($0)" } ?? "tip \(report.owner)"), Cell(text: report.action),
                    name(report.kind), Cell(text: report.to ?? "—"), number(report.users), number(report.presses),
                    percent(viewers.flatMap { $0 > 0 ? Double(report.users) / Double($0) : nil }),
                ]
            })
    }

    static func experiment(_ experiment: Experiment) -> ReportTable {
        ReportTable("Variants of \(experiment.tip)", experimentColumns, experiment.arms.map(arm))
    }

    static func experiments(_ experiments: [Experiment]) -> ReportTable {
        ReportTable(
            "A/B tests", ["Tip"] + experimentColumns,
            experiments.flatMap { experiment in
                experiment.arms.map { [Cell(text: experiment.tip)] + arm($0) }
            })
    }

    static let surveyColumns = ["Answers", "Mean", "Score", "Satisfied or promoters", "Detractors"]

    /// Answers, mean, CSAT (% satisfied) or NPS (promoters minus detractors), and the shares.
    static func survey(_ score: SurveyScore) -> [Cell] {
        [
            number(score.answers), Cell(text: score.mean.map { String(format: "%.2f", $0) } ?? "—"),
            Cell(text: score.score.map { String(format: score.scale == .csat ? "%.1f%%" : "%+.0f", $0) } ?? "—"),
            percent(score.satisfied.rate), percent(score.detractors?.rate),
        ]
    }

    static func surveys(_ reports: [SurveyReport], link: String?, query: String) -> ReportTable {
        ReportTable(
            "Surveys",
            ["Tip", "Scale"] + surveyColumns,
            reports.map { report in
                [
                    Cell(text: report.tip, link: link.map { "\($0)\(report.tip)?\(query)" }),
                    Cell(text: report.total.scale.rawValue.uppercased()),
                ]
                    + survey(report.total)
            }
        )
    }

    static func surveyPlatforms(_ report: SurveyReport) -> ReportTable {
        ReportTable(
            "Answers by platform and app version", ["Platform", "App version"] + surveyColumns,
            report.byPlatform.map { [name($0.platformVersion.platform), name($0.platformVersion.appVersion)] + survey($0.score) }
        )
    }

    static func surveyComments(_ report: SurveyReport) -> ReportTable {
        ReportTable(
            "Comments, newest first", ["Day", "Platform", "App version", "Score", "Comment", "Times"],
            report.comments.map {
                [
                    day($0.day), name($0.platformVersion.platform), name($0.platformVersion.appVersion), number($0.score),
                    Cell(text: $0.text),
                    number($0.times),
                ]
            }
        )
    }

    static func backtest(_ outcome: Backtest.Outcome, teaches: Bool) -> ReportTable {
        var rows: [[Cell]] = [
            ["Active users in the period", number(outcome.activeUsers)],
            ["Would have seen it", number(outcome.users)],
        ]
        if teaches {
            rows += [
                ["Then did what it teaches", number(outcome.acted)],
                ["Conversion", percent(Proportion(outcome.acted, of: outcome.users).rate)],
                ["Median time from seeing to doing", Cell(text: outcome.medianSecondsToAct.map(Self.duration) ?? "—")],
                ["Did it before it would have shown", number(outcome.alreadyDid)],
            ]
        }
        return ReportTable("Backtest", ["Measure", "Users"], rows)
    }

    static func backtestPlatforms(_ outcome: Backtest.Outcome) -> ReportTable {
        ReportTable(
            "Would have seen it, by platform and app version", ["Platform", "App version", "Users"],
            outcome.byPlatform.sorted { $0.key < $1.key }.map { [name($0.key.platform), name($0.key.appVersion), number($0.value)] }
        )
    }

    static func duration(_ seconds: Double) -> String {
        if seconds < 120 { return String(format: "%.0f s", seconds) }
        if seconds < 7200 { return String(format: "%.0f min", seconds / 60) }
        if seconds < 172_800 { return String(format: "%.1f h", seconds / 3600) }
        return String(format: "%.1f days", seconds / 86400)
    }
}
