package dev.waymark.engine;

import dev.waymark.rules.Rule;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.json.JSONArray;
import org.json.JSONObject;

/**
 * Decides, on every event, which tip shows in which container, as the Swift and JavaScript engines
 * do: a tip shows when it is waiting, its trigger is true and its dismissal false, its container
 * visible and free, every earlier tip of its group finished, and its policy and the display
 * frequency allow. Among tips wanting one container the highest priority wins, then catalog order.
 * Time-driven changes (a window closing, a display time running out, an expiry) happen at their
 * exact moment. Every call takes the time (ms since 1970) and returns the render commands it
 * caused. Checked against the scheduling scenarios in conformance/engine/.
 *
 * <p>Not thread-safe: one thread drives an engine.
 */
public final class Engine {
    private static final long NONE = Long.MIN_VALUE;

    /** A tip as the engine schedules it. */
    public static final class Tip {
        public final String id;
        public final String container;
        /** The element it points at, or null. */
        public final String anchor;
        public final Rule trigger;
        /** Null: never dismissed by a rule. */
        public final Rule dismissal;
        public final int priority;
        /** Tips of one group show one after another, by {@link #order}; null for none. */
        public final String group;
        public final int order;
        public final Policy policy;

        public Tip(String id, String container, String anchor, Rule trigger, Rule dismissal, int priority, String group, int order,
            Policy policy) {
            this.id = id;
            this.container = container;
            this.anchor = anchor;
            this.trigger = trigger;
            this.dismissal = dismissal;
            this.priority = priority;
            this.group = group;
            this.order = order;
            this.policy = policy == null ? Policy.NONE : policy;
        }
    }

    /** How often and how long a tip may show, and until when. */
    public static final class Policy {
        public static final Policy NONE = new Policy(null, null, null);

        /** Null: no limit. */
        public final Integer maxDisplayCount;
        /** Seconds; null: no limit. */
        public final Double maxDisplayDuration;
        /** Milliseconds since 1970; null: never. */
        public final Long expiresAt;

        public Policy(Integer maxDisplayCount, Double maxDisplayDuration, Long expiresAt) {
            this.maxDisplayCount = maxDisplayCount;
            this.maxDisplayDuration = maxDisplayDuration;
            this.expiresAt = expiresAt;
        }
    }

    /** What the renderer is told: show, hide, pause or resume a tip in its container. */
    public static final class Command {
        public final String action;
        public final String tip;
        public final String container;
        public final String anchor;
        /** Why a tip was hidden: dismissed, closed, maxDisplayCount, maxDisplayDuration, expired, removed. */
        public final String reason;
        public final long time;

        Command(String action, String tip, String container, String anchor, String reason, long time) {
            this.action = action;
            this.tip = tip;
            this.container = container;
            this.anchor = anchor;
            this.reason = reason;
            this.time = time;
        }

        @Override public String toString() {
            return action + " " + tip + " in " + container + (reason != null ? " (" + reason + ")" : "") + " at " + time;
        }
    }

    static final class State {
        String phase = "waiting";
        int displayCount;
        long displayedMillis;
        long activeSince = NONE;

        State copy() {
            State copy = new State();
            copy.phase = phase;
            copy.displayCount = displayCount;
            copy.displayedMillis = displayedMillis;
            copy.activeSince = activeSince;
            return copy;
        }

        boolean isFinished() { return phase.startsWith("finished"); }

        JSONObject toJSON() {
            JSONObject json = new JSONObject();
            Evaluator.put(json, "phase", phase);
            Evaluator.put(json, "displayCount", displayCount);
            Evaluator.put(json, "displayedMillis", displayedMillis);
            Evaluator.put(json, "activeSince", Evaluator.timeJSON(activeSince));
            return json;
        }

        static State fromJSON(JSONObject json) {
            State state = new State();
            state.phase = json.optString("phase", "waiting");
            state.displayCount = json.optInt("displayCount", 0);
            state.displayedMillis = json.optLong("displayedMillis", 0);
            state.activeSince = Evaluator.timeFromJSON(json.opt("activeSince"));
            return state;
        }
    }

    /** The endings a user's devices share, by strength: what the user did outranks what a policy decided. */
    private static final Map<String, Integer> ENDINGS = new HashMap<String, Integer>();

    static {
        String[] endings = {"expired", "maxDisplayDuration", "maxDisplayCount", "dismissed", "closed"};
        for (int i = 0; i < endings.length; i++) ENDINGS.put(endings[i], i + 1);
    }

