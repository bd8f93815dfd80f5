import Foundation
import Logging
import WaymarkAPI
import WaymarkAnalytics
import WaymarkCatalog
import WaymarkDelivery
import WaymarkEngine
import WaymarkRules
import WaymarkServer
import WaymarkStore
import WaymarkSupport

/// Two weeks of made-up shoppers for the demo, so the console's analytics have something to show.
///
/// Nothing is faked after the fact: each shopper gets the catalog resolved for their platform,
/// version and id (targeting, rollout and A/B variant as delivery decides them), and their taps and
/// screens go through the same ``Engine`` an SDK runs; the events are the ones an SDK would then
/// send (`tip_shown` when the engine shows a tip, `tip_dismissed` when its rule dismisses it,
/// `tip_closed` when the shopper closes it, `tip_action` when they press one of its buttons,
/// `hotspot_opened`, the checklist's items as their rules hold, and the help's opens and searches,
/// some of which find nothing). Some of them get lost where the console's "Where people get lost"
/// then shows: Android shoppers tap a slow checkout again and again, half who open the reviews go
/// straight back, Hindi searches for cancelling an order find nothing, and many leave the cart. The shoppers are drawn from a seeded generator, so
/// every demo has the same history, ending at the moment it starts.
struct DemoTraffic {
    struct Shopper {
        var id: String
        var platform: String
        var model: String
        var appVersion: String
        var locale: String
        /// Chance of opening the app on a given day.
        var activity: Double
    }

    let catalog: Catalog
    let resolver: Resolver
    let end: Date
    var random = SplitMix64(seed: 2026)

    init(catalog: Catalog, end: Date) {
        self.catalog = catalog
        self.end = end
        resolver = Resolver(catalog: catalog, version: 1)
    }

    static let days = 14

    /// The shoppers: Android users open the app less often than iOS and web users, which the
    /// engagement chart then shows.
    mutating func shoppers() -> [Shopper] {
        var shoppers: [Shopper] = []
        let kinds: [(platform: String, count: Int, models: [String], versions: [String], activity: Double)] = [
            ("ios", 60, ["iPhone15,2", "iPhone14,5", "iPad13,1"], ["1.2", "1.3", "1.4"], 0.6),
            ("android", 80, ["Pixel 8", "SM-A515F"], ["1.2", "1.3"], 0.3),
            ("web", 40, ["web"], ["1.4"], 0.5),
        ]
        for kind in kinds {
            for number in 1...kind.count {
                shoppers.append(
                    Shopper(
                        id: "\(kind.platform)-\(number)", platform: kind.platform, model: pick(kind.models),
                        appVersion: pick(kind.versions),
                        locale: pick(["en", "en", "en", "hi-IN", "ta"]), activity: kind.activity
                    ))
            }
        }
        return shoppers
    }

