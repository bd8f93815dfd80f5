// The web SDK's tour gate plays conformance/engine/tours.json, as the Swift and Java SDKs do: after
// every step, the tour that opens by its trigger (and at which page), and the progress shared.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Evaluator, triggerRules } from "../../Sources/WaymarkServer/Resources/web/sdk/engine.js";
import { TourGate } from "../../Sources/WaymarkServer/Resources/web/sdk/tours.js";
import { parseRule } from "../../Sources/WaymarkServer/Resources/web/sdk/ruletext.js";
import { parseTime } from "../../Sources/WaymarkServer/Resources/web/sdk/values.js";

const { cases } = JSON.parse(readFileSync(new URL("../../conformance/engine/tours.json", import.meta.url), "utf8"));

test("there are cases for every way a tour ends", () => assert.ok(cases.length >= 20));

for (const item of cases) {
  test(`tours: ${item.name}`, () => {
    const tours = item.tours.map((t) => ({ ...t, trigger: t.trigger ? parseRule(t.trigger) : undefined }));
    let gate = new TourGate(tours);
    const opened = [];
    for (const step of item.steps) {
      const time = parseTime(step.t);
      if (step.event) gate.evaluator.record(step.event, step.target, time);
      else if (step.context) for (const [path, value] of Object.entries(step.context)) gate.evaluator.setContext(path, value, time);
      else if (step.open) gate.open = step.open;
      else if (step.reached) gate.reached(step.reached, step.page);
      else if (step.end) gate.end(step.end, step.page, step.ending);
      else if (step.press) gate.pressed(step.press, step.page, step.kind, step.to);
      else if (step.left) gate.open = null;
      else if (step.merge) gate.merge(step.merge);
      else if (step.restart) gate = new TourGate(tours, gate.progress, new Evaluator(triggerRules(tours), gate.evaluator.snapshot()));
      const due = gate.due();
      if (due) opened.push({ t: step.t, open: due.tour, page: due.page });
    }
    assert.deepEqual(opened, item.expect);
    assert.deepEqual(gate.progress, item.progress);
  });
}