    private static long frequencyMillis(String frequency) {
        if (frequency == null) return 0;
        switch (frequency) {
            case "hourly": return 3_600_000L;
            case "daily": return 86_400_000L;
            case "weekly": return 604_800_000L;
            case "monthly": return 2_592_000_000L;
            default: return 0;
        }
    }

    private List<Tip> tips;
    private String frequency;
    private long gap;
    private Evaluator evaluator;
    private List<String> containers;
    private Map<String, int[]> byContainer;
    private int[][] predecessors;
    private Set<String> hidden;
    private long lastShow;
    private Map<String, State> retired;
    private State[] states;
    private Map<String, Integer> occupant;
    private List<Command> output = new ArrayList<Command>();

    /** An engine of these tips with display frequency {@code immediate}, {@code hourly}, {@code daily}, {@code weekly} or {@code monthly}. */
    public Engine(List<Tip> tips, String frequency) {
        this(tips, frequency, null);
    }

    /** An engine that goes on from a {@link #snapshot()}: tips keep their states by id, rules their terms by text. */
    public Engine(List<Tip> tips, String frequency, JSONObject snapshot) {
        configure(tips, frequency, snapshot);
    }

    private void configure(List<Tip> tips, String frequency, JSONObject snapshot) {
        this.tips = new ArrayList<Tip>(tips);
        this.frequency = frequency;
        gap = frequencyMillis(frequency);
        List<Rule> rules = new ArrayList<Rule>();
        for (Tip tip : this.tips) {
            rules.add(tip.trigger);
            rules.add(tip.dismissal != null ? tip.dismissal : new Rule.Const(false));
        }
        evaluator = new Evaluator(rules, snapshot != null ? snapshot.optJSONObject("evaluator") : null);
        containers = new ArrayList<String>();
        for (Tip tip : this.tips) if (!containers.contains(tip.container)) containers.add(tip.container);
        byContainer = new HashMap<String, int[]>();
        for (final String container : containers) {
            List<Integer> indexes = new ArrayList<Integer>();
            for (int i = 0; i < this.tips.size(); i++) if (this.tips.get(i).container.equals(container)) indexes.add(i);
            Collections.sort(indexes, (a, b) -> {
                int byPriority = Integer.compare(this.tips.get(b).priority, this.tips.get(a).priority);
                return byPriority != 0 ? byPriority : Integer.compare(a, b);
            });
            int[] sorted = new int[indexes.size()];
            for (int i = 0; i < sorted.length; i++) sorted[i] = indexes.get(i);
            byContainer.put(container, sorted);
        }
        // Per tip, the tips of its group with a lower order, which must finish first.
        predecessors = new int[this.tips.size()][];
        for (int i = 0; i < this.tips.size(); i++) {
            Tip tip = this.tips.get(i);
            List<Integer> before = new ArrayList<Integer>();
            for (int j = 0; tip.group != null && j < this.tips.size(); j++) {
                Tip other = this.tips.get(j);
                if (tip.group.equals(other.group) && other.order < tip.order) before.add(j);
            }
            predecessors[i] = new int[before.size()];
            for (int k = 0; k < before.size(); k++) predecessors[i][k] = before.get(k);
        }
        hidden = new HashSet<String>();
        lastShow = NONE;
        retired = new TreeMap<String, State>();
        Map<String, State> saved = new HashMap<String, State>();
        if (snapshot != null) {
            JSONArray hiddenList = snapshot.optJSONArray("hidden");
            for (int i = 0; hiddenList != null && i < hiddenList.length(); i++) hidden.add(hiddenList.optString(i));
            lastShow = Evaluator.timeFromJSON(snapshot.opt("lastShow"));
            JSONObject savedStates = snapshot.optJSONObject("states");
            for (Iterator<String> keys = savedStates != null ? savedStates.keys() : Collections.<String>emptyIterator(); keys.hasNext();) {
                String id = keys.next();
                JSONObject state = savedStates.optJSONObject(id);
                if (state != null) saved.put(id, State.fromJSON(state));
            }
        }
        states = new State[this.tips.size()];
        Set<String> ids = new HashSet<String>();
        for (int i = 0; i < states.length; i++) {
            State state = saved.get(this.tips.get(i).id);
            states[i] = state != null ? state.copy() : new State();
            ids.add(this.tips.get(i).id);
        }
        for (Map.Entry<String, State> entry : saved.entrySet()) if (!ids.contains(entry.getKey())) retired.put(entry.getKey(), entry.getValue());
        occupant = new HashMap<String, Integer>();
        for (int i = 0; i < states.length; i++) {
            if (states[i].phase.equals("active") || states[i].phase.equals("paused")) occupant.put(this.tips.get(i).container, i);
        }
    }

