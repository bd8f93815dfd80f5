package dev.waymark.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.waymark.engine.Engine;
import java.io.File;
import java.nio.file.Files;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.json.JSONObject;
import org.junit.jupiter.api.Test;

/**
 * The Android core's client against a real {@code waymark serve}: a phone that starts offline from
 * the catalog it kept, events recorded offline delivered once when the server is back, and a
 * credit claimed once across restarts and devices.
 */
class WaymarkClientTest extends AgainstServer {
    @Test
    void startsOfflineFromTheCatalogItKept() throws Exception {
        server.start();
        server.publishShop(app.getString("secretKey"));
        WaymarkClient online = client(phone, "u1");
        online.start();
        assertEquals(Integer.valueOf(1), online.refresh(), "version 1 delivered");
        assertNotNull(online.tip("product-list-tip"));
        online.stop();
        server.stop();

        // The app starts again with no server: the kept catalog runs, and its tips show.
        WaymarkClient offline = client(phone, "u1");
        offline.start();
        assertTrue(drawn.isEmpty(), "nothing was showing: " + drawn);
        assertNotNull(offline.catalogVersion());
        assertEquals(Integer.valueOf(1), offline.refresh(), "offline, the kept version goes on");
        List<Engine.Command> shown = offline.record("screen", "products", null);
        assertEquals(1, shown.size());
        assertEquals("product-list-tip", shown.get(0).tip);
        assertTrue(drawn.contains("show product-list-tip: किसी उत्पाद पर टैप करें"), drawn.toString());
        // Three scrolls dismiss it; a hidden container pauses and resumes.
        offline.setContainer("products", false);
        offline.setContainer("products", true);
        for (int i = 0; i < 3; i++) offline.record("scroll", null, null);
        assertEquals("finished:dismissed", offline.phase("product-list-tip"));
        assertTrue(drawn.containsAll(java.util.Arrays.asList("pause product-list-tip", "resume product-list-tip", "hide product-list-tip dismissed")),
            drawn.toString());
        assertThrows(WaymarkException.class, offline::flush, "no server");
        // A tip showing when the app is killed is drawn again when it starts.
        offline.record("tap", "tour-start", null);
        offline.record("screen", "cart", null);
        for (int i = 0; i < 3; i++) offline.record("tap", "add-to-cart", null);
        String showing = null;
        for (String id : new String[] {"cart-hotspot", "checkout-tip"}) if ("active".equals(offline.phase(id))) showing = id;
        assertNotNull(showing, drawn.toString());
        offline.stop();
        drawn.clear();
        WaymarkClient killed = client(phone, "u1");
        killed.start();
        assertTrue(drawn.contains("show " + showing + ": " + killed.tip(showing).title), drawn.toString());
        killed.stop();

        // Its state was kept too: a third start does not show the dismissed tip again.
        WaymarkClient again = client(phone, "u1");
        assertEquals("finished:dismissed", again.phase("product-list-tip"));
        assertTrue(again.record("screen", "products", null).isEmpty());
        again.stop();
    }

    /**
     * With countsTipsWhenSeen the renderer says when a tip came into sight, and only then is it
     * counted: once, however often it comes back; a tip dismissed unseen is never counted.
     */
    @Test
    void aTipIsCountedWhenTheRendererSaysItWasSeen() throws Exception {
        server.start();
        server.publishShop(app.getString("secretKey"));
        WaymarkClient seen = client(phone, "seen", "hi-IN", true);
        seen.start();
        seen.refresh();
        assertEquals("product-list-tip", seen.record("screen", "products", null).get(0).tip);
        assertEquals(1, seen.queuedEvents(), "the screen; the tip is not seen yet");
        seen.setTip("product-list-tip", true);
        seen.setTip("product-list-tip", false);
        seen.setTip("product-list-tip", true);
        assertEquals(2, seen.queuedEvents(), "tip_shown, once");
        for (int i = 0; i < 3; i++) seen.record("scroll", null, null);
        assertEquals("finished:dismissed", seen.phase("product-list-tip"));
        assertEquals(1, named(stored(seen, "seen"), "tip_shown").size());
        seen.stop();
    }