    /// Every shopper's events, in time order per shopper, and the reward claims of the tour.
    mutating func events() -> (events: [IncomingEvent], grants: [(user: String, page: String, at: Date)]) {
        var events: [IncomingEvent] = []
        var grants: [(String, String, Date)] = []
        let start = end.addingTimeInterval(-Double(Self.days) * 86_400)
        for shopper in shoppers() {
            let client = ClientContext(
                platform: shopper.platform, model: shopper.model, appVersion: shopper.appVersion, locale: shopper.locale, user: shopper.id
            )
            let delivered = resolver.resolve(for: client)
            let variants = Dictionary(delivered.tips.map { ($0.id, $0.variant) }, uniquingKeysWith: { a, _ in a })
            var engine = Engine(
                tips: catalog.tips.filter { variants.keys.contains($0.id) }.map(\.tip), configuration: .init(frequency: catalog.frequency)
            )
            let base = ["platform": shopper.platform, "appVersion": shopper.appVersion, "locale": shopper.locale, "model": shopper.model]
            func add(_ name: String, _ target: String?, _ time: Date, _ extra: [String: String] = [:]) {
                var properties = base.merging(extra) { $1 }.mapValues(ContextValue.string)
                // A search's count of results is a number, as the SDKs send it.
                if let results = extra["results"].flatMap(Double.init) { properties["results"] = .number(results) }
                events.append(
                    IncomingEvent(
                        id: EventID.make(milliseconds: time.millisecondsSince1970, number: events.count), user: shopper.id, name: name,
                        target: target, timestamp: Timestamp.format(time), properties: properties
                    ))
            }
            func perform(_ commands: [RenderCommand]) {
                for command in commands {
                    var properties = ["tip": command.tip, "container": command.container]
                    if let variant = variants[command.tip] ?? nil { properties["variant"] = variant }
                    switch (command.action, command.reason) {
                    case (.show, _): add("tip_shown", command.tip, command.time, properties)
                    case (.hide, .closed?): add("tip_closed", command.tip, command.time, properties)
                    case (.hide, .dismissed?): add("tip_dismissed", command.tip, command.time, properties)
                    default: break
                    }
                }
            }
            var tourDone = false
            // The first checklist's items, done as their rules hold, as an SDK runs them.
            let checklist = catalog.checklists.first
            var checklistRules = Evaluator(rules: checklist?.items.map(\.done) ?? [])
            var itemsDone: Set<String> = []
            var checklistStarted: Date?
            var hotspotsOpened: Set<String> = []
            for day in 0..<Self.days where chance(shopper.activity) {
                var time = start.addingTimeInterval(Double(day) * 86_400 + Double(8 * 3600 + next(12 * 3600)))
                for _ in 0..<(1 + next(2)) {
                    func act(_ name: String, _ target: String? = nil, after seconds: Double? = nil) {
                        time += seconds ?? Double(2 + next(40))
                        add(name, target, time)
                        perform(engine.record(name, target: target, at: time))
                        if let checklist, itemsDone.count < checklist.items.count {
                            checklistStarted = checklistStarted ?? time
                            checklistRules.record(name, target: target, at: time)
                            for (index, item) in checklist.items.enumerated()
                            where !itemsDone.contains(item.id) && checklistRules.value(ofRule: index) {
                                itemsDone.insert(item.id)
                                add("checklist_item_done", checklist.id, time, ["checklist": checklist.id, "item": item.id])
                            }
                            if itemsDone.count == checklist.items.count {
                                let seconds = Int(time.timeIntervalSince(checklistStarted ?? time))
                                add("checklist_completed", checklist.id, time, ["checklist": checklist.id, "seconds": String(seconds)])
                            }
                        }
                        for tip in catalog.tips
                        where tip.renderer == .hotspot && engine.phase(of: tip.id) == .active
                            && !hotspotsOpened.contains(tip.id) && chance(0.3)
                        {
                            hotspotsOpened.insert(tip.id)
                            add("hotspot_opened", tip.id, time + 1, ["tip": tip.id])
                        }
                        // Some shoppers close a tip that has just appeared rather than follow it.
                        for tip in catalog.tips.map(\.id) where engine.phase(of: tip) == .active && chance(0.06) {
                            time += 1
                            perform(engine.close(tip: tip, at: time))
                        }
                        // Some press one of its buttons: the press first (a dismissal may read it), then the tip closes.
                        for tip in catalog.tips
                        where tip.survey == nil && !tip.actions.isEmpty && engine.phase(of: tip.id) == .active
                            && chance(0.25)
                        {
                            let action = pick(tip.actions)
                            var properties = ["tip": tip.id, "action": action.id, "kind": action.effect.kind]
                            properties["to"] = action.effect.destination
                            time += Double(2 + next(10))
                            add(DeliveredAction.tipEvent, tip.id, time, properties)
                            perform(
                                engine.record(
                                    DeliveredAction.tipEvent, target: tip.id, properties: properties.mapValues(ContextValue.string),
                                    at: time))
                            perform(engine.close(tip: tip.id, at: time))
                        }
                        for tip in catalog.tips where tip.survey != nil && engine.phase(of: tip.id) == .active && chance(0.7) {
                            time += Double(3 + next(20))
                            var answer = answer(shopper.platform)
                            answer["tip"] = tip.id
                            add(Survey.answerEvent, tip.id, time, answer)
                            perform(engine.record(Survey.answerEvent, target: tip.id, at: time))
                        }
                    }
                    // A tap that opens a screen: the screen a moment later, as an app answers.
                    func go(_ target: String, to screen: String) {
                        act("tap", target)
                        act("screen", screen, after: 0.3 + Double(next(1200)) / 1000)
                    }
                    act("activation")
                    act("screen", "home")
                    if chance(0.5) {
                        act("scroll")
                        if chance(0.3) { act("pan", "product-carousel") }
                    }
                    if chance(0.3) {
                        go("search-hint", to: "search")
                    } else if chance(0.4) {
                        go("search", to: "search")
                    }
                    for _ in 0..<next(4) {
                        act("screen", "product")
                        if chance(0.35) {
                            act("tap", "add-to-cart")
                            act("added_to_cart", "jacket", after: 0.2 + Double(next(400)) / 1000)
                        }
                        if chance(0.2) {
                            go("reviews", to: "reviews")
                            // The reviews screen disappoints: half go straight back (a U-turn).
                            act("screen", "product", after: chance(0.5) ? 1 + Double(next(3000)) / 1000 : Double(15 + next(40)))
                        }
                    }
                    if chance(0.3) {
                        act("screen", "cart")
                        if chance(0.55) {
                            // Checkout is slow on Android phones: many tap it again and again before it answers.
                            act("tap", "checkout")
                            if shopper.platform == "android" && chance(0.6) {
                                for _ in 0..<(2 + next(3)) { act("tap", "checkout", after: 0.25 + Double(next(300)) / 1000) }
                            }
                            act("screen", "checkout", after: 0.5 + Double(next(1500)) / 1000)
                        }
                    }
                    if !catalog.articles.isEmpty && chance(shopper.locale.hasPrefix("hi") ? 0.3 : 0.12) {
                        time += Double(5 + next(20))
                        add("help_opened", nil, time, ["screen": "home"])
                        if chance(0.7) {
                            let query = pick(shopper.locale.hasPrefix("hi") && chance(0.8) ? Self.hindiQueries : Self.helpQueries)
                            let found = catalog.articles.filter { Self.finds($0, query) }
                            time += Double(4 + next(10))
                            add("help_searched", nil, time, ["query": query, "results": String(found.count), "screen": "home"])
                            if let article = found.first, chance(0.6) {
                                add("article_opened", article.id, time + 3, ["article": article.id])
                            }
                        }
                    }
                    if !tourDone && chance(0.08) {
                        tourDone = true
                        act("tap", "tour-start")
                        for (index, page) in (catalog.tours.first?.pages ?? []).enumerated() {
                            // The tour opens at once on its first page.
                            time += index == 0 ? 0.5 : Double(5 + next(30))
                            add("page_viewed", page.id, time, ["tour": "shop-tour", "page": page.id])
                            if let media = page.media, chance(0.6) {
                                add("video_played", media, time + 2, ["tour": "shop-tour", "page": page.id])
                            }
                            guard chance(0.7) else { break }
                            time += Double(10 + next(60))
                            add("page_read_to_bottom", page.id, time, ["tour": "shop-tour", "page": page.id])
                            if page.reward != nil { grants.append((shopper.id, page.id, time)) }
                        }
                    }
                    time += Double(600 + next(7200))
                }
            }
        }
        return (events, grants)
    }

