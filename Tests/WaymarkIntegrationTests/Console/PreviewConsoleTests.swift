import Foundation
import Hummingbird
import HummingbirdTesting
import NIOFoundationEssentialsCompat
import Testing
import WaymarkCatalog
import WaymarkServer
import WaymarkStore
import WaymarkTestSupport

extension ConsoleTests {
    /// The shop's owner, signed in, with a draft of one tip: what previews and looks need.
    static func ownerWithADraft(_ setup: Setup) async throws -> (Browser, String) {
        var browser = try await owner(setup)
        let app = setup.shop.appId
        #expect(try await browser.post("/console/apps/\(app)/tips/new", tipFields(id: "t1")).status == .seeOther)
        return (browser, app)
    }

    /// An editor makes a preview link with its QR code, reads what the phone sent, and ends it;
    /// a viewer sees the previews but makes none.
    @Test(arguments: StoreUnderTest.available)
    func anEditorPreviewsTheDraftOnAPhoneByItsCode(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var browser = try await Self.owner(setup)
            let app = setup.shop.appId
            let empty = String(buffer: try await browser.get("/console/apps/\(app)/previews").body)
            #expect(empty.contains("There is no draft yet"))
            #expect(try await browser.post("/console/apps/\(app)/tips/new", Self.tipFields(id: "t1")).status == .seeOther)

            let refused = try await browser.post("/console/apps/\(app)/previews", [("url", "javascript:alert(1)"), ("minutes", "30")])
            #expect(refused.status == .unprocessableContent)
            #expect(String(buffer: refused.body).contains("a preview cannot open a javascript: address"))
            #expect(String(buffer: refused.body).contains(#"value="javascript:alert(1)""#), "what was typed stays in the field")

            let made = try await browser.post("/console/apps/\(app)/previews", [("url", "https://shop.example/"), ("minutes", "60")])
            #expect(made.status == .created)
            let page = String(buffer: made.body)
            let link = try #require(page.firstMatch(of: /value="(https:\/\/shop\.example\/\?waymark-preview=wm_preview_[0-9a-f]{48})"/)?.1)
            #expect(page.contains(#"<svg xmlns="http://www.w3.org/2000/svg""#) && page.contains(#"aria-label="QR code""#))
            #expect(page.contains(#"<option value="60" selected>1 hour</option>"#))
            #expect(!page.contains("names this computer"))

            let previews = try await setup.store.previews(app: app)
            let preview = try #require(previews.first)
            #expect(previews.count == 1 && preview.url == "https://shop.example/" && preview.createdBy == "user:ada@example.com")
            #expect(preview.expiresAt.timeIntervalSince(preview.createdAt) == 3600)
            // The form offers the same address next time.
            #expect(String(buffer: try await browser.get("/console/apps/\(app)/previews").body).contains(#"value="https://shop.example/""#))

            // The phone's events are listed on the preview's page, and nowhere else.
            let token = String(link.split(separator: "=").last!)
            let body =
                #"{"events":[{"id":"018f4b2a-0000-7000-8000-00000000000b","user":"phone","name":"screen","target":"cart","timestamp":"2026-11-27T10:00:00Z"}]}"#
            let sent = try await setup.client.execute(
                uri: "/v1/events", method: .post, headers: [.authorization: "Bearer \(token)"], body: ByteBuffer(string: body))
            #expect(sent.status == .ok)
            let events = String(buffer: try await browser.get("/console/apps/\(app)/previews/\(preview.id)").body)
            #expect(events.contains("<code>screen</code></td><td><code>cart</code>"), "\(events.suffix(1500))")
            #expect(try await setup.store.eventCount(app: app) == 0)

            // A viewer sees the list, not the form, and cannot make or end one.
            var viewer = Browser(setup.client)
            _ = try await viewer.signIn("vic@example.com")
            let seen = String(buffer: try await viewer.get("/console/apps/\(app)/previews").body)
            #expect(seen.contains(preview.id) && !seen.contains("Make a preview link") && !seen.contains("now</button>"))
            #expect(try await viewer.post("/console/apps/\(app)/previews", [("url", "https://shop.example/")]).status == .forbidden)
            #expect(try await viewer.post("/console/apps/\(app)/previews/\(preview.id)/end", []).status == .forbidden)

            let ended = try await browser.post("/console/apps/\(app)/previews/\(preview.id)/end", [])
            #expect(
                String(buffer: ended.body).contains("has ended: its link no longer opens the draft"),
                "\(String(buffer: ended.body).suffix(800))")
            #expect(try await setup.store.preview(app: app, id: preview.id)?.endedAt != nil)
            let audit = try await setup.store.auditLog(app: app, limit: 5).map(\.action.description)
            #expect(audit.prefix(2) == ["preview.end", "preview.create"])

