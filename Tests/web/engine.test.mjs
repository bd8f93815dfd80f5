// The JavaScript engine plays the shared scheduling scenarios (conformance/engine/cases.json) to the
// same render commands as the Swift engine, which wrote the expectations.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Engine } from "../../Sources/WaymarkServer/Resources/web/sdk/engine.js";
import { parseRule } from "../../Sources/WaymarkServer/Resources/web/sdk/ruletext.js";
import { formatTime, parseTime } from "../../Sources/WaymarkServer/Resources/web/sdk/values.js";

const { cases } = JSON.parse(readFileSync(new URL("../../conformance/engine/cases.json", import.meta.url), "utf8"));

function engineTip(tip) {
  const policy = { ...tip.policy };
  if (policy.expiresAt) policy.expiresAt = parseTime(policy.expiresAt);
  return { ...tip, trigger: parseRule(tip.trigger), dismissal: tip.dismissal ? parseRule(tip.dismissal) : undefined, policy };
}

function line(command) {
  const out = { t: formatTime(command.time), [command.action]: command.tip, container: command.container };
  if (command.anchor) out.anchor = command.anchor;
  if (command.reason) out.reason = command.reason;
  return out;
}

function play(engine, step) {
  const time = parseTime(step.t);
  if (step.event) return engine.record(step.event, step.target, time);
  if (step.context) return engine.setContext(step.context, time);
  if (step.container) return engine.setContainer(step.container, step.visible, time);
  if (step.close) return engine.close(step.close, time);
  return engine.advance(time);
}

// Commands of one instant may come in another order (which of two tips dismissed by one event is
// hidden first is not a decision); hides still come before the shows they make room for.
const byInstant = (lines) => lines.map((l) => JSON.stringify(l)).sort();

test("there are scheduling scenarios", () => assert.ok(cases.length >= 200));

for (const c of cases) {
  test(`engine: ${c.name}`, () => {
    const engine = new Engine(c.tips.map(engineTip), { frequency: c.frequency });
    const output = c.steps.flatMap((step) => play(engine, step).map(line));
    assert.deepEqual(byInstant(output), byInstant(c.expect));
    assert.deepEqual(output.map((l) => l.t), c.expect.map((l) => l.t));
  });
}

test("an engine restored from its snapshot goes on exactly as the original", () => {
  for (const c of cases) {
    const straight = new Engine(c.tips.map(engineTip), { frequency: c.frequency });
    let restored = new Engine(c.tips.map(engineTip), { frequency: c.frequency });
    const a = [];
    const b = [];
    c.steps.forEach((step, index) => {
      a.push(...play(straight, step).map(line));
      b.push(...play(restored, step).map(line));
      if (index % 3 === 0) {
        const snapshot = JSON.parse(JSON.stringify(restored.snapshot()));
        restored = new Engine(c.tips.map(engineTip), { frequency: c.frequency, snapshot });
      }
    });
    assert.deepEqual(b, a, c.name);
  }
});

test("a new catalog keeps states by id and takes down removed tips", () => {
  const tips = [engineTip({ id: "a", container: "home", trigger: "tap" }), engineTip({ id: "b", container: "cart", trigger: "tap" })];
  const engine = new Engine(tips);
  assert.equal(engine.record("tap", undefined, 0).length, 2);
  engine.close("b", 1);
  const commands = engine.update([engineTip({ id: "b", container: "cart", trigger: "tap" }), engineTip({ id: "c", container: "home", trigger: "tap" })], 2);
  assert.deepEqual(commands.map((c) => `${c.action} ${c.tip} ${c.reason ?? ""}`.trim()), ["hide a removed", "show c"]);
  assert.equal(engine.phase("b"), "finished:closed");
  assert.equal(engine.phase("a"), "finished:removed");
});
