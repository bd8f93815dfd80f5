// The JavaScript engine plays the shared scheduling scenarios (conformance/engine/cases.json) to the
// same render commands as the Swift engine, which wrote the expectations.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Engine } from "../../Sources/WaymarkServer/Resources/web/sdk/engine.js";
import { mergeTips, tipProgress } from "../../Sources/WaymarkServer/Resources/web/sdk/identity.js";
import { parseRule } from "../../Sources/WaymarkServer/Resources/web/sdk/ruletext.js";
import { formatTime, parseTime } from "../../Sources/WaymarkServer/Resources/web/sdk/values.js";

const { cases } = JSON.parse(readFileSync(new URL("../../conformance/engine/cases.json", import.meta.url), "utf8"));
// Progress merged from the user's other devices, and the progress the engine then has to share.
const progressCases = JSON.parse(readFileSync(new URL("../../conformance/engine/progress.json", import.meta.url), "utf8")).cases;

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
  if (step.tip) return engine.setTip(step.tip, step.visible, time);
  if (step.merge) return mergeTips(engine, step.merge, time);
  return engine.advance(time);
}

// Commands of one instant may come in another order (which of two tips dismissed by one event is
// hidden first is not a decision); hides still come before the shows they make room for.
const byInstant = (lines) => lines.map((l) => JSON.stringify(l)).sort();

test("there are scheduling scenarios", () => assert.ok(cases.length >= 200));

for (const c of [...cases, ...progressCases]) {
  test(`engine: ${c.name}`, () => {
    const engine = new Engine(c.tips.map(engineTip), { frequency: c.frequency });
    const output = c.steps.flatMap((step) => play(engine, step).map(line));
    assert.deepEqual(byInstant(output), byInstant(c.expect));
    assert.deepEqual(output.map((l) => l.t), c.expect.map((l) => l.t));
    if (c.progress) assert.deepEqual(tipProgress(engine), c.progress);
  });
}

test("progress merged in any order comes to the same progress, and merged again changes nothing", () => {
  const tips = [engineTip({ id: "a", container: "home", trigger: "tap", policy: { maxDisplayCount: 3 } }),
    engineTip({ id: "b", container: "cart", trigger: "tap", policy: { maxDisplayDuration: 10 } })];
  const endings = [undefined, "closed", "dismissed", "maxDisplayCount", "maxDisplayDuration", "expired"];
  let seed = 7;
  const random = (n) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  for (let round = 0; round < 200; round++) {
    const pieces = Array.from({ length: 3 }, () => Object.fromEntries(["a", "b", "c"].filter(() => random(2)).map((id) => {
      const finished = endings[random(endings.length)];
      return [id, { shown: random(4), displayedMillis: random(3) * 4000, ...(finished && { finished }) }];
    })));
    // What arrives at one moment, in any order; then all of it again, which changes nothing.
    const results = [[0, 1, 2], [2, 1, 0], [1, 2, 0]].map((order) => {
      const engine = new Engine(tips);
      engine.record("tap", undefined, 0);
      for (const index of order) mergeTips(engine, pieces[index], 2000);
      engine.advance(3000);
      const progress = tipProgress(engine);
      for (const index of order) assert.deepEqual(mergeTips(engine, pieces[index], 3000), []);
      assert.deepEqual(tipProgress(engine), progress);
      engine.advance(60000);
      return tipProgress(engine);
    });
    assert.deepEqual(results[1], results[0], JSON.stringify(pieces));
    assert.deepEqual(results[2], results[0], JSON.stringify(pieces));
  }
});

test("with sight reported, display time starts when the tip is seen (as the Swift engine's test)", () => {
  const engine = new Engine([engineTip({ id: "t", container: "home", trigger: "go", policy: { maxDisplayDuration: 10 } })],
    { sightReported: true });
  const s = (seconds) => seconds * 1000;
  assert.deepEqual(engine.record("go", undefined, s(0)).map((c) => c.action), ["show"]);
  assert.deepEqual(engine.advance(s(500)), [], "never seen: no display time");
  engine.setTip("t", true, s(500));
  engine.setContainer("home", false, s(504));
  engine.setContainer("home", true, s(600));
  assert.deepEqual(engine.advance(s(700)), [], "resumed out of sight until seen again");
  engine.setTip("t", true, s(700));
  assert.equal(tipProgress(engine).t.displayedMillis, 4000);
  const commands = engine.advance(s(800));
  assert.deepEqual(commands.map((c) => [c.action, c.reason, c.time]), [["hide", "maxDisplayDuration", s(706)]]);
});

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