    /** The renderer says a shown tip's anchor is not on the screen: sent once per tip and screen view; the app says what a screen has: sent once a day. */
    @Test
    void whatAScreenHasAndMissesIsReported() throws Exception {
        server.start();
        server.publishShop(app.getString("secretKey"));
        WaymarkClient lost = online(phone, "lost", "en-IN");
        assertEquals("product-list-tip", lost.record("screen", "products", null).get(0).tip);
        assertTrue(lost.anchorNotFound("product-list-tip"));
        assertFalse(lost.anchorNotFound("product-list-tip"), "once per screen view");
        assertFalse(lost.anchorNotFound("welcome"), "a banner has no anchor to miss");
        lost.record("screen", "products", null);
        assertTrue(lost.anchorNotFound("product-list-tip"), "a new view of the screen");
        List<JSONObject> missing = named(stored(lost, "lost"), "anchor_missing");
        assertEquals(2, missing.size());
        JSONObject properties = missing.get(0).getJSONObject("properties");
        assertEquals("product-list-tip", missing.get(0).getString("target"));
        assertEquals("product:visible", properties.getString("anchor"));
        assertEquals("products", properties.getString("screen"));

        // What the screen has, once a day; a name the server would refuse is left out.
        assertTrue(lost.reportAnchors("products", java.util.Arrays.asList("product", "cart link", "product"), Collections.singletonList("products")));
        assertFalse(lost.reportAnchors("products", Collections.singletonList("product"), Collections.<String>emptyList()), "once a day");
        String seen = server.admin("/v1/admin/anchors", app.getString("secretKey"));
        assertTrue(seen.startsWith("200 "), seen);
        org.json.JSONArray sightings = new JSONObject(seen.substring(4)).getJSONArray("sightings");
        assertEquals(2, sightings.length(), seen);
        assertEquals("android", sightings.getJSONObject(0).getString("platform"));
        assertEquals("product", sightings.getJSONObject(0).getString("name"));
        assertEquals("products", sightings.getJSONObject(1).getString("name"));
        assertThrows(WaymarkException.class, () -> lost.reportAnchors("product page", null, null));
        lost.stop();
    }