            // An address a phone cannot reach is made, with a warning.
            for (url, warned) in [("http://127.0.0.1:8080/", true), ("http://localhost/", true), ("http://192.168.1.20:8080/demo/", false)]
            {
                let local = try await browser.post("/console/apps/\(app)/previews", [("url", url), ("minutes", "15")])
                #expect(
                    String(buffer: local.body).contains("names this computer: a phone that opens it reaches itself") == warned, "\(url)")
            }
        }
    }
}

extension ConsoleTests {
    /// A paired phone's screen is shown with its anchors and areas as boxes that open the tip form
    /// with the element and its area filled in; the picture is served as what it is.
    @Test(arguments: StoreUnderTest.available)
    func aCapturedScreenOffersItsElementsAsBoxes(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var (browser, app) = try await Self.ownerWithADraft(setup)
            let made = String(buffer: try await browser.post("/console/apps/\(app)/previews", [("url", "myshop://home")]).body)
            let token = try #require(made.firstMatch(of: /waymark-preview=(wm_preview_[0-9a-f]{48})/)?.1)
            let png = Data(ClientTests.png).base64EncodedString()
            let body = """
                {"platform":"android","screen":"product","width":360,"height":740,"image":"\(png)",
                 "anchors":[{"name":"add-to-cart","x":16,"y":660,"width":328,"height":48},{"name":"<b>x","x":0,"y":0,"width":10,"height":10}],
                 "areas":[{"name":"product","x":0,"y":0,"width":360,"height":740},{"name":"footer","x":0,"y":640,"width":360,"height":100}]}
                """
            let sent = try await setup.client.execute(
                uri: "/v1/captures", method: .post, headers: [.authorization: "Bearer \(token)"], body: ByteBuffer(string: body))
            #expect(sent.status == .created, "\(String(buffer: sent.body))")
            let refused = try await setup.client.execute(
                uri: "/v1/captures", method: .post, headers: [.authorization: "Bearer \(setup.shop.clientKey)"],
                body: ByteBuffer(string: body))
            #expect(refused.status == .forbidden && String(buffer: refused.body).contains("not_paired"))

            let page = String(buffer: try await browser.get("/console/apps/\(app)/captures").body)
            #expect(page.contains(#"viewBox="0 0 360.0 740.0""#))
            // The anchor's box opens the form with its name and the smallest area around it.
            #expect(
                page.contains(
                    #"<a href="/console/apps/\#(app)/new-tip?anchor=add-to-cart&amp;container=footer" aria-label="New tip on add-to-cart""#)
            )
            #expect(page.contains(#"<rect class="anchor" x="16.0" y="660.0" width="328.0" height="48.0"/>"#))
            #expect(page.contains(#"aria-label="New tip in the area product""#))
            #expect(page.contains("&lt;b&gt;x") && !page.contains("<b>x"), "names are text")
            let id = try #require(try await setup.store.captures(app: app).first?.id)
            let image = try await browser.get("/console/apps/\(app)/captures/\(id)/image")
            #expect(image.headers[.contentType] == "image/png" && image.headers[.xContentTypeOptions] == "nosniff")
            #expect(Array(image.body.readableBytesView).starts(with: [0x89, 0x50, 0x4E, 0x47]))
            let form = String(buffer: try await browser.get("/console/apps/\(app)/new-tip?anchor=add-to-cart&container=footer").body)
            #expect(form.contains(#"value="add-to-cart""#) && form.contains(#"value="footer""#))
        }
    }
}

