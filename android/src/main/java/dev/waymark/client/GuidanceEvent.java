package dev.waymark.client;

import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * One thing the guidance did, for the app's own analytics ({@link WaymarkClient.Builder#onGuidanceEvent}):
 * the event as Waymark's server gets it, with the same id. {@code tip_shown} with {@code tip},
 * {@code container} and {@code variant}; {@code page_read_to_bottom} with {@code tour};
 * {@code help_searched} with {@code query} and {@code results}; and the app's standard properties
 * ({@code platform}, {@code appVersion}, {@code locale}) on every one.
 */
public final class GuidanceEvent {
    /**
     * The names of guidance events: tips shown, closed, dismissed and acted on, hotspots, surveys,
     * tour pages, videos, narration, checklists and the help. The same stable list as the Swift
     * SDK's (docs/analytics-forwarding.md); the web SDK sends the same events.
     */
    public static final Set<String> NAMES = Collections.unmodifiableSet(new HashSet<String>(Arrays.asList(
        "tip_shown", "tip_closed", "tip_dismissed", "tip_action", "hotspot_opened", "survey_answered",
        "page_viewed", "page_read_to_bottom", "tour_action", "video_played", "narration_played", "narration_completed",
        "checklist_opened", "checklist_item_done", "checklist_completed", "help_opened", "help_searched", "article_opened")));

    /** The event's id, the same the server stores: a receiver of both can join them. */
    public final String id;
    /** One of {@link #NAMES}. */
    public final String name;
    /** The tip, tour, checklist or article it is about, where it has one; else null. */
    public final String target;
    /** When it happened, in ms since 1970. */
    public final long time;
    /** Its properties: strings, numbers and booleans; unmodifiable. */
    public final Map<String, Object> properties;

    GuidanceEvent(String id, String name, String target, long time, Map<String, Object> properties) {
        this.id = id;
        this.name = name;
        this.target = target;
        this.time = time;
        this.properties = Collections.unmodifiableMap(properties);
    }

    @Override public String toString() { return name + (target != null ? " " + target : "") + " " + properties; }

    /** Hears of each guidance event as the client queues it. */
    public interface Listener {
        /** Called on the thread that caused the event (a tap's, the engine's timer's): keep it quick. */
        void onGuidanceEvent(GuidanceEvent event);
    }
}
