package dev.waymark.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.waymark.rules.Rule;
import dev.waymark.rules.Values;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The Java tour gate plays conformance/engine/tours.json, as the Swift and JavaScript SDKs do: after
 * every step, the tour that opens by its trigger (and at which page), and the progress shared.
 */
class TourConformanceTest {
    @Test
    void thereAreCasesForEveryWayATourEnds() throws Exception {
        assertTrue(EngineConformanceTest.cases("tours.json").length() >= 20);
    }

    @TestFactory
    Stream<DynamicTest> scenarios() throws Exception {
        JSONArray cases = EngineConformanceTest.cases("tours.json");
        List<DynamicTest> tests = new ArrayList<DynamicTest>();
        for (int i = 0; i < cases.length(); i++) {
            JSONObject c = cases.getJSONObject(i);
            tests.add(DynamicTest.dynamicTest(c.getString("name"), () -> run(c)));
        }
        return tests.stream();
    }

    static void run(JSONObject c) throws Exception {
        List<TourGate.Tour> tours = new ArrayList<TourGate.Tour>();
        JSONArray specs = c.getJSONArray("tours");
        for (int i = 0; i < specs.length(); i++) {
            JSONObject spec = specs.getJSONObject(i);
            Rule trigger = spec.isNull("trigger") ? null : Rule.parse(spec.getString("trigger"));
            tours.add(new TourGate.Tour(spec.getString("id"), trigger, spec.getInt("pages")));
        }
        TourGate gate = new TourGate(tours, null, null);
        List<String> opened = new ArrayList<String>();
        JSONArray steps = c.getJSONArray("steps");
        for (int i = 0; i < steps.length(); i++) {
            JSONObject step = steps.getJSONObject(i);
            long time = Values.parseTime(step.getString("t"));
            int page = step.optInt("page", 0);
            if (step.has("event")) gate.evaluator().record(step.getString("event"), step.optString("target", null), time, null);
            else if (step.has("context")) {
                JSONObject context = step.getJSONObject("context");
                for (Iterator<String> keys = context.keys(); keys.hasNext();) {
                    String path = keys.next();
                    gate.evaluator().setContext(path, dev.waymark.rules.ConformanceTest.contextValue(context.get(path)), time);
                }
            } else if (step.has("open")) gate.opened(step.getString("open"));
            else if (step.has("reached")) gate.reached(step.getString("reached"), page);
            else if (step.has("end")) gate.ended(step.getString("end"), page, step.getString("ending"));
            else if (step.has("press")) gate.pressed(step.getString("press"), page, step.getString("kind"), step.optString("to", null));
            else if (step.has("left")) gate.left();
            else if (step.has("merge")) gate.merge(step.getJSONObject("merge"));
            else if (step.has("restart")) gate = new TourGate(tours, gate.progress(), gate.evaluator().snapshot());
            TourGate.Opening due = gate.openDue();
            if (due != null) opened.add(step.getString("t") + " " + due.tour + " " + due.page);
        }
        List<String> expected = new ArrayList<String>();
        JSONArray expect = c.getJSONArray("expect");
        for (int i = 0; i < expect.length(); i++) {
            JSONObject e = expect.getJSONObject(i);
            expected.add(e.getString("t") + " " + e.getString("open") + " " + e.getInt("page"));
        }
        String name = c.getString("name");
        assertEquals(expected, opened, name);
        assertTrue(EngineConformanceTest.sameJSON(c.getJSONObject("progress"), gate.progress()), name + ": " + gate.progress());
    }
}
