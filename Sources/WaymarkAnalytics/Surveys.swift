import Foundation
import WaymarkCatalog
import WaymarkStore

/// The answers to one survey in one group of users: how many gave each score, and the figure
/// the scale is known by.
public struct SurveyScore: Hashable, Sendable {
    public var scale: Survey.Scale
    /// Answers per score, from the scale's lowest score up.
    public var counts: [Int]

    public init(scale: Survey.Scale) {
        self.scale = scale
        counts = Array(repeating: 0, count: scale.scores.count)
    }

    public var answers: Int { counts.reduce(0, +) }

    public var mean: Double? {
        guard answers > 0 else { return nil }
        let total = counts.enumerated().reduce(0) { $0 + ($1.offset + scale.scores.lowerBound) * $1.element }
        return Double(total) / Double(answers)
    }

    /// CSAT: answers of 4 or 5. NPS: promoters, answers of 9 or 10.
    public var satisfied: Proportion {
        let top = scale == .csat ? 4 : 9
        return Proportion(counts[(top - scale.scores.lowerBound)...].reduce(0, +), of: answers)
    }

    /// NPS: detractors, answers from 0 to 6. (CSAT has none: nil.)
    public var detractors: Proportion? {
        scale == .nps ? Proportion(counts[...6].reduce(0, +), of: answers) : nil
    }

    /// The headline figure: CSAT, the percentage of satisfied answers (0 to 100); NPS, the
    /// percentage of promoters minus that of detractors (-100 to 100). nil without answers.
    public var score: Double? {
        guard let satisfied = satisfied.rate else { return nil }
        return (satisfied - (detractors?.rate ?? 0)) * 100
    }

    mutating func add(score: Int, answers: Int) {
        counts[score - scale.scores.lowerBound] += answers
    }
}

/// One comment left with a survey answer.
public struct SurveyComment: Hashable, Sendable {
    /// Midnight UTC of the day it was left, in ms since 1970.
    public var day: Int64
    public var platformVersion: PlatformVersion
    public var score: Int
    public var text: String
    /// How many answers left this same text with this score on that day, platform and app version.
    public var times: Int

    public init(day: Int64, platformVersion: PlatformVersion, score: Int, text: String, times: Int) {
        self.day = day
        self.platformVersion = platformVersion
        self.score = score
        self.text = text
        self.times = times
    }
}

public struct SurveyReport: Hashable, Sendable {
    public struct Part: Hashable, Sendable {
        public var platformVersion: PlatformVersion
        public var score: SurveyScore
    }

    public var tip: String
    public var total: SurveyScore
    /// By platform and app version, in ``PlatformVersion`` order.
    public var byPlatform: [Part]
    /// Newest day first, at most ``SurveyReport/maximumComments``.
    public var comments: [SurveyComment]
    /// Answers whose score was not a whole number on the scale: counted here, nowhere else.
    public var discarded: Int

    public static let maximumComments = 200
}

extension Analytics {
    /// The catalog's surveys, from their `survey_answered` events: one grouped count per day,
    /// platform, app version, score and comment, which is all the report needs.
    public func surveys(app: String, catalog: Catalog, period: Period) async throws -> [SurveyReport] {
        let surveys = catalog.tips.compactMap { tip in tip.survey.map { (tip.id, $0.scale) } }
        guard !surveys.isEmpty else { return [] }
        let rows = try await store.tally(
            app: app,
            TallyQuery(
                period: period, names: [Survey.answerEvent], byName: false,
                by: [.target, .day, .platform, .appVersion, .property("score"), .property("comment")]
            )
        )
        var reports: [String: SurveyReport] = [:]
        for (id, scale) in surveys where reports[id] == nil {
            reports[id] = SurveyReport(tip: id, total: SurveyScore(scale: scale), byPlatform: [], comments: [], discarded: 0)
        }
        var byPlatform: [String: [PlatformVersion: SurveyScore]] = [:]
        for row in rows {
            guard let tip = row.keys[0], var report = reports[tip] else { continue }
            guard let score = row.keys[4].flatMap({ Int($0) }), report.total.scale.scores.contains(score) else {
                report.discarded += row.events
                reports[tip] = report
                continue
            }
            let platformVersion = PlatformVersion(platform: row.keys[2], appVersion: row.keys[3])
            report.total.add(score: score, answers: row.events)
            byPlatform[tip, default: [:]][platformVersion, default: SurveyScore(scale: report.total.scale)].add(
                score: score, answers: row.events)
            if let text = row.keys[5]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty {
                report.comments.append(
                    SurveyComment(
                        day: row.keys[1].flatMap { Int64($0) } ?? 0, platformVersion: platformVersion, score: score, text: text,
                        times: row.events)
                )
            }
            reports[tip] = report
        }
        return surveys.compactMap { id, _ in
            guard var report = reports[id] else { return nil }
            report.byPlatform = (byPlatform[id] ?? [:]).sorted { $0.key < $1.key }.map {
                SurveyReport.Part(platformVersion: $0.key, score: $0.value)
            }
            report.comments = Array(
                report.comments.sorted { ($1.day, $0.platformVersion, $0.text) < ($0.day, $1.platformVersion, $1.text) }.prefix(
                    SurveyReport.maximumComments)
            )
            return report
        }
    }
}
