import Foundation
import Hummingbird
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkEngine
import WaymarkRules
import WaymarkServer
import WaymarkStore
import WaymarkSupport

/// Where people get lost: the signs of struggle the background refresher found, ranked, each with
/// its trend, the locales and platforms it touches most, example visits, and whether a live tip is
/// there already. Read from what was found, never from events (except an example's own visit).
extension WaymarkConsole {
    /// `GET /console/apps/:app/struggles`: the problems of the period, most users first.
    func strugglesPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let choice = try PeriodChoice(request, now: now())
        let live = try await server.publishedCatalog(app: app.id)?.catalog
        let problems = try await Problems(store: store).list(app: app.id, catalog: live, period: choice.period)
        var values = frame("Where people get lost", signedIn, app: app)
        values["period"] = choice.values
        values["signs"] = StruggleSignal.allCases.map { ["words": $0.words, "explanation": $0.explanation] }
        values["lookedAt"] = try await store.struggleDays(app: app.id).values.max().map(Self.minute)
        values["problemsTable"] =
            ReportTable.problems(problems, link: "/console/apps/\(app.id)/struggles/one?\(choice.query)").values
        return Templates.page("struggles", values)
    }

    /// `GET /console/apps/:app/struggles/one?signal=&screen=&element=`: one problem by day, locale
    /// and platform, with example visits as their events.
    func strugglePage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let choice = try PeriodChoice(request, now: now())
        let parameters = request.uri.queryParameters
        guard let signal = parameters["signal"].flatMap({ StruggleSignal(rawValue: String($0)) }) else { throw ConsoleError.notFound }
        let screen = parameters["screen"].map(String.init) ?? ""
        let element = parameters["element"].map(String.init) ?? ""
        let published = try await server.publishedCatalog(app: app.id)
        let live = published?.catalog
        guard
            let (problem, next) = try await Problems(store: store).one(
                app: app.id, catalog: live, period: choice.period, signal: signal, screen: screen, element: element)
        else { throw ConsoleError.notFound }
        var values = frame("\(signal.words): \(Self.place(problem))", signedIn, app: app)
        values["period"] = choice.values
        values["backLink"] = "/console/apps/\(app.id)/struggles?\(choice.query)"
        values["explanation"] = signal.explanation
        values["summaryTable"] = ReportTable.problems([problem], link: nil).values
        func shares(_ caption: String, _ column: String, _ shares: [Problem.Share]) -> [String: Any] {
            ReportTable(caption, [column, "Users"], shares.map { [ReportTable.Cell(text: $0.name), ReportTable.number($0.users)] }).values
        }
        values["localesTable"] = shares("Users by language", "Locale", problem.locales)
        values["platformsTable"] = shares("Users by platform", "Platform", problem.platforms)
        let segments = try await Problems.segments(
            of: problem, segments: live?.segments ?? [], store: store, app: app.id, period: choice.period, now: now().millisecondsSince1970)
        if !segments.isEmpty { values["segmentsTable"] = ReportTable.segments(segments).values }
        let examples = try await store.struggleExamples(
            app: app.id, signal: signal, screen: screen, element: element, period: choice.period, limit: signal == .failedSearch ? 200 : 5)
        if signal == .failedSearch {
            var queries: [String: (times: Int, users: Set<String>)] = [:]
            for example in examples {
                queries[example.query ?? "", default: (0, [])].times += 1
                queries[example.query ?? ""]!.users.insert(example.user)
            }
            values["queriesTable"] =
                ReportTable(
                    "What was searched for (the latest 200 searches)", ["Search", "Times", "Users"],
                    queries.sorted { ($0.value.times, $1.key) > ($1.value.times, $0.key) }.map {
                        [ReportTable.Cell(text: $0.key), ReportTable.number($0.value.times), ReportTable.number($0.value.users.count)]
                    }
                ).values
        }
        // The tip Waymark proposes, backtested on this period's events before the author sees it.
        let draft = try await server.draftCatalog(app: app.id)?.catalog ?? live ?? Catalog(tips: [])
        if let proposal = problem.proposal(next: next, catalog: draft) {
            let tip = proposal.tip
            var shown: [String: Any] = [
                "id": tip.id, "reason": proposal.reason, "trigger": tip.tip.trigger.description,
                "where": tip.tip.anchor.map { "at \($0) on \(tip.tip.container)" } ?? "on \(tip.tip.container), as a banner",
                "title": tip.content.fallback.title, "body": tip.content.fallback.markdown ?? "",
                "signal": signal.rawValue, "screen": screen, "element": element,
            ]
            if let dismissal = tip.tip.dismissal { shown["dismissal"] = dismissal.description }
            if let hindi = tip.content.locales["hi"] { shown["hindi"] = ["title": hindi.title, "body": hindi.markdown ?? ""] }
            // Its backtest replays the period: counted in the background and kept like eligible
            // counts, so the page waits at most a second for it and otherwise reloads.
            let key = EligibleCache.Key(
                app: app.id, version: published?.version.number ?? 0, period: choice.period,
                tip: "proposal \(tip.tip.trigger) / \(tip.tip.dismissal?.description ?? "")")
            let store = self.store
            if let outcome = try await eligibleCache.counts(
                key, now: now(), patience: countingPatience,
                count: { try await Backtest(tips: [tip], segments: draft.segments).run(store: store, app: app.id, period: choice.period) }
            )?.first {
                var backtest: [String: Any] = [
                    "reached": outcome.users, "active": outcome.activeUsers,
                    "share": outcome.activeUsers > 0
                        ? String(format: "%.0f%%", Double(outcome.users) * 100 / Double(outcome.activeUsers)) : "—",
                ]
                if tip.tip.dismissal != nil {
                    backtest["acted"] =
                        outcome.users > 0 ? String(format: "%.0f%%", Double(outcome.acted) * 100 / Double(outcome.users)) : "—"
                }
                shown["backtest"] = backtest
            } else {
                values["refresh"] = Self.countingRefresh
            }
            values["proposal"] = shown
        } else {
            values["noProposal"] = true
        }
        // Did a live tip there help: the sign before and after it was published, and after it beside
        // the users it held out (or was not shown to).
        if let live, let id = problem.addressedBy.first, let tip = live.tips.first(where: { $0.id == id }),
            let published = try await Eligibility.firstPublished(app: app.id, store: store)[id]
        {
            let effect = try await TipEffect.measure(
                problem, tip: tip, published: published, now: now().millisecondsSince1970, store: store, app: app.id)
            values["effectTable"] = ReportTable.effect(effect).values
            values["effect"] = [
                "tip": id, "published": Self.minute(published), "holdout": effect.holdout,
                "verdict": Self.verdict(effect),
            ]
        }
        var visits: [[String: Any]] = []
        for example in examples.prefix(5) {
            // The visit up to the sign and a little after: what the app sent, nothing more.
            let events = try await store.events(
                app: app.id, period: Period(from: example.visit, to: example.at + 30_000), user: example.user, after: nil, limit: 500)
            visits.append([
                "user": example.user, "at": Self.minute(example.at),
                "context": [example.platform, example.locale].filter { !$0.isEmpty }.joined(separator: ", "),
                "events": events.suffix(40).map { event in
                    [
                        "offset": Self.offset(event.timestamp - example.visit), "name": event.name, "target": event.target ?? "",
                        "sign": event.timestamp == example.at,
                    ] as [String: Any]
                },
            ])
        }
        values["visits"] = visits
        values["hasVisits"] = !visits.isEmpty
        return Templates.page("struggle", values)
    }

    /// `POST /console/apps/:app/struggles/propose`: puts the proposed tip of a problem in the draft
    /// and opens it in the tip form, for the author to finish its words.
    func proposeTip(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let app = access.app
        guard let signal = form["signal"].flatMap(StruggleSignal.init(rawValue:)) else { throw ConsoleError.badRequest("no such sign") }
        let (screen, element) = (form["screen"] ?? "", form["element"] ?? "")
        let period = Period(
            from: form["from"].flatMap { Timestamp.parse($0 + "T00:00:00Z") } ?? 0,
            to: (form["to"].flatMap { Timestamp.parse($0 + "T00:00:00Z") } ?? now().millisecondsSince1970) + Period.day)
        let live = try await server.publishedCatalog(app: app.id)?.catalog
        guard
            let (problem, next) = try await Problems(store: store).one(
                app: app.id, catalog: live, period: period, signal: signal, screen: screen, element: element)
        else { throw ConsoleError.notFound }
        var made: String?
        let errors = try await saveEdit(app: app, actor: access.signedIn.actor) { catalog in
            guard let proposal = problem.proposal(next: next, catalog: catalog) else {
                throw FieldError(field: "form", message: "no rule can name this screen or element")
            }
            catalog.tips.append(proposal.tip)
            made = proposal.tip.id
        }
        guard errors.isEmpty, let made else {
            throw ConsoleError.badRequest(errors.values.compactMap { $0["message"] }.joined(separator: " "))
        }
        return .redirect(to: "/console/apps/\(app.id)/tips/\(made)?proposed=1", type: .normal)
    }

    /// Where a problem is, in words: the screen, and the element or other screen.
    static func place(_ problem: Problem) -> String {
        let screen = problem.screen.isEmpty ? "before the first screen" : "on \(problem.screen)"
        switch problem.signal {
        case .rageTaps, .deadTap: return "\(problem.element) \(screen)"
        case .backAndForth: return "\(problem.screen) and \(problem.element)"
        case .uTurn: return "\(problem.screen), back to \(problem.element)"
        case .stopped: return "\(problem.screen), before \(problem.element)"
        case .failedSearch: return "\(problem.element == "help_searched" ? "the help" : problem.element) \(screen)"
        case .idle: return problem.screen
        }
    }

    /// What the comparison after publication says, in a sentence.
    static func verdict(_ effect: TipEffect) -> String {
        guard Statistics.enoughForTest([effect.with, effect.without]) || (effect.with.trials >= 20 && effect.without.trials >= 20),
            let p = effect.pValue, let with = effect.with.rate, let without = effect.without.rate
        else { return "Not enough users on each side yet to tell." }
        let change = with < without ? "fewer" : "more"
        let sides = effect.holdout ? "users its rollout includes than among those it holds out" : "users shown it than among the others"
        return p < 0.05
            ? "The sign is \(change) frequent among \(sides) (p = \(String(format: "%.3f", p))): unlikely to be chance."
            : "No clear difference among \(sides) yet (p = \(String(format: "%.2f", p)))."
    }

    /// A moment to the minute, as people read it: `2026-11-28 09:14 UTC`.
    static func minute(_ millis: Int64) -> String {
        Timestamp.format(Date(millisecondsSince1970: millis)).prefix(16).replacingOccurrences(of: "T", with: " ") + " UTC"
    }

    /// Minutes and seconds since a visit began: `+1:05`.
    static func offset(_ millis: Int64) -> String {
        let seconds = max(0, millis / 1000)
        return String(format: "+%d:%02d", seconds / 60, seconds % 60)
    }
}

