import Foundation
import HTTPTypes
import Hummingbird
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules
import WaymarkServer
import WaymarkStore
import WaymarkSupport

/// Engagement, tips, tours and A/B tests for a chosen period; one tip by platform and version with
/// the eligibility debugger; the backtest of a draft tip. Every figure is in a table (and so in the
/// CSV export) as well as in the charts.
extension WaymarkConsole {
    var analytics: Analytics { Analytics(store: reports) }

    func analyticsPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let choice = try PeriodChoice(request, now: now())
        let live = try await server.publishedCatalog(app: app.id)
        let catalog = live?.catalog ?? Catalog(tips: [])
        async let counted = eligibleCounts(app: app.id, live: live, period: choice.period, patience: countingPatience)
        async let engagement = analytics.engagement(app: app.id, period: choice.period)
        async let tours = analytics.tours(app: app.id, catalog: catalog, period: choice.period)
        async let experiments = analytics.experiments(app: app.id, catalog: catalog, period: choice.period)
        async let surveys = analytics.surveys(app: app.id, catalog: catalog, period: choice.period)
        async let actions = analytics.actions(app: app.id, catalog: catalog, period: choice.period)
        async let checklists = analytics.checklists(app: app.id, catalog: catalog, period: choice.period)
        async let help = analytics.help(app: app.id, catalog: catalog, period: choice.period)
        let report = try await engagement
        var values = frame("Analytics", signedIn, app: app)
        values["period"] = choice.values
        values["engagementTable"] = ReportTable.engagement(report).values
        values["dailyTable"] = ReportTable.daily(report).values
        let days = choice.days
        let platforms = report.platforms.map(\.platform)
        func daily(_ measure: (Engagement) -> Double) -> [(String, [Double?])] {
            platforms.map { platform in
                let byDay = Dictionary(
                    report.days.filter { $0.platform == platform }.map { ($0.day ?? 0, measure($0)) }, uniquingKeysWith: +)
                return (platform ?? "unknown", days.map { byDay[$0] ?? 0 })
            }
        }
        let labels = days.map { String(Timestamp.format($0).prefix(10)) }
        values["eventsChart"] = Chart.line(
            title: "Events per active user, per day and platform", labels: labels, series: daily(\.eventsPerUser)
        ) {
            String(format: "%.1f", $0)
        }
        values["usersChart"] = Chart.line(title: "Active users, per day and platform", labels: labels, series: daily { Double($0.users) }) {
            String(Int($0))
        }
        let eligible = try await counted
        let tips = try await analytics.tips(
            app: app.id, catalog: catalog, period: choice.period, eligible: eligible.map { .counted($0) } ?? .unknown)
        values["tipsTable"] = ReportTable.tips(tips, link: "/console/apps/\(app.id)/analytics/tips/", query: choice.query).values
        let hotspots = Set(catalog.tips.filter { $0.renderer == .hotspot }.map(\.id))
        if !hotspots.isEmpty { values["hotspotsTable"] = ReportTable.hotspots(tips.filter { hotspots.contains($0.tip) }).values }
        if eligible == nil {
            values["eligibleCounting"] = true
            values["refresh"] = Self.countingRefresh
        }
        let breakdown = try await breakdownChoice(request, app: app.id, live: live, period: choice.period, patience: countingPatience)
        values.merge(breakdown.values) { $1 }
        var tourValues: [[String: Any]] = []
        for tour in try await tours {
            var entry: [String: Any] = [
                "id": tour.tour, "table": ReportTable.tour(tour).values,
                "chart": Chart.bars(
                    title: "Tour \(tour.tour): users who saw each page",
                    rows: tour.pages.map { ($0.page, Double($0.viewed), String($0.viewed)) }
                ),
            ]
            if let groups = breakdown.groups, let authored = catalog.tours.first(where: { $0.id == tour.tour }) {
                let parts = try await analytics.tour(authored, app: app.id, period: choice.period, by: groups)
                entry["groups"] = ReportTable.tourGroups(tour.tour, parts, label: groups.breakdown.label).values
            }
            tourValues.append(entry)
        }
        values["tours"] = tourValues
        values["checklists"] = try await checklists.map { report in
            [
                "id": report.checklist, "table": ReportTable.checklist(report).values,
                "chart": Chart.bars(
                    title: "Checklist \(report.checklist): users who did each item",
                    rows: report.items.map { ($0.item, Double($0.users), String($0.users)) }),
            ] as [String: Any]
        }
        let helpReport = try await help
        if !catalog.articles.isEmpty || helpReport.opened > 0 {
            values["help"] = [
                "summary": ReportTable.help(helpReport).values, "unanswered": ReportTable.unanswered(helpReport).values,
                "articles": ReportTable.articles(helpReport).values,
            ]
        }
        let presses = try await actions
        if !presses.isEmpty {
            values["actionsTable"] = ReportTable.actions(presses, seen: Self.seen(tips: tips, tours: try await tours)).values
        }
        values["experiments"] = try await experiments.map { experiment in
            ["tip": experiment.tip, "enoughData": experiment.enoughData, "table": ReportTable.experiment(experiment).values]
                as [String: Any]
        }
        let missing = try await analytics.missingAnchors(app: app.id, period: choice.period)
        if !missing.isEmpty {
            values["missingTable"] =
                ReportTable.missingAnchors(missing, link: "/console/apps/\(app.id)/analytics/tips/", query: choice.query).values
        }
        let surveyReports = try await surveys
        if !surveyReports.isEmpty {
            values["surveysTable"] =
                ReportTable.surveys(surveyReports, link: "/console/apps/\(app.id)/analytics/tips/", query: choice.query).values
        }
        return Templates.page("analytics", values)
    }

    /// One tip by platform and version, and why it did or did not show to one user.
    func tipAnalyticsPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let choice = try PeriodChoice(request, now: now())
        let id = context.parameters.get("id") ?? ""
        let live = try await server.publishedCatalog(app: app.id)
        let catalog = live?.catalog ?? Catalog(tips: [])
        guard
            let (report, counted) = try await tipReport(
                app: app.id, live: live, tip: id, period: choice.period, patience: countingPatience)
        else { throw ConsoleError.notFound }
        var values = frame("Tip \(id)", signedIn, app: app)
        if !counted {
            values["eligibleCounting"] = true
            values["refresh"] = Self.countingRefresh
        }
        values["tip"] = id
        values["period"] = choice.values
        values["totalTable"] = ReportTable.tips([report], link: nil, query: "").values
        values["platformsTable"] = ReportTable.platforms(report).values
        if catalog.tips.contains(where: { $0.id == id && $0.renderer == .hotspot }) {
            values["hotspotsTable"] = ReportTable.hotspots([report]).values
        }
        values["live"] = catalog.tips.contains { $0.id == id }
        let missing = try await analytics.missingAnchors(app: app.id, period: choice.period, tip: id)
        if !missing.isEmpty || catalog.tips.contains(where: { $0.id == id && $0.tip.anchor != nil }) {
            values["missingTable"] = ReportTable.missingAnchors(missing, link: nil, query: "").values
        }
        let breakdown = try await breakdownChoice(request, app: app.id, live: live, period: choice.period, patience: countingPatience)
        values.merge(breakdown.values) { $1 }
        var surveyGroups: [String: Any]?
        if let groups = breakdown.groups {
            let parts = try await analytics.tip(id, app: app.id, period: choice.period, by: groups)
            values["groupsTable"] = ReportTable.tipGroups(parts, label: groups.breakdown.label).values
            if let tip = catalog.tips.first(where: { $0.id == id && $0.survey != nil }) {
                let answers = try await analytics.survey(tip, app: app.id, period: choice.period, by: groups)
                surveyGroups = ReportTable.surveyGroups(answers, label: groups.breakdown.label).values
            }
        }
        let presses = try await analytics.actions(app: app.id, catalog: catalog, period: choice.period).filter {
            $0.owner == id && !$0.onTour
        }
        if !presses.isEmpty { values["actionsTable"] = ReportTable.actions(presses, seen: [id: report.total.shown]).values }
        if let survey = try await surveyReport(app: app.id, catalog: catalog, tip: id, period: choice.period) {
            var surveyValues: [String: Any] =
                [
                    "summary": ReportTable.surveys([survey], link: nil, query: "").values,
                    "byPlatform": ReportTable.surveyPlatforms(survey).values,
                    "comments": ReportTable.surveyComments(survey).values,
                    "discarded": survey.discarded,
                    "chart": Chart.bars(
                        title: "Answers per score",
                        rows: survey.total.counts.enumerated().map { offset, count in
                            (String(offset + survey.total.scale.scores.lowerBound), Double(count), String(count))
                        }
                    ),
                ]
            surveyValues["groups"] = surveyGroups
            values["survey"] = surveyValues
        }
        if let user = request.uri.queryParameters["user"].map(String.init)?.trimmingCharacters(in: .whitespaces), !user.isEmpty {
            // The explained user has a name of their own: `user` is the signed-in person in the header.
            values["explained"] = user
            if let trace = try await analytics.explain(app: app.id, catalog: catalog, user: user, tip: id, period: choice.period) {
                values["trace"] = Self.traceValues(trace)
            }
        }
        return Templates.page("tip-analytics", values)
    }

    /// The draft tip's trigger and dismissal over the last N days of recorded events.
    func backtestPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let id = context.parameters.get("id") ?? ""
        guard let draft = try await server.draftCatalog(app: app.id)?.catalog, let tip = draft.tips.first(where: { $0.id == id }) else {
            throw ConsoleError.notFound
        }
        let days = min(365, max(1, request.uri.queryParameters["days"].flatMap { Int(String($0)) } ?? 14))
        let end = now().millisecondsSince1970
        let period = Period(from: end - Int64(days) * Period.day, to: end + 1)
        let started = ContinuousClock.now
        let outcome = try await Backtest(tips: [tip], segments: draft.segments).run(store: store, app: app.id, period: period)[0]
        let elapsed = ContinuousClock.now - started
        var values = frame("Backtest of \(id)", signedIn, app: app)
        values["tip"] = id
        values["days"] = days
        values["trigger"] = tip.tip.trigger.description
        values["dismissal"] = tip.tip.dismissal?.description ?? ""
        values["hasDismissal"] = tip.tip.dismissal != nil
        values["summaryTable"] = ReportTable.backtest(outcome, teaches: tip.tip.dismissal != nil).values
        values["platformsTable"] = ReportTable.backtestPlatforms(outcome).values
        var rows: [(label: String, value: Double, text: String)] = []
        for day in period.days {
            let users = outcome.byDay[day] ?? 0
            rows.append((String(Timestamp.format(day).prefix(10)), Double(users), String(users)))
        }
        values["dayChart"] = Chart.bars(title: "Users who would first have seen it, per day", rows: rows)
        values["elapsed"] = String(format: "%.2f s", elapsed / .seconds(1))
        return Templates.page("backtest", values)
    }

    /// The page's `by`: `user.<name>` (an attribute users have) or `segment:<name>` (a segment of
    /// the live catalog or, by the same name, the draft's), with what the breakdown form shows
    /// (every choice, the chosen one's query, and whether it is still being counted); no groups
    /// for the default, platform and app version. A segment's members are counted in the
    /// background (a segment the kept days do not hold is replayed over the period, 39 s over 10
    /// million events): nil groups when they are not ready within `patience`.
    func breakdownChoice(
        _ request: Request, app: String, live: (catalog: Catalog, version: CatalogVersion)?, period: Period,
        patience: Duration? = nil
    ) async throws -> (groups: UserGroups?, values: [String: Any]) {
        let chosen = request.uri.queryParameters["by"].map(String.init) ?? ""
        var segments: [String: Segment] = [:]
        for segment in live?.catalog.segments ?? [] { segments[segment.name] = segment }
        for segment in try await server.draftCatalog(app: app)?.catalog.segments ?? [] { segments[segment.name] = segment }
        let attributes = Set(try await store.attributeSummary(app: app, examples: 1).map(\.name)).sorted()
        let choices: [UserBreakdown] = attributes.map { .attribute($0) } + segments.keys.sorted().map { .segment(segments[$0]!) }
        let breakdown = choices.first { $0.label == chosen }
        if !chosen.isEmpty && breakdown == nil {
            throw ConsoleError.badRequest("There is no attribute or segment \(chosen) to break the figures down by.")
        }
        let options: [[String: Any]] =
            [["value": "", "label": "Platform and app version", "selected": breakdown == nil]]
            + choices.map { ["value": $0.label, "label": $0.label, "selected": $0 == breakdown] }
        guard let breakdown else { return (nil, ["byOptions": options]) }
        let groups: UserGroups?
        if case .segment(let segment) = breakdown {
            let key = GroupsCache.Key(
                app: app, version: live?.version.number ?? 0, period: period, tip: "segment \(segment.name) \(segment.rule)")
            let (store, reports) = (self.store, self.reports)
            groups = try await groupsCache.counts(key, now: now(), patience: patience) {
                // A segment of the live catalog is read from the days kept for it.
                let kept = try await Eligibility.live(app: app, store: store)
                return try await UserGroups(breakdown, store: reports, app: app, period: period, kept: kept.map { ($0, store) })
            }
        } else {
            groups = try await UserGroups(breakdown, store: reports, app: app, period: period)
        }
        var values: [String: Any] = ["byOptions": options]
        if let groups {
            values["byQuery"] = "&by=" + (groups.breakdown.label.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        } else {
            values["byCounting"] = breakdown.label
            values["refresh"] = Self.countingRefresh
        }
        return (groups, values)
    }

    /// A table of the analytics page as CSV: `engagement`, `daily`, `tips`, `platforms?tip=`,
    /// `groups?tip=&by=`, `survey-groups?tip=&by=`, `tour-groups?tour=&by=`,
    /// `tour?tour=`, `checklist?checklist=`, `help-unanswered`, `help-articles`, `actions`, `experiments`, `surveys`, `survey?tip=`, `comments?tip=`.
    func analyticsExport(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let app = access.app
        let choice = try PeriodChoice(request, now: now())
        let live = try await server.publishedCatalog(app: app.id)
        let catalog = live?.catalog ?? Catalog(tips: [])
        let name = context.parameters.get("table") ?? ""
        let parameter = { (key: String) in request.uri.queryParameters[Substring(key)].map(String.init) ?? "" }
        let table: ReportTable
        switch name {
        case "engagement.csv": table = ReportTable.engagement(try await analytics.engagement(app: app.id, period: choice.period))
        case "daily.csv": table = ReportTable.daily(try await analytics.engagement(app: app.id, period: choice.period))
        case "tips.csv":
            // A download waits for the counts.
            let eligible = try await eligibleCounts(app: app.id, live: live, period: choice.period, patience: nil)
            let tips = try await analytics.tips(
                app: app.id, catalog: catalog, period: choice.period, eligible: eligible.map { .counted($0) } ?? .unknown)
            table = ReportTable.tips(tips, link: nil, query: "")
        case "platforms.csv":
            guard
                let (report, _) = try await tipReport(app: app.id, live: live, tip: parameter("tip"), period: choice.period, patience: nil)
            else {
                throw ConsoleError.notFound
            }
            table = ReportTable.platforms(report)
        case "tour.csv":
            guard
                let tour = try await analytics.tours(app: app.id, catalog: catalog, period: choice.period).first(where: {
                    $0.tour == parameter("tour")
                })
            else { throw ConsoleError.notFound }
            table = ReportTable.tour(tour)
        case "groups.csv", "survey-groups.csv", "tour-groups.csv":
            guard let groups = try await breakdownChoice(request, app: app.id, live: live, period: choice.period).groups else {
                throw ConsoleError.badRequest("Say what to break the figures down by: by=user.<name> or by=segment:<name>.")
            }
            let label = groups.breakdown.label
            if name == "groups.csv" {
                table = ReportTable.tipGroups(
                    try await analytics.tip(parameter("tip"), app: app.id, period: choice.period, by: groups), label: label)
            } else if name == "survey-groups.csv" {
                guard let tip = catalog.tips.first(where: { $0.id == parameter("tip") && $0.survey != nil }) else {
                    throw ConsoleError.notFound
                }
                table = ReportTable.surveyGroups(
                    try await analytics.survey(tip, app: app.id, period: choice.period, by: groups), label: label)
            } else {
                guard let tour = catalog.tours.first(where: { $0.id == parameter("tour") }) else { throw ConsoleError.notFound }
                table = ReportTable.tourGroups(
                    tour.id, try await analytics.tour(tour, app: app.id, period: choice.period, by: groups), label: label)
            }
        case "checklist.csv":
            guard
                let report = try await analytics.checklists(app: app.id, catalog: catalog, period: choice.period).first(where: {
                    $0.checklist == parameter("checklist")
                })
            else { throw ConsoleError.notFound }
            table = ReportTable.checklist(report)
        case "help-unanswered.csv", "help-articles.csv":
            let report = try await analytics.help(app: app.id, catalog: catalog, period: choice.period)
            table = name == "help-unanswered.csv" ? ReportTable.unanswered(report) : ReportTable.articles(report)
        case "actions.csv":
            async let tips = analytics.tips(app: app.id, catalog: catalog, period: choice.period, eligible: .unknown)
            async let tours = analytics.tours(app: app.id, catalog: catalog, period: choice.period)
            table = ReportTable.actions(
                try await analytics.actions(app: app.id, catalog: catalog, period: choice.period),
                seen: Self.seen(tips: try await tips, tours: try await tours))
        case "experiments.csv":
            table = ReportTable.experiments(try await analytics.experiments(app: app.id, catalog: catalog, period: choice.period))
        case "surveys.csv":
            table = ReportTable.surveys(
                try await analytics.surveys(app: app.id, catalog: catalog, period: choice.period), link: nil, query: "")
        case "survey.csv", "comments.csv":
            guard let report = try await surveyReport(app: app.id, catalog: catalog, tip: parameter("tip"), period: choice.period) else {
                throw ConsoleError.notFound
            }
            table = name == "survey.csv" ? ReportTable.surveyPlatforms(report) : ReportTable.surveyComments(report)
        default: throw ConsoleError.notFound
        }
        let file = "\(app.id)-\(name.dropLast(4))-\(choice.fromText)-\(choice.toText).csv"
        return Response(
            status: .ok,
            headers: [.contentType: "text/csv; charset=utf-8", .contentDisposition: "attachment; filename=\"\(file)\""],
            body: ResponseBody(byteBuffer: ByteBuffer(string: table.csv))
        )
    }

    /// The users who saw each tip (by id) and each tour page (`tour/page`): what a button's share
    /// of presses is taken of.
    static func seen(tips: [TipReport], tours: [TourReport]) -> [String: Int] {
        var seen = Dictionary(tips.map { ($0.tip, $0.total.shown) }, uniquingKeysWith: max)
        for tour in tours {
            for page in tour.pages { seen["\(tour.tour)/\(page.page)"] = page.viewed }
        }
        return seen
    }

    /// Seconds after which a page shown without its eligible counts reloads.
    static let countingRefresh = 5

    /// The live catalog's eligible counts (one tip's with `tip`) over the period, from the cache
    /// or counted now (from the days kept, ``Eligibility``); nil when not ready within `patience`.
    func eligibleCounts(
        app: String, live: (catalog: Catalog, version: CatalogVersion)?, period: Period, tip: String? = nil, patience: Duration?
    ) async throws -> [Backtest.Outcome]? {
        let tips = live?.catalog.tips ?? []
        let segments = live?.catalog.segments ?? []
        let key = EligibleCache.Key(app: app, version: live?.version.number ?? 0, period: period, tip: tip)
        let store = self.store
        return try await eligibleCache.counts(key, now: now(), patience: patience) {
            let published = try await Eligibility.firstPublished(app: app, store: store)
            // Every live tip's rules, as they are kept: one tip's counts are those of its own.
            let outcomes = try await Eligibility(tips: tips, segments: segments, countingFrom: tips.map { published[$0.id] })
                .counts(store: store, app: app, period: period)
            guard let tip else { return outcomes }
            return zip(tips, outcomes).filter { $0.0.id == tip }.map(\.1)
        }
    }

    /// One tip's report (only its rules are replayed for the eligible count), and whether its
    /// eligible counts are in it; nil when there is no such tip.
    func tipReport(
        app: String, live: (catalog: Catalog, version: CatalogVersion)?, tip id: String, period: Period, patience: Duration?
    ) async throws -> (report: TipReport, counted: Bool)? {
        let only = Catalog(tips: (live?.catalog.tips ?? []).filter { $0.id == id })
        let eligible = only.tips.isEmpty ? [] : try await eligibleCounts(app: app, live: live, period: period, tip: id, patience: patience)
        let reports = try await analytics.tips(app: app, catalog: only, period: period, eligible: eligible.map { .counted($0) } ?? .unknown)
        return reports.first { $0.tip == id }.map { ($0, eligible != nil) }
    }

    /// One survey tip's answers, or nil when the live catalog has no such survey.
    func surveyReport(app: String, catalog: Catalog, tip id: String, period: Period) async throws -> SurveyReport? {
        let only = Catalog(tips: catalog.tips.filter { $0.id == id && $0.survey != nil })
        return try await analytics.surveys(app: app, catalog: only, period: period).first
    }

    static func traceValues(_ trace: EligibilityTrace) -> [String: Any] {
        [
            "targeted": trace.targeted, "events": trace.events,
            "context": trace.context.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: ", "),
            "explanation": trace.explanation.description,
            "steps": trace.steps.map { ["time": Timestamp.format($0.time), "input": $0.input, "outcome": $0.outcome ?? ""] },
            "truncated": trace.steps.count == EligibilityTrace.maximumSteps,
        ]
    }
}

