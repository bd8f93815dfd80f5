package dev.waymark.client;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Events waiting to be uploaded, kept in a file so that they survive the app being killed: each
 * event is appended as one JSON line; after an upload the file is rewritten with what is left.
 * Events in flight stay queued until the server has answered for them, so an upload that fails
 * half-way is sent again and the server drops the ones it already has by their ids. A device that
 * stays offline keeps at most {@code limit} events, the oldest dropped first.
 *
 * <p>Appending only adds to memory and calls {@code changed}: the client's one background writer
 * then calls {@link #persist()}, which appends the new lines (or rewrites the file after events
 * left it). So {@code record} never waits for the storage, and a crash loses at most the events of
 * the writer's last interval.
 */
final class EventQueue {
    private static final String NAME = "events.jsonl";
    private final Storage storage;
    private final int limit;
    private final Consumer<EventQueue> changed;
    private final List<JSONObject> events = new ArrayList<JSONObject>();
    private final Set<String> inFlight = new HashSet<String>();
    /** How many of {@link #events}, from the first, the file holds; the rest are to be appended. */
    private int written;
    /** Whether events left the queue since the file was last written: it is then written whole. */
    private boolean rewrite;

    /** The queue kept in {@code storage} (null: in memory only); reads what it holds. */
    EventQueue(Storage storage, int limit, Consumer<EventQueue> changed) {
        this.storage = storage;
        this.limit = limit;
        this.changed = changed;
        byte[] kept = null;
        try {
            kept = storage != null ? storage.read(NAME) : null;
        } catch (IOException unreadable) {
            rewrite = true;
        }
        if (kept == null) return;
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(new ByteArrayInputStream(kept), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null;) {
                try {
                    events.add(new JSONObject(line));
                } catch (JSONException cutShort) {
                    // A line cut short by a crash is skipped; every whole line is kept.
                    rewrite = true;
                }
            }
        } catch (IOException unreadable) {
            rewrite = true;
        }
        while (events.size() > limit) {
            events.remove(0);
            rewrite = true;
        }
        written = events.size();
        if (rewrite) changed.accept(this);
    }

    synchronized int count() { return events.size(); }

    synchronized void append(JSONObject event) {
        events.add(event);
        if (events.size() > limit) {
            for (int i = 0; i < events.size(); i++) {
                if (!inFlight.contains(events.get(i).optString("id"))) {
                    events.remove(i);
                    rewrite = true;
                    break;
                }
            }
        }
        changed.accept(this);
    }

    /**
     * Brings the file up to date: the lines appended since the last call, or the whole queue
     * after events left it. Called by the client's writer, one call at a time; a failed write is
     * tried whole the next time.
     */
    void persist() {
        byte[] bytes;
        boolean whole;
        synchronized (this) {
            if (storage == null || (!rewrite && written == events.size())) return;
            whole = rewrite;
            StringBuilder text = new StringBuilder();
            for (JSONObject event : events.subList(whole ? 0 : written, events.size())) text.append(event).append('\n');
            bytes = text.toString().getBytes(StandardCharsets.UTF_8);
            written = events.size();
            rewrite = false;
        }
        try {
            if (whole) storage.write(NAME, bytes);
            else storage.append(NAME, bytes);
        } catch (IOException error) {
            synchronized (this) {
                rewrite = true;
            }
        }
    }

    /** Up to {@code size} events not in flight, now in flight. */
    synchronized List<JSONObject> take(int size) {
        List<JSONObject> batch = new ArrayList<JSONObject>();
        for (JSONObject event : events) {
            if (batch.size() == size) break;
            if (inFlight.add(event.optString("id"))) batch.add(event);
        }
        return batch;
    }

    /** The server answered for these ids: they leave the queue. */
    synchronized void remove(Set<String> answered) {
        boolean removed = false;
        for (int i = events.size() - 1; i >= 0; i--) {
            String id = events.get(i).optString("id");
            if (answered.contains(id)) {
                events.remove(i);
                removed = true;
            }
        }
        inFlight.removeAll(answered);
        if (removed) {
            rewrite = true;
            changed.accept(this);
        }
    }

    /** No answer came for these: they stay, to be sent again. */
    synchronized void release(List<JSONObject> batch) {
        for (JSONObject event : batch) inFlight.remove(event.optString("id"));
    }
}
