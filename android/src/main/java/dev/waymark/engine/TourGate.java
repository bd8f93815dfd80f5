package dev.waymark.engine;

import dev.waymark.rules.Rule;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.json.JSONObject;

/**
 * Which tour opens by its trigger, as every SDK decides it (docs/rules.md#tours). One tour is open
 * at a time; when none is, the first in catalog order whose trigger holds and that has not ended
 * opens, at the furthest page reached. A tour that ended, finished or dismissed, here or on another
 * of the user's devices, never opens by its trigger again; one left open (the app closed, the
 * panel went away) opens again where the user was. Pure: callers tell it what the user did and ask
 * what opens. Not thread-safe: its owner holds a lock around it. {@code conformance/engine/tours.json}
 * holds the cases every SDK plays.
 */
public final class TourGate {
    /** A tour as the gate needs it: its id, its trigger (null: the app opens it) and its number of pages. */
    public static final class Tour {
        public final String id;
        public final Rule trigger;
        public final int pages;

        public Tour(String id, Rule trigger, int pages) {
            this.id = id;
            this.trigger = trigger;
            this.pages = pages;
        }
    }

    /** A tour to open, at a page (from 0). */
    public static final class Opening {
        public final String tour;
        public final int page;

        Opening(String tour, int page) {
            this.tour = tour;
            this.page = page;
        }
    }

    private final List<Tour> triggered = new ArrayList<Tour>();
    private final Map<String, Integer> pages = new HashMap<String, Integer>();
    private final Evaluator evaluator;
    /** Per tour: {"page", "finished", "dismissed" (only when true)}. */
    private final JSONObject progress;
    private String open;

    /**
     * The gate on {@code tours}, going on from {@code progress} (per tour {"page", "finished",
     * "dismissed"}; copied) and what the triggers had seen ({@code snapshot}, may be null).
     */
    public TourGate(List<Tour> tours, JSONObject progress, JSONObject snapshot) {
        List<Rule> rules = new ArrayList<Rule>();
        for (Tour tour : tours) {
            if (!pages.containsKey(tour.id)) pages.put(tour.id, tour.pages);
            if (tour.trigger == null) continue;
            triggered.add(tour);
            rules.add(tour.trigger);
        }
        Evaluator made;
        try {
            made = new Evaluator(rules, snapshot);
        } catch (RuntimeException unreadable) {
            made = new Evaluator(rules);
        }
        evaluator = made;
        this.progress = new JSONObject();
        if (progress != null) merge(progress);
    }

    /** The triggers' evaluator: events and context go to it. */
    public Evaluator evaluator() { return evaluator; }

    /** The user's progress with each tour, as shared with their other devices (a copy). */
    public JSONObject progress() {
        JSONObject copy = new JSONObject();
        for (Iterator<String> keys = progress.keys(); keys.hasNext();) {
            String id = keys.next();
            JSONObject p = progress.optJSONObject(id);
            JSONObject one = new JSONObject();
            Evaluator.put(one, "page", p.optInt("page", 0));
            Evaluator.put(one, "finished", p.optBoolean("finished", false));
            if (p.optBoolean("dismissed", false)) Evaluator.put(one, "dismissed", true);
            Evaluator.put(copy, id, one);
        }
        return copy;
    }

    /** The tour open now, or null. */
    public String open() { return open; }

    /** Whether the tour ended, finished or dismissed, here or elsewhere. */
    public boolean ended(String tour) {
        JSONObject p = tour == null ? null : progress.optJSONObject(tour);
        return p != null && (p.optBoolean("finished", false) || p.optBoolean("dismissed", false));
    }

    /** Whether the user finished the tour (read it to the end, or followed a button where it leads). */
    public boolean finished(String tour) {
        JSONObject p = progress.optJSONObject(tour);
        return p != null && p.optBoolean("finished", false);
    }

    /** The app (or a button) opened {@code tour}: no other opens by its trigger while it is open. */
    public void opened(String tour) { open = tour; }

    /** The open tour went away without the user ending it. */
    public void left() { open = null; }

    /** The user reached {@code page} of {@code tour}; whether the progress grew. */
    public boolean reached(String tour, int page) {
        return mergeOne(tour, Math.max(0, page), false, false);
    }

    /** What pressing a button of {@code kind} does to a tour: "dismissed", "finished" or null (next, url). */
    public static String endingOfButton(String kind) {
        if (kind.equals("dismiss")) return "dismissed";
        return kind.equals("route") || kind.equals("tour") ? "finished" : null;
    }

    /** The user ended {@code tour} at {@code page}, "finished" or "dismissed"; whether the progress grew. */
    public boolean ended(String tour, int page, String ending) {
        if (tour.equals(open)) open = null;
        return mergeOne(tour, Math.max(0, page), ending.equals("finished"), ending.equals("dismissed"));
    }

    /**
     * A button of {@code kind} pressed on {@code page} (leading to {@code to}): next moves on (on
     * the last page it finishes the tour), the others end it as {@link #endingOfButton} says, and a
     * tour button's tour is open. Whether the progress grew.
     */
    public boolean pressed(String tour, int page, String kind, String to) {
        if (kind.equals("next")) {
            Integer count = pages.get(tour);
            return page + 1 < (count == null ? 0 : count) ? reached(tour, page + 1) : ended(tour, page, "finished");
        }
        String ending = endingOfButton(kind);
        if (ending == null) return false;
        boolean grew = ended(tour, page, ending);
        if (kind.equals("tour") && to != null) open = to;
        return grew;
    }

    /** Takes in progress from other devices (a join); whether it grew. An open tour that ended elsewhere is no longer open. */
    public boolean merge(JSONObject other) {
        boolean grew = false;
        List<String> ids = new ArrayList<String>();
        for (Iterator<String> keys = other.keys(); keys.hasNext();) ids.add(keys.next());
        Collections.sort(ids);
        for (String id : ids) {
            JSONObject p = other.optJSONObject(id);
            if (p == null) continue;
            grew |= mergeOne(id, Math.max(0, p.optInt("page", 0)), p.optBoolean("finished", false), p.optBoolean("dismissed", false));
        }
        if (ended(open)) open = null;
        return grew;
    }

    private boolean mergeOne(String tour, int page, boolean finished, boolean dismissed) {
        JSONObject before = progress.optJSONObject(tour);
        int was = before != null ? before.optInt("page", 0) : 0;
        boolean wasFinished = before != null && before.optBoolean("finished", false);
        boolean wasDismissed = before != null && before.optBoolean("dismissed", false);
        JSONObject after = new JSONObject();
        Evaluator.put(after, "page", Math.max(was, page));
        Evaluator.put(after, "finished", wasFinished || finished);
        if (wasDismissed || dismissed) Evaluator.put(after, "dismissed", true);
        Evaluator.put(progress, tour, after);
        return before == null || Math.max(was, page) != was || finished && !wasFinished || dismissed && !wasDismissed;
    }

    /** The tour to open now, marked open, or null: none while one is open. */
    public Opening openDue() {
        if (open != null) return null;
        for (int i = 0; i < triggered.size(); i++) {
            Tour tour = triggered.get(i);
            if (!evaluator.value(i) || ended(tour.id)) continue;
            open = tour.id;
            JSONObject p = progress.optJSONObject(tour.id);
            return new Opening(tour.id, Math.min(p != null ? p.optInt("page", 0) : 0, Math.max(tour.pages - 1, 0)));
        }
        return null;
    }
}