extension StruggleSignal {
    /// What it is called in the console, for an author.
    var words: String {
        switch self {
        case .rageTaps: "Tapped again and again"
        case .deadTap: "Tapped, nothing happened"
        case .backAndForth: "Back and forth"
        case .uTurn: "Left at once"
        case .failedSearch: "Searched, found nothing"
        case .idle: "Waited long before leaving"
        case .stopped: "Stopped before the usual next step"
        }
    }

    /// What it means, in a sentence for an author.
    var explanation: String {
        switch self {
        case .rageTaps: "People tapped this element three times or more within two seconds, as people do when it does not answer."
        case .deadTap: "People tapped this element and nothing followed for two seconds: no other screen, nothing else done."
        case .backAndForth:
            "People went from one of these screens to the other and back, twice or more in one visit, looking for something."
        case .uTurn: "People arrived on this screen and went straight back, within five seconds."
        case .failedSearch: "People searched and found nothing. What they typed is below."
        case .idle: "People waited a minute or more on this screen, without doing anything, before going on."
        case .stopped: "Most visits go on from this screen to the next step; these ended here instead."
        }
    }
}

extension ReportTable {
    /// A tip's effect on a problem: the share of users on the screen with the sign, before and
    /// after the tip was published, and after it with and without the tip.
    static func effect(_ effect: TipEffect) -> ReportTable {
        func row(_ label: String, _ share: Proportion) -> [Cell] {
            [Cell(text: label), number(share.trials), number(share.successes), percent(share.rate), interval(share)]
        }
        return ReportTable(
            "Did \(effect.tip) help?", ["When", "Users on the screen", "With the sign", "Share", "95% interval"],
            [
                row("the \(effect.days) days before it was published", effect.before),
                row("the days since (at most \(effect.days))", effect.after),
                row(effect.holdout ? "since: in its rollout" : "since: shown it", effect.with),
                row(effect.holdout ? "since: held out by its rollout" : "since: not shown it", effect.without),
            ] + effect.variants.map { row("since: \(effect.holdout ? "in its rollout" : "shown it"), variant \($0.id)", $0.share) })
    }