    /** The current time, or null before anything happened. */
    public Long now() { return evaluator.now(); }

    private long clock() { return evaluator.clock(); }

    /** An event: its name, target (or null) and properties (or null). */
    public List<Command> record(final String name, final String target, long time, final Map<String, ?> properties) {
        return perform(time, () -> evaluator.record(name, target, clock(), properties));
    }

    /** Time passing with nothing else happening: what a timer calls at {@link #nextChange()}. */
    public List<Command> advance(long time) { return perform(time, () -> {}); }

    /** Context values (app.version, user.plan, ...), set in the order of their paths; null removes one. */
    public List<Command> setContext(final Map<String, ?> values, long time) {
        return perform(time, () -> {
            for (String path : new TreeMap<String, Object>(values).keySet()) evaluator.setContext(path, values.get(path), clock());
        });
    }

    /** A container became visible or hidden (a screen left, a video played full screen): its tip pauses and resumes. */
    public List<Command> setContainer(final String container, final boolean visible, long time) {
        return perform(time, () -> changeVisibility(container, visible));
    }

    /** The user closed a tip. */
    public List<Command> close(final String id, long time) {
        return perform(time, () -> {
            for (int i = 0; i < tips.size(); i++) {
                if (tips.get(i).id.equals(id)) {
                    finish(i, "closed");
                    return;
                }
            }
        });
    }

    /** Replaces the catalog: tips keep their states by id, rules their terms by text; removed tips come down. */
    public List<Command> update(List<Tip> newTips, long time) {
        return update(newTips, frequency, time);
    }

    /** Replaces the catalog and its display frequency. */
    public List<Command> update(List<Tip> newTips, String newFrequency, long time) {
        List<Command> commands = new ArrayList<Command>(advance(time));
        Map<String, String> kept = new HashMap<String, String>();
        for (Tip tip : newTips) if (!kept.containsKey(tip.id)) kept.put(tip.id, tip.container);
        for (int i = 0; i < tips.size(); i++) {
            String phase = states[i].phase;
            if (!phase.equals("active") && !phase.equals("paused")) continue;
            Tip tip = tips.get(i);
            if (!kept.containsKey(tip.id)) {
                finish(i, "removed");
            } else if (!kept.get(tip.id).equals(tip.container)) {
                finish(i, "removed");
                states[i] = new State();
            }
        }
        for (int i = 0; i < tips.size(); i++) {
            if (!kept.containsKey(tips.get(i).id) && !states[i].isFinished()) states[i].phase = "finished:removed";
        }
        commands.addAll(takeOutput());
        configure(newTips, newFrequency, snapshot());
        commands.addAll(advance(time));
        return commands;
    }

    /** A tip's phase: waiting, active, paused or finished:REASON; null for an unknown id. */
    public String phase(String id) {
        for (int i = 0; i < tips.size(); i++) if (tips.get(i).id.equals(id)) return states[i].phase;
        State state = retired.get(id);
        return state != null ? state.phase : null;
    }

    /** The active tips, as show commands: what a renderer draws after a restart. */
    public List<Command> activeTips() {
        List<Command> active = new ArrayList<Command>();
        for (int i = 0; i < tips.size(); i++) if (states[i].phase.equals("active")) active.add(command("show", i, null));
        return active;
    }

    /** No later than the next moment something can change without an event; null: nothing will. */
    public Long nextChange() {
        long current = clock();
        Long fromRules = evaluator.nextChange();
        long next = fromRules != null ? fromRules : Long.MAX_VALUE;
        for (int i = 0; i < tips.size(); i++) {
            if (states[i].isFinished()) continue;
            Long expiresAt = tips.get(i).policy.expiresAt;
            if (expiresAt != null && expiresAt > current) next = Math.min(next, expiresAt);
            long end = displayEnd(i);
            if (end != NONE && end > current) next = Math.min(next, end);
        }
        if (gap > 0 && lastShow != NONE && lastShow + gap > current) next = Math.min(next, lastShow + gap);
        return next == Long.MAX_VALUE ? null : next;
    }

