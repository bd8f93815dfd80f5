package dev.waymark.client;

import dev.waymark.engine.Engine;
import dev.waymark.engine.Evaluator;
import dev.waymark.engine.TourGate;
import dev.waymark.rules.Rule;
import dev.waymark.rules.Values;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * The Waymark SDK's core for Android apps: fetches the app's catalog, runs its tips in the
 * on-device engine, tells the app's {@link Renderer} what to show, uploads what the user did, and
 * claims rewards. Drawing is the renderer's work, with the app's own views.
 *
 * <pre>{@code
 * WaymarkClient waymark = WaymarkClient.builder("wm_pk_…", "https://guide.example.com")
 *     .user("u42", userHash)
 *     .context(new WaymarkClient.Context("android", Build.MODEL, BuildConfig.VERSION_NAME, "hi-IN"))
 *     .directory(new File(context.getFilesDir(), "waymark"))
 *     .renderer(renderer).rendererExecutor(mainThreadExecutor)
 *     .build();
 * waymark.start();                                  // off the main thread: one request
 * waymark.record("tap", "search", null);            // from the main thread, as the user acts
 * }</pre>
 *
 * <ul>
 *   <li>The catalog is fetched with its ETag and kept in {@link Builder#directory}: the app starts
 *       from the last good one and runs from it while offline; {@link #refresh()} asks the server
 *       only whether it changed.
 *   <li>Events are kept in a file until the server has answered for them and uploaded in batches,
 *       every {@link Builder#flushInterval} ms or as soon as a batch is full, with exponential
 *       backoff after failures. Each has a time-ordered id made once, so a retried upload is
 *       stored once.
 *   <li>The engine's state, the tour triggers' and checklists' progress and the credits claimed
 *       are kept in files as well; {@link #syncProgress()} shares progress with the user's other
 *       devices. One background thread writes every file, within a second of a change: no call
 *       from the main thread waits for the disk, and a crash loses at most the last second.
 *   <li>Surveys ({@link #answer}), buttons ({@link #press}), hotspots, narration, checklists
 *       ({@link #checklists()}) and the help launcher ({@link #helpOpened}, {@link #searchHelp})
 *       send the events the server's analytics and the rules read.
 * </ul>
 *
 * <p>Calls that change what shows ({@link #record}, {@link #close}, {@link #press}, {@link #answer},
 * {@link #setContainer}, {@link #setContext}) are quick and may come from the main thread.
 * {@link #refresh()}, {@link #flush()}, {@link #claim}, {@link #claimChecklist}, {@link #identify}
 * and {@link #syncProgress()} wait for the network: call them from a background thread. Every
 * method is thread-safe.
 */
public final class WaymarkClient {
    /** The app's drawing of tips: told to show, pause, resume and hide each one, with its content. */
    public interface Renderer {
        /** Draw the tip in its container, pointing at its anchor. */
        void show(DeliveredTip tip, Engine.Command command);

        /** Take the tip down ({@code command.reason} says why); {@code tip} is null when a new catalog no longer has it. */
        void hide(DeliveredTip tip, Engine.Command command);

        /** Its container went out of sight (another screen, a video full screen): keep the tip, hidden. */
        void pause(DeliveredTip tip, Engine.Command command);

        /** Its container is back: show the tip again. */
        void resume(DeliveredTip tip, Engine.Command command);
    }

    /** Told when a tour's trigger holds: the app opens the tour at {@code page} (the furthest the user reached). */
    public interface TourOpener {
        void open(DeliveredTour tour, int page);
    }

    /** The device and app the catalog is resolved for: what targeting rules read. */
    public static final class Context {
        /** {@code android}: {@code device.platform}. */
        public final String platform;
        /** {@code Build.MODEL}: chooses media variants ({@code device.model}). */
        public final String model;
        /** The app's version name, such as {@code 1.4.0} ({@code app.version}). */
        public final String appVersion;
        /** The user's locale, such as {@code hi-IN} ({@code user.locale}). */
        public final String locale;

        public Context(String platform, String model, String appVersion, String locale) {
            this.platform = platform;
            this.model = model;
            this.appVersion = appVersion;
            this.locale = locale;
        }
    }

    /** The time source: milliseconds since 1970. Tests inject their own. */
    public interface Clock {
        long now();
    }

    /**
     * How the client keeps its data and talks to the server: immutable, made by a {@link Builder}
     * (whose setters document each value); every value has a default fit for a phone.
     */
    public static final class Options {
        /** Where the catalog, the event queue, the engine's state and the claims are kept; null: in memory only. */
        public final File directory;
        /** Where the client keeps its files, in place of {@link #directory}; null: the directory's files. */
        public final Storage storage;
        public final int batchSize;
        public final long flushInterval;
        public final long refreshInterval;
        public final long retryInitial;
        public final long retryMaximum;
        public final int claimAttempts;
        public final int queueLimit;
        public final int connectTimeout;
        public final int readTimeout;
        public final Executor rendererExecutor;
        public final boolean background;
        public final Clock clock;
        public final TourOpener onTour;
        public final ActionHandler onAction;
        public final boolean countsTipsWhenSeen;
        public final GuidanceEvent.Listener onGuidanceEvent;

        private Options(Builder builder) {
            directory = builder.directory;
            storage = builder.storage;
            batchSize = builder.batchSize;
            flushInterval = builder.flushInterval;
            refreshInterval = builder.refreshInterval;
            retryInitial = builder.retryInitial;
            retryMaximum = builder.retryMaximum;
            claimAttempts = builder.claimAttempts;
            queueLimit = builder.queueLimit;
            connectTimeout = builder.connectTimeout;
            readTimeout = builder.readTimeout;
            rendererExecutor = builder.rendererExecutor;
            background = builder.background;
            clock = builder.clock;
            onTour = builder.onTour;
            onAction = builder.onAction;
            countsTipsWhenSeen = builder.countsTipsWhenSeen;
            onGuidanceEvent = builder.onGuidanceEvent;
        }
    }

    /** A builder for the app's public key and server: {@link WaymarkClient#builder(String, String)}. */
    public static Builder builder(String key, String server) { return new Builder(key, server); }

    /**
     * Makes a client, as an app does once:
     *
     * <pre>{@code
     * WaymarkClient waymark = WaymarkClient.builder("wm_pk_…", "https://guide.example.com")
     *     .user("u42", userHash)
     *     .context(new WaymarkClient.Context("android", Build.MODEL, BuildConfig.VERSION_NAME, "hi-IN"))
     *     .directory(new File(context.getFilesDir(), "waymark"))
     *     .renderer(renderer).rendererExecutor(mainThreadExecutor)
     *     .build();
     * }</pre>
     */
    public static final class Builder {
        private final String key;
        private final String server;
        private String user;
        private String userHash;
        private Context context = new Context(null, null, null, null);
        private Renderer renderer;
        private File directory;
        private Storage storage;
        private int batchSize = 100;
        private long flushInterval = 15_000;
        private long refreshInterval = 300_000;
        private long retryInitial = 2_000;
        private long retryMaximum = 600_000;
        private int claimAttempts = 4;
        private int queueLimit = 10_000;
        private int connectTimeout = 10_000;
        private int readTimeout = 15_000;
        private Executor rendererExecutor;
        private boolean background = true;
        private Clock clock = System::currentTimeMillis;
        private TourOpener onTour;
        private ActionHandler onAction;
        private boolean countsTipsWhenSeen;
        private GuidanceEvent.Listener onGuidanceEvent;

        private Builder(String key, String server) {
            this.key = require(key, "the app's public key");
            this.server = require(server, "the server's address");
        }

        private static <T> T require(T value, String what) {
            if (value == null) throw new IllegalArgumentException(what + " is missing");
            return value;
        }

        private static long positive(long value, String what) {
            if (value <= 0) throw new IllegalArgumentException(what + " must be positive, not " + value);
            return value;
        }

        /** Who the user is (required); {@code userHash} proves it (the app's backend makes it), or null. */
        public Builder user(String user, String userHash) {
            this.user = require(user, "the user");
            this.userHash = userHash;
            return this;
        }

        /** The device and app the catalog is resolved for; none by default. */
        public Builder context(Context context) { this.context = require(context, "the context"); return this; }

        /** What draws the tips, with the app's own views; null: the app reads commands from {@link #record} alone. */
        public Builder renderer(Renderer renderer) { this.renderer = renderer; return this; }

        /** Where the catalog, the event queue, the engine's state and the claims are kept; none: in memory only. */
        public Builder directory(File directory) { this.directory = directory; return this; }

        /**
         * Where the client keeps its files, in place of {@link #directory}. Whichever it is, it is
         * written only by the client's one background writer, within a second of a change.
         */
        public Builder storage(Storage storage) { this.storage = storage; return this; }

        /** Events per upload, 1 to 500 (the most the server takes); 100 by default. */
        public Builder batchSize(int events) {
            if (events < 1 || events > 500) throw new IllegalArgumentException("a batch holds 1 to 500 events, not " + events);
            batchSize = events;
            return this;
        }

        /** How often queued events are uploaded when no batch fills up, in ms; 15 s by default. */
        public Builder flushInterval(long millis) { flushInterval = positive(millis, "the flush interval"); return this; }

        /** How often the catalog is checked for a new version, in ms; 5 minutes by default. */
        public Builder refreshInterval(long millis) { refreshInterval = positive(millis, "the refresh interval"); return this; }

        /** The wait after the first failed upload, doubling up to {@code maximum}, in ms; 2 s and 10 minutes by default. */
        public Builder retry(long initial, long maximum) {
            retryInitial = positive(initial, "the first retry's wait");
            retryMaximum = Math.max(initial, positive(maximum, "the longest retry wait"));
            return this;
        }

        /** How many times a claim is tried when the server cannot be reached or fails; 4 by default. */
        public Builder claimAttempts(int attempts) { claimAttempts = (int) positive(attempts, "the claim attempts"); return this; }

        /** The most events kept while offline, the oldest dropped first; 10,000 by default. */
        public Builder queueLimit(int events) { queueLimit = (int) positive(events, "the queue's limit"); return this; }

        /** The network's timeouts, in ms: to connect and to read an answer; 10 s and 15 s by default. */
        public Builder timeouts(int connect, int read) {
            connectTimeout = (int) positive(connect, "the connect timeout");
            readTimeout = (int) positive(read, "the read timeout");
            return this;
        }

        /** Where the renderer is called: the app's main thread, say; none: on the calling thread. */
        public Builder rendererExecutor(Executor executor) { rendererExecutor = executor; return this; }

        /**
         * Whether {@link #start()} starts the background uploads, refreshes and engine timer, and
         * files are written on the client's own thread; true by default. False (tests, command-line
         * tools) does everything on the calling thread.
         */
        public Builder background(boolean on) { background = on; return this; }

        /** The time source: milliseconds since 1970. Tests inject their own. */
        public Builder clock(Clock clock) { this.clock = require(clock, "the clock"); return this; }

        /**
         * A tour whose trigger held, for the app to open: the client runs the catalog's tour
         * triggers with the events it records, as the web SDK does, and opens one at a time, never
         * one the user finished. None: tours open only when the app opens them.
         */
        public Builder onTour(TourOpener opener) { onTour = opener; return this; }

        /**
         * A pressed button that leads out of Waymark (a route in the app, a web page, a tour), for
         * the app to follow; called where the renderer is. None: such buttons only send their event.
         */
        public Builder onAction(ActionHandler handler) { onAction = handler; return this; }

        /**
         * Whether the app's renderer says when a tip it draws comes into the user's sight and
         * leaves it ({@link WaymarkClient#setTip}), as the web SDK does: then {@code tip_shown} is
         * sent when the tip is first seen, not when the engine shows it, and display time
         * ({@code maxDisplayDuration}) counts only while it is in sight. False by default: a tip
         * counts as seen from when it shows.
         */
        public Builder countsTipsWhenSeen(boolean on) { countsTipsWhenSeen = on; return this; }

        /**
         * Hears of each guidance event as the client queues it ({@link GuidanceEvent#NAMES}), for
         * the app to hand to its own analytics beside its funnel:
         * {@code .onGuidanceEvent(event -> analytics.logEvent("waymark_" + event.name, bundle(event.properties)))}.
         * Called on the thread that caused it: keep it quick.
         */
        public Builder onGuidanceEvent(GuidanceEvent.Listener listener) { onGuidanceEvent = listener; return this; }

        /** The client: it reads what its storage keeps now, once; call {@link #start()} next. */
        public WaymarkClient build() {
            return new WaymarkClient(key, server, require(user, "the user (Builder.user)"), userHash, context, new Options(this), renderer, false);
        }

        /**
         * A client showing a preview of the app's draft, from a preview link (made in the console,
         * opened on the phone): the link's token stands in for the key this builder was given. It
         * shows the draft's tips, tours, checklists and help for everyone and without display
         * limits, keeps its state in memory only (whatever {@link #directory} says: the user's own
         * state is untouched), and sends events the server keeps with the preview, out of every
         * report. Wire it to the app's deep link, {@link #start()} it, use it while
         * {@link WaymarkClient#preview()} has not ended, draw a "Preview" mark meanwhile, and go
         * back to the app's own client after. It needs no userHash.
         *
         * @throws IllegalArgumentException when the link carries no preview token
         */
        public WaymarkClient buildPreview(String link) {
            String token = previewToken(link);
            if (token == null) throw new IllegalArgumentException("the link has no " + PREVIEW_PARAMETER + " token: " + link);
            return new WaymarkClient(token, server, require(user, "the user (Builder.user)"), null, context, new Options(this), renderer, true);
        }
    }

    /** Follows a button that leads out of Waymark: opens the app's route, the web page or the tour. */
    public interface ActionHandler {
        void perform(ActionRequest request);
    }

    /** A pressed button that leads out of Waymark, and where it was: a tip, or a tour's page. */
    public static final class ActionRequest {
        public final DeliveredAction action;
        /** The tip it was on, or null. */
        public final String tip;
        /** The tour and page it was on, or null. */
        public final String tour;
        public final String page;

        ActionRequest(DeliveredAction action, String tip, String tour, String page) {
            this.action = action;
            this.tip = tip;
            this.tour = tour;
            this.page = page;
        }
    }

    /** What {@link #flush()} uploaded. */
    public static final class FlushReport {
        /** Events the server stored. */
        public int accepted;
        /** Events the server already had: an earlier upload got through but its answer did not. */
        public int duplicates;
        /** Events the server refused; they are not sent again. */
        public int rejected;
        /** Events still queued. */
        public int remaining;
    }

    public final String user;
    public final Context context;
    public final Options options;
    private final Renderer renderer;
    private final Transport transport;
    /** With {@link Builder#countsTipsWhenSeen}, the tip_shown events of tips shown and not yet seen, by tip. Guarded by lock. */
    private final Map<String, Map<String, Object>> unseen = new HashMap<String, Map<String, Object>>();
    private final EventQueue queue;
    /** The server's catalog and the kept one. */
    private final CatalogSource catalogSource;
    private final KeptFile engineFile;
    private final KeptFile claimsFile;
    private final KeptFile checklistFile;
    /** Whether the user hears every tip as it appears. Guarded by lock. */
    private final ListenersMode listening;
    /** The screen the app last recorded, and the tips whose anchor was reported missing on it. Guarded by lock. */
    private String screen;
    private final Set<String> anchorsMissed = new HashSet<String>();
    /** The screens {@link #reportAnchors} reported, and the UTC day (days since 1970) it was. Guarded by lock. */
    private final Map<String, Long> reportedScreens = new HashMap<String, Long>();
    /** The catalog's checklists, their rules and the user's progress with them. */
    private Checklists checklists;
    /** Changes to what is shared with the user's other devices, and how many of them the server has. */
    private final SharedProgress sharing = new SharedProgress();
    /** The catalog's tour triggers, the user's progress with tours and the tour open now. Guarded by lock. */
    private final Tours tours;
    private final Object lock = new Object();
    private volatile String userHash;
    private JSONObject catalog;
    private Map<String, DeliveredTip> tips = new HashMap<String, DeliveredTip>();
    private volatile Map<String, String> ignoredTips = Collections.emptyMap();
    private Engine engine;
    private final Map<String, Object> attributes = new TreeMap<String, Object>();
    private JSONObject claims;
    private volatile ScheduledExecutorService background;
    /** Writes what changed on its own thread, within a second. */
    private final Keeper keeper;
    /** Sends the queue to the server. */
    private final Uploader uploader;
    private ScheduledFuture<?> timer;
    /** The moment the timer is set for. */
    private long timerAt = Long.MAX_VALUE;
    private int failedFlushes;

    private final String server;
    /** Told of each new catalog before its tips are drawn (a {@link WebViewBridge}'s page). */
    private volatile Runnable catalogListener;

    /** Where this client keeps its files: the options' storage or directory, or null (in memory; always in a preview). */
    private final Storage storage;

    /** The query parameter of a preview link that carries the preview's token. */
    public static final String PREVIEW_PARAMETER = "waymark-preview";

    /** The preview token a link carries (its {@code waymark-preview} query parameter), or null. */
    public static String previewToken(String link) {
        if (link == null) return null;
        int query = link.indexOf('?');
        if (query < 0) return null;
        int fragment = link.indexOf('#', query);
        for (String pair : link.substring(query + 1, fragment < 0 ? link.length() : fragment).split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0 && pair.substring(0, equals).equals(PREVIEW_PARAMETER) && equals + 1 < pair.length()) {
                try {
                    return java.net.URLDecoder.decode(pair.substring(equals + 1), "UTF-8");
                } catch (java.io.UnsupportedEncodingException impossible) {
                    throw new AssertionError(impossible);
                }
            }
        }
        return null;
    }

    /**
     * How the app's guidance looks (the catalog's theme, every token given), for an app that draws
     * tips with its own views: surface, text, accent and focus colours for light and dark mode,
     * the font family, the corner radius and the spacing. A tip with a look of its own carries it
     * as {@link DeliveredTip#theme}. Null: Waymark's look.
     */
    public DeliveredTheme theme() {
        synchronized (lock) {
            return DeliveredTheme.from(catalog != null ? catalog.optJSONObject("theme") : null);
        }
    }

    /** Set while this client shows a preview of the draft ({@link Builder#buildPreview(String)}); null for the app's own client. */
    public DeliveredPreview preview() {
        synchronized (lock) {
            JSONObject preview = catalog != null ? catalog.optJSONObject("preview") : null;
            return preview != null ? new DeliveredPreview(preview) : null;
        }
    }

    private WaymarkClient(String key, String server, String user, String userHash, Context context, Options options, Renderer renderer, boolean inMemory) {
        this.user = user;
        this.userHash = userHash;
        this.context = context;
        this.options = options;
        this.renderer = renderer;
        this.server = server;
        transport = new Transport(server, key, options.connectTimeout, options.readTimeout);
        storage = inMemory ? null : options.storage != null ? options.storage : options.directory != null ? Storage.directory(options.directory) : null;
        keeper = new Keeper(lock, KEEP_DELAY, options.background);
        queue = new EventQueue(storage, options.queueLimit, keeper::queueChanged);
        uploader = new Uploader(queue, transport, options.batchSize);
        catalogSource = new CatalogSource(transport, storage, keeper, context, user);
        engineFile = new KeptFile(storage, "engine.json");
        claimsFile = new KeptFile(storage, "claims.json");
        JSONObject keptClaims = claimsFile.load();
        claims = keptClaims != null ? keptClaims : new JSONObject();
        catalog = catalogSource.kept();
        engine = makeEngine(engineFile.load());
        engine.setContext(contextValues(), now());
        tours = new Tours(storage, keeper, catalog, contextValues(), now());
        checklistFile = new KeptFile(storage, "checklists.json");
        makeChecklists(checklistFile.load());
        listening = new ListenersMode(new KeptFile(storage, "listening.json"), keeper);
    }

    /** The checklists' run on the catalog's checklists, going on from what was kept. */
    private void makeChecklists(JSONObject kept) {
        checklists = new Checklists(catalog != null ? catalog.optJSONArray("checklists") : null, kept);
        checklists.setContext(contextValues(), now());
    }

    /** The longest a change waits to be written: what a crash may lose. */
    static final long KEEP_DELAY = 1_000;

    /**
     * Waits until every change made before the call is written to the storage: for tests and
     * for tools that exit right after; an app never needs it.
     */
    void awaitKept() throws InterruptedException { keeper.awaitWritten(); }

    private long now() { return options.clock.now(); }

    /** The engine on the catalog's tips, from a saved state if it reads (else from the start). */
    private Engine makeEngine(JSONObject snapshot) {
        List<Engine.Tip> engineTips = readTips();
        try {
            return new Engine(engineTips, frequency(), snapshot, options.countsTipsWhenSeen);
        } catch (RuntimeException unreadable) {
            return new Engine(engineTips, frequency(), null, options.countsTipsWhenSeen);
        }
    }

    private String frequency() { return catalog != null ? catalog.optString("frequency", "immediate") : "immediate"; }

    /**
     * The catalog's tips for the engine; {@link #tips} becomes their delivered form. A tip whose rules do not read is left out, and so is
     * one whose anchor is a CSS selector, with the reason in {@link #ignoredTips()}.
     */
    private List<Engine.Tip> readTips() {
        List<Engine.Tip> engineTips = new ArrayList<Engine.Tip>();
        Map<String, DeliveredTip> delivered = new HashMap<String, DeliveredTip>();
        Map<String, String> ignored = new TreeMap<String, String>();
        JSONArray list = catalog != null ? catalog.optJSONArray("tips") : null;
        for (int i = 0; list != null && i < list.length(); i++) {
            JSONObject json = list.optJSONObject(i);
            if (json == null) continue;
            String selector = Json.text(json, "selector");
            if (selector != null) {
                ignored.put(json.optString("id"), "its anchor is the CSS selector \"" + selector
                    + "\", which only the web SDK can find; give it a named anchor to show it in apps");
                continue;
            }
            try {
                engineTips.add(engineTip(json));
                delivered.put(json.optString("id"), new DeliveredTip(json));
            } catch (IllegalArgumentException damaged) {
                // The others run.
            }
        }
        tips = delivered;
        ignoredTips = Collections.unmodifiableMap(ignored);
        return engineTips;
    }

    /** The catalog's tips this client leaves out, by id, each with the reason: a tip whose anchor is a CSS selector is for the web SDK. */
    public Map<String, String> ignoredTips() {
        return ignoredTips;
    }

    static Engine.Tip engineTip(JSONObject json) {
        JSONObject policy = json.optJSONObject("policy");
        Engine.Policy read = Engine.Policy.NONE;
        if (policy != null) {
            Long expiresAt = policy.has("expiresAt") && !policy.isNull("expiresAt") ? Values.parseTime(policy.optString("expiresAt")) : null;
            read = new Engine.Policy(
                policy.has("maxDisplayCount") && !policy.isNull("maxDisplayCount") ? policy.optInt("maxDisplayCount") : null,
                policy.has("maxDisplayDuration") && !policy.isNull("maxDisplayDuration") ? policy.optDouble("maxDisplayDuration") : null,
                expiresAt);
        }
        Rule dismissal = json.has("dismissal") && !json.isNull("dismissal") ? Rule.fromJSON(json.opt("dismissal")) : null;
        return new Engine.Tip(json.optString("id"), json.optString("container"), Json.text(json, "anchor"), Rule.fromJSON(json.opt("trigger")),
            dismissal, json.optInt("priority", 0), Json.text(json, "group"), json.optInt("order", 0), read);
    }

    /** The values rules read: device, app, locale, user id and the user's attributes. */
    private Map<String, Object> contextValues() {
        Map<String, Object> values = new HashMap<String, Object>();
        values.put("device.platform", context.platform);
        values.put("device.model", context.model);
        values.put("app.version", context.appVersion);
        values.put("user.locale", context.locale);
        values.put("user.id", user);
        for (Map.Entry<String, Object> attribute : attributes.entrySet()) values.put("user." + attribute.getKey(), attribute.getValue());
        return values;
    }

    // MARK: Lifecycle

    /**
     * Hands the renderer what was showing when the app last ran, asks the server for the catalog
     * once (offline is fine: the kept one runs) and starts the background work.
     */
    public void start() {
        List<Engine.Command> showing;
        synchronized (lock) {
            showing = engine.activeTips();
        }
        draw(showing);
        refresh();
        syncQuietly();
        if (!options.background) return;
        synchronized (lock) {
            if (background != null) return;
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, "waymark");
                thread.setDaemon(true);
                return thread;
            });
            executor.setRemoveOnCancelPolicy(true);
            background = executor;
            background.scheduleWithFixedDelay(this::refresh, options.refreshInterval, options.refreshInterval, TimeUnit.MILLISECONDS);
            scheduleFlush(options.flushInterval);
            scheduleTimer();
        }
    }

    /**
     * Stops the background work and keeps what is queued for the next start: written by the
     * client's writer at once, not on the calling thread (the app's main thread, going to the
     * background), which does not wait for it.
     */
    public void stop() {
        synchronized (lock) {
            if (background != null) background.shutdownNow();
            background = null;
        }
        keeper.keep(engineFile, engine::snapshot);
        tours.keepTriggers();
        keeper.keep(checklistFile, () -> checklists.kept());
        keeper.writeSoon();
    }

    private void scheduleFlush(long delay) {
        ScheduledExecutorService executor = background;
        if (executor == null) return;
        executor.schedule(() -> {
            long next = options.flushInterval;
            try {
                flush();
                failedFlushes = 0;
                boolean unshared;
                synchronized (lock) {
                    unshared = sharing.unshared();
                }
                if (unshared) syncProgress();
            } catch (WaymarkException error) {
                failedFlushes += 1;
                next = retryDelay(failedFlushes);
            }
            scheduleFlush(next);
        }, delay, TimeUnit.MILLISECONDS);
    }

    /** The wait after {@code failures} failures in a row: doubling, capped, in the upper half of its window so devices spread out. */
    long retryDelay(int failures) {
        long window = options.retryInitial << Math.min(Math.max(failures, 1) - 1, 30);
        window = Math.min(options.retryMaximum, window > 0 ? window : options.retryMaximum);
        return window / 2 + (long) (window / 2 * ThreadLocalRandom.current().nextDouble());
    }

    /**
     * Wakes the engine at its next time-driven change (a window closing, a display time running
     * out). A timer already set for that moment is left alone: most taps do not move it, and
     * setting one anew would cost a task on every tap.
     */
    private void scheduleTimer() {
        ScheduledExecutorService executor = background;
        if (executor == null) return;
        Long next = engine.nextChange();
        long at = next == null ? Long.MAX_VALUE : next;
        if (timer != null && !timer.isDone() && timerAt == at) return;
        if (timer != null) timer.cancel(false);
        timer = null;
        timerAt = at;
        if (next == null) return;
        timer = executor.schedule(() -> {
            List<Engine.Command> commands;
            synchronized (lock) {
                timer = null;
                commands = engine.advance(now());
                changed(commands);
            }
            deliver(commands);
        }, Math.max(0, at - now()), TimeUnit.MILLISECONDS);
    }

    // MARK: What the user does

    /**
     * Records what the user did: the engine sees it now, the server with the next upload.
     * {@code target} and {@code properties} (numbers, strings, booleans) may be null. Returns the
     * render commands it caused, which also go to the renderer.
     */
    public List<Engine.Command> record(String name, String target, Map<String, ?> properties) {
        List<Engine.Command> commands;
        List<Checklists.Change> latched;
        long time = now();
        synchronized (lock) {
            if ("screen".equals(name)) {
                screen = target;
                anchorsMissed.clear();
            }
            commands = engine.record(name, target, time, properties);
            changed(commands);
            tours.record(name, target, time, properties);
            latched = checklists.record(name, target, properties, time);
        }
        enqueue(name, target, time, properties);
        deliver(commands);
        List<Engine.Command> all = checklistsChanged(latched, commands);
        openDueTour();
        return all;
    }

    /** The user closed a tip. */
    public List<Engine.Command> close(String tip) {
        List<Engine.Command> commands;
        synchronized (lock) {
            commands = engine.close(tip, now());
            changed(commands);
        }
        deliver(commands);
        return commands;
    }

    /**
     * A container came into sight or went out of it: an activity or fragment started or stopped,
     * a video went full screen. Its tip pauses and resumes.
     */
    public List<Engine.Command> setContainer(String container, boolean visible) {
        List<Engine.Command> commands;
        synchronized (lock) {
            commands = engine.setContainer(container, visible, now());
            changed(commands);
        }
        deliver(commands);
        return commands;
    }

    /**
     * With {@link Builder#countsTipsWhenSeen}, the renderer says that a tip it draws came into the
     * user's sight (at least half of it on the screen, uncovered, for half a second, or touched) or
     * left it (scrolled away, covered, the app in the background). The first time a shown tip is
     * seen, {@code tip_shown} is sent; display time counts only while the tip is in sight.
     */
    public List<Engine.Command> setTip(String tip, boolean visible) {
        List<Engine.Command> commands;
        Map<String, Object> shown = null;
        long time = now();
        synchronized (lock) {
            commands = engine.setTip(tip, visible, time);
            changed(commands);
            if (visible) shown = unseen.remove(tip);
        }
        if (shown != null) enqueue("tip_shown", tip, time, shown);
        deliver(commands);
        return commands;
    }

    /** Context values rules read ({@code cart.items}, {@code user.plan}); null removes one. */
    public List<Engine.Command> setContext(Map<String, ?> values) {
        List<Engine.Command> commands;
        List<Checklists.Change> latched;
        synchronized (lock) {
            commands = engine.setContext(values, now());
            changed(commands);
            tours.setContext(new TreeMap<String, Object>(values), now());
            latched = checklists.setContext(values, now());
        }
        deliver(commands);
        List<Engine.Command> all = checklistsChanged(latched, commands);
        openDueTour();
        return all;
    }

    // MARK: Tours

    /** The catalog's tour, or null. */
    public DeliveredTour tour(String id) {
        for (DeliveredTour tour : deliveredTours()) if (tour.id.equals(id)) return tour;
        return null;
    }

    /** The user opened a page of a tour: sends {@code page_viewed}, from which the server measures reading time. */
    public void pageViewed(String tour, String page) {
        record("page_viewed", page, pageProperties(tour, page));
    }

    /** The user reached the bottom of a page: sends {@code page_read_to_bottom}; claim the page's credit after it. */
    public void pageRead(String tour, String page) {
        record("page_read_to_bottom", page, pageProperties(tour, page));
    }

    private static Map<String, Object> pageProperties(String tour, String page) {
        Map<String, Object> properties = new HashMap<String, Object>();
        properties.put("tour", tour);
        properties.put("page", page);
        return properties;
    }

    /** The app opened a tour itself: no other opens by its trigger until this one ends or is left. */
    public void tourOpened(String id) {
        synchronized (lock) {
            tours.opened(id);
        }
    }

    /** The open tour went away without the user ending it (the app closed its panel): its trigger opens it again where they were. */
    public void tourLeft() {
        synchronized (lock) {
            tours.left();
        }
        openDueTour();
    }

    /**
     * The user moved through a tour: the furthest page reached, and whether they finished it (read
     * it to the end). Progress only grows. A finished tour does not open by its trigger again,
     * and another may.
     */
    public void tourProgressed(String tour, int page, boolean finished) {
        if (finished) {
            tourEnded(tour, page, "finished");
            return;
        }
        changeTours(() -> tours.reached(tour, page));
    }

    /**
     * The user ended a tour at {@code page}: {@code "finished"} (its last page's Done) or
     * {@code "dismissed"} (its close button, Back). It does not open by its trigger again, and
     * another may. A page's buttons end it by themselves ({@link #press(String, String, String)}).
     */
    public void tourEnded(String tour, int page, String ending) {
        if (!ending.equals("finished") && !ending.equals("dismissed")) throw new IllegalArgumentException("a tour ends finished or dismissed, not " + ending);
        changeTours(() -> tours.ended(tour, page, ending));
    }

    /** Changes the tours' progress under the lock, sharing it when it grew (Tours keeps it); then opens a tour that is due. */
    private void changeTours(java.util.function.BooleanSupplier change) {
        synchronized (lock) {
            if (change.getAsBoolean()) sharing.changed();
        }
        openDueTour();
    }

    /** Whether the user finished the tour (here or, once synced, on another of their devices). */
    public boolean isTourFinished(String tour) {
        synchronized (lock) {
            return tours.finished(tour);
        }
    }

    /** Whether the user ended the tour, finished or dismissed: it does not open by its trigger again. */
    public boolean isTourEnded(String tour) {
        synchronized (lock) {
            return tours.ended(tour);
        }
    }

    /** Opens the first tour whose trigger holds, unless one is open or the user ended it. */
    private void openDueTour() {
        final TourOpener opener = options.onTour;
        if (opener == null) return;
        final DeliveredTour due;
        final int page;
        synchronized (lock) {
            TourGate.Opening opening = tours.openDue();
            if (opening == null) return;
            due = tour(opening.tour);
            page = opening.page;
        }
        if (due == null) return;
        Runnable open = () -> opener.open(due, page);
        if (options.rendererExecutor != null) options.rendererExecutor.execute(open);
        else open.run();
    }

    /**
     * After a change the engine's timer is set again and its state kept by the writer, within a
     * second (a file written and synced on every tap would cost the main thread).
     */
    private void changed(List<Engine.Command> commands) {
        if (!commands.isEmpty()) sharing.changed();
        engineChanged();
    }

    private void engineChanged() {
        scheduleTimer();
        keeper.keep(engineFile, engine::snapshot);
    }

    /**
     * Draws the commands and records what analytics count of them: {@code tip_shown},
     * {@code tip_closed} and {@code tip_dismissed}, with the tip, its container and its variant.
     */
    private void deliver(List<Engine.Command> commands) {
        for (Engine.Command command : commands) {
            if (command.action == Engine.Command.Action.HIDE && options.countsTipsWhenSeen) {
                synchronized (lock) {
                    unseen.remove(command.tip);
                }
            }
            String name;
            if (command.action == Engine.Command.Action.SHOW) name = "tip_shown";
            else if (command.reason == Engine.Command.Reason.CLOSED) name = "tip_closed";
            else if (command.reason == Engine.Command.Reason.DISMISSED) name = "tip_dismissed";
            else continue;
            DeliveredTip tip = tip(command.tip);
            Map<String, Object> properties = tip != null ? tipProperties(tip) : new HashMap<String, Object>();
            properties.put("tip", command.tip);
            properties.put("container", command.container);
            if (options.countsTipsWhenSeen && name.equals("tip_shown")) {
                // Sent when the renderer says the tip was seen (setTip).
                synchronized (lock) {
                    unseen.put(command.tip, properties);
                }
                continue;
            }
            enqueue(name, command.tip, command.time, properties);
        }
        // Drawn last: a renderer that says at once that a tip is seen finds its tip_shown waiting.
        draw(commands);
    }

    private void draw(final List<Engine.Command> commands) {
        if (commands.isEmpty() || renderer == null) return;
        final Map<String, DeliveredTip> delivered;
        synchronized (lock) {
            delivered = tips;
        }
        Runnable draw = () -> {
            for (Engine.Command command : commands) {
                DeliveredTip tip = delivered.get(command.tip);
                switch (command.action) {
                    case SHOW: if (tip != null) renderer.show(tip, command); break;
                    case HIDE: renderer.hide(tip, command); break;
                    case PAUSE: renderer.pause(tip, command); break;
                    default: renderer.resume(tip, command); break;
                }
            }
        };
        if (options.rendererExecutor != null) options.rendererExecutor.execute(draw);
        else draw.run();
    }

    private void enqueue(String name, String target, long time, Map<String, ?> properties) {
        JSONObject event = new JSONObject();
        JSONObject props = new JSONObject();
        String id = EventID.make(time);
        try {
            event.put("id", id);
            event.put("user", user);
            event.put("name", name);
            if (target != null) event.put("target", target);
            event.put("timestamp", Values.formatTime(time));
            if (context.platform != null) props.put("platform", context.platform);
            if (context.appVersion != null) props.put("appVersion", context.appVersion);
            if (context.locale != null) props.put("locale", context.locale);
            if (properties != null) {
                for (Map.Entry<String, ?> entry : properties.entrySet()) {
                    Object value = entry.getValue();
                    if (value instanceof Values.Moment || value instanceof Values.Version) value = value.toString();
                    if (value instanceof Number || value instanceof String || value instanceof Boolean) props.put(entry.getKey(), value);
                }
            }
            event.put("properties", props);
        } catch (JSONException cannotHappen) {
            throw new IllegalArgumentException(cannotHappen);
        }
        queue.append(event);
        GuidanceEvent.Listener listener = options.onGuidanceEvent;
        if (listener != null && GuidanceEvent.NAMES.contains(name)) {
            Map<String, Object> copy = new HashMap<String, Object>();
            for (java.util.Iterator<String> keys = props.keys(); keys.hasNext();) {
                String key = keys.next();
                copy.put(key, props.opt(key));
            }
            listener.onGuidanceEvent(new GuidanceEvent(id, name, target, time, copy));
        }
        if (queue.count() >= options.batchSize && background != null) {
            ScheduledExecutorService executor = background;
            executor.execute(() -> {
                try {
                    flush();
                } catch (WaymarkException offline) {
                    // The timer retries with backoff.
                }
            });
        }
    }

    // MARK: Surveys, buttons, hotspots and narration

    /**
     * The user answered a survey tip: a score in its range and an optional comment, cut to the 512
     * bytes an event property holds. Sent as {@code survey_answered}; a survey's default dismissal
     * is that event, so the answer also hides it. Throws {@code not_a_survey} or {@code bad_score}.
     */
    public List<Engine.Command> answer(String survey, int score, String comment) throws WaymarkException {
        DeliveredTip tip = tip(survey);
        if (tip == null || tip.survey == null) throw new WaymarkException(0, "not_a_survey", "the catalog has no survey tip \"" + survey + "\"");
        if (score < tip.survey.min || score > tip.survey.max) {
            throw new WaymarkException(0, "bad_score", "a score of this survey is from " + tip.survey.min + " to " + tip.survey.max);
        }
        Map<String, Object> properties = tipProperties(tip);
        // The score goes as text, as every SDK sends it: survey reports read it so.
        properties.put("score", String.valueOf(score));
        String text = comment != null ? comment.trim() : "";
        if (!text.isEmpty()) properties.put("comment", prefix(text, 512));
        return record("survey_answered", survey, properties);
    }

    /** The longest start of {@code text} that fits in {@code bytes} of UTF-8 without splitting a character as the user sees it. */
    static String prefix(String text, int bytes) {
        BreakIterator characters = BreakIterator.getCharacterInstance(Locale.ROOT);
        characters.setText(text);
        int end = 0;
        int used = 0;
        for (int next = characters.next(); next != BreakIterator.DONE; next = characters.next()) {
            used += text.substring(end, next).getBytes(StandardCharsets.UTF_8).length;
            if (used > bytes) break;
            end = next;
        }
        return text.substring(0, end);
    }

    private static Map<String, Object> tipProperties(DeliveredTip tip) {
        Map<String, Object> properties = new HashMap<String, Object>();
        properties.put("tip", tip.id);
        if (tip.variant != null) properties.put("variant", tip.variant);
        return properties;
    }

    /**
     * The user tapped a hotspot's marker open (a tip whose renderer is {@code hotspot}): sends
     * {@code hotspot_opened} (target: the tip), which rules read and analytics count. The renderer
     * then shows the tip beside its anchor; closing it is {@link #close}.
     */
    public List<Engine.Command> hotspotOpened(String tip) {
        DeliveredTip delivered = tip(tip);
        Map<String, Object> properties = delivered != null ? tipProperties(delivered) : new HashMap<String, Object>();
        properties.put("tip", tip);
        return record("hotspot_opened", tip, properties);
    }

    /**
     * The user pressed one of a tip's buttons. Sends {@code tip_action} (target: the tip; {@code
     * action}, {@code kind} and {@code to}), which the engine sees first, so a dismissal that reads
     * it ({@code tip_action:track-order}) counts the tip as done; a tip still showing then closes.
     * A button that leads out of Waymark goes to {@link Options#onAction}. Throws {@code not_an_action}.
     */
    public List<Engine.Command> press(String action, String tip) throws WaymarkException {
        DeliveredTip delivered = tip(tip);
        DeliveredAction pressed = delivered != null ? DeliveredAction.find(delivered.actions, action) : null;
        if (pressed == null) throw new WaymarkException(0, "not_an_action", "tip \"" + tip + "\" has no button \"" + action + "\"");
        Map<String, Object> properties = actionProperties(pressed);
        properties.putAll(tipProperties(delivered));
        List<Engine.Command> produced = new ArrayList<Engine.Command>(record("tip_action", tip, properties));
        produced.addAll(close(tip));
        perform(new ActionRequest(pressed, tip, null, null));
        return produced;
    }

    /**
     * The user pressed one of a tour page's buttons. Sends {@code tour_action} (target: the tour;
     * the {@code page}, {@code action}, {@code kind} and {@code to}) and hands a button that leads
     * out of Waymark to {@link Options#onAction}; the app's tour panel does {@code next} and
     * {@code dismiss} itself. Answers the button; throws {@code not_an_action}.
     */
    public DeliveredAction press(String action, String tour, String page) throws WaymarkException {
        DeliveredTour delivered = tour(tour);
        DeliveredPage onPage = delivered != null ? delivered.page(page) : null;
        DeliveredAction pressed = onPage != null ? DeliveredAction.find(onPage.actions, action) : null;
        if (pressed == null) {
            throw new WaymarkException(0, "not_an_action", "page \"" + page + "\" of tour \"" + tour + "\" has no button \"" + action + "\"");
        }
        Map<String, Object> properties = actionProperties(pressed);
        properties.put("tour", tour);
        properties.put("page", page);
        record("tour_action", tour, properties);
        // The button ends the tour as its kind says, so a trigger that still holds does not open it again.
        int index = delivered.pages.indexOf(onPage);
        changeTours(() -> tours.pressed(tour, index, pressed.kind, pressed.to));
        perform(new ActionRequest(pressed, null, tour, page));
        return pressed;
    }

    private static Map<String, Object> actionProperties(DeliveredAction action) {
        Map<String, Object> properties = new HashMap<String, Object>();
        properties.put("action", action.id);
        properties.put("kind", action.kind);
        if (action.to != null) properties.put("to", action.to);
        return properties;
    }

    private void perform(final ActionRequest request) {
        final ActionHandler handler = options.onAction;
        if (handler == null || !request.action.leavesWaymark()) return;
        Runnable perform = () -> handler.perform(request);
        if (options.rendererExecutor != null) options.rendererExecutor.execute(perform);
        else perform.run();
    }

    /** The narration of a tip in the content the catalog chose for this device, or null. */
    public Narration narration(String tip) {
        DeliveredTip delivered = tip(tip);
        return delivered != null ? Narration.of(delivered.content, transport.server) : null;
    }

    /** The narration of a tour page, or null. */
    public Narration narration(String tour, String page) {
        DeliveredPage onPage = page(tour, page);
        return onPage != null ? Narration.of(onPage.content, transport.server) : null;
    }

    /** The user started a tip's narration from its beginning: {@code narration_played}, as waymark.js sends it. */
    public void narrationPlayed(String tip) { recordNarration("narration_played", tip); }

    /** The user heard a tip's narration to its end: {@code narration_completed}. */
    public void narrationCompleted(String tip) { recordNarration("narration_completed", tip); }

    /** The same for a tour page's narration. */
    public void narrationPlayed(String tour, String page) { recordNarration("narration_played", tour, page); }

    /** The same for a tour page's narration heard to its end. */
    public void narrationCompleted(String tour, String page) { recordNarration("narration_completed", tour, page); }

    private void recordNarration(String name, String tip) {
        DeliveredTip delivered = tip(tip);
        if (delivered != null) record(name, tip, narrationProperties(delivered.content));
    }

    private void recordNarration(String name, String tour, String page) {
        DeliveredPage onPage = page(tour, page);
        if (onPage == null) return;
        Map<String, Object> properties = narrationProperties(onPage.content);
        properties.put("tour", tour);
        properties.put("page", page);
        record(name, page, properties);
    }

    private static Map<String, Object> narrationProperties(DeliveredContent content) {
        Map<String, Object> properties = new HashMap<String, Object>();
        properties.put("contentLocale", content.locale);
        properties.put("source", content.narrationSource);
        return properties;
    }

    private DeliveredPage page(String tour, String page) {
        DeliveredTour delivered = tour(tour);
        return delivered != null ? delivered.page(page) : null;
    }

    // MARK: Checklists

    /**
     * The catalog's checklists with the user's progress, for the app to draw (a launcher with the
     * count done, a panel of the items): each item is done once its rule holds and stays done. The
     * client sends {@code checklist_item_done} (target: the checklist; property {@code item}) and
     * {@code checklist_completed} as they happen, which rules read; claim a completed checklist's
     * credits with {@link #claimChecklist}.
     */
    public List<ChecklistStatus> checklists() {
        synchronized (lock) {
            return checklists.statuses();
        }
    }

    /**
     * The app's renderer was told to show a tip and did not find its anchor on the screen within
     * {@link #ANCHOR_WAIT_MILLIS}. Sends {@code anchor_missing} (target: the tip; properties
     * {@code anchor} and {@code screen}, the last screen recorded) once per tip and screen view, so
     * the console can show an author that a tip points at an element the app does not have there.
     * Rules do not see it. Answers whether it was sent.
     */
    public boolean anchorNotFound(String tip) {
        DeliveredTip delivered = tip(tip);
        if (delivered == null || delivered.anchor == null) return false;
        Map<String, Object> properties = new HashMap<String, Object>();
        synchronized (lock) {
            if (!anchorsMissed.add(tip)) return false;
            if (screen != null) properties.put("screen", screen);
        }
        properties.put("anchor", delivered.anchor);
        enqueue("anchor_missing", tip, now(), properties);
        return true;
    }

    /**
     * The app says what a screen shows: the anchors its views are named by and the screen areas on
     * it, for the console's tip form to offer and its check to compare tips with
     * ({@code POST /v1/anchors}). Names only, no user; a name the server would refuse (a space,
     * {@code [}, {@code ]}, {@code :}, not printable ASCII, over 128 characters) is left out. Sent at
     * most once a screen a UTC day while the app runs: answers false, sending nothing, when the
     * screen was reported today. Waits for the network: call it from a background thread, once the
     * screen has drawn.
     */
    public boolean reportAnchors(String screen, List<String> anchors, List<String> areas) throws WaymarkException {
        if (screen == null || !screen.matches("[A-Za-z0-9_-]{1,64}")) {
            throw new WaymarkException(0, "bad_request", "screen is a name of letters, digits, _ and -, up to 64, as screen:NAME events have it");
        }
        long day = Math.floorDiv(now(), 86_400_000L);
        synchronized (lock) {
            Long reported = reportedScreens.get(screen);
            if (reported != null && reported == day) return false;
        }
        JSONObject body = new JSONObject();
        Json.put(body, "platform", context.platform != null ? context.platform : "unknown");
        Json.put(body, "screen", screen);
        Json.put(body, "anchors", new JSONArray(reportable(anchors)));
        Json.put(body, "areas", new JSONArray(reportable(areas)));
        Transport.Answer answer = transport.post("/v1/anchors", body);
        if (answer.status != 204) throw answer.error();
        synchronized (lock) {
            reportedScreens.put(screen, day);
        }
        return true;
    }

    /**
     * Sends a picture of one screen with where its anchors and areas are, for the console to show
     * as boxes an author picks: only from a client opened from a preview link
     * ({@link #preview(String, String, String, Context, Options, Renderer)}), while the device is
     * paired with the console; the app's own client is refused (403 {@code not_paired}). The frames
     * are in the screen's points ({@code width} by {@code height}); the image is the app's own
     * picture of its view, a PNG or JPEG of at most 700 KB. Waits for the network: call it from a
     * background thread. Answers the capture's id.
     */
    public String sendCapture(String screen, byte[] image, double width, double height, List<CapturedFrame> anchors, List<CapturedFrame> areas)
            throws WaymarkException {
        if (image == null || image.length == 0 || image.length > 700 * 1024) {
            throw new WaymarkException(0, "bad_request", "image is a PNG or JPEG of at most 700 KB");
        }
        JSONObject body = new JSONObject();
        Json.put(body, "platform", context.platform != null ? context.platform : "unknown");
        Json.put(body, "screen", screen);
        Json.put(body, "width", width);
        Json.put(body, "height", height);
        Json.put(body, "image", java.util.Base64.getEncoder().encodeToString(image));
        Json.put(body, "anchors", frames(anchors));
        Json.put(body, "areas", frames(areas));
        Transport.Answer answer = transport.post("/v1/captures", body);
        if (answer.status != 201) throw answer.error();
        return answer.json().optString("id");
    }

    private static JSONArray frames(List<CapturedFrame> frames) {
        JSONArray list = new JSONArray();
        if (frames == null) return list;
        for (CapturedFrame frame : frames) {
            JSONObject json = new JSONObject();
            Json.put(json, "name", frame.name);
            Json.put(json, "x", frame.x);
            Json.put(json, "y", frame.y);
            Json.put(json, "width", frame.width);
            Json.put(json, "height", frame.height);
            list.put(json);
        }
        return list;
    }

    /** The names a report can carry, each once, in their order, at most 200. */
    static List<String> reportable(List<String> names) {
        Set<String> kept = new java.util.LinkedHashSet<String>();
        if (names != null) {
            for (String name : names) {
                if (kept.size() < 200 && name != null && name.matches("[!-9;-Z\\\\^-~]{1,128}")) kept.add(name);
            }
        }
        return new ArrayList<String>(kept);
    }

    /** How long a renderer looks for a shown tip's anchor before it calls {@link #anchorNotFound}. */
    public static final long ANCHOR_WAIT_MILLIS = 5000;

    /** The user opened a checklist's panel: sends {@code checklist_opened}, which analytics count. */
    public void checklistOpened(String checklist) {
        Map<String, Object> properties = new HashMap<String, Object>();
        properties.put("checklist", checklist);
        enqueue("checklist_opened", checklist, now(), properties);
    }

    /** Sends what the rules latched, as events the rules read too, and keeps the progress; answers {@code commands} and what those events caused. */
    private List<Engine.Command> checklistsChanged(List<Checklists.Change> changes, List<Engine.Command> commands) {
        if (changes.isEmpty()) return commands;
        List<Engine.Command> all = new ArrayList<Engine.Command>(commands);
        for (Checklists.Change change : changes) {
            Map<String, Object> properties = new HashMap<String, Object>();
            properties.put("checklist", change.checklist);
            if (change.item != null) properties.put("item", change.item);
            else if (change.seconds != null) properties.put("seconds", change.seconds);
            all.addAll(record(change.item != null ? "checklist_item_done" : "checklist_completed", change.checklist, properties));
        }
        synchronized (lock) {
            sharing.changed();
            keeper.keep(checklistFile, () -> checklists.kept());
        }
        return all;
    }

    // MARK: Help

    /**
     * What the help launcher lists on {@code screen} (as {@code screen:NAME} names it; null for
     * none): the articles that belong to it first, then the others; the tours and the checklists
     * that belong to it or to every screen. Sends {@code help_opened}.
     */
    public HelpResults helpOpened(String screen) {
        Map<String, Object> properties = new HashMap<String, Object>();
        properties.put("screen", screen != null ? screen : "home");
        enqueue("help_opened", null, now(), properties);
        return listing(screen);
    }

    /**
     * What a search of the help finds ({@link HelpSearch}), and sends {@code help_searched} with the
     * query (folded, at most 100 characters), the number found and the screen: a search that finds
     * nothing is what the console lists as help people looked for and did not find. Call it when
     * the user stops typing or submits, not on every key.
     */
    public HelpResults searchHelp(String query, String screen) {
        String folded = HelpSearch.fold(query);
        if (folded.length() > 100) folded = folded.substring(0, Character.isLowSurrogate(folded.charAt(100)) ? 99 : 100);
        if (folded.isEmpty()) return listing(screen);
        HelpResults results = HelpResults.found(folded, articles(), deliveredTours(), deliveredChecklists());
        Map<String, Object> properties = new HashMap<String, Object>();
        properties.put("query", folded);
        properties.put("screen", screen != null ? screen : "home");
        properties.put("results", results.count());
        enqueue("help_searched", null, now(), properties);
        return results;
    }

    /** The user opened an article: sends {@code article_opened} (target: the article). */
    public void articleOpened(String article) {
        Map<String, Object> properties = new HashMap<String, Object>();
        properties.put("article", article);
        enqueue("article_opened", article, now(), properties);
    }

    /** Every article, the screen's first; the tours and checklists of the screen or of every screen. */
    private HelpResults listing(String screen) { return HelpResults.listed(screen, articles(), deliveredTours(), deliveredChecklists()); }

    private List<DeliveredArticle> articles() { return Json.objects(catalog(), "articles", DeliveredArticle::new); }

    private List<DeliveredTour> deliveredTours() { return Json.objects(catalog(), "tours", DeliveredTour::new); }

    private List<DeliveredChecklist> deliveredChecklists() {
        synchronized (lock) {
            return checklists.checklists;
        }
    }

    // MARK: Progress on the user's devices

    /**
     * Sends the user's progress (tips shown and finished, tours, checklists) to the server, which
     * keeps the join of every device's, and merges the answer here: a tip the user closed or saw
     * enough of on another phone does not come back, a tour finished there does not open by its
     * trigger, checklist items done there are done here. Needs the userHash; without one it does
     * nothing and answers null. The client calls it at {@link #start()} and, after changes, with
     * the background uploads; merging is a join, so a call that fails changes nothing and a later
     * one catches up. Answers whether it synced (false without a userHash).
     */
    public boolean syncProgress() throws WaymarkException {
        String proof = userHash;
        if (proof == null) return false;
        SharedProgress.Sent sent;
        synchronized (lock) {
            sent = sharing.document(engine, tours, checklists, listening);
        }
        JSONObject body = new JSONObject();
        Json.put(body, "user", user);
        Json.put(body, "userHash", proof);
        Json.put(body, "progress", sent.progress);
        Transport.Answer answer = transport.post("/v1/progress", body);
        if (answer.status != 200) throw answer.error();
        JSONObject merged = answer.json().optJSONObject("progress");
        if (merged == null) throw new WaymarkException(answer.status, "bad_response", "the answer has no progress");
        List<Engine.Command> commands;
        synchronized (lock) {
            commands = sharing.merge(sent, merged, engine, tours, checklists, listening, now());
            keeper.keep(checklistFile, () -> checklists.kept());
            engineChanged();
        }
        deliver(commands);
        return true;
    }

    /**
     * Whether the user hears every tip as it appears (the listener's mode): their own choice, made
     * here or on another device (shared by {@link #syncProgress()}, the latest holding), else the
     * catalog's default for their locale (its {@code listen}: {@code hi} covers {@code hi-IN}). A
     * renderer speaks each tip (its narration, else the platform's voice) once it is seen while
     * this is true, as the web SDK does.
     */
    public boolean listensToTips() {
        synchronized (lock) {
            return listening.isOn(catalog != null ? catalog.optJSONArray("listen") : null, context.locale);
        }
    }

    /**
     * The user turned the listener's mode on or off: kept on the device and shared with their
     * other devices by the next {@link #syncProgress()}; their choice always wins over the
     * catalog's default.
     */
    public void setListening(boolean on) {
        long at = now();
        synchronized (lock) {
            listening.choose(on, at);
            sharing.changed();
        }
    }

    /** {@link #syncProgress()} where being offline is no failure: the next sync catches up. */
    private void syncQuietly() {
        try {
            syncProgress();
        } catch (WaymarkException offline) {
            // Merging is a join: the background uploads try again.
        }
    }

    // MARK: The server

    /** The catalog's tips, by id, as delivered to this device. */
    public DeliveredTip tip(String id) {
        synchronized (lock) {
            return tips.get(id);
        }
    }

    /** The catalog the client runs (from the server or from its file), or null. */
    JSONObject catalog() {
        synchronized (lock) {
            return catalog;
        }
    }

    /** The version of the catalog the client runs (from the server or from its file), or null without one. */
    public Integer catalogVersion() { return version(); }

    /**
     * Waymark's word for {@code key} ({@code next}, {@code back}, {@code readAloud}, {@code help}...)
     * in the user's language, as the catalog carries it ({@code ui}), for the buttons an app draws
     * around the content; {@code english} when the catalog has none (English, or a language
     * Waymark has no words in). {@code {n}} and {@code {total}} are left for the app to fill in.
     */
    public String word(String key, String english) {
        synchronized (lock) {
            JSONObject words = catalog != null ? catalog.optJSONObject("ui") : null;
            String word = Json.text(words, key);
            return word != null ? word : english;
        }
    }

    /** A tip's phase in the engine: waiting, active, paused or finished:REASON. */
    public String phase(String tip) {
        synchronized (lock) {
            return engine.phase(tip);
        }
    }

    /** Events waiting to be uploaded. */
    public int queuedEvents() { return queue.count(); }

    /**
     * Asks the server whether the catalog changed (If-None-Match) and runs a new one at once, tips
     * keeping their states by id. Returns the version now running, or null when there is none.
     * Never throws: offline, the client goes on with the catalog it has.
     */
    public Integer refresh() {
        JSONObject fresh = catalogSource.fetch(userHash);
        if (fresh == null) return version();
        List<Engine.Command> commands;
        synchronized (lock) {
            catalog = fresh;
            // The running engine takes the new tips: states kept by id, removed tips taken down.
            commands = engine.update(readTips(), frequency(), now());
            tours.update(catalog, contextValues(), now());
            makeChecklists(checklists.kept());
            engine.setContext(contextValues(), now());
            changed(commands);
        }
        Runnable listener = catalogListener;
        if (listener != null) listener.run();
        deliver(commands);
        return version();
    }

    /** Runs {@code listener} on each new catalog, before its tips are drawn. */
    void onCatalog(Runnable listener) { catalogListener = listener; }

    /** The catalog running now, as the server sent it (an empty one before the first). */
    JSONObject catalogJSON() {
        synchronized (lock) {
            return catalog != null ? Json.copy(catalog) : new JSONObject();
        }
    }

    /** The server's address, as the client was built with it. */
    String server() { return server; }

    /** The tip that shows in a container now (paused, if it is hidden), as a show command; null: none. */
    Engine.Command occupant(String container) {
        synchronized (lock) {
            return engine.occupant(container);
        }
    }

    private Integer version() {
        synchronized (lock) {
            return catalog != null && catalog.has("version") ? catalog.optInt("version") : null;
        }
    }

    /** Uploads queued events, batch after batch, until none is left; throws when the server cannot take them now (they stay queued). */
    public FlushReport flush() throws WaymarkException { return uploader.flush(); }

    /**
     * Claims a tour page's credits for the user, once: queued events go first (the server grants a
     * page's credit only for a page it has seen read), a 409 {@code not_read} is tried again after
     * another upload, failures of the network are retried with backoff. A claim granted before,
     * in this run or an earlier one, answers from the claims kept on the device.
     * The answer is the server's grant; {@link Grant#created} is false when it was granted before.
     */
    public Grant claim(String tour, String page) throws WaymarkException {
        JSONObject body = new JSONObject();
        Json.put(body, "tour", tour);
        Json.put(body, "page", page);
        return claim(tour + "/" + page, body);
    }

    /** Claims a completed checklist's credits, as {@link #claim(String, String)} does a page's. */
    public Grant claimChecklist(String checklist) throws WaymarkException {
        return claim("checklist:" + checklist, Json.put(new JSONObject(), "checklist", checklist));
    }

    /** Whether the user's claim of this tour page was granted (as this device knows). */
    public boolean isClaimed(String tour, String page) {
        synchronized (lock) {
            return claims.has(tour + "/" + page);
        }
    }

    private Grant claim(String key, JSONObject body) throws WaymarkException {
        synchronized (lock) {
            JSONObject kept = claims.optJSONObject(key);
            if (kept != null) return Grant.from(kept, false);
        }
        String proof = userHash;
        if (proof == null) throw new WaymarkException(0, "unidentified", "a claim needs the user's userHash, from the app's backend");
        Json.put(body, "user", user);
        Json.put(body, "userHash", proof);
        WaymarkException last = null;
        boolean retriedRead = false;
        for (int attempt = 1; attempt <= options.claimAttempts; attempt++) {
            try {
                flush();
                Transport.Answer answer = transport.post("/v1/rewards/claims", body);
                if (answer.status == 200 || answer.status == 201) {
                    JSONObject grant = answer.json();
                    synchronized (lock) {
                        Json.put(claims, key, grant);
                        keeper.keep(claimsFile, () -> claims);
                    }
                    return Grant.from(grant, grant.optBoolean("created", true));
                }
                WaymarkException error = answer.error();
                // The page's reading may still be on its way: upload and ask once more.
                if (error.code.equals("not_read") && !retriedRead) {
                    retriedRead = true;
                    attempt -= 1;
                    continue;
                }
                if (!error.isTransient()) throw error;
                last = error;
            } catch (WaymarkException error) {
                if (!error.isTransient()) throw error;
                last = error;
            }
            if (attempt < options.claimAttempts) sleep(retryDelay(attempt));
        }
        throw last;
    }

    private static void sleep(long millis) throws WaymarkException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new WaymarkException(0, "interrupted", "the claim was interrupted");
        }
    }

    /**
     * Tells the server the user's attributes ({@code plan}, {@code cityTier}...: strings, numbers,
     * booleans, {@link Values.Moment} and {@link Values.Version}; null removes one) and runs rules
     * on all the attributes it keeps for them ({@code user.plan}). {@code userHash} proves the
     * user; null keeps the one given before. Returns the attributes the server keeps, by name.
     */
    public Map<String, Object> identify(Map<String, ?> changes, String userHash) throws WaymarkException {
        if (userHash != null) this.userHash = userHash;
        String proof = this.userHash;
        if (proof == null) throw new WaymarkException(0, "unidentified", "identify needs the user's userHash, from the app's backend");
        JSONObject body = new JSONObject();
        JSONObject values = new JSONObject();
        try {
            for (Map.Entry<String, ?> entry : new TreeMap<String, Object>(changes).entrySet()) {
                values.put(entry.getKey(), attributeJSON(entry.getValue()));
            }
            body.put("user", user).put("userHash", proof).put("attributes", values);
        } catch (JSONException error) {
            throw new WaymarkException(0, "bad_request", error.getMessage());
        }
        Transport.Answer answer = transport.post("/v1/identify", body);
        if (answer.status != 200) throw answer.error();
        Map<String, Object> kept = new TreeMap<String, Object>();
        JSONArray list = answer.json().optJSONArray("attributes");
        for (int i = 0; list != null && i < list.length(); i++) {
            JSONObject attribute = list.optJSONObject(i);
            if (attribute == null) continue;
            Object value = Values.fromJSON(attribute.opt("value"));
            if (value != null) kept.put(attribute.optString("name"), value);
        }
        List<Engine.Command> commands;
        List<Checklists.Change> latched;
        synchronized (lock) {
            Map<String, Object> context = new HashMap<String, Object>();
            for (String name : attributes.keySet()) if (!kept.containsKey(name)) context.put("user." + name, null);
            attributes.clear();
            attributes.putAll(kept);
            for (Map.Entry<String, Object> entry : kept.entrySet()) context.put("user." + entry.getKey(), entry.getValue());
            commands = engine.setContext(context, now());
            changed(commands);
            tours.setContext(context, now());
            latched = checklists.setContext(context, now());
        }
        deliver(commands);
        checklistsChanged(latched, commands);
        openDueTour();
        return Collections.unmodifiableMap(kept);
    }

    private static Object attributeJSON(Object value) throws JSONException {
        if (value == null) return JSONObject.NULL;
        if (value instanceof Values.Moment) return new JSONObject().put("time", Values.formatTime(((Values.Moment) value).millis));
        if (value instanceof Values.Version) return new JSONObject().put("version", ((Values.Version) value).text);
        if (value instanceof Number || value instanceof String || value instanceof Boolean) return value;
        throw new JSONException("an attribute is text, a number, a boolean, a Moment or a Version, not " + value.getClass().getSimpleName());
    }

}
