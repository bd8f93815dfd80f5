package dev.waymark.client;

import dev.waymark.engine.Evaluator;
import dev.waymark.rules.Rule;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * The catalog's checklists as the client runs them: each checklist's trigger and its items' rules
 * in one evaluator, and what is latched of them (items done for good, checklists offered and
 * completed), as the Swift client and waymark.js do. Not thread-safe: the client holds its lock.
 */
final class Checklists {
    /** What a step of the rules did, for the client to send as an event. */
    static final class Change {
        final String checklist;
        /** The item done, or null when the checklist was completed. */
        final String item;
        /** For a completion: seconds since it was offered on this device, or null. */
        final Long seconds;

        Change(String checklist, String item, Long seconds) {
            this.checklist = checklist;
            this.item = item;
            this.seconds = seconds;
        }
    }

    final List<DeliveredChecklist> checklists;
    /** Per checklist, the index of its trigger's rule; its items' rules follow it. */
    private final int[] firstRule;
    private final Evaluator evaluator;
    /** Per checklist: the items done, and whether it is completed. */
    private final Map<String, Set<String>> done = new TreeMap<String, Set<String>>();
    private final Set<String> completed = new LinkedHashSet<String>();
    private final Set<String> offered = new LinkedHashSet<String>();
    /** When each checklist was first offered on this device: its time to complete starts there. */
    private final Map<String, Long> offeredAt = new TreeMap<String, Long>();

    /** The catalog's checklists (one whose rules do not read is left out), going on from what was kept. */
    Checklists(JSONArray catalog, JSONObject kept) {
        List<DeliveredChecklist> read = new ArrayList<DeliveredChecklist>();
        for (int i = 0; catalog != null && i < catalog.length(); i++) {
            JSONObject json = catalog.optJSONObject(i);
            if (json == null) continue;
            try {
                read.add(new DeliveredChecklist(json));
            } catch (IllegalArgumentException damaged) {
                // The others run.
            }
        }
        checklists = Collections.unmodifiableList(read);
        firstRule = new int[read.size()];
        List<Rule> rules = new ArrayList<Rule>();
        for (int c = 0; c < read.size(); c++) {
            DeliveredChecklist checklist = read.get(c);
            firstRule[c] = rules.size();
            rules.add(checklist.trigger != null ? checklist.trigger : new Rule.Const(true));
            for (DeliveredChecklist.Item item : checklist.items) rules.add(item.done);
        }
        if (kept != null) {
            merge(kept.optJSONObject("progress"));
            JSONArray wasOffered = kept.optJSONArray("offered");
            for (int i = 0; wasOffered != null && i < wasOffered.length(); i++) offered.add(wasOffered.optString(i));
            JSONObject at = kept.optJSONObject("offeredAt");
            for (Iterator<String> keys = at != null ? at.keys() : Collections.<String>emptyIterator(); keys.hasNext();) {
                String id = keys.next();
                if (at.opt(id) instanceof Number) offeredAt.put(id, at.optLong(id));
            }
        }
        Evaluator made;
        try {
            made = new Evaluator(rules, kept != null ? kept.optJSONObject("rules") : null);
        } catch (RuntimeException unreadable) {
            made = new Evaluator(rules);
        }
        evaluator = made;
    }

    List<Change> record(String name, String target, Map<String, ?> properties, long time) {
        evaluator.record(name, target, time, properties);
        return latch(time);
    }

    List<Change> setContext(Map<String, ?> values, long time) {
        for (Map.Entry<String, ?> entry : new TreeMap<String, Object>(values).entrySet()) {
            evaluator.setContext(entry.getKey(), entry.getValue(), time);
        }
        return latch(time);
    }

    /** Latches what the rules say now: checklists offered, items done, checklists completed. */
    List<Change> latch(long time) {
        List<Change> changes = new ArrayList<Change>();
        for (int c = 0; c < checklists.size(); c++) {
            DeliveredChecklist checklist = checklists.get(c);
            if (evaluator.value(firstRule[c]) && offered.add(checklist.id)) offeredAt.put(checklist.id, time);
            Set<String> items = doneOf(checklist.id);
            for (int i = 0; i < checklist.items.size(); i++) {
                String item = checklist.items.get(i).id;
                if (!items.contains(item) && evaluator.value(firstRule[c] + 1 + i)) {
                    items.add(item);
                    changes.add(new Change(checklist.id, item, null));
                }
            }
            if (!completed.contains(checklist.id) && allDone(checklist, items)) {
                completed.add(checklist.id);
                Long since = offeredAt.get(checklist.id);
                changes.add(new Change(checklist.id, null, since == null ? null : Math.max(0, Math.round((time - since) / 1000.0))));
            }
        }
        return changes;
    }

    private Set<String> doneOf(String checklist) {
        Set<String> items = done.get(checklist);
        if (items == null) done.put(checklist, items = new LinkedHashSet<String>());
        return items;
    }

    private static boolean allDone(DeliveredChecklist checklist, Set<String> items) {
        for (DeliveredChecklist.Item item : checklist.items) if (!items.contains(item.id)) return false;
        return true;
    }

    /** Progress from the user's other devices ({@code {"id": {"done": [...], "completed": bool}}}): the union. */
    void merge(JSONObject progress) {
        for (Iterator<String> keys = progress != null ? progress.keys() : Collections.<String>emptyIterator(); keys.hasNext();) {
            String id = keys.next();
            JSONObject state = progress.optJSONObject(id);
            if (state == null) continue;
            JSONArray items = state.optJSONArray("done");
            for (int i = 0; items != null && i < items.length(); i++) if (items.opt(i) instanceof String) doneOf(id).add(items.optString(i));
            if (state.optBoolean("completed", false)) completed.add(id);
        }
    }

    /** The progress shared with the user's other devices, as {@code POST /v1/progress} takes it. */
    JSONObject progress() {
        JSONObject progress = new JSONObject();
        Set<String> ids = new LinkedHashSet<String>(done.keySet());
        ids.addAll(completed);
        for (String id : ids) {
            Set<String> items = done.get(id);
            JSONObject state = new JSONObject();
            Json.put(state, "done", new JSONArray(items != null ? items : Collections.<String>emptySet()));
            Json.put(state, "completed", completed.contains(id));
            Json.put(progress, id, state);
        }
        return progress;
    }

    /** What is kept on the device: the progress, the checklists offered and when, and what the rules have seen. */
    JSONObject kept() {
        JSONObject kept = new JSONObject();
        Json.put(kept, "progress", progress());
        Json.put(kept, "offered", new JSONArray(offered));
        Json.put(kept, "offeredAt", new JSONObject(offeredAt));
        Json.put(kept, "rules", evaluator.snapshot());
        return kept;
    }

    List<ChecklistStatus> statuses() {
        List<ChecklistStatus> statuses = new ArrayList<ChecklistStatus>();
        for (DeliveredChecklist checklist : checklists) {
            Set<String> items = done.get(checklist.id);
            statuses.add(new ChecklistStatus(checklist,
                Collections.unmodifiableSet(new LinkedHashSet<String>(items != null ? items : Collections.<String>emptySet())),
                completed.contains(checklist.id), offered.contains(checklist.id)));
        }
        return Collections.unmodifiableList(statuses);
    }
}
