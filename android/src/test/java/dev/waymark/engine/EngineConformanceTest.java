package dev.waymark.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.waymark.rules.Rule;
import dev.waymark.rules.Values;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The Java engine plays the shared scheduling scenarios (conformance/engine/) to the same render
 * commands as the Swift engine, which wrote the expectations, and the JavaScript engine.
 */
class EngineConformanceTest {
    static final File DIRECTORY = new File(System.getProperty("waymark.conformance", "../conformance"), "engine");

    static JSONArray cases(String file) throws Exception {
        return new JSONObject(new String(Files.readAllBytes(new File(DIRECTORY, file).toPath()), StandardCharsets.UTF_8)).getJSONArray("cases");
    }

    static Engine.Tip tip(JSONObject json) throws Exception {
        JSONObject policy = json.optJSONObject("policy");
        Engine.Policy read = Engine.Policy.NONE;
        if (policy != null) {
            read = new Engine.Policy(
                policy.has("maxDisplayCount") ? policy.getInt("maxDisplayCount") : null,
                policy.has("maxDisplayDuration") ? policy.getDouble("maxDisplayDuration") : null,
                policy.has("expiresAt") ? Values.parseTime(policy.getString("expiresAt")) : null);
        }
        return new Engine.Tip(json.getString("id"), json.getString("container"), json.optString("anchor", null),
            Rule.parse(json.getString("trigger")), json.has("dismissal") ? Rule.parse(json.getString("dismissal")) : null,
            json.optInt("priority", 0), json.optString("group", null), json.optInt("order", 0), read);
    }

    static List<Engine.Tip> tips(JSONArray json) throws Exception {
        List<Engine.Tip> tips = new ArrayList<Engine.Tip>();
        for (int i = 0; i < json.length(); i++) tips.add(tip(json.getJSONObject(i)));
        return tips;
    }

    static List<Engine.Command> play(Engine engine, JSONObject step) throws Exception {
        long time = Values.parseTime(step.getString("t"));
        if (step.has("event")) return engine.record(step.getString("event"), step.optString("target", null), time, null);
        if (step.has("context")) {
            JSONObject context = step.getJSONObject("context");
            Map<String, Object> values = new HashMap<String, Object>();
            for (Iterator<String> keys = context.keys(); keys.hasNext();) {
                String path = keys.next();
                values.put(path, dev.waymark.rules.ConformanceTest.contextValue(context.get(path)));
            }
            return engine.setContext(values, time);
        }
        if (step.has("container")) return engine.setContainer(step.getString("container"), step.getBoolean("visible"), time);
        if (step.has("close")) return engine.close(step.getString("close"), time);
        if (step.has("tip")) return engine.setTip(step.getString("tip"), step.getBoolean("visible"), time);
        if (step.has("merge")) return engine.merge(step.getJSONObject("merge"), time);
        return engine.advance(time);
    }

    /** A command as the scenarios write it: {"t", ACTION: tip, "container", "anchor"?, "reason"?}, keys sorted. */
    static String line(Engine.Command command) {
        JSONObject line = new JSONObject();
        Evaluator.put(line, "t", Values.formatTime(command.time));
        Evaluator.put(line, command.action.wireName, command.tip);
        Evaluator.put(line, "container", command.container);
        if (command.anchor != null) Evaluator.put(line, "anchor", command.anchor);
        if (command.reason != null) Evaluator.put(line, "reason", command.reason.wireName);
        return canonical(line);
    }

    static String canonical(JSONObject json) {
        List<String> keys = new ArrayList<String>();
        for (Iterator<String> it = json.keys(); it.hasNext();) keys.add(it.next());
        Collections.sort(keys);
        StringBuilder text = new StringBuilder("{");
        for (String key : keys) text.append(key).append('=').append(json.opt(key)).append(';');
        return text.append('}').toString();
    }

