package dev.waymark.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;
import org.junit.jupiter.api.Test;

/**
 * The bridge between the web SDK in a WebView and the Android core, spoken as the page speaks it,
 * against a real server: the page draws what the core decides for the page's containers, the app's
 * renderer the rest, and what the user does in the page joins the app's one history in order.
 * (Tests/browser/test_bridge.py plays the same protocol with the web SDK itself in Chromium.)
 */
class WebViewBridgeTest extends AgainstServer {
    /** What the bridge sent the page: each message as "TYPE" or, for a render, "ACTION TIP" per command. */
    final List<String> toPage = Collections.synchronizedList(new ArrayList<String>());
    final List<JSONObject> catalogs = Collections.synchronizedList(new ArrayList<JSONObject>());

    final WebViewBridge bridge = new WebViewBridge(renderer, message -> {
        try {
            JSONObject json = new JSONObject(message);
            if (json.getString("type").equals("catalog")) {
                catalogs.add(json);
                toPage.add("catalog");
                return;
            }
            JSONArray commands = json.getJSONArray("commands");
            for (int i = 0; i < commands.length(); i++) {
                JSONObject command = commands.getJSONObject(i);
                toPage.add(command.getString("action") + " " + command.getString("tip") + (command.has("reason") ? " " + command.getString("reason") : ""));
            }
        } catch (JSONException damaged) {
            throw new AssertionError(message, damaged);
        }
    });

    WaymarkClient joined(String user) throws Exception {
        server.start();
        server.publishShop(app.getString("secretKey"));
        WaymarkClient client = client(phone, user, "hi-IN", false, bridge);
        bridge.connect(client);
        client.start();
        client.refresh();
        return client;
    }

    @Test
    void thePageDrawsItsContainersTipsAndTheAppItsOwn() throws Exception {
        WaymarkClient client = joined("u1");
        assertTrue(bridge.receive("{\"type\":\"hello\",\"screen\":\"shop\"}"));
        assertEquals(Collections.singletonList("catalog"), toPage);
        JSONObject catalog = catalogs.get(0);
        assertEquals(server.url, catalog.getString("server"));
        assertTrue(catalog.getJSONObject("catalog").toString().contains("\"search-tip\""), "the page gets the tips' content");
        // The page has the home container; the banner is the app's.
        assertTrue(bridge.receive("{\"type\":\"container\",\"container\":\"home\",\"visible\":true}"));
        client.record("activation", null, null);
        assertTrue(drawn.stream().anyMatch(line -> line.startsWith("show welcome")), drawn.toString());
        assertTrue(bridge.receive("{\"type\":\"event\",\"name\":\"tap\",\"target\":\"search-hint\",\"properties\":{\"from\":\"page\"}}"));
        assertEquals(java.util.Arrays.asList("catalog", "show search-tip"), toPage);
        assertFalse(drawn.stream().anyMatch(line -> line.contains("search-tip")), "not drawn by the app: " + drawn);
        // The user closes it in the page: closed in the one engine, counted once.
        assertTrue(bridge.receive("{\"type\":\"close\",\"tip\":\"search-tip\"}"));
        assertEquals("hide search-tip closed", toPage.get(toPage.size() - 1));
        assertEquals("finished:closed", client.phase("search-tip"));
        // A tip whose anchor the page lacks is reported once a screen view, for the console.
        assertTrue(bridge.receive("{\"type\":\"anchorMissing\",\"tip\":\"search-tip\"}"));
        assertTrue(bridge.receive("{\"type\":\"anchorMissing\",\"tip\":\"search-tip\"}"));
        assertFalse(bridge.receive("{\"type\":\"anchorMissing\",\"tip\":\"no-such-tip\"}"));
        client.record("checkout_started", null, null);

        List<String> sequence = new ArrayList<String>();
        for (JSONObject event : stored(client, "u1")) {
            String name = event.getString("name");
            if (name.equals("activation") || name.equals("checkout_started") || event.optString("target").equals("search-hint")
                || event.optString("target").equals("search-tip")) sequence.add(name + (event.has("target") ? " " + event.getString("target") : ""));
        }
        assertEquals(java.util.Arrays.asList("activation", "tap search-hint", "tip_shown search-tip", "tip_closed search-tip",
            "anchor_missing search-tip", "checkout_started"), sequence, "both sides' events, in the order they happened, as one user's");
        client.stop();
    }

    @Test
    void aContainerThePageTakesOverShowsItsTipThereAndAReloadStartsAfresh() throws Exception {
        WaymarkClient client = joined("u2");
        client.record("activation", null, null);
        client.record("tap", "search-hint", null);
        assertTrue(drawn.contains("show search-tip: " + client.tip("search-tip").title), "before the page, the app had it: " + drawn);
        bridge.receive("{\"type\":\"hello\"}");
        bridge.receive("{\"type\":\"container\",\"container\":\"home\",\"visible\":true}");
        assertEquals(java.util.Arrays.asList("catalog", "show search-tip", "pause search-tip", "resume search-tip"), toPage);
        // A reload: the page knows nothing; its containers' tips pause until it says they show.
        toPage.clear();
        bridge.receive("{\"type\":\"hello\"}");
        assertEquals(Collections.singletonList("catalog"), toPage);
        assertEquals("paused", client.phase("search-tip"));
        bridge.receive("{\"type\":\"container\",\"container\":\"home\",\"visible\":false}");
        assertEquals("show search-tip", toPage.get(toPage.size() - 2));
        assertEquals("pause search-tip", toPage.get(toPage.size() - 1));
        bridge.receive("{\"type\":\"container\",\"container\":\"home\",\"visible\":true}");
        assertEquals("resume search-tip", toPage.get(toPage.size() - 1));
        // The WebView goes: they pause, and the page is told nothing more.
        int told = toPage.size();
        bridge.detach();
        assertEquals("paused", client.phase("search-tip"));
        client.record("scroll", null, null);
        client.refresh();
        assertEquals(told, toPage.size());
        client.stop();
    }

    @Test
    void whatDoesNotReadChangesNothing() throws Exception {
        WaymarkClient client = joined("u3");
        int queued = client.queuedEvents();
        for (String bad : new String[] {null, "", "not json", "[]", "{\"type\":\"fly\"}", "{\"type\":\"event\"}", "{\"type\":\"close\"}",
                "{\"type\":\"press\",\"tip\":\"welcome\",\"action\":\"no-such-button\"}", "{\"type\":\"answer\",\"survey\":\"welcome\",\"score\":3}",
                "{\"type\":\"container\",\"visible\":true}"}) {
            assertFalse(bridge.receive(bad), String.valueOf(bad));
        }
        assertEquals(queued, client.queuedEvents());
        assertFalse(new WebViewBridge(null, message -> { }).receive("{\"type\":\"hello\"}"), "not connected");
        client.stop();
    }
}
