package dev.waymark.client;

import dev.waymark.engine.Engine;
import java.io.File;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.json.JSONObject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A real {@code waymark serve} with a new app, a phone's directory, and a renderer and tour opener that note what they are told. */
abstract class AgainstServer {
    File serverData;
    File phone;
    ServerProcess server;
    JSONObject app;
    final List<String> drawn = Collections.synchronizedList(new ArrayList<String>());

    final WaymarkClient.Renderer renderer = new WaymarkClient.Renderer() {
        @Override public void show(DeliveredTip tip, Engine.Command command) { drawn.add("show " + tip.id + ": " + tip.title); }
        @Override public void hide(DeliveredTip tip, Engine.Command command) { drawn.add("hide " + command.tip + " " + command.reason.wireName); }
        @Override public void pause(DeliveredTip tip, Engine.Command command) { drawn.add("pause " + command.tip); }
        @Override public void resume(DeliveredTip tip, Engine.Command command) { drawn.add("resume " + command.tip); }
    };

    @BeforeEach
    void setUp() throws Exception {
        serverData = Files.createTempDirectory("waymark-android-server").toFile();
        phone = Files.createTempDirectory("waymark-android-phone").toFile();
        app = ServerProcess.createApp(serverData);
        server = new ServerProcess(serverData);
    }

    @AfterEach
    void tearDown() throws Exception {
        server.stop();
        delete(serverData);
        delete(phone);
    }

    static void delete(File file) {
        File[] children = file.listFiles();
        if (children != null) for (File child : children) delete(child);
        file.delete();
    }

    final List<String> opened = Collections.synchronizedList(new ArrayList<String>());
    /** The buttons handed to the app, as "KIND TO from WHERE". */
    final List<String> followed = Collections.synchronizedList(new ArrayList<String>());

    WaymarkClient client(File directory, String user) throws Exception {
        return client(directory, user, "hi-IN");
    }

    WaymarkClient client(File directory, String user, String locale) throws Exception {
        return client(directory, user, locale, false);
    }

    WaymarkClient client(File directory, String user, String locale, boolean countsTipsWhenSeen) throws Exception {
        return client(directory, user, locale, countsTipsWhenSeen, renderer);
    }

    WaymarkClient client(File directory, String user, String locale, boolean countsTipsWhenSeen, WaymarkClient.Renderer renderer) throws Exception {
        String hash = ServerProcess.userHash(user, app.getString("identitySecret"));
        return WaymarkClient.builder(app.getString("clientKey"), server.url)
            .user(user, hash)
            .context(new WaymarkClient.Context("android", "Pixel 4a", "1.4.0", locale))
            .renderer(renderer)
            .countsTipsWhenSeen(countsTipsWhenSeen)
            .onTour((tour, page) -> opened.add(tour.id + " at " + page + " of " + tour.pages.size()))
            .onAction(request -> followed.add(request.action.kind + " " + request.action.to + " from "
                + (request.tip != null ? request.tip : request.tour + "/" + request.page)))
            .directory(directory)
            .background(false)
            .retry(10, 600_000)
            .timeouts(2_000, 10_000)
            .build();
    }

    /** A client started with the catalog the server has now. */
    WaymarkClient online(File directory, String user, String locale) throws Exception {
        WaymarkClient started = client(directory, user, locale);
        started.start();
        started.refresh();
        return started;
    }

    /** The user's events as the server stored them, oldest first, after the client uploaded its queue. */
    List<JSONObject> stored(WaymarkClient client, String user) throws Exception {
        client.flush();
        String exported = server.admin("/v1/admin/events?format=ndjson", app.getString("secretKey"));
        if (!exported.startsWith("200 ")) throw new IllegalStateException(exported);
        List<JSONObject> events = new ArrayList<JSONObject>();
        for (String line : exported.substring(4).trim().split("\n")) {
            if (line.isEmpty()) continue;
            JSONObject event = new JSONObject(line);
            if (event.getString("user").equals(user)) events.add(event);
        }
        return events;
    }

    /** The stored events of this name. */
    static List<JSONObject> named(List<JSONObject> events, String name) throws Exception {
        List<JSONObject> found = new ArrayList<JSONObject>();
        for (JSONObject event : events) if (event.getString("name").equals(name)) found.add(event);
        return found;
    }
}