    // Commands of one instant may come in another order (which of two tips dismissed by one event
    // is hidden first is not a decision); hides still come before the shows they make room for.
    static List<String> byInstant(List<String> lines) {
        List<String> sorted = new ArrayList<String>(lines);
        Collections.sort(sorted);
        return sorted;
    }

    static void run(JSONObject c) throws Exception {
        String name = c.getString("name");
        Engine engine = new Engine(tips(c.getJSONArray("tips")), c.optString("frequency", "immediate"));
        List<String> output = new ArrayList<String>();
        List<String> times = new ArrayList<String>();
        JSONArray steps = c.getJSONArray("steps");
        for (int i = 0; i < steps.length(); i++) {
            for (Engine.Command command : play(engine, steps.getJSONObject(i))) {
                output.add(line(command));
                times.add(Values.formatTime(command.time));
            }
        }
        List<String> expected = new ArrayList<String>();
        List<String> expectedTimes = new ArrayList<String>();
        JSONArray expect = c.getJSONArray("expect");
        for (int i = 0; i < expect.length(); i++) {
            expected.add(canonical(expect.getJSONObject(i)));
            expectedTimes.add(expect.getJSONObject(i).getString("t"));
        }
        assertEquals(byInstant(expected), byInstant(output), name);
        assertEquals(expectedTimes, times, name);
        if (c.has("progress")) assertTrue(sameJSON(c.getJSONObject("progress"), engine.progress()), name + ": " + engine.progress());
    }

    static boolean sameJSON(Object a, Object b) {
        if (a instanceof JSONObject && b instanceof JSONObject) {
            JSONObject x = (JSONObject) a;
            JSONObject y = (JSONObject) b;
            if (x.length() != y.length()) return false;
            for (Iterator<String> keys = x.keys(); keys.hasNext();) {
                String key = keys.next();
                if (!y.has(key) || !sameJSON(x.opt(key), y.opt(key))) return false;
            }
            return true;
        }
        if (a instanceof Number && b instanceof Number) return ((Number) a).doubleValue() == ((Number) b).doubleValue();
        return a.equals(b);
    }

    @Test
    void thereAreSchedulingScenarios() throws Exception {
        assertTrue(cases("cases.json").length() >= 200);
    }

    @TestFactory
    Stream<DynamicTest> everyScenario() throws Exception {
        List<DynamicTest> tests = new ArrayList<DynamicTest>();
        for (String file : Arrays.asList("cases.json", "progress.json")) {
            JSONArray cases = cases(file);
            for (int i = 0; i < cases.length(); i++) {
                final JSONObject c = cases.getJSONObject(i);
                tests.add(DynamicTest.dynamicTest(c.getString("name"), () -> run(c)));
            }
        }
        return tests.stream();
    }

    @Test
    void anEngineRestoredFromItsSnapshotGoesOnExactlyAsTheOriginal() throws Exception {
        JSONArray cases = cases("cases.json");
        for (int n = 0; n < cases.length(); n++) {
            JSONObject c = cases.getJSONObject(n);
            String frequency = c.optString("frequency", "immediate");
            Engine straight = new Engine(tips(c.getJSONArray("tips")), frequency);
            Engine restored = new Engine(tips(c.getJSONArray("tips")), frequency);
            List<String> a = new ArrayList<String>();
            List<String> b = new ArrayList<String>();
            JSONArray steps = c.getJSONArray("steps");
            for (int i = 0; i < steps.length(); i++) {
                for (Engine.Command command : play(straight, steps.getJSONObject(i))) a.add(line(command));
                for (Engine.Command command : play(restored, steps.getJSONObject(i))) b.add(line(command));
                if (i % 3 == 0) {
                    JSONObject snapshot = new JSONObject(restored.snapshot().toString());
                    restored = new Engine(tips(c.getJSONArray("tips")), frequency, snapshot);
                }
            }
            assertEquals(a, b, c.getString("name"));
        }
    }