/// The period of an analytics page: `from` and `to` as days (`2026-11-01`, both included), or the
/// last `days` days; the last 30 days by default.
struct PeriodChoice {
    var period: Period
    var fromText: String
    var toText: String

    init(_ request: Request, now: Date) throws {
        let parameters = request.uri.queryParameters
        let today = Period.startOfDay(now.millisecondsSince1970)
        func day(_ key: String) throws -> Int64? {
            guard let text = parameters[Substring(key)].map(String.init), !text.isEmpty else { return nil }
            guard text.count == 10, let millis = Timestamp.parse(text + "T00:00:00Z") else {
                throw ConsoleError.badRequest("\(key) must be a day such as 2026-11-01.")
            }
            return millis
        }
        let days = parameters["days"].flatMap { Int(String($0)) }.map { min(3650, max(1, $0)) } ?? 30
        let last = try day("to") ?? today
        let first = try day("from") ?? last - Int64(days - 1) * Period.day
        guard first <= last else { throw ConsoleError.badRequest("The period starts after it ends.") }
        guard last - first <= 3650 * Period.day else { throw ConsoleError.badRequest("The period is longer than ten years.") }
        period = Period(from: first, to: last + Period.day)
        fromText = String(Timestamp.format(first).prefix(10))
        toText = String(Timestamp.format(last).prefix(10))
    }

    /// Midnight of each day of the period.
    var days: [Int64] { period.days }

    var query: String { "from=\(fromText)&to=\(toText)" }

    var values: [String: Any] { ["from": fromText, "to": toText, "query": query] }
}

extension HTTPField.Name {
    static let contentDisposition = Self("Content-Disposition")!
}