    /// A problem's users by segment: of each segment's members, how many had the sign.
    static func segments(_ shares: [SegmentShare]) -> ReportTable {
        ReportTable(
            "Users by segment (members as last found)", ["Segment", "Members", "With the sign", "Share"],
            shares.map { share in
                [
                    Cell(text: share.segment), number(share.members), number(share.users),
                    percent(share.members > 0 ? Double(share.users) / Double(share.members) : nil),
                ]
            })
    }

    /// Problems, one a row: where, how many, the trend, the locale and platform most touched, and
    /// the tips there already.
    static func problems(_ problems: [Problem], link: String?) -> ReportTable {
        func encoded(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
        return ReportTable(
            "Where people get lost", ["Sign", "Where", "Users", "Visits", "Times", "Trend, week on week", "Most touched", "Tips there"],
            problems.map { problem in
                let change = "\(problem.earlier) → \(problem.later)"
                let trend =
                    problem.later > problem.earlier * 5 / 4 + 1
                    ? "rising (\(change))" : problem.later * 5 / 4 + 1 < problem.earlier ? "falling (\(change))" : "steady (\(change))"
                let touched = [problem.locales.first?.name, problem.platforms.first?.name].compactMap { $0 }.joined(separator: ", ")
                return [
                    Cell(
                        text: problem.signal.words,
                        link: link.map {
                            "\($0)&signal=\(problem.signal.rawValue)&screen=\(encoded(problem.screen))&element=\(encoded(problem.element))"
                        }),
                    Cell(text: WaymarkConsole.place(problem)), number(problem.users), number(problem.visits), number(problem.occurrences),
                    Cell(text: trend), Cell(text: touched),
                    Cell(text: problem.addressedBy.isEmpty ? "none" : problem.addressedBy.joined(separator: ", ")),
                ]
            })
    }
}
