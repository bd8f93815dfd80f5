package dev.waymark.engine;

import dev.waymark.rules.Rule;
import dev.waymark.rules.Values;
import java.util.ArrayList;
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
 * events: a windowed count keeps its k+1 latest times in a ring, a sequence the latest start that
 * reached each stage. Terms are shared by every rule that mentions them and keyed by their text.
 * Recording an event allocates nothing. The same semantics as the Swift and JavaScript engines,
 * checked by the shared cases in conformance/.
 *
 * <p>Not thread-safe: one thread (the app's main thread, say) drives an evaluator.
 */
public final class Evaluator {
    private static final long NONE = Long.MIN_VALUE;
    private static final Term[] NO_TERMS = new Term[0];

    private long now = NONE;
    private final Map<String, Object> context = new HashMap<String, Object>();
    private final Map<String, Term> terms = new LinkedHashMap<String, Term>();
    private final Map<String, Term[]> listeners = new HashMap<String, Term[]>();
    private final List<Node> rules = new ArrayList<Node>();

    /** An evaluator of these rules, the i-th rule's value read by {@link #value(int)}. */
    public Evaluator(List<Rule> rules) {
        this(rules, null);
    }

    /**
     * An evaluator of these rules that goes on from a {@link #snapshot()}: the clock, the context
     * and the state of every term the rules still have (terms are matched by their text, so state
     * survives a new catalog). A snapshot that does not read is ignored part by part, never fatal.
     */
    public Evaluator(List<Rule> rules, JSONObject snapshot) {
        Map<String, List<Term>> byName = new HashMap<String, List<Term>>();
        for (Rule rule : rules) this.rules.add(compile(rule, byName));
        for (Map.Entry<String, List<Term>> entry : byName.entrySet()) {
            listeners.put(entry.getKey(), entry.getValue().toArray(NO_TERMS));
        }
        if (snapshot == null) return;
        Object time = snapshot.opt("now");
        if (time instanceof Number) now = ((Number) time).longValue();
        JSONObject savedContext = snapshot.optJSONObject("context");
        if (savedContext != null) {
            for (Iterator<String> keys = savedContext.keys(); keys.hasNext();) {
                String path = keys.next();
                Object value = contextFromJSON(savedContext.opt(path));
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
        put(snapshot, "now", now == NONE ? JSONObject.NULL : (Object) now);
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

    private static Object contextFromJSON(Object json) {
        if (json instanceof Number) return ((Number) json).doubleValue();
        if (json instanceof String || json instanceof Boolean) return json;
        if (!(json instanceof JSONObject)) return null;
        JSONObject object = (JSONObject) json;
        if (object.opt("time") instanceof Number) return new Values.Moment(((Number) object.opt("time")).longValue());
        try {
            return new Values.Version(object.optString("version"));
        } catch (IllegalArgumentException notAVersion) {
            return null;
        }
    }

    static long timeFromJSON(Object json) { return json instanceof Number ? ((Number) json).longValue() : NONE; }

    static Object timeJSON(long time) { return time == NONE ? JSONObject.NULL : (Object) time; }

    /** The current time (ms since 1970), or null before anything happened. */
    public Long now() { return now == NONE ? null : now; }

    /** Moves the clock forward (never back) and returns the current time. */
    public long advance(long time) {
        now = now == NONE ? time : Math.max(now, time);
        return now;
    }

    /** Records an event; {@code target} may be null, {@code properties} too (values are numbers, strings and booleans). */
    public void record(String name, String target, long time, Map<String, ?> properties) {
        long t = advance(time);
        Term[] listening = listeners.get(name);
        if (listening == null) return;
        Map<String, ?> props = properties == null ? Collections.<String, Object>emptyMap() : properties;
        for (Term term : listening) term.record(name, target, props, t);
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
    }

    /** The value of the i-th rule now. */
    public boolean value(int index) { return rules.get(index).evaluate(this); }

    /** The next moment after now when a rule can change without an event, or null. */
    public Long nextChange() {
        long current = now == NONE ? 0 : now;
        long next = Long.MAX_VALUE;
        for (Term term : terms.values()) next = Math.min(next, term.nextChange(current));
        return next == Long.MAX_VALUE ? null : next;
    }

    // MARK: Compiling

    private Node compile(Rule rule, Map<String, List<Term>> byName) {
        if (rule instanceof Rule.Const) return ((Rule.Const) rule).value ? Node.TRUE : Node.FALSE;
        if (rule instanceof Rule.Not) return new Node.Not(compile(((Rule.Not) rule).operand, byName));
        if (rule instanceof Rule.Junction) {
            List<Rule> operands = ((Rule.Junction) rule).operands;
            Node[] nodes = new Node[operands.size()];
            for (int i = 0; i < nodes.length; i++) nodes[i] = compile(operands.get(i), byName);
            return new Node.Junction(((Rule.Junction) rule).isAnd, nodes);
        }
        String key = rule.toString();
        Term term = terms.get(key);
        if (term == null) {
            term = Term.of(rule);
            terms.put(key, term);
            for (String name : term.eventNames()) {
                List<Term> list = byName.get(name);
                if (list == null) byName.put(name, list = new ArrayList<Term>());
                if (!list.contains(term)) list.add(term);
            }
        }
        return new Node.Leaf(term);
    }

    Object contextValue(String path) { return context.get(path); }

    long clock() { return now == NONE ? 0 : now; }

    /** A rule compiled: its operators over shared terms. */
    abstract static class Node {
        static final Node TRUE = new Constant(true);
        static final Node FALSE = new Constant(false);

        abstract boolean evaluate(Evaluator evaluator);

        static final class Constant extends Node {
            final boolean value;

            Constant(boolean value) { this.value = value; }

            @Override boolean evaluate(Evaluator evaluator) { return value; }
        }

        static final class Not extends Node {
            final Node operand;

            Not(Node operand) { this.operand = operand; }

            @Override boolean evaluate(Evaluator evaluator) { return !operand.evaluate(evaluator); }
        }

        static final class Junction extends Node {
            final boolean isAnd;
            final Node[] operands;

            Junction(boolean isAnd, Node[] operands) {
                this.isAnd = isAnd;
                this.operands = operands;
            }

            @Override boolean evaluate(Evaluator evaluator) {
                for (Node operand : operands) {
                    if (operand.evaluate(evaluator) != isAnd) return !isAnd;
                }
                return isAnd;
            }
        }

        static final class Leaf extends Node {
            final Term term;

            Leaf(Term term) { this.term = term; }

            @Override boolean evaluate(Evaluator evaluator) { return term.value(evaluator); }
        }
    }

    /** An occurrence, a sequence, a count or a comparison, with the state it keeps. */
    abstract static class Term {
        static Term of(Rule rule) {
            if (rule instanceof Rule.Sequence) {
                Rule.Sequence sequence = (Rule.Sequence) rule;
                long window = Rule.windowMillis(sequence.within);
                return sequence.events.size() == 1 ? new Occurrence(sequence.events.get(0), window) : new Sequence(sequence.events, window);
            }
            if (rule instanceof Rule.Count) return new Count((Rule.Count) rule);
            return new Comparison((Rule.Comparison) rule);
        }

        List<String> eventNames() { return Collections.emptyList(); }

        void record(String name, String target, Map<String, ?> props, long time) {}

        abstract boolean value(Evaluator evaluator);

        /** The next moment after {@code now} when the value can change by time alone, or Long.MAX_VALUE. */
        long nextChange(long now) { return Long.MAX_VALUE; }

        /** The state, as JSON. */
        JSONObject save() { return new JSONObject(); }

        /** Takes the state back from {@link #save()}'s JSON. */
        void restore(JSONObject state) {}

        /** Whether an event matches a pattern: by name, by target when it has one, and by every property test. */
        static boolean matches(Rule.EventPattern pattern, String name, String target, Map<String, ?> props) {
            if (!pattern.name.equals(name)) return false;
            if (pattern.target != null && !pattern.target.equals(target)) return false;
            if (pattern.where != null) {
                for (int i = 0; i < pattern.where.size(); i++) {
                    Rule.PropertyTest test = pattern.where.get(i);
                    if (!test.test.passes(props.get(test.prop))) return false;
                }
            }
            return true;
        }
    }

    static final class Occurrence extends Term {
        final Rule.EventPattern pattern;
        final long window;
        long last = NONE;

        Occurrence(Rule.EventPattern pattern, long window) {
            this.pattern = pattern;
            this.window = window;
        }

        @Override List<String> eventNames() { return Collections.singletonList(pattern.name); }

        @Override void record(String name, String target, Map<String, ?> props, long time) {
            if (matches(pattern, name, target, props)) last = time;
        }

        @Override boolean value(Evaluator evaluator) {
            return last != NONE && (window < 0 || evaluator.clock() - last <= window);
        }

        @Override long nextChange(long now) {
            return window >= 0 && last != NONE && last + window + 1 > now ? last + window + 1 : Long.MAX_VALUE;
        }

        @Override JSONObject save() { return put(new JSONObject(), "last", timeJSON(last)); }

        @Override void restore(JSONObject state) { last = timeFromJSON(state.opt("last")); }
    }

    static final class Sequence extends Term {
        final Rule.EventPattern[] stages;
        final long window;
        /** Per stage after the first, the latest start that reached the stage before it. */
        final long[] starts;
        boolean done;

        Sequence(List<Rule.EventPattern> stages, long window) {
            this.stages = stages.toArray(new Rule.EventPattern[0]);
            this.window = window;
            this.starts = new long[stages.size() - 1];
            java.util.Arrays.fill(starts, NONE);
        }

        @Override List<String> eventNames() {
            List<String> names = new ArrayList<String>();
            for (Rule.EventPattern stage : stages) if (!names.contains(stage.name)) names.add(stage.name);
            return names;
        }

        @Override void record(String name, String target, Map<String, ?> props, long time) {
            if (done) return;
            // Latest stage first, so that one event never counts for two stages of one start.
            for (int i = stages.length - 2; i >= 0; i--) {
                long start = starts[i];
                if (start == NONE || !matches(stages[i + 1], name, target, props)) continue;
                if (i + 1 == stages.length - 1) {
                    if (window < 0 || time - start <= window) done = true;
                } else if (starts[i + 1] == NONE || starts[i + 1] < start) {
                    starts[i + 1] = start;
                }
            }
            if (matches(stages[0], name, target, props)) starts[0] = time;
        }

        @Override boolean value(Evaluator evaluator) { return done; }

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
        final Rule.EventPattern pattern;
        final String cmp;
        final int threshold;
        final long window;
        /** Without a window: the count, saturating at threshold + 1. */
        int count;
        /** With a window: the latest threshold + 1 times, a ring from {@code head}. */
        final long[] times;
        int head;
        int size;

        Count(Rule.Count rule) {
            this.pattern = rule.event;
            this.cmp = rule.cmp;
            this.threshold = rule.value;
            this.window = Rule.windowMillis(rule.within);
            this.times = window < 0 ? null : new long[rule.value + 1];
        }

        @Override List<String> eventNames() { return Collections.singletonList(pattern.name); }

        @Override void record(String name, String target, Map<String, ?> props, long time) {
            if (!matches(pattern, name, target, props)) return;
            if (times == null) {
                count = Math.min(count + 1, threshold + 1);
            } else if (size < times.length) {
                times[(head + size) % times.length] = time;
                size += 1;
            } else {
                times[head] = time;
                head = (head + 1) % times.length;
            }
        }

        @Override boolean value(Evaluator evaluator) {
            int n = count;
            if (times != null) {
                long now = evaluator.clock();
                n = 0;
                for (int i = 0; i < size; i++) if (now - times[(head + i) % times.length] <= window) n += 1;
            }
            return Values.holds(cmp, n == threshold ? 0 : n < threshold ? -1 : 1);
        }

        @Override JSONObject save() {
            JSONArray saved = new JSONArray();
            for (int i = 0; i < size; i++) saved.put(times[(head + i) % times.length]);
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

        @Override long nextChange(long now) {
            long next = Long.MAX_VALUE;
            if (times == null) return next;
            for (int i = 0; i < size; i++) {
                long change = times[(head + i) % times.length] + window + 1;
                if (change > now) next = Math.min(next, change);
            }
            return next;
        }
    }

    static final class Comparison extends Term {
        final String path;
        final Rule.Test test;

        Comparison(Rule.Comparison rule) {
            this.path = rule.path;
            this.test = rule.test;
        }

        @Override boolean value(Evaluator evaluator) { return test.passes(evaluator.contextValue(path)); }
    }
}
