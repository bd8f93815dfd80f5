package dev.waymark.engine;

import dev.waymark.rules.Rule;
import java.util.ArrayList;
import java.util.Arrays;
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
 * <p>A step looks only at what can have changed: the tips whose rules changed value (the
 * evaluator says which), whose expiry or display end came (a heap of deadlines), or whose group's
 * earlier tip finished; and the containers that became free or visible. A free, visible container
 * left alone had no tip to show in the last step, so only its tips that changed can have one now.
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
        /** What to do with the tip. */
        public enum Action {
            SHOW("show"), HIDE("hide"), PAUSE("pause"), RESUME("resume");

            /** Its name in the conformance cases and the other SDKs: {@code show}. */
            public final String wireName;

            Action(String wireName) { this.wireName = wireName; }
        }

        /** Why a tip was hidden for good. */
        public enum Reason {
            DISMISSED("dismissed"), CLOSED("closed"), MAX_DISPLAY_COUNT("maxDisplayCount"), MAX_DISPLAY_DURATION("maxDisplayDuration"),
            EXPIRED("expired"), REMOVED("removed");

            /** Its name in the conformance cases, analytics and the other SDKs: {@code maxDisplayCount}. */
            public final String wireName;

            Reason(String wireName) { this.wireName = wireName; }

            /** The reason of a wire name, or null. */
            static Reason of(String wireName) {
                for (Reason reason : values()) if (reason.wireName.equals(wireName)) return reason;
                return null;
            }
        }

        public final Action action;
        public final String tip;
        public final String container;
        public final String anchor;
        /** Why a tip was hidden ({@link Action#HIDE}); null otherwise. */
        public final Reason reason;
        public final long time;

        Command(Action action, String tip, String container, String anchor, Reason reason, long time) {
            this.action = action;
            this.tip = tip;
            this.container = container;
            this.anchor = anchor;
            this.reason = reason;
            this.time = time;
        }

        @Override public String toString() {
            return action.wireName + " " + tip + " in " + container + (reason != null ? " (" + reason.wireName + ")" : "") + " at " + time;
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

        /** Whether display time runs: the tip shows and is visible. */
        boolean isCounting() { return phase.equals("active") && activeSince != NONE; }

        /** Adds the visible stretch to the display time and starts the next one at {@code now}. */
        void settle(long now) {
            if (!isCounting()) return;
            displayedMillis += now - activeSince;
            activeSince = now;
        }

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
    private final boolean sightReported;
    private long gap;
    private Evaluator evaluator;
    private List<String> containers;
    private Map<String, Integer> containerIndex;
    /** Per container, its tips by priority, then catalog order. */
    private int[][] byContainer;
    /** Per tip, its container's index. */
    private int[] containerOf;
    /** Per container, the tip active or paused in it, or -1. */
    private int[] occupant;
    private boolean[] containerHidden;
    /** Per tip, the tips of its group with a lower order, which must finish first; and those that wait for it. */
    private int[][] predecessors;
    private int[][] successors;
    private Set<String> hidden;
    private long lastShow;
    private Map<String, State> retired;
    private State[] states;
    private List<Command> output = new ArrayList<Command>();

    // What a step must look at: the tips whose rules or limits changed, and the containers that
    // became free or visible. Everything else is as the last step left it.
    private int[] dirty;
    private int dirtyCount;
    private boolean[] isDirty;
    private boolean[] scanContainer;
    private int[] scanList;
    private int scanCount;
    private boolean scanAll;
    private boolean blockedByGap;
    /** Tips' expiries and display ends: an entry is current while it is the tip's expiry or display end. */
    private final DeadlineHeap tipDeadlines = new DeadlineHeap();
    private int[] best;
    private int[] candidates;

    /** An engine of these tips with display frequency {@code immediate}, {@code hourly}, {@code daily}, {@code weekly} or {@code monthly}. */
    public Engine(List<Tip> tips, String frequency) {
        this(tips, frequency, null);
    }

    /** An engine that goes on from a {@link #snapshot()}: tips keep their states by id, rules their terms by text. */
    public Engine(List<Tip> tips, String frequency, JSONObject snapshot) {
        this(tips, frequency, snapshot, false);
    }

    /**
     * An engine whose renderer, when {@code sightReported}, says when a showing tip comes into sight
     * ({@link #setTip}): a tip then shows and resumes out of sight, and its display time starts when
     * it is seen. Otherwise a tip is in sight from when it shows until said otherwise.
     */
    public Engine(List<Tip> tips, String frequency, JSONObject snapshot, boolean sightReported) {
        this.sightReported = sightReported;
        configure(tips, frequency, snapshot);
    }

    private void configure(List<Tip> tips, String frequency, JSONObject snapshot) {
        this.tips = new ArrayList<Tip>(tips);
        int count = this.tips.size();
        this.frequency = frequency;
        gap = frequencyMillis(frequency);
        List<Rule> rules = new ArrayList<Rule>();
        for (Tip tip : this.tips) {
            rules.add(tip.trigger);
            rules.add(tip.dismissal != null ? tip.dismissal : new Rule.Const(false));
        }
        evaluator = new Evaluator(rules, snapshot != null ? snapshot.optJSONObject("evaluator") : null, true);
        evaluator.clearChanged();
        containers = new ArrayList<String>();
        containerIndex = new HashMap<String, Integer>();
        containerOf = new int[count];
        for (int i = 0; i < count; i++) {
            String container = this.tips.get(i).container;
            Integer index = containerIndex.get(container);
            if (index == null) {
                index = containers.size();
                containers.add(container);
                containerIndex.put(container, index);
            }
            containerOf[i] = index;
        }
        byContainer = new int[containers.size()][];
        for (int c = 0; c < containers.size(); c++) {
            List<Integer> indexes = new ArrayList<Integer>();
            for (int i = 0; i < count; i++) if (containerOf[i] == c) indexes.add(i);
            Collections.sort(indexes, (a, b) -> {
                int byPriority = Integer.compare(this.tips.get(b).priority, this.tips.get(a).priority);
                return byPriority != 0 ? byPriority : Integer.compare(a, b);
            });
            byContainer[c] = new int[indexes.size()];
            for (int k = 0; k < indexes.size(); k++) byContainer[c][k] = indexes.get(k);
        }
        predecessors = new int[count][];
        List<List<Integer>> after = new ArrayList<List<Integer>>();
        for (int i = 0; i < count; i++) after.add(new ArrayList<Integer>());
        for (int i = 0; i < count; i++) {
            Tip tip = this.tips.get(i);
            List<Integer> before = new ArrayList<Integer>();
            for (int j = 0; tip.group != null && j < count; j++) {
                Tip other = this.tips.get(j);
                if (tip.group.equals(other.group) && other.order < tip.order) {
                    before.add(j);
                    after.get(j).add(i);
                }
            }
            predecessors[i] = new int[before.size()];
            for (int k = 0; k < before.size(); k++) predecessors[i][k] = before.get(k);
        }
        successors = new int[count][];
        for (int i = 0; i < count; i++) {
            successors[i] = new int[after.get(i).size()];
            for (int k = 0; k < successors[i].length; k++) successors[i][k] = after.get(i).get(k);
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
        containerHidden = new boolean[containers.size()];
        for (int c = 0; c < containers.size(); c++) containerHidden[c] = hidden.contains(containers.get(c));
        states = new State[count];
        Set<String> ids = new HashSet<String>();
        for (int i = 0; i < count; i++) {
            State state = saved.get(this.tips.get(i).id);
            states[i] = state != null ? state.copy() : new State();
            ids.add(this.tips.get(i).id);
        }
        for (Map.Entry<String, State> entry : saved.entrySet()) if (!ids.contains(entry.getKey())) retired.put(entry.getKey(), entry.getValue());
        occupant = new int[containers.size()];
        Arrays.fill(occupant, -1);
        for (int i = 0; i < count; i++) {
            if (states[i].phase.equals("active") || states[i].phase.equals("paused")) occupant[containerOf[i]] = i;
        }
        dirty = new int[Math.max(16, count)];
        isDirty = new boolean[count];
        scanContainer = new boolean[containers.size()];
        scanList = new int[containers.size()];
        scanCount = 0;
        best = new int[containers.size()];
        Arrays.fill(best, -1);
        candidates = new int[containers.size()];
        blockedByGap = false;
        // The first step looks at everything: a tip may have expired, or its rules hold already.
        dirtyCount = 0;
        for (int i = 0; i < count; i++) markTip(i);
        scanAll = true;
        tipDeadlines.clear();
        for (int i = 0; i < count; i++) scheduleTip(i);
    }

    private void markContainer(int c) {
        if (scanContainer[c]) return;
        scanContainer[c] = true;
        scanList[scanCount++] = c;
    }

    private void markTip(int i) {
        if (isDirty[i]) return;
        isDirty[i] = true;
        if (dirtyCount == dirty.length) dirty = Arrays.copyOf(dirty, dirtyCount * 2);
        dirty[dirtyCount++] = i;
    }

    /** Puts the tip's expiry and display end in the heap of deadlines. */
    private void scheduleTip(int i) {
        Long expiresAt = tips.get(i).policy.expiresAt;
        if (expiresAt != null) tipDeadlines.push(expiresAt, i);
        long end = displayEnd(i);
        if (end != NONE) tipDeadlines.push(end, i);
    }

    /** The earliest current tip deadline after now, dropping those that no longer are; Long.MAX_VALUE for none. */
    private long nextTipDeadline() {
        long now = clock();
        while (!tipDeadlines.isEmpty()) {
            long time = tipDeadlines.topTime();
            int i = tipDeadlines.topId();
            Long expiresAt = tips.get(i).policy.expiresAt;
            boolean current = !states[i].isFinished() && time > now && ((expiresAt != null && expiresAt == time) || displayEnd(i) == time);
            if (current) return time;
            tipDeadlines.pop();
        }
        return Long.MAX_VALUE;
    }

    /** The current time, or null before anything happened. */
    public Long now() { return evaluator.now(); }

    private long clock() { return evaluator.clock(); }

    /** An event: its name, target (or null) and properties (or null). */
    public List<Command> record(String name, String target, long time, Map<String, ?> properties) {
        catchUp(time);
        evaluator.record(name, target, clock(), properties);
        settle();
        return takeOutput();
    }

    /** Time passing with nothing else happening: what a timer calls at {@link #nextChange()}. */
    public List<Command> advance(long time) {
        catchUp(time);
        settle();
        return takeOutput();
    }

    /** Context values (app.version, user.plan, ...), set in the order of their paths; null removes one. */
    public List<Command> setContext(Map<String, ?> values, long time) {
        catchUp(time);
        for (String path : new TreeMap<String, Object>(values).keySet()) evaluator.setContext(path, values.get(path), clock());
        settle();
        return takeOutput();
    }

    /** A container became visible or hidden (a screen left, a video played full screen): its tip pauses and resumes. */
    public List<Command> setContainer(String container, boolean visible, long time) {
        catchUp(time);
        changeVisibility(container, visible);
        settle();
        return takeOutput();
    }

    /**
     * Says whether a showing tip is where the user can see it: a renderer that measures visibility
     * says {@code false} while the tip is off the screen, parked or waiting for room. Display time
     * counts only while it is visible; a tip shows visible until said otherwise.
     */
    public List<Command> setTip(String id, boolean visible, long time) {
        catchUp(time);
        int i = indexOf(id);
        State state = i >= 0 ? states[i] : null;
        if (state != null && state.phase.equals("active") && visible != state.isCounting()) {
            if (visible) {
                state.activeSince = clock();
                scheduleTip(i);
            } else {
                state.settle(clock());
                state.activeSince = NONE;
            }
        }
        settle();
        return takeOutput();
    }

    /** The user closed a tip. */
    public List<Command> close(String id, long time) {
        catchUp(time);
        int i = indexOf(id);
        if (i >= 0) finish(i, "closed");
        settle();
        return takeOutput();
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
        for (int i = 0; i < tips.size(); i++) if (states[i].phase.equals("active")) active.add(command(Command.Action.SHOW, i, null));
        return active;
    }

    /** The tip that shows in a container now (paused, if the container is hidden), as a show command; null: none. */
    public Command occupant(String container) {
        Integer c = containerIndex.get(container);
        return c == null || occupant[c] < 0 ? null : command(Command.Action.SHOW, occupant[c], null);
    }

    /** No later than the next moment something can change without an event; null: nothing will. */
    public Long nextChange() {
        long next = nextDeadline();
        return next == Long.MAX_VALUE ? null : next;
    }

    private long nextDeadline() {
        long next = Math.min(evaluator.nextDeadline(), nextTipDeadline());
        if (gap > 0 && lastShow != NONE && lastShow + gap > clock()) next = Math.min(next, lastShow + gap);
        return next;
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
            long displayed = state.displayedMillis + (state.isCounting() ? clock() - state.activeSince : 0);
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
    public List<Command> merge(JSONObject progress, long time) {
        catchUp(time);
        {
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
                state.settle(clock());
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
        }
        // Counts and times changed anywhere: the next step looks at everything.
        for (int i = 0; i < tips.size(); i++) {
            markTip(i);
            scheduleTip(i);
        }
        scanAll = true;
        settle();
        return takeOutput();
    }

    private int indexOf(String id) {
        for (int i = 0; i < tips.size(); i++) if (tips.get(i).id.equals(id)) return i;
        return -1;
    }

    // A step: every deadline up to the time is played at its own moment, then the input, then settle.
    private void catchUp(long time) {
        if (evaluator.hasTime()) {
            while (true) {
                long next = nextDeadline();
                if (next == Long.MAX_VALUE || next > time) break;
                advanceTo(next);
                settle();
            }
        }
        advanceTo(time);
    }

    /** Moves the clock; the tips whose deadlines it reaches are looked at in the next settle. */
    private void advanceTo(long time) {
        evaluator.advance(time);
        long now = clock();
        while (!tipDeadlines.isEmpty() && tipDeadlines.topTime() <= now) {
            markTip(tipDeadlines.topId());
            tipDeadlines.pop();
        }
    }

    private List<Command> takeOutput() {
        if (output.isEmpty()) return Collections.emptyList();
        List<Command> taken = output;
        output = new ArrayList<Command>();
        return taken;
    }

    private void settle() {
        for (int k = 0, n = evaluator.changedCount(); k < n; k++) markTip(evaluator.changedRule(k) >> 1);
        evaluator.clearChanged();
        // In catalog order, as a step over every tip would go.
        Arrays.sort(dirty, 0, dirtyCount);
        for (int k = 0; k < dirtyCount; k++) {
            int i = dirty[k];
            if (states[i].isFinished()) continue;
            checkTimeLimits(i);
            if (!states[i].isFinished() && evaluator.value(i * 2 + 1)) finish(i, "dismissed");
        }
        fill();
        for (int k = 0; k < dirtyCount; k++) isDirty[dirty[k]] = false;
        dirtyCount = 0;
    }

    private void fill() {
        long now = clock();
        if (gap > 0 && lastShow != NONE && now < lastShow + gap) {
            // What changes meanwhile is looked at when the gap ends: then every container is.
            blockedByGap = true;
            return;
        }
        if (blockedByGap) {
            blockedByGap = false;
            scanAll = true;
        }
        // A free, visible container that was not looked at again had no tip to show in the last
        // step; only its tips whose rules changed since can have one now.
        int found = 0;
        int scanned = scanAll ? containers.size() : scanCount;
        for (int k = 0; k < scanned; k++) {
            int c = scanAll ? k : scanList[k];
            if (occupant[c] >= 0 || containerHidden[c]) continue;
            for (int i : byContainer[c]) {
                if (isEligible(i)) {
                    best[c] = i;
                    candidates[found++] = c;
                    break;
                }
            }
        }
        for (int k = 0; k < scanCount; k++) scanContainer[scanList[k]] = false;
        scanCount = 0;
        scanAll = false;
        for (int k = 0; k < dirtyCount; k++) {
            int i = dirty[k];
            int c = containerOf[i];
            if (occupant[c] >= 0 || containerHidden[c] || !isEligible(i)) continue;
            if (best[c] < 0) {
                best[c] = i;
                candidates[found++] = c;
            } else if (before(i, best[c])) {
                best[c] = i;
            }
        }
        if (found == 0) return;
        int[] chosen = new int[found];
        for (int k = 0; k < found; k++) {
            chosen[k] = best[candidates[k]];
            best[candidates[k]] = -1;
        }
        // Highest priority first, then catalog order.
        for (int a = 1; a < found; a++) {
            int tip = chosen[a];
            int b = a - 1;
            while (b >= 0 && before(tip, chosen[b])) {
                chosen[b + 1] = chosen[b];
                b -= 1;
            }
            chosen[b + 1] = tip;
        }
        for (int position = 0; position < found; position++) {
            if (position > 0 && gap > 0) break; // the frequency allows one tip now; the others wait
            show(chosen[position]);
        }
    }

    /** Whether tip {@code a} goes before {@code b}: a higher priority, then catalog order. */
    private boolean before(int a, int b) {
        int pa = tips.get(a).priority;
        int pb = tips.get(b).priority;
        return pa != pb ? pa > pb : a < b;
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
        states[i].activeSince = sightReported ? NONE : clock();
        states[i].displayCount += 1;
        occupant[containerOf[i]] = i;
        lastShow = clock();
        scheduleTip(i);
        emit(Command.Action.SHOW, i, null);
    }

    private void finish(int i, String reason) {
        State state = states[i];
        if (state.isFinished()) return;
        state.settle(clock());
        if (state.phase.equals("active") || state.phase.equals("paused")) {
            emit(Command.Action.HIDE, i, reason);
            occupant[containerOf[i]] = -1;
            markContainer(containerOf[i]);
        }
        state.phase = "finished:" + reason;
        for (int next : successors[i]) markTip(next);
    }

    private void changeVisibility(String container, boolean visible) {
        Integer index = containerIndex.get(container);
        if (visible) {
            if (!hidden.remove(container)) return;
            if (index == null) return;
            containerHidden[index] = false;
            markContainer(index);
            int i = occupant[index];
            if (i >= 0 && states[i].phase.equals("paused")) {
                states[i].phase = "active";
                states[i].activeSince = sightReported ? NONE : clock();
                states[i].displayCount += 1;
                scheduleTip(i);
                emit(Command.Action.RESUME, i, null);
            }
        } else {
            if (!hidden.add(container)) return;
            if (index == null) return;
            containerHidden[index] = true;
            int i = occupant[index];
            if (i < 0 || !states[i].phase.equals("active")) return;
            Integer limit = tips.get(i).policy.maxDisplayCount;
            if (limit != null && states[i].displayCount >= limit) {
                finish(i, "maxDisplayCount");
            } else {
                states[i].settle(clock());
                states[i].phase = "paused";
                emit(Command.Action.PAUSE, i, null);
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
        if (!state.isCounting() || limit == null) return NONE;
        return state.activeSince + Math.max(0, (long) (limit * 1000) - state.displayedMillis);
    }

    private void emit(Command.Action action, int i, String reason) { output.add(command(action, i, reason)); }

    private Command command(Command.Action action, int i, String reason) {
        Tip tip = tips.get(i);
        return new Command(action, tip.id, tip.container, tip.anchor, Command.Reason.of(reason), clock());
    }
}