    /** The app wires its deep link to a preview: the draft shows to a user its targeting leaves out, nothing is kept on the phone, its events stay out of the app's, and it ends. */
    @Test
    void aPreviewLinkOpensTheDraftAndEnds() throws Exception {
        server.start();
        String key = app.getString("secretKey");
        String saved = server.admin("PUT", "/v1/admin/catalog/draft", key, "theme: { surface: \"#ffffff\", text: \"#1f2933\", accent: \"#0b5cad\", focus: \"#b35c00\", radius: 4 }\n"
            + "tips:\n  - id: draft-only\n    container: home\n    trigger: activation\n"
            + "    targeting: user.id == \"nobody\"\n    rollout: 0\n    theme: { surface: \"#fff4e5\" }\n    content: { title: Only in the preview }\n");
        assertTrue(saved.startsWith("200 "), saved);
        String made = server.admin("POST", "/v1/admin/previews", key, "{\"url\":\"myshop://home?tab=1\"}");
        assertTrue(made.startsWith("201 "), made);
        JSONObject preview = new JSONObject(made.substring(4));
        String link = preview.getString("link");
        assertEquals(preview.getString("token"), WaymarkClient.previewToken(link));
        assertNull(WaymarkClient.previewToken("myshop://home?tab=1"));
        assertNull(WaymarkClient.previewToken("myshop://home?waymark-preview="));
        WaymarkClient.Builder builder = WaymarkClient.builder(app.getString("clientKey"), server.url)
            .user("u1", null)
            .context(new WaymarkClient.Context("android", "Pixel 4a", "1.4.0", "hi-IN"))
            .renderer(renderer)
            .directory(new File(phone, "previewing"))
            .background(false);
        assertThrows(IllegalArgumentException.class, () -> builder.buildPreview("myshop://home"));
        WaymarkClient previewing = builder.buildPreview(link);
        previewing.start();
        assertEquals(preview.getString("expiresAt"), previewing.preview().expires);
        assertFalse(previewing.preview().ended);
        // The draft's look, as tokens for the app's own views.
        assertEquals("#ffffff", previewing.theme().colors.surface);
        assertEquals("#1f2933", previewing.theme().dark.text, "dark mode as light when the theme has none");
        assertEquals(4, previewing.theme().radius);
        assertEquals("system-ui, sans-serif", previewing.theme().font);
        assertEquals("#fff4e5", previewing.tip("draft-only").theme.colors.surface);
        assertEquals("#0b5cad", previewing.tip("draft-only").theme.colors.accent);
        assertEquals("draft-only", previewing.record("activation", null, null).get(0).tip);
        assertTrue(drawn.contains("show draft-only: Only in the preview"), drawn.toString());
        assertEquals(2, previewing.flush().accepted, "activation and tip_shown");
        String events = server.admin("/v1/admin/previews/" + preview.getString("id") + "/events", key);
        assertTrue(events.contains("\"name\":\"activation\""), events);
        assertEquals("200 ", server.admin("/v1/admin/events?format=ndjson", key), "none of the app's events");
        assertFalse(previewing.options.directory.exists(), "a preview keeps nothing on the phone");

        // Paired, the app sends a picture of its screen with where its anchors are; its own client cannot.
        java.awt.image.BufferedImage picture = new java.awt.image.BufferedImage(180, 370, java.awt.image.BufferedImage.TYPE_INT_RGB);
        java.awt.Graphics2D pen = picture.createGraphics();
        pen.setColor(java.awt.Color.WHITE);
        pen.fillRect(0, 0, 180, 370);
        pen.setColor(new java.awt.Color(0x1d, 0x2a, 0x44));
        pen.fillRect(8, 330, 164, 24);
        pen.dispose();
        java.io.ByteArrayOutputStream png = new java.io.ByteArrayOutputStream();
        javax.imageio.ImageIO.write(picture, "png", png);
        List<CapturedFrame> anchors = Collections.singletonList(new CapturedFrame("add-to-cart", 16, 660, 328, 48));
        List<CapturedFrame> areas = Collections.singletonList(new CapturedFrame("product", 0, 0, 360, 740));
        String capture = previewing.sendCapture("product", png.toByteArray(), 360, 740, anchors, areas);
        String listed = server.admin("/v1/admin/captures", key);
        assertTrue(listed.contains("\"id\":\"" + capture + "\"") && listed.contains("\"add-to-cart\""), listed);
        assertTrue(server.admin("/v1/admin/captures/" + capture + "/image", key).startsWith("200 "));
        WaymarkClient own = client(new File(phone, "own"), "u1");
        WaymarkException refused = assertThrows(WaymarkException.class, () -> own.sendCapture("product", png.toByteArray(), 360, 740, anchors, areas));
        assertEquals(403, refused.status);
        assertEquals("not_paired", refused.code);
        assertThrows(WaymarkException.class, () -> previewing.sendCapture("product page", png.toByteArray(), 360, 740, anchors, areas));

        assertTrue(server.admin("POST", "/v1/admin/previews/" + preview.getString("id") + "/end", key, null).startsWith("204"));
        previewing.refresh();
        assertTrue(previewing.preview().ended);
        assertNull(previewing.tip("draft-only"));
        previewing.stop();
    }

