package dev.waymark.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.waymark.engine.Evaluator;
import java.io.File;
import java.io.IOException;
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
import org.json.JSONException;
import org.json.JSONObject;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The rule language in Java against the shared conformance cases (conformance/*.json), the same
 * files the Swift and JavaScript tests read: every value after every step, and every error's place
 * and code. A case added there runs here too.
 */
public class ConformanceTest {
    static final File DIRECTORY = new File(System.getProperty("waymark.conformance", "../conformance"));

    static JSONObject readJSON(File file) throws IOException, JSONException {
        return new JSONObject(new String(Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8));
    }

    static List<File> groups() {
        File[] files = DIRECTORY.listFiles((dir, name) -> name.endsWith(".json"));
        assertNotNull(files, "no conformance directory at " + DIRECTORY.getAbsolutePath());
        List<File> sorted = new ArrayList<File>(Arrays.asList(files));
        Collections.sort(sorted);
        return sorted;
    }

    @Test
    void theConformanceFilesAreThere() throws Exception {
        int cases = 0;
        for (File file : groups()) cases += readJSON(file).getJSONArray("cases").length();
        assertTrue(groups().size() >= 13, "groups: " + groups().size());
        assertTrue(cases > 300, "cases: " + cases);
    }

    @TestFactory
    Stream<DynamicTest> everyCaseOfEveryGroup() {
        return groups().stream().map(file -> DynamicTest.dynamicTest(file.getName(), () -> {
            JSONObject group = readJSON(file);
            JSONArray cases = group.getJSONArray("cases");
            for (int i = 0; i < cases.length(); i++) run(group.getString("group"), cases.getJSONObject(i));
        }));
    }

    static void run(String group, JSONObject c) throws Exception {
        String name = group + " / " + c.getString("name");
        String text = c.getString("rule");
        if (c.has("error")) {
            JSONObject expected = c.getJSONObject("error");
            try {
                Rule.parse(text);
                fail(name + ": parsed, expected an error");
            } catch (RuleError error) {
                assertEquals(expected.getInt("line") + ":" + expected.getInt("column") + " " + expected.getString("code"),
                    error.line + ":" + error.column + " " + error.code, name + ": " + error.getMessage());
            }
            return;
        }
        Rule rule = Rule.parse(text);
        // The printed form reads back the same, and the JSON form is accepted as the server sends it.
        assertEquals(rule.toString(), Rule.parse(rule.toString()).toString(), name);
        Rule shipped = Rule.fromJSON(new JSONObject(rule.toJSON().toString()));
        assertEquals(rule, shipped, name + ": the JSON form reads back as the parser made it");
        Evaluator evaluator = new Evaluator(Collections.singletonList(shipped));
        JSONArray steps = c.getJSONArray("steps");
        for (int index = 0; index < steps.length(); index++) {
            JSONObject step = steps.getJSONObject(index);
            Long time = Values.parseTime(step.getString("t"));
            assertNotNull(time, step.getString("t"));
            if (step.has("event")) {
                evaluator.record(step.getString("event"), step.optString("target", null), time, properties(step.optJSONObject("properties")));
            } else if (step.has("context")) {
                JSONObject context = step.getJSONObject("context");
                List<String> paths = new ArrayList<String>();
                for (Iterator<String> keys = context.keys(); keys.hasNext();) paths.add(keys.next());
                Collections.sort(paths);
                for (String path : paths) evaluator.setContext(path, contextValue(context.get(path)), time);
            } else {
                evaluator.advance(time);
            }
            assertEquals(step.getBoolean("expect"), evaluator.value(0), name + ": step " + (index + 1) + " at " + step.getString("t"));
        }
    }

    static Map<String, Object> properties(JSONObject json) throws JSONException {
        if (json == null) return null;
        Map<String, Object> properties = new HashMap<String, Object>();
        for (Iterator<String> keys = json.keys(); keys.hasNext();) {
            String key = keys.next();
            properties.put(key, json.get(key));
        }
        return properties;
    }

    /** A context value as the conformance files write it: {"time": ...} a time, {"version": ...} a version. */
    public static Object contextValue(Object json) throws JSONException {
        Object value = Values.fromJSON(json);
        // A version that does not read is still a value, one that compares with nothing, as JavaScript's {version: "x.y-beta"}.
        boolean unreadVersion = value == null && json instanceof JSONObject && ((JSONObject) json).has("version");
        return unreadVersion ? new Object() : value;
    }

    @Test
    void theJSONFormIsCheckedAsStrictlyAsTheText() throws Exception {
        String[] bad = {
            "null", "[]", "{}", "{\"const\":true,\"not\":{\"const\":true}}", "{\"and\":[{\"const\":true}]}", "{\"seq\":[]}",
            "{\"seq\":[{\"name\":\"and\"}]}", "{\"count\":{\"name\":\"tap\"},\"cmp\":\">=\",\"value\":10001}",
            "{\"path\":\"a\",\"cmp\":\"==\",\"value\":1}", "{\"path\":\"a.b\",\"in\":[]}", "{\"seq\":[{\"name\":\"tap\"}],\"within\":\"3x\"}",
            "{\"path\":\"a.b\",\"cmp\":\"<\",\"value\":true}", "{\"seq\":[{\"name\":\"tap\"}],\"within\":\"3651d\"}",
            "{\"seq\":[{\"name\":\"tap\"}],\"within\":\"030s\"}", "{\"seq\":[{\"name\":\"tap\",\"target\":\"OR\"}]}",
            "{\"seq\":[{\"name\":\"tap\",\"x\":1}]}", "{\"seq\":[{\"name\":\"tap word\"}]}",
            "{\"path\":\"app.version\",\"cmp\":\">\",\"value\":{\"version\":\"01.2\"}}",
            "{\"path\":\"app.version\",\"cmp\":\">\",\"value\":{\"version\":\"2147483648\"}}", "{\"path\":\"a.b\",\"cmp\":\"=\",\"value\":1}",
            "{\"path\":\"a.and\",\"cmp\":\"==\",\"value\":1}", "{\"count\":{\"name\":\"tap\"},\"cmp\":\">=\",\"value\":1.5}",
            "{\"const\":\"yes\"}", "{\"path\":\"a.b\",\"cmp\":\"==\",\"value\":null}", "{\"seq\":[{\"name\":\"a\",\"where\":[]}]}",
            "{\"seq\":[{\"name\":\"a\",\"where\":[{\"prop\":\"x.y\",\"cmp\":\"==\",\"value\":1}]}]}",
            "{\"seq\":[{\"name\":\"a\",\"where\":[{\"prop\":\"x\",\"cmp\":\"<\",\"value\":true}]}]}",
            "{\"seq\":[{\"name\":\"a\",\"where\":[{\"prop\":\"and\",\"cmp\":\"==\",\"value\":1}]}]}",
            "{\"seq\":[{\"name\":\"a\",\"where\":[{\"prop\":\"x\",\"in\":[1],\"cmp\":\"==\"}]}]}",
            "{\"seq\":[{\"name\":\"a\",\"where\":[{\"prop\":\"x\",\"in\":[]}]}]}", "{\"seq\":[{\"name\":\"a\",\"where\":{}}]}",
            "{\"seq\":[{\"name\":\"a\",\"where\":[null]}]}", "{\"seq\":[{\"name\":\"a\",\"where\":[\"x == 1\"]}]}",
        };
        for (String json : bad) {
            Object value = json.equals("null") ? JSONObject.NULL : json.startsWith("[") ? new JSONArray(json) : new JSONObject(json);
            try {
                Rule.fromJSON(value);
                fail("accepted " + json);
            } catch (IllegalArgumentException expected) {
                assertTrue(expected.getMessage().startsWith("invalid rule"), json + ": " + expected.getMessage());
            }
        }
        JSONObject rule = new JSONObject("{\"or\":[{\"and\":[{\"seq\":[{\"name\":\"tap\",\"target\":\"search\"}]},{\"seq\":[{\"name\":\"activation\"}]}]},"
            + "{\"seq\":[{\"name\":\"scroll\"}],\"within\":\"30s\"}]}");
        assertEquals("tap:search AND activation OR scroll within 30s", Rule.fromJSON(rule).toString());
    }

    @Test
    void theJSONFormNestsNoDeeperThanTheTextMay() throws Exception {
        StringBuilder nots = new StringBuilder();
        for (int i = 0; i < 32; i++) nots.append("NOT ");
        Rule deepest = Rule.parse(nots + "tap");
        assertEquals(deepest, Rule.fromJSON(new JSONObject(deepest.toJSON().toString())));
        JSONObject deeper = new JSONObject().put("not", deepest.toJSON());
        try {
            Rule.fromJSON(deeper);
            fail("33 levels accepted");
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage().contains("deeper than 32 levels"), expected.getMessage());
        }
    }

    @Test
    void errorsPointAtTheirPlaceWithACaret() {
        try {
            Rule.parse("(tap AND scroll))");
            fail("parsed");
        } catch (RuleError error) {
            assertEquals("unexpected \")\" at 1:17, expected AND, OR or the end of the rule", error.getMessage());
            assertEquals("error: unexpected \")\"\n --> rule:1:17\n  | (tap AND scroll))\n  |                 ^ expected AND, OR or the end of the rule",
                error.excerpt("(tap AND scroll))"));
        }
    }
}
