package dev.waymark.client;

import dev.waymark.engine.Engine;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Waymark's web SDK in the app's {@code WebView}, joined to this client: one user, one history,
 * one engine. The client decides; the page draws the tips of its own containers as it is told and
 * tells the client what the user does there, so events from both sides go to the one queue in the
 * order they happen, and the progress with a tip closed in the page is the app's (docs/hybrid-apps.md).
 *
 * <p>The bridge is the client's renderer: it hands the page the commands for tips in the page's
 * containers (those the page has an element for and says it shows) and the app's own renderer the
 * rest. Wired on Android as:
 *
 * <pre>{@code
 * WebViewBridge bridge = new WebViewBridge(appRenderer,
 *     message -> webView.post(() -> webView.evaluateJavascript(WebViewBridge.script(message), null)));
 * WaymarkClient client = WaymarkClient.builder(key, server).user(user, userHash)
 *     .renderer(bridge).countsTipsWhenSeen(true).build();
 * bridge.connect(client);
 * webView.addJavascriptInterface(new Object() {
 *     @JavascriptInterface public void postMessage(String message) { bridge.receive(message); }
 * }, "WaymarkNative");
 * }</pre>
 *
 * <p>Messages are JSON text, one object each, with a {@code type}. From the page: {@code hello}
 * (it started: it is sent the catalog), {@code event} (name, target, properties), {@code container}
 * (container, visible), {@code sight} (tip, visible), {@code close} (tip), {@code press} (action,
 * tip), {@code answer} (survey, score, comment), {@code context} (values) and {@code anchorMissing}
 * (tip: its anchor is not in the page). To the page:
 * {@code catalog} (catalog, server, listening: the listener's mode) and {@code render} (commands: action, tip, container, anchor,
 * reason). Thread-safe: {@link #receive} may come on the WebView's binder thread.
 */
public final class WebViewBridge implements WaymarkClient.Renderer {
    /** What carries a message to the page; called in the order messages are made, from any thread. */
    public interface Sender {
        void send(String message);
    }

    private final WaymarkClient.Renderer app;
    private final Sender sender;
    /** The page's containers: what it has an element for and told of. Guarded by this. */
    private final Set<String> pageContainers = new HashSet<String>();
    private volatile WaymarkClient client;
    /** Whether a page said hello since the WebView last went: only then is it sent new catalogs. */
    private volatile boolean greeted;

    /** {@code app}: the app's own renderer, for the tips of its native screens (null: it has none). */
    public WebViewBridge(WaymarkClient.Renderer app, Sender sender) {
        if (sender == null) throw new IllegalArgumentException("the bridge needs a sender");
        this.app = app;
        this.sender = sender;
    }

    /** The client the page joins: the one built with this bridge as its renderer. */
    public void connect(WaymarkClient client) {
        if (client == null) throw new IllegalArgumentException("the bridge needs the client");
        this.client = client;
        client.onCatalog(() -> {
            if (greeted) sendCatalog();
        });
    }

    /** The JavaScript that hands the page a message: for {@code evaluateJavascript}. */
    public static String script(String message) {
        return "window.waymarkBridge&&window.waymarkBridge.receive(" + JSONObject.quote(message) + ")";
    }

    /**
     * A message from the page. Answers false (and changes nothing) for one that does not read or
     * that the bridge does not know, or before {@link #connect}.
     */
    public boolean receive(String text) {
        WaymarkClient client = this.client;
        if (client == null || text == null) return false;
        JSONObject message;
        try {
            message = new JSONObject(text);
        } catch (JSONException damaged) {
            return false;
        }
        String tip = Json.text(message, "tip");
        try {
            switch (message.optString("type")) {
                case "hello": hello(client); return true;
                case "event": {
                    String name = Json.text(message, "name");
                    if (name == null) return false;
                    client.record(name, Json.text(message, "target"), values(message.optJSONObject("properties")));
                    return true;
                }
                case "container": {
                    String container = Json.text(message, "container");
                    if (container == null) return false;
                    container(client, container, message.optBoolean("visible"));
                    return true;
                }
                case "sight": if (tip == null) return false; client.setTip(tip, message.optBoolean("visible")); return true;
                case "close": if (tip == null) return false; client.close(tip); return true;
                case "press": {
                    String action = Json.text(message, "action");
                    if (tip == null || action == null) return false;
                    client.press(action, tip);
                    return true;
                }
                case "answer": {
                    String survey = Json.text(message, "survey");
                    if (survey == null || !message.has("score")) return false;
                    client.answer(survey, message.optInt("score"), message.optString("comment", ""));
                    return true;
                }
                case "context": client.setContext(values(message.optJSONObject("values"))); return true;
                case "anchorMissing":
                    if (tip == null || client.tip(tip) == null) return false;
                    client.anchorNotFound(tip);
                    return true;
                default: return false;
            }
        } catch (WaymarkException refused) {
            // A button or survey the catalog does not have (the page's catalog is older): nothing happens.
            return false;
        }
    }

    /**
     * The WebView went away (its screen closed): the tips in its containers pause until a page
     * says hello again.
     */
    public void detach() {
        WaymarkClient client = this.client;
        List<String> had;
        greeted = false;
        synchronized (this) {
            had = new ArrayList<String>(pageContainers);
        }
        if (client != null) for (String container : had) client.setContainer(container, false);
    }

    /** A page (a new one, or the same after a reload) started: it knows nothing yet. */
    private void hello(WaymarkClient client) {
        detach();
        synchronized (this) {
            pageContainers.clear();
        }
        greeted = true;
        sendCatalog();
    }

    private void sendCatalog() {
        WaymarkClient client = this.client;
        if (client == null) return;
        JSONObject message = new JSONObject();
        Json.put(message, "type", "catalog");
        Json.put(message, "catalog", client.catalogJSON());
        Json.put(message, "server", client.server());
        Json.put(message, "listening", client.listensToTips());
        sender.send(message.toString());
    }

    /**
     * The page says whether a container shows. The first time, the container becomes the page's:
     * it pauses (what the app drew of it pauses), the page is told of its tips that show (paused),
     * and then it shows as the page says.
     */
    private void container(WaymarkClient client, String container, boolean visible) {
        boolean claimed;
        synchronized (this) {
            claimed = !pageContainers.contains(container);
        }
        if (claimed) {
            client.setContainer(container, false);
            synchronized (this) {
                pageContainers.add(container);
            }
            Engine.Command showing = client.occupant(container);
            if (showing != null) sendCommands(Arrays.asList(command(showing, "show"), command(showing, "pause")));
        }
        client.setContainer(container, visible);
    }

    private synchronized boolean onPage(Engine.Command command) {
        return pageContainers.contains(command.container);
    }

    private void route(DeliveredTip tip, Engine.Command command) {
        if (onPage(command)) {
            sendCommands(Collections.singletonList(command(command, command.action.wireName)));
            return;
        }
        if (app == null) return;
        switch (command.action) {
            case SHOW: app.show(tip, command); break;
            case HIDE: app.hide(tip, command); break;
            case PAUSE: app.pause(tip, command); break;
            default: app.resume(tip, command); break;
        }
    }

    @Override public void show(DeliveredTip tip, Engine.Command command) { route(tip, command); }
    @Override public void hide(DeliveredTip tip, Engine.Command command) { route(tip, command); }
    @Override public void pause(DeliveredTip tip, Engine.Command command) { route(tip, command); }
    @Override public void resume(DeliveredTip tip, Engine.Command command) { route(tip, command); }

    /** Sent while a page is there: a WebView gone since is told nothing. */
    private void sendCommands(List<JSONObject> commands) {
        if (commands.isEmpty() || !greeted) return;
        JSONObject message = new JSONObject();
        Json.put(message, "type", "render");
        Json.put(message, "commands", new JSONArray(commands));
        sender.send(message.toString());
    }

    private static JSONObject command(Engine.Command command, String action) {
        JSONObject json = new JSONObject();
        Json.put(json, "action", action);
        Json.put(json, "tip", command.tip);
        Json.put(json, "container", command.container);
        if (command.anchor != null) Json.put(json, "anchor", command.anchor);
        if (command.reason != null) Json.put(json, "reason", command.reason.wireName);
        return json;
    }

    /** A JSON object's text, number and flag values (what rules and events carry); others are left out. */
    private static Map<String, Object> values(JSONObject json) {
        Map<String, Object> values = new HashMap<String, Object>();
        if (json == null) return values;
        for (Iterator<String> keys = json.keys(); keys.hasNext();) {
            String key = keys.next();
            Object value = json.opt(key);
            if (value instanceof String || value instanceof Number || value instanceof Boolean) values.put(key, value);
            else if (value == JSONObject.NULL) values.put(key, null);
        }
        return values;
    }
}
