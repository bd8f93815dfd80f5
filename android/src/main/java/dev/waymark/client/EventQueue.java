package dev.waymark.client;

import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Events waiting to be uploaded, kept in a file so that they survive the app being killed: each
 * event is appended as one JSON line; after an upload the file is rewritten with what is left.
 * Events in flight stay queued until the server has answered for them, so an upload that fails
 * half-way is sent again and the server drops the ones it already has by their ids. A device that
 * stays offline keeps at most {@code limit} events, the oldest dropped first.
 */
final class EventQueue {
    private final File file;
    private final int limit;
    private final List<JSONObject> events = new ArrayList<JSONObject>();
    private final Set<String> inFlight = new HashSet<String>();
    private OutputStream appender;

    EventQueue(File file, int limit) {
        this.file = file;
        this.limit = limit;
        if (file == null || !file.exists()) return;
        boolean cut = false;
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(new FileInputStream(file), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null;) {
                try {
                    events.add(new JSONObject(line));
                } catch (JSONException cutShort) {
                    // A line cut short by a crash is skipped; every whole line is kept.
                    cut = true;
                }
            }
        } catch (IOException unreadable) {
            cut = true;
        }
        while (events.size() > limit) events.remove(0);
        if (cut) rewrite();
    }

    synchronized int count() { return events.size(); }

    synchronized void append(JSONObject event) {
        events.add(event);
        if (events.size() > limit) {
            for (int i = 0; i < events.size(); i++) {
                if (!inFlight.contains(events.get(i).optString("id"))) {
                    events.remove(i);
                    rewrite();
                    return;
                }
            }
        }
        if (file == null) return;
        try {
            if (appender == null) appender = new FileOutputStream(file, true);
            appender.write((event.toString() + "\n").getBytes(StandardCharsets.UTF_8));
            appender.flush();
        } catch (IOException error) {
            appender = null;
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
        boolean changed = false;
        for (int i = events.size() - 1; i >= 0; i--) {
            String id = events.get(i).optString("id");
            if (answered.contains(id)) {
                events.remove(i);
                changed = true;
            }
        }
        inFlight.removeAll(answered);
        if (changed) rewrite();
    }

    /** No answer came for these: they stay, to be sent again. */
    synchronized void release(List<JSONObject> batch) {
        for (JSONObject event : batch) inFlight.remove(event.optString("id"));
    }

    synchronized void close() {
        closeAppender();
    }

    private void closeAppender() {
        if (appender == null) return;
        try {
            appender.close();
        } catch (IOException ignored) {
            // Nothing is lost: every line was flushed when written.
        }
        appender = null;
    }

    private void rewrite() {
        if (file == null) return;
        closeAppender();
        StringBuilder text = new StringBuilder();
        for (JSONObject event : events) text.append(event).append('\n');
        File temporary = new File(file.getPath() + ".new");
        try (FileOutputStream out = new FileOutputStream(temporary)) {
            out.write(text.toString().getBytes(StandardCharsets.UTF_8));
            out.getFD().sync();
        } catch (IOException error) {
            return;
        }
        temporary.renameTo(file);
    }
}
