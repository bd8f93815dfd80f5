package dev.waymark.engine;

import dev.waymark.rules.Rule;
import dev.waymark.rules.Values;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Date;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Keeps every rule's value up to date from events, time and context, incrementally. Memory is
 * bounded per term (each occurrence, count, sequence and comparison), never by the number of
 * events: a windowed count keeps at most its k+1 latest times in a ring, a sequence the latest
 * start that reached each stage. Terms are shared by every rule that mentions them and keyed by
 * their text. Each term keeps its own value; a term whose value changes by time alone is woken at
 * that moment from a heap of deadlines, so an event costs the terms that listen for its name and
 * nothing else, and allocates nothing. The same semantics as the Swift and JavaScript engines,
 * checked by the shared cases in conformance/.
 *
 * <p>Not thread-safe: one thread (the app's main thread, say) drives an evaluator.
 */
public final class Evaluator {
    static final long NONE = Long.MIN_VALUE;
    private static final Term[] NO_TERMS = new Term[0];

    private long now = NONE;
    private final Map<String, Object> context = new HashMap<String, Object>();
    private final Map<String, Term> terms = new LinkedHashMap<String, Term>();
    private Term[] byId = NO_TERMS;
    /**
     * By event name: the terms listening for it whatever the target, each of the name's targets
     * with the terms listening for that target alone, and the name as the rules spell it (one
     * object, compared by identity).
     */
    private final Map<String, Listening> listeners = new HashMap<String, Listening>();
    /** Every name and target the rules' patterns spell, each as one object, so that patterns compare them by identity. */
    private final Map<String, String> spellings = new HashMap<String, String>();
    private final Map<String, Term[]> readers = new HashMap<String, Term[]>();
    private final List<Node> rules = new ArrayList<Node>();
    private final DeadlineHeap deadlines = new DeadlineHeap();
    /** Rules whose terms changed value since the owner last took them (only when it asked for them). */
    private final boolean tracksChanges;
    private int[] changed = new int[64];
    private int changedCount;

    /** An evaluator of these rules, the i-th rule's value read by {@link #value(int)}. */
    public Evaluator(List<Rule> rules) {
        this(rules, null, false);
    }

    /**
     * An evaluator of these rules that goes on from a {@link #snapshot()}: the clock, the context
     * and the state of every term the rules still have (terms are matched by their text, so state
     * survives a new catalog). A snapshot that does not read is ignored part by part, never fatal.
     */
    public Evaluator(List<Rule> rules, JSONObject snapshot) {
        this(rules, snapshot, false);
    }

    Evaluator(List<Rule> rules, JSONObject snapshot, boolean tracksChanges) {
        this.tracksChanges = tracksChanges;
        Map<String, List<Term>> byPath = new HashMap<String, List<Term>>();
        Map<Term, List<Integer>> rulesOf = new LinkedHashMap<Term, List<Integer>>();
        for (int index = 0; index < rules.size(); index++) this.rules.add(compile(rules.get(index), index, byPath, rulesOf));
        for (Map.Entry<String, List<Term>> entry : byPath.entrySet()) readers.put(entry.getKey(), entry.getValue().toArray(NO_TERMS));
        byId = terms.values().toArray(NO_TERMS);
        for (Map.Entry<Term, List<Integer>> entry : rulesOf.entrySet()) {
            List<Integer> indexes = entry.getValue();
            int[] list = new int[indexes.size()];
            for (int i = 0; i < list.length; i++) list[i] = indexes.get(i);
            entry.getKey().rules = list;
        }
        if (snapshot != null) restore(snapshot);
        for (Term term : byId) {
            if (term.listensToAll) {
                for (Pattern stage : ((Sequence) term).stages) {
                    Listening all = listening(stage.name, null);
                    if (all.indexOf(term) < 0) all.add(term);
                }
            } else {
                listen(term);
            }
        }
        for (Term term : byId) {
            term.refresh(this);
            term.deadline = Long.MAX_VALUE;
            schedule(term);
        }
    }

    /** The current time (ms since 1970), or null before anything happened. */
    public Long now() { return now == NONE ? null : now; }

    long clock() { return now == NONE ? 0 : now; }

    /** Whether anything has happened yet (the clock is set). */
    boolean hasTime() { return now != NONE; }

    /** Moves the clock forward (never back), waking every term whose value changes by then; returns the current time. */
    public long advance(long time) {
        now = now == NONE ? time : Math.max(now, time);
        while (!deadlines.isEmpty() && deadlines.topTime() <= now) {
            long due = deadlines.topTime();
            Term term = byId[deadlines.topId()];
            deadlines.pop();
            if (term.deadline != due) continue; // stale: the term has moved on
            term.deadline = Long.MAX_VALUE;
            refresh(term);
        }
        return now;
    }

    /** Records an event; {@code target} may be null, {@code properties} too (values are numbers, strings and booleans). */
    public void record(String name, String target, long time, Map<String, ?> properties) {
        long t = advance(time);
        Listening listening = listeners.get(name);
        if (listening == null) return;
        Map<String, ?> props = properties == null ? Collections.<String, Object>emptyMap() : properties;
        // A target no pattern spells matches only patterns without one: null here, as no pattern's target is null.
        String spelled = target == null ? null : spellings.get(target);
        // A term that moves from one of the two lists to the other is not visited again: the
        // untargeted list is visited only up to where it ended before.
        int untargeted = listening.count;
        if (spelled != null) {
            for (Listening forTarget : listening.targets) {
                if (forTarget.target == spelled) {
                    visit(forTarget, forTarget.count, listening.name, spelled, props, t);
                    break;
                }
            }
        }
        visit(listening, untargeted, listening.name, spelled, props, t);
    }

    /**
     * Gives an event to the first {@code count} terms of a list. Backwards: a term that stops
     * listening here is swapped with the last, which was seen already (or came after the event).
     */
    private void visit(Listening listening, int count, String name, String target, Map<String, ?> props, long t) {
        Term[] list = listening.terms;
        for (int k = count - 1; k >= 0; k--) {
            Term term = list[k];
            if (!term.record(name, target, props, t)) continue;
            refresh(term);
            if (!term.listensToAll) listen(term);
        }
    }

    /** Puts a term that listens for one pattern at a time in the list of the pattern it now waits for, or in none. */
    private void listen(Term term) {
        Listening wanted = term.listeningFor();
        Listening now = term.home;
        if (now == wanted) return;
        if (now != null) now.remove(term);
        if (wanted != null) wanted.add(term);
    }

    /** The list of the terms listening for this name and target (null: whatever the target), made when first asked for. */
    Listening listening(String name, String target) {
        Listening all = listeners.get(name);
        if (all == null) listeners.put(name, all = new Listening(spell(name), null));
        if (target == null) return all;
        String spelled = spell(target);
        for (Listening forTarget : all.targets) if (forTarget.target == spelled) return forTarget;
        Listening forTarget = new Listening(all.name, spelled);
        all.targets = Arrays.copyOf(all.targets, all.targets.length + 1);
        all.targets[all.targets.length - 1] = forTarget;
        return forTarget;
    }

    /** The one object of this spelling the patterns use. */
    String spell(String text) {
        String known = spellings.get(text);
        if (known != null) return known;
        spellings.put(text, text);
        return text;
    }

    /**
     * The terms listening for one event name, with any target or with one. A term that waits for
     * one pattern at a time (an occurrence or count that can still change, an unwindowed chain at
     * its stage) is in the list of its name and target at most, and knows its place there, so that
     * it leaves in constant time; an event with another target never reaches it. A windowed chain
     * listens for all its names, whatever the target.
     */
    static final class Listening {
        private static final Listening[] NONE = new Listening[0];

        final String name;
        /** The one target of this list's terms, or null for any. */
        final String target;
        /** On a name's list for any target: the name's lists for one target each. */
        Listening[] targets = NONE;
        Term[] terms = NO_TERMS;
        int count;

        Listening(String name, String target) {
            this.name = name;
            this.target = target;
        }

        int indexOf(Term term) {
            for (int i = 0; i < count; i++) if (terms[i] == term) return i;
            return -1;
        }

        void add(Term term) {
            if (count == terms.length) terms = Arrays.copyOf(terms, Math.max(4, count * 2));
            if (!term.listensToAll) {
                term.home = this;
                term.slot = count;
            }
            terms[count++] = term;
        }

        void remove(Term term) {
            int slot = term.slot;
            Term last = terms[--count];
            terms[slot] = last;
            last.slot = slot;
            terms[count] = null;
            term.home = null;
        }
    }

    /**
     * Sets a context value: a {@link Number}, {@link String}, {@link Boolean}, {@link Values.Moment}
     * (or a {@link Date}) or {@link Values.Version}; null removes it.
     */
    public void setContext(String path, Object value, long time) {
        advance(time);
        Object typed = value instanceof Date ? new Values.Moment(((Date) value).getTime()) : value;
        if (typed == null) context.remove(path);
        else context.put(path, typed);
        Term[] reading = readers.get(path);
        if (reading == null) return;
        for (Term term : reading) refresh(term);
    }

    /** The value of the i-th rule now. */
    public boolean value(int index) { return rules.get(index).evaluate(); }

    /** The next moment after now when a rule can change without an event, or null. */
    public Long nextChange() {
        long next = nextDeadline();
        return next == Long.MAX_VALUE ? null : next;
    }

    /** {@link #nextChange()} without a box: Long.MAX_VALUE for none. */
    long nextDeadline() {
        while (!deadlines.isEmpty()) {
            Term term = byId[deadlines.topId()];
            if (term.deadline == deadlines.topTime()) return deadlines.topTime();
            deadlines.pop();
        }
        return Long.MAX_VALUE;
    }

    /** The term's value and deadline after its state changed; its rules are noted when its value did. */
    private void refresh(Term term) {
        if (term.refresh(this) && tracksChanges) {
            for (int rule : term.rules) {
                if (changedCount == changed.length) changed = Arrays.copyOf(changed, changedCount * 2);
                changed[changedCount++] = rule;
            }
        }
        schedule(term);
    }

    private void schedule(Term term) {
        long next = term.nextChange(clock());
        // A deadline already in the heap that comes no later stays: when it comes, the term is
        // refreshed and scheduled again. (A window that moves on with each event would otherwise
        // push an entry per event.)
        if (term.deadline <= next) return;
        term.deadline = next;
        if (next != Long.MAX_VALUE) deadlines.push(next, term.id);
        // Stale entries pile up only as fast as deadlines move; rebuilt when they outnumber the terms.
        if (deadlines.size() > 4 * byId.length + 64) {
            deadlines.clear();
            for (Term each : byId) if (each.deadline != Long.MAX_VALUE) deadlines.push(each.deadline, each.id);
        }
    }

    /** How many rules were noted as changed since {@link #clearChanged()} (a rule may be noted twice). */
    int changedCount() { return changedCount; }

    int changedRule(int index) { return changed[index]; }

    void clearChanged() { changedCount = 0; }

    // MARK: Snapshots

    private void restore(JSONObject snapshot) {
        Object time = snapshot.opt("now");
        if (time instanceof Number) now = ((Number) time).longValue();
        JSONObject savedContext = snapshot.optJSONObject("context");
        if (savedContext != null) {
            for (Iterator<String> keys = savedContext.keys(); keys.hasNext();) {
                String path = keys.next();
                Object value = Values.fromJSON(savedContext.opt(path));
                if (value != null) context.put(path, value);
            }
        }
        JSONObject saved = snapshot.optJSONObject("terms");
        if (saved != null) {
            for (Map.Entry<String, Term> entry : terms.entrySet()) {
                JSONObject state = saved.optJSONObject(entry.getKey());
                if (state != null) entry.getValue().restore(state);
            }
        }
    }

    /** The clock, the context and every term's state, as JSON an app keeps across restarts. */
    public JSONObject snapshot() {
        JSONObject savedContext = new JSONObject();
        for (Map.Entry<String, Object> entry : context.entrySet()) put(savedContext, entry.getKey(), contextJSON(entry.getValue()));
        JSONObject saved = new JSONObject();
        for (Map.Entry<String, Term> entry : terms.entrySet()) put(saved, entry.getKey(), entry.getValue().save());
        JSONObject snapshot = new JSONObject();
        put(snapshot, "now", timeJSON(now));
        put(snapshot, "context", savedContext);
        put(snapshot, "terms", saved);
        return snapshot;
    }

    static JSONObject put(JSONObject json, String key, Object value) {
        try {
            return json.put(key, value);
        } catch (JSONException error) {
            throw new IllegalArgumentException(error);
        }
    }

    private static Object contextJSON(Object value) {
        if (value instanceof Values.Moment) return put(new JSONObject(), "time", ((Values.Moment) value).millis);
        if (value instanceof Values.Version) return put(new JSONObject(), "version", ((Values.Version) value).text);
        if (value instanceof Number || value instanceof String || value instanceof Boolean) return value;
        return JSONObject.NULL;
    }

    static long timeFromJSON(Object json) { return json instanceof Number ? ((Number) json).longValue() : NONE; }

    static Object timeJSON(long time) { return time == NONE ? JSONObject.NULL : (Object) time; }

    // MARK: Compiling

    private Node compile(Rule rule, int index, Map<String, List<Term>> byPath, Map<Term, List<Integer>> rulesOf) {
        if (rule instanceof Rule.Const) return ((Rule.Const) rule).value ? Node.TRUE : Node.FALSE;
        if (rule instanceof Rule.Not) return new Node.Not(compile(((Rule.Not) rule).operand, index, byPath, rulesOf));
        if (rule instanceof Rule.Junction) {
            List<Rule> operands = ((Rule.Junction) rule).operands;
            Node[] nodes = new Node[operands.size()];
            for (int i = 0; i < nodes.length; i++) nodes[i] = compile(operands.get(i), index, byPath, rulesOf);
            return new Node.Junction(((Rule.Junction) rule).isAnd, nodes);
        }
        String key = rule.toString();
        Term term = terms.get(key);
        if (term == null) {
            term = Term.of(rule, this);
            term.id = terms.size();
            terms.put(key, term);
            if (term instanceof Comparison) add(byPath, ((Comparison) term).path, term);
            rulesOf.put(term, new ArrayList<Integer>());
        }
        List<Integer> indexes = rulesOf.get(term);
        if (!indexes.contains(index)) indexes.add(index);
        return term;
    }

    private static void add(Map<String, List<Term>> map, String key, Term term) {
        List<Term> list = map.get(key);
        if (list == null) map.put(key, list = new ArrayList<Term>());
        if (!list.contains(term)) list.add(term);
    }

    Object contextValue(String path) { return context.get(path); }

    /** A rule compiled: its operators over shared terms, each of which keeps its value. */
    abstract static class Node {
        static final Node TRUE = new Constant(true);
        static final Node FALSE = new Constant(false);

        abstract boolean evaluate();

        static final class Constant extends Node {
            final boolean value;

            Constant(boolean value) { this.value = value; }

            @Override boolean evaluate() { return value; }
        }

        static final class Not extends Node {
            final Node operand;

            Not(Node operand) { this.operand = operand; }

            @Override boolean evaluate() { return !operand.evaluate(); }
        }

        static final class Junction extends Node {
            final boolean isAnd;
            final Node[] operands;

            Junction(boolean isAnd, Node[] operands) {
                this.isAnd = isAnd;
                this.operands = operands;
            }

            @Override boolean evaluate() {
                for (Node operand : operands) {
                    if (operand.evaluate() != isAnd) return !isAnd;
                }
                return isAnd;
            }
        }
    }

    /** An occurrence, a sequence, a count or a comparison, with the state and the value it keeps. */
    abstract static class Term extends Node {
        // What kind of term it is, so that the hot paths (record, compute, nextChange) dispatch by
        // a switch over final classes, which the JIT inlines, instead of a virtual call over four.
        static final int OCCURRENCE = 0;
        static final int SEQUENCE = 1;
        static final int COUNT = 2;
        static final int COMPARISON = 3;

        final int kind;
        /** Whether it listens for every name of its patterns at once (a windowed chain). */
        final boolean listensToAll;
        int id;
        /** The rules it is in, by index. */
        int[] rules;
        boolean value;
        /** When its value next changes by time alone, as scheduled in the heap; Long.MAX_VALUE for never. */
        long deadline = Long.MAX_VALUE;
        /** The list it is in, for a term that listens for one name at a time, and its place there. */
        Listening home;
        int slot;

        Term(int kind, boolean listensToAll) {
            this.kind = kind;
            this.listensToAll = listensToAll;
        }

        /** The list of the one pattern it waits for now, or null when no event can change it any more (or it listens to all). */
        Listening listeningFor() { return null; }

        static Term of(Rule rule, Evaluator evaluator) {
            if (rule instanceof Rule.Sequence) {
                Rule.Sequence sequence = (Rule.Sequence) rule;
                long window = Rule.windowMillis(sequence.within);
                List<Pattern> stages = new ArrayList<Pattern>();
                for (Rule.EventPattern event : sequence.events) stages.add(new Pattern(event, evaluator));
                return stages.size() == 1 ? new Occurrence(stages.get(0), window) : new Sequence(stages, window);
            }
            if (rule instanceof Rule.Count) return new Count((Rule.Count) rule, new Pattern(((Rule.Count) rule).event, evaluator));
            return new Comparison((Rule.Comparison) rule);
        }

        @Override final boolean evaluate() { return value; }

        /** Takes an event in; whether its state changed. */
        final boolean record(String name, String target, Map<String, ?> props, long time) {
            switch (kind) {
                case OCCURRENCE: return ((Occurrence) this).take(name, target, props, time);
                case COUNT: return ((Count) this).take(name, target, props, time);
                case SEQUENCE: return ((Sequence) this).take(name, target, props, time);
                default: return false;
            }
        }

        /** Computes the value from the state at the evaluator's time; whether it changed. */
        final boolean refresh(Evaluator evaluator) {
            boolean next;
            switch (kind) {
                case OCCURRENCE: next = ((Occurrence) this).compute(evaluator.clock()); break;
                case COUNT: next = ((Count) this).compute(evaluator.clock()); break;
                case SEQUENCE: next = ((Sequence) this).done; break;
                default: next = ((Comparison) this).compute(evaluator);
            }
            if (next == value) return false;
            value = next;
            return true;
        }

        /** The next moment after {@code now} when the value can change by time alone, or Long.MAX_VALUE. */
        final long nextChange(long now) {
            switch (kind) {
                case OCCURRENCE: return ((Occurrence) this).changesAt(now);
                case COUNT: return ((Count) this).changesAt(now);
                default: return Long.MAX_VALUE;
            }
        }

        /** The state, as JSON. */
        JSONObject save() { return new JSONObject(); }

        /** Takes the state back from {@link #save()}'s JSON. */
        void restore(JSONObject state) {}

        /**
         * Whether an event matches a pattern: by name, by target when it has one, and by every
         * property test. The name and target are the evaluator's spellings, compared by identity.
         */
        static boolean matches(Pattern pattern, String name, String target, Map<String, ?> props) {
            return matches(pattern.name, pattern.target, pattern.where, name, target, props);
        }

        static boolean matches(
            String patternName, String patternTarget, Rule.PropertyTest[] where, String name, String target, Map<String, ?> props) {
            if (patternName != name) return false;
            if (patternTarget != null && patternTarget != target) return false;
            if (where != null) {
                for (Rule.PropertyTest test : where) {
                    if (!test.test.passes(props.get(test.prop))) return false;
                }
            }
            return true;
        }
    }

    /** An event pattern with its name and target in the evaluator's spellings. */
    static final class Pattern {
        final String name;
        final String target;
        final Rule.PropertyTest[] where;
        /** The evaluator's list of the terms waiting for this name and target. */
        final Listening listening;

        Pattern(Rule.EventPattern event, Evaluator evaluator) {
            listening = evaluator.listening(event.name, event.target);
            name = listening.name;
            target = listening.target;
            where = event.where == null ? null : event.where.toArray(new Rule.PropertyTest[0]);
        }
    }

    static final class Occurrence extends Term {
        // The pattern's parts are kept in the term itself: an event reaches it with one object read.
        final String name;
        final String target;
        final Rule.PropertyTest[] where;
        final Listening listening;
        final long window;
        long last = NONE;

        Occurrence(Pattern pattern, long window) {
            super(OCCURRENCE, false);
            this.name = pattern.name;
            this.target = pattern.target;
            this.where = pattern.where;
            this.listening = pattern.listening;
            this.window = window;
        }

        /** Without a window, once seen it is true for good. */
        @Override Listening listeningFor() { return window >= 0 || last == NONE ? listening : null; }

        boolean take(String name, String target, Map<String, ?> props, long time) {
            if (!matches(this.name, this.target, where, name, target, props)) return false;
            last = time;
            return true;
        }

        boolean compute(long now) {
            return last != NONE && (window < 0 || now - last <= window);
        }

        long changesAt(long now) {
            return window >= 0 && last != NONE && last + window + 1 > now ? last + window + 1 : Long.MAX_VALUE;
        }

        @Override JSONObject save() { return put(new JSONObject(), "last", timeJSON(last)); }

        @Override void restore(JSONObject state) { last = timeFromJSON(state.opt("last")); }
    }

    static final class Sequence extends Term {
        final Pattern[] stages;
        final long window;
        /** Per stage after the first, the latest start that reached the stage before it. */
        final long[] starts;
        boolean done;

        Sequence(List<Pattern> stages, long window) {
            super(SEQUENCE, window >= 0);
            this.stages = stages.toArray(new Pattern[0]);
            this.window = window;
            this.starts = new long[stages.size() - 1];
            Arrays.fill(starts, NONE);
        }

        /** Without a window: the list of the stage it waits for (with one it listens for all its names, see {@link #listensToAll}). */
        @Override Listening listeningFor() {
            if (done || listensToAll) return null;
            int reached = 0;
            while (reached < starts.length && starts[reached] != NONE) reached += 1;
            return stages[reached].listening;
        }

        boolean take(String name, String target, Map<String, ?> props, long time) {
            if (done) return false;
            if (window < 0) return advanceUnwindowed(name, target, props, time);
            boolean changed = false;
            // Latest stage first, so that one event never counts for two stages of one start.
            for (int i = stages.length - 2; i >= 0; i--) {
                long start = starts[i];
                if (start == NONE || !matches(stages[i + 1], name, target, props)) continue;
                if (i + 1 == stages.length - 1) {
                    if (window < 0 || time - start <= window) {
                        done = true;
                        changed = true;
                    }
                } else if (starts[i + 1] == NONE || starts[i + 1] < start) {
                    starts[i + 1] = start;
                    changed = true;
                }
            }
            if (matches(stages[0], name, target, props)) {
                starts[0] = time;
                changed = true;
            }
            return changed;
        }

        /**
         * Without a window only how far the chain got matters: the stages reached are a prefix,
         * and an event moves it on only by matching the stage it waits for (the latest stage
         * first, as with a window, so one event never counts for two). One stage is looked at,
         * not all.
         */
        private boolean advanceUnwindowed(String name, String target, Map<String, ?> props, long time) {
            int reached = 0;
            while (reached < starts.length && starts[reached] != NONE) reached += 1;
            if (reached == 0) {
                if (!matches(stages[0], name, target, props)) return false;
                starts[0] = time;
                return true;
            }
            if (!matches(stages[reached], name, target, props)) return false;
            if (reached == stages.length - 1) done = true;
            else starts[reached] = starts[reached - 1];
            return true;
        }

        @Override JSONObject save() {
            JSONArray saved = new JSONArray();
            for (long start : starts) saved.put(timeJSON(start));
            return put(put(new JSONObject(), "starts", saved), "done", done);
        }

        @Override void restore(JSONObject state) {
            JSONArray saved = state.optJSONArray("starts");
            for (int i = 0; saved != null && i < starts.length && i < saved.length(); i++) starts[i] = timeFromJSON(saved.opt(i));
            done = state.optBoolean("done", false);
        }
    }

    static final class Count extends Term {
        final String name;
        final String target;
        final Rule.PropertyTest[] where;
        final Listening listening;
        final int op;
        final int threshold;
        final long window;
        /** Without a window: the count, saturating at threshold + 1. */
        int count;
        /**
         * With a window: the latest times still in the window, at most threshold + 1, oldest first
         * in a ring from {@code head}. Times only grow, so those that leave the window are the oldest.
         */
        final long[] times;
        int head;
        int size;

        Count(Rule.Count rule, Pattern pattern) {
            super(COUNT, false);
            this.name = pattern.name;
            this.target = pattern.target;
            this.where = pattern.where;
            this.listening = pattern.listening;
            this.op = Values.operator(rule.cmp);
            this.threshold = rule.value;
            this.window = Rule.windowMillis(rule.within);
            this.times = window < 0 ? null : new long[rule.value + 1];
        }

        /** Without a window, a count past its threshold no longer changes. */
        @Override Listening listeningFor() { return times != null || count <= threshold ? listening : null; }

        boolean take(String name, String target, Map<String, ?> props, long time) {
            if (!matches(this.name, this.target, where, name, target, props)) return false;
            if (times == null) {
                if (count > threshold) return false;
                count += 1;
            } else if (size < times.length) {
                times[(head + size) % times.length] = time;
                size += 1;
            } else {
                times[head] = time;
                head = (head + 1) % times.length;
            }
            return true;
        }

        boolean compute(long now) {
            int n = count;
            if (times != null) {
                while (size > 0 && now - times[head] > window) {
                    head = (head + 1) % times.length;
                    size -= 1;
                }
                n = size;
            }
            return Values.holds(op, n == threshold ? 0 : n < threshold ? -1 : 1);
        }

        long changesAt(long now) {
            if (times == null || size == 0) return Long.MAX_VALUE;
            long change = times[head] + window + 1;
            return change > now ? change : Long.MAX_VALUE;
        }

        @Override JSONObject save() {
            JSONArray saved = new JSONArray();
            for (int i = 0; times != null && i < size; i++) saved.put(times[(head + i) % times.length]);
            return put(put(new JSONObject(), "count", count), "times", saved);
        }

        @Override void restore(JSONObject state) {
            count = Math.max(0, Math.min(state.optInt("count", 0), threshold + 1));
            JSONArray saved = state.optJSONArray("times");
            head = 0;
            size = 0;
            if (times == null || saved == null) return;
            // The latest threshold + 1, oldest first.
            for (int i = Math.max(0, saved.length() - times.length); i < saved.length(); i++) {
                if (saved.opt(i) instanceof Number) times[size++] = ((Number) saved.opt(i)).longValue();
            }
        }
    }

    static final class Comparison extends Term {
        final String path;
        final Rule.Test test;

        Comparison(Rule.Comparison rule) {
            super(COMPARISON, false);
            this.path = rule.path;
            this.test = rule.test;
        }

        boolean compute(Evaluator evaluator) { return test.passes(evaluator.contextValue(path)); }
    }
}