    /** Everything the engine knows, as JSON an app keeps across restarts. */
    public JSONObject snapshot() {
        JSONObject snapshot = new JSONObject();
        Evaluator.put(snapshot, "evaluator", evaluator.snapshot());
        JSONObject saved = new JSONObject();
        for (Map.Entry<String, State> entry : tipStates().entrySet()) Evaluator.put(saved, entry.getKey(), entry.getValue().toJSON());
        Evaluator.put(snapshot, "states", saved);
        JSONArray hiddenList = new JSONArray();
        for (String container : sorted(hidden)) hiddenList.put(container);
        Evaluator.put(snapshot, "hidden", hiddenList);
        Evaluator.put(snapshot, "lastShow", Evaluator.timeJSON(lastShow));
        return snapshot;
    }

    private static List<String> sorted(Set<String> set) {
        List<String> list = new ArrayList<String>(set);
        Collections.sort(list);
        return list;
    }

    /** Every tip's state by id (copies), tips this catalog lacks too; of two tips with one id, the first. */
    private Map<String, State> tipStates() {
        Map<String, State> all = new TreeMap<String, State>();
        for (Map.Entry<String, State> entry : retired.entrySet()) all.put(entry.getKey(), entry.getValue().copy());
        for (int i = tips.size() - 1; i >= 0; i--) all.put(tips.get(i).id, states[i].copy());
        return all;
    }

    /**
     * What the user has seen and done with each tip, by id (a tip showing now with its time so
     * far), to share with their other devices: {@code {"shown", "displayedMillis", "finished"}}.
     */
    public JSONObject progress() {
        JSONObject out = new JSONObject();
        for (Map.Entry<String, State> entry : tipStates().entrySet()) {
            State state = entry.getValue();
            String ending = state.phase.length() > 9 ? state.phase.substring(9) : "";
            boolean finished = ENDINGS.containsKey(ending);
            long displayed = state.displayedMillis + (state.phase.equals("active") ? clock() - state.activeSince : 0);
            if (state.displayCount == 0 && displayed == 0 && !finished) continue;
            JSONObject tip = new JSONObject();
            Evaluator.put(tip, "shown", state.displayCount);
            Evaluator.put(tip, "displayedMillis", displayed);
            if (finished) Evaluator.put(tip, "finished", ending);
            Evaluator.put(out, entry.getKey(), tip);
        }
        return out;
    }

    /**
     * Takes in the user's progress from their other devices: counts rise to the larger, the
     * stronger ending wins, and a tip finished elsewhere, or there as often or as long as its
     * policy allows, finishes here. Nothing is taken back, so merging again changes nothing.
     */
    public List<Command> merge(final JSONObject progress, long time) {
        return perform(time, () -> {
            List<String> ids = new ArrayList<String>();
            for (Iterator<String> keys = progress.keys(); keys.hasNext();) ids.add(keys.next());
            Collections.sort(ids);
            for (String id : ids) {
                JSONObject remote = progress.optJSONObject(id);
                if (remote == null) continue;
                int i = indexOf(id);
                State state;
                if (i >= 0) {
                    state = states[i];
                } else {
                    state = retired.get(id);
                    if (state == null) retired.put(id, state = new State());
                }
                // A showing tip's time so far is part of its total before the larger is taken, so
                // what arrives at one moment comes to the same state in any order.
                if (state.phase.equals("active")) {
                    state.displayedMillis += clock() - state.activeSince;
                    state.activeSince = clock();
                }
                state.displayCount = Math.max(state.displayCount, remote.optInt("shown", 0));
                state.displayedMillis = Math.max(state.displayedMillis, remote.optLong("displayedMillis", 0));
                String finished = remote.optString("finished", null);
                String reason = finished != null && ENDINGS.containsKey(finished) ? finished : null;
                Policy policy = i >= 0 ? tips.get(i).policy : Policy.NONE;
                if (reason == null && i >= 0 && !state.phase.equals("active") && !state.isFinished()) {
                    if (policy.maxDisplayCount != null && state.displayCount >= policy.maxDisplayCount) {
                        reason = "maxDisplayCount";
                    } else if (policy.maxDisplayDuration != null && state.displayedMillis >= (long) (policy.maxDisplayDuration * 1000)) {
                        reason = "maxDisplayDuration";
                    }
                }
                if (reason == null) continue;
                if (!state.isFinished() && i >= 0) {
                    finish(i, reason);
                } else {
                    String current = state.phase.length() > 9 ? state.phase.substring(9) : "";
                    int strength = ENDINGS.containsKey(current) ? ENDINGS.get(current) : -1;
                    if (strength < ENDINGS.get(reason)) state.phase = "finished:" + reason;
                }
            }
        });
    }

    private int indexOf(String id) {
        for (int i = 0; i < tips.size(); i++) if (tips.get(i).id.equals(id)) return i;
        return -1;
    }

