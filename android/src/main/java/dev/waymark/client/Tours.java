package dev.waymark.client;

import dev.waymark.engine.TourGate;
import dev.waymark.rules.Rule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * The catalog's tours on this device: their triggers (which hear every event and context value
 * from the start), the user's progress with each (the furthest page reached, how it ended, here
 * or on their other devices) and the tour open now, which decide the tour that opens by its
 * trigger. The progress and what the triggers have seen are kept in their files by the client's
 * writer. Not thread-safe: the client holds its lock.
 */
final class Tours {
    private final KeptFile progressFile;
    private final KeptFile triggerFile;
    private final Keeper keeper;
    private TourGate gate;

    /** The tours of {@code catalog} (null: none), going on from what the files kept. */
    Tours(Storage storage, Keeper keeper, JSONObject catalog, Map<String, Object> context, long now) {
        this.progressFile = new KeptFile(storage, "tours.json");
        this.triggerFile = new KeptFile(storage, "tour-triggers.json");
        this.keeper = keeper;
        run(catalog, progressFile.load(), triggerFile.load(), context, now);
    }

    /** A new catalog's tours: the progress, what the triggers have seen and the open tour go on. */
    void update(JSONObject catalog, Map<String, Object> context, long now) {
        run(catalog, gate.progress(), gate.evaluator().snapshot(), context, now);
    }

    private void run(JSONObject catalog, JSONObject progress, JSONObject snapshot, Map<String, Object> context, long now) {
        List<TourGate.Tour> tours = new ArrayList<TourGate.Tour>();
        JSONArray list = catalog != null ? catalog.optJSONArray("tours") : null;
        for (int i = 0; list != null && i < list.length(); i++) {
            JSONObject json = list.optJSONObject(i);
            if (json == null) continue;
            try {
                Rule trigger = json.has("trigger") && !json.isNull("trigger") ? Rule.fromJSON(json.opt("trigger")) : null;
                tours.add(new TourGate.Tour(json.optString("id"), trigger, new DeliveredTour(json).pages.size()));
            } catch (IllegalArgumentException damaged) {
                // The others open.
            }
        }
        String open = gate != null ? gate.open() : null;
        gate = new TourGate(tours, progress, snapshot);
        if (open != null) gate.opened(open);
        setContext(context, now);
    }

    /** What the user did, for the triggers. */
    void record(String name, String target, long time, Map<String, ?> properties) {
        gate.evaluator().record(name, target, time, properties);
    }

    /** Context values (null removes one), for the triggers. */
    void setContext(Map<String, ?> values, long now) {
        for (Map.Entry<String, ?> entry : values.entrySet()) gate.evaluator().setContext(entry.getKey(), entry.getValue(), now);
    }

    /** The app opened a tour itself: no other opens by its trigger until it ends or is left. */
    void opened(String tour) { gate.opened(tour); }

    /** The open tour went away without the user ending it. */
    void left() { gate.left(); }

    /** The user reached {@code page}: whether the progress grew (then it is kept). */
    boolean reached(String tour, int page) { return kept(() -> gate.reached(tour, page)); }

    /** The user ended the tour at {@code page}, {@code finished} or {@code dismissed}: whether the progress grew. */
    boolean ended(String tour, int page, String ending) { return kept(() -> gate.ended(tour, page, ending)); }

    /** A page's button of {@code kind} ended the tour as that kind does: whether the progress grew. */
    boolean pressed(String tour, int page, String kind, String to) { return kept(() -> gate.pressed(tour, page, kind, to)); }

    private boolean kept(BooleanSupplier change) {
        boolean grew = change.getAsBoolean();
        if (grew) keeper.keep(progressFile, gate::progress);
        return grew;
    }

    boolean finished(String tour) { return gate.finished(tour); }

    boolean ended(String tour) { return gate.ended(tour); }

    /** The first tour whose trigger holds, which is now open, unless one is open or the user ended it; null for none. */
    TourGate.Opening openDue() { return gate.openDue(); }

    /** The progress, to share with the user's other devices. */
    JSONObject progress() { return gate.progress(); }

    /** Takes in the progress of the user's other devices (null: none), keeping it when it grew. */
    void merge(JSONObject remote) {
        if (remote != null) kept(() -> gate.merge(remote));
    }

    /** Keeps what the triggers have seen (the app goes to the background). */
    void keepTriggers() {
        keeper.keep(triggerFile, () -> gate.evaluator().snapshot());
    }
}
