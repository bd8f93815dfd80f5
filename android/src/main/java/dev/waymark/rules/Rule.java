package dev.waymark.rules;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * A rule of the Waymark rule language ({@code (tap:search AND activation) OR scroll within 30s}):
 * what decides when a tip shows. {@link #parse(String)} reads the text people write;
 * {@link #fromJSON(Object)} reads the JSON form the server ships in a catalog, as strictly as the
 * text; {@link #toString()} prints the canonical text, which parses back to the same rule.
 * docs/rules.md is the language's reference; conformance/ holds the cases every implementation passes.
 */
public abstract class Rule {
    /** The limits a rule must respect, so that a rule from anywhere costs bounded work. */
    public static final int MAX_LENGTH = 4096;
    public static final int MAX_DEPTH = 32;
    public static final int MAX_COUNT = 10000;
    public static final int MAX_WINDOW_DAYS = 3650;
    /** Words that cannot be names, in any case. */
    public static final Set<String> KEYWORDS = Collections.unmodifiableSet(new HashSet<String>(
        Arrays.asList("and", "or", "not", "then", "within", "count", "in", "true", "false", "where")));
    /** The comparison operators, the two-character ones first. */
    public static final List<String> COMPARATORS = Collections.unmodifiableList(Arrays.asList("==", "!=", ">=", "<=", ">", "<"));

    Rule() {}

    /** Reads a rule's text; a {@link RuleError} says where and why it is not one. */
    public static Rule parse(String text) throws RuleError {
        return new RuleParser(text).parse();
    }

    /** The rule in the server's JSON form. */
    public abstract JSONObject toJSON();

    /** The canonical text: spaces around operators, parentheses only where needed. */
    @Override public String toString() {
        StringBuilder text = new StringBuilder();
        print(text, 0);
        return text.toString();
    }

    /** Prints into {@code text}; {@code context} is the precedence around it: 0 OR, 1 AND, 2 NOT and atoms. */
    abstract void print(StringBuilder text, int context);

    // MARK: The kinds of rule

    /** {@code true} or {@code false}. */
    public static final class Const extends Rule {
        public final boolean value;

        public Const(boolean value) { this.value = value; }

        @Override public JSONObject toJSON() { return object("const", value); }
        @Override void print(StringBuilder text, int context) { text.append(value ? "true" : "false"); }
        @Override public boolean equals(Object other) { return other instanceof Const && ((Const) other).value == value; }
        @Override public int hashCode() { return value ? 1 : 2; }
    }

    /** {@code NOT rule}. */
    public static final class Not extends Rule {
        public final Rule operand;

        public Not(Rule operand) { this.operand = operand; }

        @Override public JSONObject toJSON() { return object("not", operand.toJSON()); }
        @Override void print(StringBuilder text, int context) {
            text.append("NOT ");
            operand.print(text, 2);
        }
        @Override public boolean equals(Object other) { return other instanceof Not && ((Not) other).operand.equals(operand); }
        @Override public int hashCode() { return 31 * operand.hashCode() + 3; }
    }

    /** {@code a AND b AND ...} ({@code isAnd}) or {@code a OR b OR ...}: two operands or more. */
    public static final class Junction extends Rule {
        public final boolean isAnd;
        public final List<Rule> operands;

        public Junction(boolean isAnd, List<Rule> operands) {
            this.isAnd = isAnd;
            this.operands = Collections.unmodifiableList(new ArrayList<Rule>(operands));
        }

        @Override public JSONObject toJSON() {
            JSONArray list = new JSONArray();
            for (Rule operand : operands) list.put(operand.toJSON());
            return object(isAnd ? "and" : "or", list);
        }
        @Override void print(StringBuilder text, int context) {
            boolean parenthesized = isAnd ? context > 1 : context > 0;
            if (parenthesized) text.append('(');
            for (int i = 0; i < operands.size(); i++) {
                if (i > 0) text.append(isAnd ? " AND " : " OR ");
                operands.get(i).print(text, isAnd ? 1 : 0);
            }
            if (parenthesized) text.append(')');
        }
        @Override public boolean equals(Object other) {
            return other instanceof Junction && ((Junction) other).isAnd == isAnd && ((Junction) other).operands.equals(operands);
        }
        @Override public int hashCode() { return 31 * operands.hashCode() + (isAnd ? 5 : 7); }
    }

    /** Events one after another ({@code a THEN b within 1h}); one event alone is an occurrence. */
    public static final class Sequence extends Rule {
        public final List<EventPattern> events;
        /** The window ({@code 30s}, {@code 7d}), or null. */
        public final String within;

        public Sequence(List<EventPattern> events, String within) {
            this.events = Collections.unmodifiableList(new ArrayList<EventPattern>(events));
            this.within = within;
        }

        @Override public JSONObject toJSON() {
            JSONArray list = new JSONArray();
            for (EventPattern event : events) list.put(event.toJSON());
            JSONObject json = object("seq", list);
            if (within != null) put(json, "within", within);
            return json;
        }
        @Override void print(StringBuilder text, int context) {
            for (int i = 0; i < events.size(); i++) {
                if (i > 0) text.append(" THEN ");
                events.get(i).print(text);
            }
            if (within != null) text.append(" within ").append(within);
        }
        @Override public boolean equals(Object other) {
            return other instanceof Sequence && ((Sequence) other).events.equals(events) && Objects.equals(((Sequence) other).within, within);
        }
        @Override public int hashCode() { return 31 * events.hashCode() + Objects.hashCode(within); }
    }

    /** {@code count(event) >= 3 within 7d}. */
    public static final class Count extends Rule {
        public final EventPattern event;
        public final String cmp;
        public final int value;
        public final String within;

        public Count(EventPattern event, String cmp, int value, String within) {
            this.event = event;
            this.cmp = cmp;
            this.value = value;
            this.within = within;
        }

        @Override public JSONObject toJSON() {
            JSONObject json = object("count", event.toJSON());
            put(json, "cmp", cmp);
            put(json, "value", value);
            if (within != null) put(json, "within", within);
            return json;
        }
        @Override void print(StringBuilder text, int context) {
            text.append("count(");
            event.print(text);
            text.append(") ").append(cmp).append(' ').append(value);
            if (within != null) text.append(" within ").append(within);
        }
        @Override public boolean equals(Object other) {
            if (!(other instanceof Count)) return false;
            Count count = (Count) other;
            return count.event.equals(event) && count.cmp.equals(cmp) && count.value == value && Objects.equals(count.within, within);
        }
        @Override public int hashCode() { return Objects.hash(event, cmp, value, within); }
    }

    /** A context value tested: {@code app.version >= v5.2} or {@code user.plan in ["plus"]}. */
    public static final class Comparison extends Rule {
        /** Two names or more joined by dots. */
        public final String path;
        public final Test test;

        public Comparison(String path, Test test) {
            this.path = path;
            this.test = test;
        }

        @Override public JSONObject toJSON() {
            JSONObject json = object("path", path);
            test.into(json);
            return json;
        }
        @Override void print(StringBuilder text, int context) { test.print(text.append(path)); }
        @Override public boolean equals(Object other) {
            return other instanceof Comparison && ((Comparison) other).path.equals(path) && ((Comparison) other).test.equals(test);
        }
        @Override public int hashCode() { return 31 * path.hashCode() + test.hashCode(); }
    }

    // MARK: Parts

    /** An event as a rule names it: {@code name}, {@code name:target}, with property tests after {@code where}. */
    public static final class EventPattern {
        public final String name;
        /** The target, or null for any. */
        public final String target;
        /** The property tests, or null for none. */
        public final List<PropertyTest> where;

        public EventPattern(String name, String target, List<PropertyTest> where) {
            this.name = name;
            this.target = target;
            this.where = where == null ? null : Collections.unmodifiableList(new ArrayList<PropertyTest>(where));
        }

        JSONObject toJSON() {
            JSONObject json = object("name", name);
            if (target != null) put(json, "target", target);
            if (where != null) {
                JSONArray tests = new JSONArray();
                for (PropertyTest test : where) {
                    JSONObject entry = object("prop", test.prop);
                    test.test.into(entry);
                    tests.put(entry);
                }
                put(json, "where", tests);
            }
            return json;
        }

        void print(StringBuilder text) {
            text.append(name);
            if (target != null) text.append(':').append(target);
            if (where == null) return;
            text.append(" where ");
            for (int i = 0; i < where.size(); i++) {
                if (i > 0) text.append(" AND ");
                where.get(i).test.print(text.append(where.get(i).prop));
            }
        }

        @Override public boolean equals(Object other) {
            if (!(other instanceof EventPattern)) return false;
            EventPattern pattern = (EventPattern) other;
            return pattern.name.equals(name) && Objects.equals(pattern.target, target) && Objects.equals(pattern.where, where);
        }
        @Override public int hashCode() { return Objects.hash(name, target, where); }
    }

    /** A test of an event's property: {@code amount >= 500}. */
    public static final class PropertyTest {
        public final String prop;
        public final Test test;

        public PropertyTest(String prop, Test test) {
            this.prop = prop;
            this.test = test;
        }

        @Override public boolean equals(Object other) {
            return other instanceof PropertyTest && ((PropertyTest) other).prop.equals(prop) && ((PropertyTest) other).test.equals(test);
        }
        @Override public int hashCode() { return 31 * prop.hashCode() + test.hashCode(); }
    }

    /**
     * What a value is tested against: {@code cmp literal}, or {@code in [literals]} (then {@code cmp}
     * is null). Literals are {@link Double}, {@link String}, {@link Boolean}, {@link TimeLiteral} and
     * {@link VersionLiteral}.
     */
    public static final class Test {
        public final String cmp;
        public final Object value;
        public final List<Object> in;
        private final int op;
        private final Object[] among;

        private Test(String cmp, Object value, List<Object> in) {
            this.cmp = cmp;
            this.value = value;
            this.in = in;
            this.op = cmp == null ? Values.EQUAL : Values.operator(cmp);
            this.among = in == null ? null : in.toArray();
        }

        public static Test comparing(String cmp, Object value) { return new Test(cmp, value, null); }

        public static Test among(List<Object> literals) {
            return new Test(null, null, Collections.unmodifiableList(new ArrayList<Object>(literals)));
        }

        /** Whether a value passes: one of the list, or the comparison holds. */
        public boolean passes(Object actual) {
            if (among == null) return Values.compare(actual, op, value);
            for (Object literal : among) if (Values.compare(actual, Values.EQUAL, literal)) return true;
            return false;
        }

        void into(JSONObject json) {
            if (in != null) {
                JSONArray list = new JSONArray();
                for (Object literal : in) list.put(literalJSON(literal));
                put(json, "in", list);
            } else {
                put(json, "cmp", cmp);
                put(json, "value", literalJSON(value));
            }
        }

        void print(StringBuilder text) {
            if (in == null) {
                printLiteral(text.append(' ').append(cmp).append(' '), value);
                return;
            }
            text.append(" in [");
            for (int i = 0; i < in.size(); i++) {
                if (i > 0) text.append(", ");
                printLiteral(text, in.get(i));
            }
            text.append(']');
        }

        @Override public boolean equals(Object other) {
            if (!(other instanceof Test)) return false;
            Test test = (Test) other;
            return Objects.equals(test.cmp, cmp) && Objects.equals(test.value, value) && Objects.equals(test.in, in);
        }
        @Override public int hashCode() { return Objects.hash(cmp, value, in); }
    }

    /** A time literal ({@code 2026-01-15}), kept as its text as rules print it. */
    public static final class TimeLiteral {
        public final String text;
        public final long millis;

        /** The literal of this text, or an error for text that is no time. */
        public TimeLiteral(String text) {
            Long read = Values.readMoment(text);
            if (read == null) throw new IllegalArgumentException("not a time: " + text);
            this.text = text;
            this.millis = read;
        }

        @Override public boolean equals(Object other) { return other instanceof TimeLiteral && ((TimeLiteral) other).text.equals(text); }
        @Override public int hashCode() { return text.hashCode(); }
        @Override public String toString() { return text; }
    }

    /** A version literal ({@code v5.2.1}). */
    public static final class VersionLiteral {
        public final Values.Version version;

        public VersionLiteral(String text) { this.version = new Values.Version(text); }

        @Override public boolean equals(Object other) { return other instanceof VersionLiteral && ((VersionLiteral) other).version.equals(version); }
        @Override public int hashCode() { return version.hashCode(); }
        @Override public String toString() { return "v" + version.text; }
    }

    static void printLiteral(StringBuilder text, Object literal) {
        if (literal instanceof String) {
            text.append('"');
            String string = (String) literal;
            for (int i = 0; i < string.length(); i++) {
                char c = string.charAt(i);
                if (c == '"' || c == '\\') text.append('\\');
                text.append(c);
            }
            text.append('"');
        } else if (literal instanceof Double) {
            text.append(formatNumber((Double) literal));
        } else {
            text.append(literal);
        }
    }

    /** A number as JavaScript's String() writes a plain one: {@code 5}, {@code 0.5}, {@code -12.25}. */
    static String formatNumber(double value) {
        if (value == Math.rint(value) && Math.abs(value) < 1e15) return Long.toString((long) value);
        return new BigDecimal(Double.toString(value)).stripTrailingZeros().toPlainString();
    }

    static Object literalJSON(Object literal) {
        if (literal instanceof TimeLiteral) return object("time", ((TimeLiteral) literal).text);
        if (literal instanceof VersionLiteral) return object("version", ((VersionLiteral) literal).version.text);
        if (literal instanceof Double && (Double) literal == Math.rint((Double) literal) && Math.abs((Double) literal) < 1e15) {
            return (long) (double) (Double) literal;
        }
        return literal;
    }

    static JSONObject object(String key, Object value) { return put(new JSONObject(), key, value); }

    static JSONObject put(JSONObject json, String key, Object value) {
        try {
            return json.put(key, value);
        } catch (JSONException error) {
            throw new IllegalArgumentException(error);
        }
    }

    // MARK: The JSON form

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]+");
    private static final Pattern WINDOW = Pattern.compile("(0|[1-9][0-9]*)([smhdw])");
    private static final Pattern VERSION = Pattern.compile("(0|[1-9][0-9]*)(\\.(0|[1-9][0-9]*))*");

    /**
     * Reads a rule in the server's JSON form (a {@link JSONObject}), accepting what the parser could
     * produce and nothing else: known keys only, names that are not keywords, canonical windows
     * and versions, the limits on counts, windows and depth. Throws an IllegalArgumentException
     * naming the part that is wrong. (The server checked the rule's text when it was published, so
     * this guards against a damaged catalog, not an author's mistake.)
     */
    public static Rule fromJSON(Object json) {
        Rule rule = read(json, 0, 0);
        // Written text is at most MAX_LENGTH characters; printed canonically, never twice as long.
        check(rule.toString().length() <= 2 * MAX_LENGTH, "the rule's length");
        return rule;
    }

    private static void check(boolean ok, Object part) {
        if (!ok) throw new IllegalArgumentException("invalid rule: " + part);
    }

    private static final String[] KINDS = {"const", "not", "and", "or", "seq", "count", "in", "path"};

    private static List<String> shape(String kind) {
        switch (kind) {
            case "seq": return Arrays.asList("seq", "within");
            case "count": return Arrays.asList("count", "cmp", "value", "within");
            case "in": return Arrays.asList("path", "in");
            case "path": return Arrays.asList("path", "cmp", "value");
            default: return Collections.singletonList(kind);
        }
    }

    // context is the printer's precedence: an AND inside a NOT, or an OR inside an AND, is written
    // in parentheses, and parentheses and NOT are the levels the parser counts (at most MAX_DEPTH).
    private static Rule read(Object node, int context, int depth) {
        check(node instanceof JSONObject, node);
        JSONObject json = (JSONObject) node;
        String kind = null;
        for (String candidate : KINDS) {
            if (json.has(candidate)) {
                kind = candidate;
                break;
            }
        }
        check(kind != null, node);
        List<String> allowed = shape(kind);
        for (Iterator<String> keys = json.keys(); keys.hasNext();) check(allowed.contains(keys.next()), node);
        switch (kind) {
            case "const":
                check(json.opt("const") instanceof Boolean, node);
                return new Const((Boolean) json.opt("const"));
            case "not":
                check(depth < MAX_DEPTH, "nested deeper than " + MAX_DEPTH + " levels");
                return new Not(read(json.opt("not"), 2, depth + 1));
            case "and":
            case "or": {
                boolean isAnd = kind.equals("and");
                Object list = json.opt(kind);
                check(list instanceof JSONArray && ((JSONArray) list).length() > 1, node);
                int inner = depth;
                if (isAnd ? context > 1 : context > 0) {
                    check(depth < MAX_DEPTH, "nested deeper than " + MAX_DEPTH + " levels");
                    inner = depth + 1;
                }
                List<Rule> operands = new ArrayList<Rule>();
                for (int i = 0; i < ((JSONArray) list).length(); i++) operands.add(read(((JSONArray) list).opt(i), isAnd ? 1 : 0, inner));
                return new Junction(isAnd, operands);
            }
            case "seq": {
                Object list = json.opt("seq");
                check(list instanceof JSONArray && ((JSONArray) list).length() > 0, node);
                List<EventPattern> events = new ArrayList<EventPattern>();
                for (int i = 0; i < ((JSONArray) list).length(); i++) events.add(readEvent(((JSONArray) list).opt(i)));
                return new Sequence(events, readWindow(json));
            }
            case "count": {
                Object value = json.opt("value");
                Object cmp = json.opt("cmp");
                check(isWholeNumber(value) && ((Number) value).doubleValue() >= 0 && ((Number) value).doubleValue() <= MAX_COUNT
                    && COMPARATORS.contains(cmp), node);
                return new Count(readEvent(json.opt("count")), (String) cmp, ((Number) value).intValue(), readWindow(json));
            }
            default: {
                Object path = json.opt("path");
                check(path instanceof String && ((String) path).contains("."), node);
                for (String component : ((String) path).split("\\.", -1)) check(isName(component), node);
                return new Comparison((String) path, readTest(json));
            }
        }
    }

    private static boolean isWholeNumber(Object value) {
        if (value instanceof Integer || value instanceof Long) return true;
        return value instanceof Double && (Double) value == Math.rint((Double) value) && !((Double) value).isInfinite();
    }

    private static boolean isName(Object name) {
        return name instanceof String && NAME.matcher((String) name).matches() && !KEYWORDS.contains(((String) name).toLowerCase(Locale.ROOT));
    }

    private static Test readTest(JSONObject node) {
        if (node.has("in")) {
            Object list = node.opt("in");
            check(list instanceof JSONArray && ((JSONArray) list).length() > 0, node);
            List<Object> literals = new ArrayList<Object>();
            for (int i = 0; i < ((JSONArray) list).length(); i++) literals.add(readLiteral(((JSONArray) list).opt(i)));
            return Test.among(literals);
        }
        Object literal = readLiteral(node.opt("value"));
        Object cmp = node.opt("cmp");
        check(COMPARATORS.contains(cmp) && (!(literal instanceof Boolean) || cmp.equals("==") || cmp.equals("!=")), node);
        return Test.comparing((String) cmp, literal);
    }

    private static EventPattern readEvent(Object node) {
        check(node instanceof JSONObject, node);
        JSONObject json = (JSONObject) node;
        for (Iterator<String> keys = json.keys(); keys.hasNext();) {
            check(Arrays.asList("name", "target", "where").contains(keys.next()), node);
        }
        Object name = json.opt("name");
        Object target = json.isNull("target") ? null : json.opt("target");
        Object where = json.isNull("where") ? null : json.opt("where");
        check(isName(name) && (target == null || isName(target)), node);
        check(where == null || (where instanceof JSONArray && ((JSONArray) where).length() > 0), node);
        List<PropertyTest> tests = null;
        if (where != null) {
            tests = new ArrayList<PropertyTest>();
            for (int i = 0; i < ((JSONArray) where).length(); i++) {
                Object entry = ((JSONArray) where).opt(i);
                check(entry instanceof JSONObject, entry);
                JSONObject test = (JSONObject) entry;
                List<String> shape = test.has("in") ? Arrays.asList("prop", "in") : Arrays.asList("prop", "cmp", "value");
                for (Iterator<String> keys = test.keys(); keys.hasNext();) check(shape.contains(keys.next()), entry);
                check(isName(test.opt("prop")), entry);
                tests.add(new PropertyTest((String) test.opt("prop"), readTest(test)));
            }
        }
        return new EventPattern((String) name, (String) target, tests);
    }

    // A time literal is kept as its text, which the server writes as rules print it ({"time": "2026-01-15"}).
    private static Object readLiteral(Object value) {
        if (value instanceof String || value instanceof Boolean) return value;
        if (value instanceof Number) {
            double number = ((Number) value).doubleValue();
            check(!Double.isNaN(number) && !Double.isInfinite(number), value);
            return number;
        }
        check(value instanceof JSONObject && ((JSONObject) value).length() == 1, value);
        JSONObject json = (JSONObject) value;
        if (json.has("time")) {
            Object text = json.opt("time");
            check(text instanceof String && Values.readMoment((String) text) != null, value);
            return new TimeLiteral((String) text);
        }
        Object text = json.opt("version");
        check(text instanceof String && VERSION.matcher((String) text).matches(), value);
        for (String component : ((String) text).split("\\.")) check(component.length() <= 10 && Long.parseLong(component) <= Integer.MAX_VALUE, value);
        return new VersionLiteral((String) text);
    }

    private static String readWindow(JSONObject node) {
        if (node.isNull("within")) return null;
        Object within = node.opt("within");
        check(within instanceof String, "window " + within);
        java.util.regex.Matcher match = WINDOW.matcher((String) within);
        check(match.matches() && match.group(1).length() <= 12
            && Long.parseLong(match.group(1)) * unitMillis(match.group(2).charAt(0)) <= MAX_WINDOW_DAYS * 86_400_000L, "window " + within);
        return (String) within;
    }

    /** Milliseconds in one unit of a window: s, m, h, d or w. */
    public static long unitMillis(char unit) {
        switch (unit) {
            case 's': return 1000L;
            case 'm': return 60_000L;
            case 'h': return 3_600_000L;
            case 'd': return 86_400_000L;
            case 'w': return 604_800_000L;
            default: return -1;
        }
    }

    /** A window's length in milliseconds ({@code 30s}: 30,000), or -1 for none. */
    public static long windowMillis(String within) {
        if (within == null) return -1;
        return Long.parseLong(within.substring(0, within.length() - 1)) * unitMillis(within.charAt(within.length() - 1));
    }
}
