import Foundation
import Hummingbird
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkRules
import WaymarkServer
import WaymarkStore

/// Segments: named groups of users that targeting reads as `segment:<name>`, edited in the draft
/// like tips, each with how many users it matched in a chosen period.
extension WaymarkConsole {
    /// `GET /console/apps/:app/segments`: the draft's segments, with the users each matched among
    /// those active in the period: read from the days kept for the live catalog's segments, and
    /// for the others one replay of the period's events for all of them.
    func segmentsPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let choice = try PeriodChoice(request, now: now())
        let catalog = try await server.draftCatalog(app: app.id)?.catalog ?? Catalog(tips: [])
        var values = frame("Segments", signedIn, app: app)
        values["period"] = choice.values
        values["historyDays"] = Segment.historyDays
        values["saved"] = request.uri.queryParameters["saved"].map(String.init)
        if !catalog.segments.isEmpty {
            // A segment the kept days do not hold is replayed over the period (39 s over 10
            // million events): counted in the background like eligible counts.
            let version = try await server.publishedCatalog(app: app.id)?.version.number ?? 0
            let key = SegmentsCache.Key(
                app: app.id, version: version, period: choice.period,
                tip: "segments " + catalog.segments.map { "\($0.name) \($0.rule)" }.joined(separator: "\n"))
            let segments = catalog.segments
            if let counted = try await segmentsCache.counts(
                key, now: now(), patience: countingPatience,
                count: {
                    let started = ContinuousClock.now
                    let outcome = try await segmentMembers(segments, app: app.id, period: choice.period)
                    return (outcome, (ContinuousClock.now - started) / .seconds(1))
                })
            {
                values["elapsed"] = String(format: "%.2f s", counted.seconds)
                values["table"] = Self.segmentsTable(catalog.segments, counted.outcome, app: app.id).values
                values["activeUsers"] = counted.outcome.users
            } else {
                values["counting"] = true
                values["refresh"] = Self.countingRefresh
            }
        }
        return Templates.page("segments", values)
    }

    /// Who was in each segment during the period, of the users active in it: the live catalog's
    /// segments from the days kept for them, the rest replayed.
    func segmentMembers(_ segments: [Segment], app: String, period: Period) async throws -> SegmentReplay.Outcome {
        let live = try await Eligibility.live(app: app, store: store)
        let (members, replayed) = try await SegmentReplay.members(
            of: segments, store: store, app: app, period: period, kept: live.map { ($0, store) })
        // With nothing replayed, the period's active users come from the rollups.
        guard let replayed else {
            let users = try await store.tally(app: app, TallyQuery(period: period, byName: false)).first?.users ?? 0
            return SegmentReplay.Outcome(users: users, members: members)
        }
        return SegmentReplay.Outcome(users: replayed, members: members)
    }

    static func segmentsTable(_ segments: [Segment], _ outcome: SegmentReplay.Outcome, app: String) -> ReportTable {
        ReportTable(
            "Segments", ["Segment", "What it is", "Rule", "Reads", "Users matched", "Of active users"],
            zip(segments, outcome.members).map { segment, members in
                [
                    ReportTable.Cell(text: "segment:" + segment.name, link: "/console/apps/\(app)/segments/\(segment.name)"),
                    .init(text: segment.summary), .init(text: segment.rule.description),
                    .init(text: segment.readsHistory ? "attributes and history" : "attributes"),
                    .init(text: String(members.count)),
                    ReportTable.percent(Proportion(members.count, of: outcome.users).rate),
                ]
            }
        )
    }

    func segmentPage(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess, new: Bool) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        if new { return try await segmentForm(signedIn, app, ["name": "", "summary": "", "rule": ""], new: true) }
        let catalog = try await server.draftCatalog(app: app.id)?.catalog ?? Catalog(tips: [])
        guard let name = context.parameters.get("name"), let segment = catalog.segments.first(where: { $0.name == name }) else {
            throw ConsoleError.notFound
        }
        return try await segmentForm(
            signedIn, app, ["name": segment.name, "summary": segment.summary, "rule": segment.rule.description], new: false)
    }

    /// Saves the form's segment to the draft: the rule must read as a segment's, and a new name
    /// must be free.
    func saveSegment(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let form = access.form
        let (signedIn, app) = (access.signedIn, access.app)
        let isNew = form["new"] == "1"
        var values = ["name": form["name"] ?? "", "summary": form["summary"] ?? "", "rule": form["rule"] ?? ""]
        if !isNew { values["name"] = context.parameters.get("name") ?? "" }
        let name = values.text("name") ?? ""
        var errors = RuleCheck.errors(values, [("rule", required: "a segment needs a rule: who is in it", kind: .segment)])
        if !Segment.isName(name) {
            errors["name"] = ["message": "a name of the rule language: letters, digits, _ and -, at most 64 bytes"]
        }
        if errors.isEmpty {
            errors = try await saveEdit(app: app, actor: signedIn.actor) { catalog in
                let existing = catalog.segments.firstIndex { $0.name == name }
                if isNew, existing != nil { throw FieldError(field: "name", message: "a segment \"\(name)\" exists already") }
                if !isNew, existing == nil { throw FieldError(field: "name", message: "the segment \"\(name)\" was deleted meanwhile") }
                guard let rule = try values.rule("rule") else { return }
                let segment = Segment(name: name, summary: values.text("summary") ?? "", rule: rule)
                if let existing { catalog.segments[existing] = segment } else { catalog.segments.append(segment) }
            }
            if errors.isEmpty { return .redirect(to: "/console/apps/\(app.id)/segments?saved=\(name)", type: .normal) }
        }
        return try await segmentForm(signedIn, app, values, new: isNew, errors: errors, status: .unprocessableContent)
    }

    /// Removes a segment from the draft, unless targeting still names it.
    func deleteSegment(_ request: Request, _ context: ConsoleRequestContext, _ access: AppAccess) async throws -> Response {
        let (signedIn, app) = (access.signedIn, access.app)
        let name = context.parameters.get("name") ?? ""
        let catalog = try await server.draftCatalog(app: app.id)?.catalog ?? Catalog(tips: [])
        guard let segment = catalog.segments.first(where: { $0.name == name }) else { throw ConsoleError.notFound }
        let users =
            catalog.tips.filter { Self.names(segment, $0.targeting) }.map { "tip \($0.id)" }
            + catalog.tours.filter { Self.names(segment, $0.targeting) }.map { "tour \($0.id)" }
        guard users.isEmpty else {
            let fields = ["name": segment.name, "summary": segment.summary, "rule": segment.rule.description]
            return try await segmentForm(
                signedIn, app, fields, new: false,
                errors: ["form": ["message": "Targeting still names segment:\(name): \(users.joined(separator: ", ")). Change it first."]],
                status: .conflict)
        }
        try await server.editDraft(app: app.id, actor: signedIn.actor) { $0.segments.removeAll { $0.name == name } }
        return .redirect(to: "/console/apps/\(app.id)/segments", type: .normal)
    }

    private static func names(_ segment: Segment, _ targeting: Targeting) -> Bool {
        targeting.rule.map { segmentNames(in: $0).contains(segment.name) } ?? false
    }

    private func segmentForm(
        _ signedIn: SignedIn, _ app: AppRecord, _ fields: [String: String], new: Bool, errors: [String: [String: String]] = [:],
        status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        var values = frame(new ? "New segment" : "Segment \(fields["name"] ?? "")", signedIn, app: app)
        for (name, value) in fields { values["f_" + name] = value }
        values["new"] = new
        values["hasErrors"] = !errors.isEmpty
        for (name, error) in errors { values["e_" + name] = error }
        values["historyDays"] = Segment.historyDays
        values.merge(try await ruleVocabulary(app: app.id)) { _, vocabulary in vocabulary }
        return Templates.page("segment", values, status: status)
    }
}