    /** A tip that points by CSS selector is the web's: this client leaves it out and says why. */
    @Test
    void aTipBySelectorIsLeftOutWithItsReason() throws Exception {
        server.start();
        server.publishShopWith(app.getString("secretKey"), "  - id: pay-web\n    container: checkout\n    selector: \"#checkout button.pay\"\n"
            + "    trigger: screen:checkout\n    content: { title: Pay here }\n");
        WaymarkClient web = online(phone, "selector", "en-IN");
        assertTrue(web.ignoredTips().get("pay-web").contains("its anchor is the CSS selector \"#checkout button.pay\""));
        assertEquals(1, web.ignoredTips().size());
        assertNull(web.tip("pay-web"));
        for (Engine.Command command : web.record("screen", "checkout", null)) assertNotEquals("pay-web", command.tip);
        web.stop();
    }

    /** The shop makes the listener's mode the default for Hindi; the user's choice wins, is kept and follows them. */
    @Test
    void theListenersModeIsTheCatalogsDefaultUntilTheUserChooses() throws Exception {
        server.start();
        server.publishShop(app.getString("secretKey"));
        WaymarkClient phoneClient = online(phone, "listener", "hi-IN");
        assertTrue(phoneClient.listensToTips(), "the default for hi-IN");
        phoneClient.setListening(false);
        assertFalse(phoneClient.listensToTips());
        phoneClient.syncProgress();
        phoneClient.stop();
        WaymarkClient tablet = online(new File(phone.getParentFile(), "tablet-listener"), "listener", "hi-IN");
        tablet.syncProgress();
        assertFalse(tablet.listensToTips(), "the choice made on the phone");
        tablet.stop();
        WaymarkClient english = online(new File(phone.getParentFile(), "english"), "someone-else", "en");
        assertFalse(english.listensToTips(), "no default for English");
        english.stop();
    }

    @Test
    void eventsRecordedOfflineAreDeliveredOnceWhenTheServerIsBack() throws Exception {
        WaymarkClient phoneClient = client(phone, "u2");
        phoneClient.start();
        assertNull(phoneClient.catalogVersion(), "never online: no catalog");
        for (int i = 0; i < 30; i++) {
            Map<String, Object> properties = new HashMap<String, Object>();
            properties.put("index", i);
            properties.put("cod", i % 2 == 0);
            phoneClient.record("tap", "item-" + i, properties);
        }
        WaymarkException offline = assertThrows(WaymarkException.class, phoneClient::flush);
        assertTrue(offline.isTransient(), offline.getMessage());
        assertEquals(30, phoneClient.queuedEvents());
        phoneClient.stop();

        // Killed and started again: the queue was kept. The server comes back.
        WaymarkClient restarted = client(phone, "u2");
        assertEquals(30, restarted.queuedEvents());
        server.start();
        WaymarkClient.FlushReport report = restarted.flush();
        assertEquals(30, report.accepted);
        assertEquals(0, report.remaining);
        assertEquals(0, restarted.flush().accepted, "nothing left to send");
        String exported = server.admin("/v1/admin/events?format=ndjson", app.getString("secretKey"));
        assertTrue(exported.startsWith("200 "), exported);
        String[] lines = exported.substring(4).trim().split("\n");
        assertEquals(30, lines.length, "each event stored once");
        JSONObject first = new JSONObject(lines[0]);
        assertEquals("u2", first.getString("user"));
        assertEquals("android", first.getJSONObject("properties").getString("platform"));
        restarted.stop();
    }

