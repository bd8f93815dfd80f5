import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOFoundationEssentialsCompat
import Testing
import WaymarkAnalytics
import WaymarkServer
import WaymarkStore
import WaymarkSupport
import WaymarkTestSupport

extension ConsoleTests {
    /// "Where people get lost" lists what the refresher found, most users first, and opens one
    /// problem with its languages, platforms and example visits; the admin API answers the same.
    @Test(arguments: StoreUnderTest.available)
    func wherePeopleGetLostIsListedWithExampleVisits(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            let app = setup.shop.appId
            let today = Period.startOfDay(setup.clock.now.millisecondsSince1970)
            _ = try await setup.store.insertEvents(StruggleStoreTests.events(app: app, today: today))
            let refresher = StruggleRefresher(store: setup.store, logger: Logger(label: "test"), now: { setup.clock.now })
            for day in [today - Period.day, today] { try await refresher.look(app: app, day: day) }

            var browser = try await Self.owner(setup)
            let page = String(buffer: try await browser.get("/console/apps/\(app)/struggles").body)
            let rows = page.matches(of: /<tr data-key="([^"]+)"><td><a href="([^"]+)">/).map { (String($0.1), String($0.2)) }
            #expect(rows.map(\.0) == ["Tapped again and again", "Searched, found nothing"], "\(page.suffix(3000))")
            #expect(page.contains("<td>pay on cart</td><td>2</td><td>2</td><td>2</td>"))
            #expect(page.contains("<td>the help on orders</td>"))
            #expect(page.contains("events last read"))

            // The proposal's backtest is counted in the background: the page waits a second for
            // it, and otherwise says so and reloads.
            var one = ""
            for _ in 0..<100 {
                one = String(buffer: try await browser.get(rows[0].1.replacingOccurrences(of: "&amp;", with: "&")).body)
                if !one.contains("Replaying this period") { break }
                #expect(one.contains("<meta http-equiv=\"refresh\""))
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(one.contains("People tapped this element three times or more within two seconds"))
            #expect(one.contains("<td>android</td><td>1</td>") && one.contains("<td>ios</td><td>1</td>"))
            // The example visits: what the app sent, the sign marked.
            #expect(one.matches(of: /<li class="sign">/).count == 2)
            #expect(one.contains("<code>tap</code> <code>pay</code> ← the sign"))
            // The proposed tip, backtested on the period before it is shown: c and a tapped pay thrice within 3 s.
            #expect(one.contains("<code>count(tap:pay) &gt;= 3 within 3s</code>"), "\(one.suffix(4000))")
            #expect(one.contains("would have reached <strong>2</strong> of 3 active users (67%)"))
            #expect(one.contains("Put it in the draft as lost-rage-taps-cart-pay"))
            let fields = [("signal", "rage_taps"), ("screen", "cart"), ("element", "pay")]
            let put = try await browser.post("/console/apps/\(app)/struggles/propose", fields)
            #expect(put.status == .seeOther && put.headers[.location] == "/console/apps/\(app)/tips/lost-rage-taps-cart-pay?proposed=1")
            let form = String(buffer: try await browser.get(put.headers[.location] ?? "").body)
            #expect(form.contains("Waymark proposed this tip where people get lost"))
            let drafted = try #require(try await setup.store.draft(app: app)?.document)
            #expect(drafted.contains("id: lost-rage-taps-cart-pay") && drafted.contains("anchor: pay"))
            #expect(drafted.contains("trigger: count(tap:pay) >= 3 within 3s"))
            // Again: the next one takes a free id.
            _ = try await browser.post("/console/apps/\(app)/struggles/propose", fields)
            #expect(try await setup.store.draft(app: app)?.document.contains("id: lost-rage-taps-cart-pay-2") == true)
            let search = String(buffer: try await browser.get(rows[1].1.replacingOccurrences(of: "&amp;", with: "&")).body)
            #expect(search.contains("<td>ऑर्डर रद्द</td><td>1</td><td>1</td>"))
            #expect(try await browser.get("/console/apps/\(app)/struggles/one?signal=nonsense").status == .notFound)

            // A viewer sees it; another app's owner does not.
            var viewer = Browser(setup.client)
            _ = try await viewer.signIn("vic@example.com")
            #expect(try await viewer.get("/console/apps/\(app)/struggles").status == .ok)
            #expect(try await viewer.post("/console/apps/\(app)/struggles/propose", fields).status == .forbidden)
            var oscar = Browser(setup.client)
            _ = try await oscar.signIn("oscar@example.com")
            #expect(try await oscar.get("/console/apps/\(app)/struggles").status == .notFound)

            // The admin API: the same problems, for the app of the key only.
            let (from, to) = (
                Timestamp.format(Date(millisecondsSince1970: today - Period.day)),
                Timestamp.format(Date(millisecondsSince1970: today + Period.day))
            )
            let listed = try await setup.client.execute(
                uri: "/v1/admin/struggles?from=\(from)&to=\(to)", method: .get, headers: [.authorization: "Bearer \(setup.shop.secretKey)"])
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: listed.body)) as? [String: Any])
            let problems = try #require(json["problems"] as? [[String: Any]])
            #expect(
                problems.map { "\($0["signal"]!) \($0["screen"]!) \($0["element"]!) \($0["users"]!)" } == [
                    "rage_taps cart pay 2", "failed_search orders help_searched 1",
                ])
            let proposal = try #require(problems.first?["proposal"] as? [String: Any])
            #expect(proposal["trigger"] as? String == "count(tap:pay) >= 3 within 3s" && proposal["anchor"] as? String == "pay")
            #expect(proposal["id"] as? String == "lost-rage-taps-cart-pay-3", "two are in the draft already")
            // Once a tip there is published, the problem's page asks whether it helped.
            let auth: HTTPFields = [.authorization: "Bearer \(setup.shop.secretKey)"]
            let document = """
                segments:
                  - { name: payers, rule: 'count(tap:pay) >= 1 within 7d' }
                tips:
                  - id: pay-help
                    container: cart
                    anchor: pay
                    trigger: count(tap:pay) >= 3 within 3s
                    rollout: 50
                    content: { title: Wait a moment }
                """
            _ = try await setup.client.execute(
                uri: "/v1/admin/catalog/draft", method: .put, headers: auth, body: ByteBuffer(string: document))
            #expect(try await setup.client.execute(uri: "/v1/admin/catalog/publish", method: .post, headers: auth).status == .created)
            try await setup.store.replaceSegmentMembers(app: app, ["payers": ["a", "c", "x"]])
            let helped = String(buffer: try await browser.get(rows[0].1.replacingOccurrences(of: "&amp;", with: "&")).body)
            #expect(helped.contains("Users by segment") && helped.contains("<td>payers</td><td>3</td><td>2</td><td>66.7%</td>"))
            #expect(helped.contains("Did the tip there help?") && helped.contains("Did pay-help help?"), "\(helped.suffix(3000))")
            #expect(helped.contains("since: held out by its rollout"))
            let other = try await setup.client.execute(
                uri: "/v1/admin/struggles", method: .get, headers: [.authorization: "Bearer \(setup.other.secretKey)"])
            #expect(String(buffer: other.body).contains(#""problems":[]"#))
            let bad = try await setup.client.execute(
                uri: "/v1/admin/struggles?from=yesterday", method: .get, headers: [.authorization: "Bearer \(setup.shop.secretKey)"])
            #expect(bad.status == .badRequest)
        }
    }
}