    // The step: play every deadline up to the time at its own moment, then the input, then settle.
    private List<Command> perform(long time, Runnable change) {
        while (true) {
            Long next = evaluator.now() == null ? null : nextChange();
            if (next == null || next > time) break;
            evaluator.advance(next);
            settle();
        }
        evaluator.advance(time);
        change.run();
        settle();
        return takeOutput();
    }

    private List<Command> takeOutput() {
        if (output.isEmpty()) return Collections.emptyList();
        List<Command> taken = output;
        output = new ArrayList<Command>();
        return taken;
    }

    private void settle() {
        for (int i = 0; i < tips.size(); i++) {
            if (states[i].isFinished()) continue;
            checkTimeLimits(i);
            if (!states[i].isFinished() && evaluator.value(i * 2 + 1)) finish(i, "dismissed");
        }
        fill();
    }

    private void fill() {
        long now = clock();
        if (gap > 0 && lastShow != NONE && now < lastShow + gap) return;
        List<Integer> candidates = new ArrayList<Integer>();
        for (String container : containers) {
            if (occupant.containsKey(container) || hidden.contains(container)) continue;
            for (int i : byContainer.get(container)) {
                if (isEligible(i)) {
                    candidates.add(i);
                    break;
                }
            }
        }
        Collections.sort(candidates, (a, b) -> {
            int byPriority = Integer.compare(tips.get(b).priority, tips.get(a).priority);
            return byPriority != 0 ? byPriority : Integer.compare(a, b);
        });
        for (int position = 0; position < candidates.size(); position++) {
            if (position > 0 && gap > 0) break; // the frequency allows one tip now; the others wait
            show(candidates.get(position));
        }
    }

    private boolean isEligible(int i) {
        Tip tip = tips.get(i);
        if (!states[i].phase.equals("waiting") || !evaluator.value(i * 2) || evaluator.value(i * 2 + 1)) return false;
        if (tip.policy.expiresAt != null && clock() >= tip.policy.expiresAt) return false;
        for (int j : predecessors[i]) if (!states[j].isFinished()) return false;
        return true;
    }

    private void show(int i) {
        states[i].phase = "active";
        states[i].activeSince = clock();
        states[i].displayCount += 1;
        occupant.put(tips.get(i).container, i);
        lastShow = clock();
        emit("show", i, null);
    }

    private void finish(int i, String reason) {
        State state = states[i];
        if (state.isFinished()) return;
        if (state.phase.equals("active")) state.displayedMillis += clock() - state.activeSince;
        if (state.phase.equals("active") || state.phase.equals("paused")) {
            emit("hide", i, reason);
            occupant.remove(tips.get(i).container);
        }
        state.phase = "finished:" + reason;
    }

    private void changeVisibility(String container, boolean visible) {
        if (visible) {
            if (!hidden.remove(container)) return;
            Integer i = occupant.get(container);
            if (i != null && states[i].phase.equals("paused")) {
                states[i].phase = "active";
                states[i].activeSince = clock();
                states[i].displayCount += 1;
                emit("resume", i, null);
            }
        } else {
            if (!hidden.add(container)) return;
            Integer i = occupant.get(container);
            if (i == null || !states[i].phase.equals("active")) return;
            Integer limit = tips.get(i).policy.maxDisplayCount;
            if (limit != null && states[i].displayCount >= limit) {
                finish(i, "maxDisplayCount");
            } else {
                states[i].displayedMillis += clock() - states[i].activeSince;
                states[i].phase = "paused";
                emit("pause", i, null);
            }
        }
    }

    private void checkTimeLimits(int i) {
        Long expiresAt = tips.get(i).policy.expiresAt;
        long end = displayEnd(i);
        if (expiresAt != null && clock() >= expiresAt) finish(i, "expired");
        else if (end != NONE && clock() >= end) finish(i, "maxDisplayDuration");
    }

    /** When an active tip's display time runs out, or NONE. */
    private long displayEnd(int i) {
        State state = states[i];
        Double limit = tips.get(i).policy.maxDisplayDuration;
        if (!state.phase.equals("active") || limit == null) return NONE;
        return state.activeSince + Math.max(0, (long) (limit * 1000) - state.displayedMillis);
    }

    private void emit(String action, int i, String reason) { output.add(command(action, i, reason)); }

    private Command command(String action, int i, String reason) {
        Tip tip = tips.get(i);
        return new Command(action, tip.id, tip.container, tip.anchor, reason, clock());
    }
}