    @Test
    void aCreditIsClaimedOnceAcrossRestartsAndDevices() throws Exception {
        server.start();
        server.publishShop(app.getString("secretKey"));
        WaymarkClient first = client(phone, "u3");
        first.start();
        // The page is read to its bottom, then claimed: the claim sends the reading first.
        Map<String, Object> page = new HashMap<String, Object>();
        page.put("tour", "shop-tour");
        page.put("page", "checkout");
        first.record("page_viewed", "checkout", page);
        first.record("page_read_to_bottom", "checkout", page);
        Grant granted = first.claim("shop-tour", "checkout");
        assertTrue(granted.created, granted.toString());
        int credits = granted.credits;
        assertTrue(credits > 0);
        assertTrue(first.isClaimed("shop-tour", "checkout"));
        first.stop();

        // The app restarts: the kept claim answers, without asking again.
        server.stop();
        WaymarkClient restarted = client(phone, "u3");
        Grant kept = restarted.claim("shop-tour", "checkout");
        assertFalse(kept.created);
        assertEquals(granted.grantId, kept.grantId);
        restarted.stop();

        // Another device of the same user asks the server, which grants nothing more.
        server.start();
        File otherPhone = Files.createTempDirectory("waymark-android-other").toFile();
        try {
            WaymarkClient other = client(otherPhone, "u3");
            Grant again = other.claim("shop-tour", "checkout");
            assertFalse(again.created);
            assertEquals(granted.grantId, again.grantId);
            other.stop();
        } finally {
            delete(otherPhone);
        }
        String grants = server.admin("/v1/admin/users/u3/grants", app.getString("secretKey"));
        assertTrue(grants.startsWith("200 "), grants);
        assertEquals(credits, new JSONObject(grants.substring(4)).getInt("balance"));

        // A page never read is refused with the server's reason.
        WaymarkClient unread = client(Files.createTempDirectory("waymark-android-unread").toFile(), "u4");
        WaymarkException refused = assertThrows(WaymarkException.class, () -> unread.claim("shop-tour", "checkout"));
        assertEquals("not_read", refused.code);
        unread.stop();
    }

    @Test
    void identifiedAttributesReachTheRules() throws Exception {
        server.start();
        File catalog = File.createTempFile("waymark-plus", ".yaml");
        try {
            Files.write(catalog.toPath(), ("tips:\n  - id: plus-tip\n    container: home\n"
                + "    trigger: user.plan == \"plus\" AND user.cityTier <= 2 AND screen:home\n"
                + "    content: { title: Free delivery, body: Plus members get free delivery. }\n").getBytes("UTF-8"));
            ServerProcess.run("push", catalog.getPath(), "--publish", "--server", server.url, "--key", app.getString("secretKey"));
        } finally {
            catalog.delete();
        }
        WaymarkClient phoneClient = client(phone, "u5");
        phoneClient.start();
        assertTrue(phoneClient.record("screen", "home", null).isEmpty(), "no plan yet");
        Map<String, Object> attributes = new HashMap<String, Object>();
        attributes.put("plan", "plus");
        attributes.put("cityTier", 2);
        Map<String, Object> kept = phoneClient.identify(attributes, null);
        assertEquals("plus", kept.get("plan"));
        assertEquals(2.0, kept.get("cityTier"));
        // The screen was seen before: the attributes alone make the rule true.
        assertEquals(Collections.singletonList("show plus-tip: Free delivery"), drawn);
        // Removing an attribute removes it from the rules too.
        Map<String, Object> removal = new HashMap<String, Object>();
        removal.put("plan", null);
        assertFalse(phoneClient.identify(removal, null).containsKey("plan"));
        phoneClient.stop();
    }

