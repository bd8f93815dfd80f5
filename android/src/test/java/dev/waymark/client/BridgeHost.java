package dev.waymark.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.waymark.engine.Engine;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * A hybrid app with no Android in it, for Tests/browser/test_bridge.py: the Android core and a
 * {@link WebViewBridge}, with a loopback HTTP server standing in for the WebView between them and
 * a page in Chromium. The page's stand-in for {@code addJavascriptInterface} posts each message to
 * {@code /native}; {@code /web} hands it what the core sends (as {@code evaluateJavascript} would);
 * {@code /page} is the page; {@code /app/...} is what the app's own code does and what its
 * renderer drew.
 *
 * <pre>java dev.waymark.client.BridgeHost SERVER KEY USER USERHASH DIRECTORY</pre>
 * prints {@code listening on PORT} when it is ready.
 */
public final class BridgeHost {
    private final LinkedBlockingDeque<String> toPage = new LinkedBlockingDeque<String>();
    /** The page loaded last: a reload's old page may still be waiting on /web, and gets nothing. */
    private volatile String latestPage = "";
    private final List<String> drawn = Collections.synchronizedList(new ArrayList<String>());
    private final WebViewBridge bridge;
    private final WaymarkClient client;
    private final String sdk;

    private BridgeHost(String server, String key, String user, String userHash, File directory) {
        WaymarkClient.Renderer app = new WaymarkClient.Renderer() {
            @Override public void show(DeliveredTip tip, Engine.Command command) { drawn.add("show " + command.tip); }
            @Override public void hide(DeliveredTip tip, Engine.Command command) { drawn.add("hide " + command.tip); }
            @Override public void pause(DeliveredTip tip, Engine.Command command) { drawn.add("pause " + command.tip); }
            @Override public void resume(DeliveredTip tip, Engine.Command command) { drawn.add("resume " + command.tip); }
        };
        bridge = new WebViewBridge(app, toPage::add);
        client = WaymarkClient.builder(key, server)
            .user(user, userHash)
            .context(new WaymarkClient.Context("android", "Redmi 9A", "1.4.0", "hi-IN"))
            .renderer(bridge)
            .countsTipsWhenSeen(true)
            .directory(directory)
            .build();
        bridge.connect(client);
        sdk = server + "/sdk/waymark.js";
    }

    public static void main(String[] arguments) throws Exception {
        if (arguments.length != 5) {
            System.err.println("usage: BridgeHost SERVER KEY USER USERHASH DIRECTORY");
            System.exit(2);
        }
        BridgeHost host = new BridgeHost(arguments[0], arguments[1], arguments[2], arguments[3], new File(arguments[4]));
        host.client.start();
        host.client.record("activation", null, null);
        HttpServer http = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        http.setExecutor(Executors.newCachedThreadPool());
        http.createContext("/", host::handle);
        http.start();
        System.out.println("listening on " + http.getAddress().getPort());
        System.out.flush();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
        try {
            switch (path) {
                case "/page": answer(exchange, 200, "text/html", page()); break;
                case "/native":
                    latestPage = String.valueOf(query.get("page"));
                    answer(exchange, bridge.receive(body(exchange)) ? 204 : 400, "text/plain", "");
                    break;
                case "/web": {
                    // A long poll: what the core sent, or an empty list after a while.
                    String page = String.valueOf(query.get("page"));
                    List<String> messages = new ArrayList<String>();
                    String first = toPage.poll(5, TimeUnit.SECONDS);
                    if (first != null) messages.add(first);
                    toPage.drainTo(messages);
                    if (!page.equals(latestPage)) {
                        for (int i = messages.size() - 1; i >= 0; i--) toPage.addFirst(messages.get(i));
                        messages.clear();
                    }
                    answer(exchange, 200, "application/json", new JSONArray(messages).toString());
                    break;
                }
                case "/app/record": client.record(query.get("name"), query.get("target"), null); answer(exchange, 204, "text/plain", ""); break;
                case "/app/flush": client.flush(); client.syncProgress(); answer(exchange, 204, "text/plain", ""); break;
                case "/app/state": {
                    JSONObject state = new JSONObject();
                    synchronized (drawn) {
                        state.put("drawn", new JSONArray(drawn));
                    }
                    JSONObject phases = new JSONObject();
                    for (String tip : new String[] {"welcome", "search-tip", "swipe-hint"}) phases.put(tip, client.phase(tip));
                    state.put("phases", phases);
                    answer(exchange, 200, "application/json", state.toString());
                    break;
                }
                default: answer(exchange, 404, "text/plain", "no such page");
            }
        } catch (Exception failed) {
            answer(exchange, 500, "text/plain", String.valueOf(failed));
        }
    }

    /** The WebView's page: a screen of the shop with the home container, and the stand-in bridge. */
    private String page() {
        return "<!doctype html><html lang=\"hi\"><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\n"
            + "<title>दुकान</title>\n"
            + "<script>\n"
            + "// Android's addJavascriptInterface object, stood in for: each message goes to the core, in order.\n"
            + "const page = String(Math.random());\n"
            + "let sending = Promise.resolve();\n"
            + "window.WaymarkNative = { postMessage(text) { sending = sending.then(() => fetch('/native?page=' + page, { method: 'POST', body: text })); } };\n"
            + "// evaluateJavascript, stood in for: what the core sends reaches window.waymarkBridge.\n"
            + "(async () => { for (;;) { try { const answer = await fetch('/web?page=' + page);\n"
            + "  for (const message of await answer.json()) window.waymarkBridge?.receive(message); }\n"
            + "  catch (error) { await new Promise((wake) => setTimeout(wake, 200)); } } })();\n"
            + "</script>\n"
            + "<main data-waymark-container=\"home\" style=\"font: 16px sans-serif; padding: 12px\">\n"
            + "<h1>दुकान</h1>\n"
            + "<p><button data-waymark=\"search-hint\" style=\"min-height: 44px\">मदद चाहिए?</button></p>\n"
            + "<p><button data-waymark=\"search-button\" style=\"min-height: 44px\">खोजें</button></p>\n"
            + "</main>\n"
            + "<script type=\"module\">\n"
            + "import { Waymark } from " + JSONObject.quote(sdk) + ";\n"
            + "await Waymark.start({});\n"
            + "document.documentElement.dataset.waymarkReady = 'true';\n"
            + "</script>\n";
    }

    private static String body(HttpExchange exchange) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (InputStream in = exchange.getRequestBody()) {
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) > 0;) bytes.write(buffer, 0, n);
        }
        return new String(bytes.toByteArray(), StandardCharsets.UTF_8);
    }

    private static Map<String, String> query(String raw) throws IOException {
        Map<String, String> values = new HashMap<String, String>();
        if (raw == null) return values;
        for (String pair : raw.split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0) values.put(pair.substring(0, equals), URLDecoder.decode(pair.substring(equals + 1), "UTF-8"));
        }
        return values;
    }

    private static void answer(HttpExchange exchange, int status, String type, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
        exchange.sendResponseHeaders(status, status == 204 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            if (status != 204) out.write(bytes);
        }
    }
}