    @Test
    void progressMergedInAnyOrderComesToTheSameProgressAndMergedAgainChangesNothing() throws Exception {
        List<Engine.Tip> tips = Arrays.asList(
            tip(new JSONObject("{\"id\":\"a\",\"container\":\"home\",\"trigger\":\"tap\",\"policy\":{\"maxDisplayCount\":3}}")),
            tip(new JSONObject("{\"id\":\"b\",\"container\":\"cart\",\"trigger\":\"tap\",\"policy\":{\"maxDisplayDuration\":10}}")));
        String[] endings = {null, "closed", "dismissed", "maxDisplayCount", "maxDisplayDuration", "expired"};
        long[] seed = {7};
        for (int round = 0; round < 200; round++) {
            JSONObject[] pieces = new JSONObject[3];
            for (int p = 0; p < 3; p++) {
                pieces[p] = new JSONObject();
                for (String id : new String[] {"a", "b", "c"}) {
                    if (random(seed, 2) == 0) continue;
                    String finished = endings[(int) random(seed, endings.length)];
                    JSONObject entry = new JSONObject().put("shown", random(seed, 4)).put("displayedMillis", random(seed, 3) * 4000);
                    if (finished != null) entry.put("finished", finished);
                    pieces[p].put(id, entry);
                }
            }
            List<String> results = new ArrayList<String>();
            for (int[] order : new int[][] {{0, 1, 2}, {2, 1, 0}, {1, 2, 0}}) {
                Engine engine = new Engine(tips, "immediate");
                engine.record("tap", null, 0, null);
                for (int index : order) engine.merge(pieces[index], 2000);
                engine.advance(3000);
                JSONObject progress = engine.progress();
                for (int index : order) assertEquals(Collections.emptyList(), engine.merge(pieces[index], 3000));
                assertTrue(sameJSON(progress, engine.progress()));
                engine.advance(60000);
                results.add(canonicalDeep(engine.progress()));
            }
            assertEquals(results.get(0), results.get(1), Arrays.toString(pieces));
            assertEquals(results.get(0), results.get(2), Arrays.toString(pieces));
        }
    }

    /** The JavaScript test's generator, so that both play the same rounds. */
    static long random(long[] seed, int n) {
        seed[0] = (seed[0] * 1103515245L + 12345L) % 2147483648L;
        return seed[0] % n;
    }

    static String canonicalDeep(JSONObject json) {
        List<String> keys = new ArrayList<String>();
        for (Iterator<String> it = json.keys(); it.hasNext();) keys.add(it.next());
        Collections.sort(keys);
        StringBuilder text = new StringBuilder("{");
        for (String key : keys) {
            Object value = json.opt(key);
            text.append(key).append('=').append(value instanceof JSONObject ? canonicalDeep((JSONObject) value) : value).append(';');
        }
        return text.append('}').toString();
    }

    @Test
    void aNewCatalogKeepsStatesByIdAndTakesDownRemovedTips() throws Exception {
        Engine engine = new Engine(Arrays.asList(tip(new JSONObject("{\"id\":\"a\",\"container\":\"home\",\"trigger\":\"tap\"}")),
            tip(new JSONObject("{\"id\":\"b\",\"container\":\"cart\",\"trigger\":\"tap\"}"))), "immediate");
        assertEquals(2, engine.record("tap", null, 0, null).size());
        engine.close("b", 1);
        List<Engine.Command> commands = engine.update(Arrays.asList(tip(new JSONObject("{\"id\":\"b\",\"container\":\"cart\",\"trigger\":\"tap\"}")),
            tip(new JSONObject("{\"id\":\"c\",\"container\":\"home\",\"trigger\":\"tap\"}"))), 2);
        List<String> seen = new ArrayList<String>();
        for (Engine.Command command : commands) seen.add((command.action.wireName + " " + command.tip + " " + (command.reason == null ? "" : command.reason.wireName)).trim());
        assertEquals(Arrays.asList("hide a removed", "show c"), seen);
        assertEquals("finished:closed", engine.phase("b"));
        assertEquals("finished:removed", engine.phase("a"));
    }
}
