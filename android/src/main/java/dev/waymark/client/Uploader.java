package dev.waymark.client;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Sends the event queue to the server, a batch at a time: events leave the queue once the server
 * has answered for them (stored, a duplicate, or refused for good), and stay for the next try when
 * no answer came. Runs on the client's background thread or the caller's of {@code flush()}.
 */
final class Uploader {
    private final EventQueue queue;
    private final Transport transport;
    private final int batchSize;

    Uploader(EventQueue queue, Transport transport, int batchSize) {
        this.queue = queue;
        this.transport = transport;
        this.batchSize = batchSize;
    }

    /** Uploads queued events, batch after batch, until none is left; throws when the server cannot take them now (they stay queued). */
    WaymarkClient.FlushReport flush() throws WaymarkException {
        WaymarkClient.FlushReport report = new WaymarkClient.FlushReport();
        while (true) {
            List<JSONObject> batch = queue.take(Math.min(Math.max(batchSize, 1), 500));
            if (batch.isEmpty()) break;
            JSONObject body = new JSONObject();
            JSONArray list = new JSONArray();
            for (JSONObject event : batch) list.put(event);
            Transport.Answer answer;
            try {
                body.put("events", list);
                answer = transport.post("/v1/events", body);
            } catch (WaymarkException | JSONException error) {
                queue.release(batch);
                if (error instanceof WaymarkException) throw (WaymarkException) error;
                throw new WaymarkException(0, "bad_request", error.getMessage());
            }
            if (answer.status != 200) {
                queue.release(batch);
                throw answer.error();
            }
            Set<String> answered = new HashSet<String>();
            JSONArray results = answer.json().optJSONArray("results");
            for (int i = 0; results != null && i < results.length(); i++) {
                JSONObject result = results.optJSONObject(i);
                if (result == null) continue;
                String id = result.optString("id", null);
                if (id != null) answered.add(id);
                String status = result.optString("status");
                if (status.equals("accepted")) report.accepted += 1;
                else if (status.equals("duplicate")) report.duplicates += 1;
                else report.rejected += 1;
            }
            // An event the answer does not name (its id was refused) is not sent again either.
            for (JSONObject event : batch) answered.add(event.optString("id"));
            queue.remove(answered);
        }
        report.remaining = queue.count();
        return report;
    }
}