    @Test
    void aTourOpensByItsTriggerOnceAtATimeAndNotAgainWhenFinished() throws Exception {
        server.start();
        server.publishShop(app.getString("secretKey"));
        WaymarkClient phoneClient = client(phone, "u6");
        phoneClient.start();
        DeliveredTour tour = phoneClient.tour("shop-tour");
        assertNotNull(tour);
        assertEquals("checkout", tour.pages.get(tour.pages.size() - 1).id);
        assertTrue(tour.pages.get(tour.pages.size() - 1).reward > 0);
        phoneClient.record("tap", "tour-start", null);
        assertEquals(Collections.singletonList("shop-tour at 0 of 3"), opened);
        phoneClient.record("tap", "tour-start", null);
        assertEquals(1, opened.size(), "one tour at a time: it is open");
        // The user reads on to the last page and its credit is claimed.
        for (DeliveredPage page : tour.pages) {
            phoneClient.pageViewed("shop-tour", page.id);
            phoneClient.pageRead("shop-tour", page.id);
        }
        phoneClient.tourProgressed("shop-tour", 2, false);
        assertTrue(phoneClient.claim("shop-tour", "checkout").created);
        phoneClient.tourProgressed("shop-tour", 2, true);
        assertTrue(phoneClient.isTourFinished("shop-tour"));
        phoneClient.record("tap", "tour-start", null);
        assertEquals(1, opened.size(), "a finished tour does not open again");
        phoneClient.stop();

        // After a restart it is still finished; another user's phone opens it.
        WaymarkClient restarted = client(phone, "u6");
        restarted.record("tap", "tour-start", null);
        assertEquals(1, opened.size());
        restarted.stop();
        File otherPhone = Files.createTempDirectory("waymark-android-tour").toFile();
        try {
            WaymarkClient other = client(otherPhone, "u7");
            other.start();
            other.tourProgressed("shop-tour", 1, false);
            other.record("tap", "tour-start", null);
            assertEquals("shop-tour at 1 of 3", opened.get(opened.size() - 1), "it opens where the user left it");
            // "Start shopping" (a route) on the last page finishes it: the trigger, which still
            // holds, does not open it again.
            int before = opened.size();
            assertEquals("route", other.press("shop", "shop-tour", "checkout").kind);
            assertTrue(other.isTourFinished("shop-tour"));
            other.record("tap", "tour-start", null);
            assertEquals(before, opened.size(), "a tour left by its route button does not open again");
            other.stop();
        } finally {
            delete(otherPhone);
        }
    }

    @Test
    void theEngineStateIsKeptInTheBackgroundSoAKilledAppGoesOn() throws Exception {
        server.start();
        server.publishShop(app.getString("secretKey"));
        String hash = ServerProcess.userHash("u8", app.getString("identitySecret"));
        WaymarkClient running = WaymarkClient.builder(app.getString("clientKey"), server.url)
            .user("u8", hash)
            .context(new WaymarkClient.Context("android", "Pixel 4a", "1.4.0", "hi-IN"))
            .renderer(renderer)
            .directory(phone)
            .flushInterval(60_000)
            .build();
        running.start();
        running.record("screen", "products", null);
        assertEquals("active", running.phase("product-list-tip"));
        // The app is killed without stop(): what the background thread kept is what the next start has.
        String kept = null;
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        File state = new File(phone, "engine.json");
        while (System.nanoTime() < deadline) {
            if (state.exists()) {
                JSONObject states = new JSONObject(new String(Files.readAllBytes(state.toPath()), "UTF-8")).getJSONObject("states");
                kept = states.has("product-list-tip") ? states.getJSONObject("product-list-tip").getString("phase") : null;
                if ("active".equals(kept)) break;
            }
            Thread.sleep(100);
        }
        assertEquals("active", kept, "the state was kept within the deadline");
        running.stop();
        assertEquals("active", client(phone, "u8").phase("product-list-tip"), "and the next start goes on from it");
    }

    @Test
    void theBuilderRefusesWhatCannotWorkAndItsOptionsStayAsBuilt() {
        WaymarkClient.Builder builder = WaymarkClient.builder("wm_pk_test", "http://127.0.0.1:9");
        assertThrows(IllegalArgumentException.class, builder::build, "a client needs its user");
        assertThrows(IllegalArgumentException.class, () -> builder.batchSize(501), "the server takes at most 500 events a batch");
        assertThrows(IllegalArgumentException.class, () -> builder.flushInterval(0));
        assertThrows(IllegalArgumentException.class, () -> WaymarkClient.builder(null, "http://127.0.0.1:9"));
        WaymarkClient client = builder.user("u1", null).batchSize(50).background(false).build();
        builder.batchSize(20);
        assertEquals(50, client.options.batchSize, "a client's options do not change with its builder");
        assertEquals(15_000, client.options.flushInterval);
        assertNull(client.catalogVersion(), "in memory, never online");
    }
}
