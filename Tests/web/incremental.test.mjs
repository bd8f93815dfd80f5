// The engine's steps look only at what can have changed (tips whose rules changed value, deadlines
// that came, containers that became free or visible). Here, on random catalogs and inputs, it is
// checked against the same engine made to look at everything on every step, and every term's kept
// value against its value computed afresh: a change the incremental bookkeeping missed shows as a
// difference in the render commands or in a value.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Engine, Evaluator } from "../../Sources/WaymarkServer/Resources/web/sdk/engine.js";
import { mergeTips } from "../../Sources/WaymarkServer/Resources/web/sdk/identity.js";
import { parseRule } from "../../Sources/WaymarkServer/Resources/web/sdk/ruletext.js";

/** The engine with every tip and container looked at in every step: the scheduler's plain meaning. */
class Thorough extends Engine {
  settle() {
    this.tips.forEach((_, i) => this.mark(i));
    this.scanAll = true;
    super.settle();
  }
}

function random(seed) {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * n);
  };
}

function workload(seed) {
  const pick = random(seed);
  const one = (list) => list[pick(list.length)];
  const pattern = () => one(["a", "b", "c", "a:x", "b:y", "c:x"]);
  const term = () => one([
    () => pattern(),
    () => `${pattern()} within ${1 + pick(5)}s`,
    () => `count(${pattern()}) >= ${1 + pick(4)}`,
    () => `count(${pattern()}) ${one([">=", "<", "=="])} ${1 + pick(3)} within ${2 + pick(8)}s`,
    () => `${pattern()} THEN ${pattern()}`,
    () => `${pattern()} THEN ${pattern()} THEN ${pattern()}`,
    () => `${pattern()} THEN ${pattern()} within ${2 + pick(6)}s`,
    () => `user.plan == "${one(["plus", "free"])}"`,
    () => `NOT ${pattern()} within ${1 + pick(3)}s`,
  ])();
  const rule = () => one([() => term(), () => term(), () => `${term()} OR ${term()}`, () => `${term()} AND ${term()}`, () => `(${term()} OR ${term()}) AND NOT ${term()}`])();
  const tips = Array.from({ length: 2 + pick(8) }, (_, i) => ({
    id: `t${i}`,
    container: one(["home", "cart", "menu"]),
    trigger: parseRule(rule()),
    dismissal: pick(3) === 0 ? parseRule(rule()) : undefined,
    priority: pick(3),
    group: pick(3) === 0 ? "g" : undefined,
    order: pick(4),
    policy: {
      maxDisplayCount: pick(3) === 0 ? 1 + pick(2) : undefined,
      maxDisplayDuration: pick(2) === 0 ? 1 + pick(4) : undefined,
      expiresAt: pick(4) === 0 ? 5000 + pick(40000) : undefined,
    },
  }));
  let clock = 0;
  const steps = Array.from({ length: 80 }, () => {
    // Mostly moments apart, sometimes seconds, now and then past an hour's gap.
    const time = (clock += [pick(500), pick(500), pick(500), pick(6000), pick(4) === 0 ? 3600000 : pick(500)][pick(5)]);
    const which = pick(20);
    if (which < 11) {
      const [name, target] = one(["a", "b", "c", "a:x", "b:y", "c:x", "c:y"]).split(":");
      return (e) => e.record(name, target, time);
    }
    if (which < 13) return (e) => e.advance(time);
    if (which < 15) {
      const container = one(["home", "cart", "menu"]), visible = pick(4) > 0;
      return (e) => e.setContainer(container, visible, time);
    }
    if (which < 16) {
      const id = one(tips).id;
      return (e) => e.close(id, time);
    }
    if (which < 17) {
      const id = one(tips).id, visible = pick(3) > 0;
      return (e) => e.setTip(id, visible, time);
    }
    if (which < 19) {
      const plan = one(["plus", "free", null]);
      return (e) => e.setContext({ "user.plan": plan }, time);
    }
    const progress = { [one(tips).id]: { shown: pick(3), displayedMillis: pick(3) * 1500, ...(pick(2) && { finished: one(["closed", "dismissed"]) }) } };
    return (e) => mergeTips(e, progress, time);
  });
  return { tips, steps, frequency: one(["immediate", "immediate", "immediate", "hourly"]) };
}

const byInstant = (commands) => commands.map((c) => JSON.stringify(c)).sort();

/** Every term's kept value is its value now. */
function assertValuesCurrent(evaluator, what) {
  for (const term of evaluator.byId) assert.equal(term.value, evaluator.termValue(term), `${what}: ${term.key}`);
}

test("on random catalogs, each step comes to what a step that looks at everything comes to", () => {
  for (let seed = 1; seed <= 400; seed++) {
    const { tips, steps, frequency } = workload(seed);
    const engine = new Engine(tips, { frequency });
    const thorough = new Thorough(tips, { frequency });
    steps.forEach((step, index) => {
      const what = `seed ${seed}, step ${index + 1}`;
      // Commands of one instant may come in another order (as the conformance cases allow).
      const [incremental, plain] = [step(engine), step(thorough)];
      assert.deepEqual(byInstant(incremental), byInstant(plain), what);
      assert.deepEqual(incremental.map((c) => c.time), plain.map((c) => c.time), what);
      assert.equal(engine.nextChange(), thorough.nextChange(), what);
      assertValuesCurrent(engine.evaluator, what);
    });
    assert.deepEqual(engine.snapshot(), thorough.snapshot(), `seed ${seed}`);
  }
});

test("an evaluator's kept values follow events, time and context", () => {
  const rules = ["count(a) >= 2 within 3s", "a THEN b within 2s", "b:x within 1s", "NOT c within 2s", 'user.plan == "plus"', "a THEN b THEN a"].map((r) => parseRule(r));
  const evaluator = new Evaluator(rules);
  const pick = random(5);
  for (let time = 0; time < 60000; time += pick(900)) {
    if (pick(5) === 0) evaluator.setContext("user.plan", ["plus", "free", null][pick(3)], time);
    else if (pick(3) === 0) evaluator.advance(time);
    else evaluator.record(["a", "b", "c"][pick(3)], pick(2) ? "x" : undefined, time);
    assertValuesCurrent(evaluator, `at ${time}`);
    const next = evaluator.nextChange();
    if (next !== null) assert.ok(next > evaluator.now, `the next change ${next} is after ${evaluator.now}`);
  }
});