extension ConsoleTests {
    /// The app's look is saved to the draft when legible, refused in words when text would not
    /// stand out, and shown back in the form.
    @Test(arguments: StoreUnderTest.available)
    func theAppsLookIsSavedWhenLegibleAndRefusedInWordsWhenNot(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var (browser, app) = try await Self.ownerWithADraft(setup)
            let faint = try await browser.post(
                "/console/apps/\(app)/theme", [("surface", "#ffffff"), ("text", "#aaaaaa"), ("accent", "0b5cad"), ("focus", "#b35c00")])
            #expect(faint.status == .unprocessableContent)
            let refusal = String(buffer: faint.body)
            #expect(refusal.contains("text #aaaaaa on the surface #ffffff has a contrast of 2.32:1; it needs at least 4.5:1 to be read"))
            #expect(refusal.contains(##"value="#aaaaaa""##), "what was typed stays")
            #expect(try await server(setup).draftTheme == nil)

            let saved = try await browser.post(
                "/console/apps/\(app)/theme",
                [
                    ("surface", "#FFF"), ("text", "#1f2933"), ("accent", "0b5cad"), ("focus", "#b35c00"), ("font", "Noto Sans"),
                    ("radius", "4"),
                    ("spacing", "16"), ("dark", "on"), ("dark-surface", "#1d2a44"), ("dark-text", "#ffffff"), ("dark-accent", "#9cd3ff"),
                ])
            #expect(saved.status == .seeOther)
            let theme = try #require(try await server(setup).draftTheme)
            #expect(theme.colors.surface == "#ffffff" && theme.colors.accent == "#0b5cad" && theme.font == "Noto Sans" && theme.radius == 4)
            #expect(theme.dark?.surface == "#1d2a44" && theme.dark?.focus == nil)
            let page = String(buffer: try await browser.get("/console/apps/\(app)/theme").body)
            #expect(page.contains(##"id="surface" name="surface" value="#ffffff""##) && page.contains(#"name="dark" value="on" checked"#))

            var viewer = Browser(setup.client)
            _ = try await viewer.signIn("vic@example.com")
            #expect(try await viewer.post("/console/apps/\(app)/theme", [("surface", "#000000")]).status == .forbidden)
        }
    }

    /// The draft's theme, as the store has it.
    private func server(_ setup: Setup) -> DraftReader { DraftReader(store: setup.store, app: setup.shop.appId) }

    struct DraftReader {
        let store: any Store
        let app: String
        var draftTheme: Theme? {
            get async throws {
                guard let draft = try await store.draft(app: app) else { return nil }
                return try CatalogDocument.parse(draft.document, file: "draft").theme
            }
        }
    }
}

extension ConsoleTests {
    /// "Choose on the page" opens the app's page with a builder of the form's tip, remembered for
    /// the next tip; a viewer opens none, and a form without its CSRF token is refused.
    @Test(arguments: StoreUnderTest.available)
    func anEditorOpensTheAppsPageWithABuilderOfTheTip(_ kind: StoreUnderTest) async throws {
        try await withConsole(kind) { setup in
            var (browser, app) = try await Self.ownerWithADraft(setup)
            let form = String(buffer: try await browser.get("/console/apps/\(app)/tips/t1").body)
            #expect(form.contains(#"formaction="/console/apps/\#(app)/build" formtarget="_blank""#))
            #expect(form.contains(#"<input type="hidden" name="tip" value="t1">"#))
            #expect(form.contains(#"id="page-url" name="pageURL" type="url" value="""#), "no address yet")

            let opened = try await browser.post(
                "/console/apps/\(app)/build", [("tip", "t1"), ("pageURL", "https://shop.example/app#/cart")])
            #expect(opened.status == .seeOther)
            let location = try #require(opened.headers[.location])
            #expect(location.wholeMatch(of: /https:\/\/shop\.example\/app\?waymark-preview=wm_preview_[0-9a-f]{48}#\/cart/) != nil)
            #expect(opened.headers[.cacheControl] == "no-store")
            let builder = try #require(try await setup.store.previews(app: app).first)
            #expect(builder.edits == "t1" && builder.createdBy == "user:ada@example.com")
            #expect(builder.expiresAt.timeIntervalSince(builder.createdAt) == 1800)

            // The next tip's form offers the same page; a new tip's id comes from its own field.
            let next = String(buffer: try await browser.get("/console/apps/\(app)/new-tip").body)
            #expect(next.contains(#"value="https://shop.example/app#/cart""#))
            #expect(
                try await browser.post("/console/apps/\(app)/build", [("id", "t2"), ("pageURL", "https://shop.example/")]).status
                    == .seeOther)
            #expect(try await setup.store.previews(app: app).contains { $0.edits == "t2" })

            // What cannot open says why, in a page of its own (the builder's tab).
            let refused = try await browser.post("/console/apps/\(app)/build", [("id", ""), ("pageURL", "https://shop.example/")])
            #expect(refused.status == .unprocessableContent && String(buffer: refused.body).contains("a tip&#39;s id is 1 to 128"))
            let native = try await browser.post("/console/apps/\(app)/build", [("id", "t3"), ("pageURL", "myshop://home")])
            #expect(String(buffer: native.body).contains("the builder opens the app&#39;s web page"))

            var viewer = Browser(setup.client)
            _ = try await viewer.signIn("vic@example.com")
            #expect(
                try await viewer.post("/console/apps/\(app)/build", [("tip", "t1"), ("pageURL", "https://shop.example/")]).status
                    == .forbidden)
            #expect(!String(buffer: try await viewer.get("/console/apps/\(app)/tips/t1").body).contains("Choose on the page"))
            #expect(
                try await browser.post("/console/apps/\(app)/build", [("tip", "t1"), ("pageURL", "https://shop.example/")], csrf: false)
                    .status == .forbidden)
        }
    }
}
