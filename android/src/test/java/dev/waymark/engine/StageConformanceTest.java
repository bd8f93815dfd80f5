package dev.waymark.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** The Java stage plays conformance/stage/cases.json, as the web SDK and the Swift core do. */
class StageConformanceTest {
    static JSONArray cases() throws Exception {
        File file = new File(new File(System.getProperty("waymark.conformance", "../conformance"), "stage"), "cases.json");
        return new JSONObject(new String(Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8)).getJSONArray("cases");
    }

    @Test
    void thereAreStageCases() throws Exception {
        assertTrue(cases().length() >= 15);
    }

    @TestFactory
    Stream<DynamicTest> scenarios() throws Exception {
        JSONArray cases = cases();
        List<DynamicTest> tests = new ArrayList<DynamicTest>();
        for (int i = 0; i < cases.length(); i++) {
            JSONObject c = cases.getJSONObject(i);
            tests.add(DynamicTest.dynamicTest(c.getString("name"), () -> {
                List<Stage.Surface> surfaces = new ArrayList<Stage.Surface>();
                JSONArray list = c.getJSONArray("surfaces");
                for (int j = 0; j < list.length(); j++) {
                    JSONObject s = list.getJSONObject(j);
                    JSONObject b = s.optJSONObject("box");
                    Stage.Box box = b == null ? null : new Stage.Box(b.getDouble("left"), b.getDouble("top"), b.getDouble("right"), b.getDouble("bottom"));
                    surfaces.add(new Stage.Surface(s.getString("id"), Stage.Kind.valueOf(s.getString("kind").toUpperCase(Locale.ROOT)),
                        s.optInt("priority", 0), s.optInt("order", 0), box));
                }
                List<String> expected = new ArrayList<String>();
                JSONArray shown = c.getJSONArray("shown");
                for (int j = 0; j < shown.length(); j++) expected.add(shown.getString(j));
                assertEquals(expected, new ArrayList<String>(new TreeSet<String>(Stage.arrange(surfaces))), c.getString("name"));
            }));
        }
        return tests.stream();
    }
}