    /// What the made-up shoppers type in the help: some of it the demo's articles answer, some not.
    static let helpQueries = ["delivery", "cash", "refund", "gift wrap", "emi", "डिलीवरी", "order status", "cod"]
    /// What Hindi speakers type: cancelling an order, which no article explains, most of all.
    static let hindiQueries = ["ऑर्डर रद्द करें", "ऑर्डर रद्द करें", "पैसे वापस", "डिलीवरी"]

    /// Whether an article's words (title, text, keywords, in any of its locales) hold every word of
    /// `query`: close enough to the SDKs' search for made-up traffic.
    static func finds(_ article: Article, _ query: String) -> Bool {
        let contents = [article.content.fallback] + Array(article.content.locales.values)
        let text = (contents.flatMap { [$0.title, $0.markdown ?? $0.html] } + article.keywords).joined(separator: " ").lowercased()
        return query.lowercased().split(separator: " ").allSatisfy { text.contains($0) }
    }

    /// Stores the history of the days before today (UTC) and writes it, as the SDKs would send it,
    /// to `sample-events.jsonl` in the data directory; returns how many events it stored.
    static func seed(catalog: Catalog, app: String, store: any Store, directory: String) async throws -> Int {
        let now = Date().millisecondsSince1970
        var traffic = DemoTraffic(catalog: catalog, end: Date(millisecondsSince1970: Period.startOfDay(now)))
        let (events, grants) = traffic.events()
        let stored = events.map { event in
            let time = Timestamp.parse(event.timestamp) ?? now
            // Stored as the server stores an upload.
            return StoredEvent(
                app: app, id: event.id, user: event.user, name: event.name, target: event.target, timestamp: time, receivedAt: time,
                clamped: false, members: event.storedProperties
            )
        }
        for start in stride(from: 0, to: stored.count, by: 5_000) {
            _ = try await store.insertEvents(Array(stored[start..<min(start + 5_000, stored.count)]))
        }
        for (number, grant) in grants.enumerated() {
            let credits = catalog.tours.first?.pages.first { $0.id == grant.page }?.reward ?? 0
            _ = try await store.claim(
                Grant(
                    id: "demo-grant-\(number)", app: app, user: grant.user, tour: "shop-tour", page: grant.page, credits: credits,
                    grantedAt: grant.at),
                credits: { [cap = catalog.rewards.maxCreditsPerUser] balance in
                    CreditCap.credits(offered: credits, balance: balance, cap: cap)
                }
            )
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var lines = Data()
        for event in events {
            lines += try encoder.encode(event)
            lines += Data("\n".utf8)
        }
        try lines.write(to: URL(fileURLWithPath: (directory as NSString).appendingPathComponent("sample-events.jsonl")))
        // Where these shoppers got lost, read now: the background refresher may have looked at
        // these days before they had their events, and would not look again.
        let struggles = StruggleRefresher(store: store, logger: Logger(label: "waymark.demo"))
        let today = Period.startOfDay(now)
        for day in stride(from: today - Int64(days) * Period.day, to: today, by: Int(Period.day)) {
            try await struggles.look(app: app, day: day)
        }
        return stored.count
    }

    /// A survey answer: web shoppers find checking out a little harder than app users; some leave
    /// a comment.
    private mutating func answer(_ platform: String) -> [String: String] {
        let weights = platform == "web" ? [1, 2, 4, 6, 3] : [0, 1, 2, 6, 7]
        var draw = next(weights.reduce(0, +))
        var score = 1
        for weight in weights {
            if draw < weight { break }
            draw -= weight
            score += 1
        }
        var answer = ["score": String(score)]
        if chance(0.3) {
            answer["comment"] = pick(
                score >= 4
                    ? ["Quick and clear.", "Saved address made it easy.", "Fine."]
                    : ["The address form is long.", "Card page was slow.", "Hard to find the button."]
            )
        }
        return answer
    }

    private mutating func next(_ bound: Int) -> Int { bound > 0 ? Int(random.next() % UInt64(bound)) : 0 }
    private mutating func chance(_ probability: Double) -> Bool { Double(random.next() % 1_000_000) / 1_000_000 < probability }
    private mutating func pick<T>(_ values: [T]) -> T { values[next(values.count)] }
}
