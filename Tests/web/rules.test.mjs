// The rule language in JavaScript against the shared conformance cases (conformance/*.json), the
// same files the Swift tests read: every value after every step, and every error's place and code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { Evaluator } from "../../Sources/WaymarkServer/Resources/web/sdk/engine.js";
import { printRule, ruleFromJSON } from "../../Sources/WaymarkServer/Resources/web/sdk/rules.js";
import { parseRule, RuleError } from "../../Sources/WaymarkServer/Resources/web/sdk/ruletext.js";
import { parseTime } from "../../Sources/WaymarkServer/Resources/web/sdk/values.js";

const directory = new URL("../../conformance/", import.meta.url);
const groups = readdirSync(directory).filter((f) => f.endsWith(".json")).map((f) => JSON.parse(readFileSync(new URL(f, directory), "utf8")));

test("the conformance files are there", () => {
  assert.ok(groups.length >= 13);
  assert.ok(groups.reduce((n, g) => n + g.cases.length, 0) > 300);
});

for (const group of groups) {
  test(`conformance: ${group.group}`, () => {
    for (const c of group.cases) {
      if (c.error) {
        assert.throws(() => parseRule(c.rule), (error) => {
          assert.ok(error instanceof RuleError, `${c.name}: not a RuleError: ${error}`);
          assert.deepEqual({ line: error.line, column: error.column, code: error.code }, c.error, `${c.name}: ${error.message}`);
          return true;
        }, c.name);
        continue;
      }
      const rule = parseRule(c.rule);
      // The printed form reads back the same, and the JSON form is accepted as the server sends it.
      assert.equal(printRule(parseRule(printRule(rule))), printRule(rule), c.name);
      const shipped = ruleFromJSON(JSON.parse(JSON.stringify(rule)));
      assert.deepEqual(shipped, rule, `${c.name}: the JSON form reads back as the parser made it`);
      const evaluator = new Evaluator([shipped]);
      c.steps.forEach((step, index) => {
        const time = parseTime(step.t);
        assert.notEqual(time, null, step.t);
        if (step.event) evaluator.record(step.event, step.target, time, step.properties);
        else if (step.context) for (const path of Object.keys(step.context).sort()) evaluator.setContext(path, step.context[path], time);
        else evaluator.advance(time);
        assert.equal(evaluator.value(0), step.expect, `${group.group} / ${c.name}: step ${index + 1} at ${step.t}`);
      });
    }
  });
}

test("the JSON form is checked as strictly as the text", () => {
  for (const bad of [null, [], {}, { const: true, not: { const: true } }, { and: [{ const: true }] }, { seq: [] },
    { seq: [{ name: "and" }] }, { count: { name: "tap" }, cmp: ">=", value: 10001 }, { path: "a", cmp: "==", value: 1 },
    { path: "a.b", in: [] }, { seq: [{ name: "tap" }], within: "3x" }, { path: "a.b", cmp: "<", value: true },
    { seq: [{ name: "tap" }], within: "3651d" }, { seq: [{ name: "tap" }], within: "030s" }, { seq: [{ name: "tap", target: "OR" }] },
    { seq: [{ name: "tap", x: 1 }] }, { seq: [{ name: "tap word" }] }, { path: "app.version", cmp: ">", value: { version: "01.2" } },
    { path: "app.version", cmp: ">", value: { version: "2147483648" } }, { path: "a.b", cmp: "==", value: Infinity },
    { path: "a.b", cmp: "=", value: 1 }, { path: "a.and", cmp: "==", value: 1 }, { count: { name: "tap" }, cmp: ">=", value: 1.5 },
    { const: "yes" }, { path: "a.b", cmp: "==", value: null }, { seq: [{ name: "a", where: [] }] },
    { seq: [{ name: "a", where: [{ prop: "x.y", cmp: "==", value: 1 }] }] }, { seq: [{ name: "a", where: [{ prop: "x", cmp: "<", value: true }] }] },
    { seq: [{ name: "a", where: [{ prop: "and", cmp: "==", value: 1 }] }] }, { seq: [{ name: "a", where: [{ prop: "x", in: [1], cmp: "==" }] }] },
    { seq: [{ name: "a", where: [{ prop: "x", in: [] }] }] }, { seq: [{ name: "a", where: {} }] },
    { seq: [{ name: "a", where: [null] }] }, { seq: [{ name: "a", where: ["x == 1"] }] }]) {
    assert.throws(() => ruleFromJSON(bad), /invalid rule/, JSON.stringify(bad));
  }
  const rule = { or: [{ and: [{ seq: [{ name: "tap", target: "search" }] }, { seq: [{ name: "activation" }] }] }, { seq: [{ name: "scroll" }], within: "30s" }] };
  assert.equal(printRule(ruleFromJSON(rule)), "tap:search AND activation OR scroll within 30s");
});

test("the JSON form nests no deeper than the text may", () => {
  const nots = (n) => (n === 0 ? { seq: [{ name: "tap" }] } : { not: nots(n - 1) });
  assert.deepEqual(ruleFromJSON(nots(32)), parseRule("NOT ".repeat(32) + "tap"));
  assert.throws(() => ruleFromJSON(nots(33)), /deeper than 32 levels/);
  // An OR inside an AND is written in parentheses: one level each, as the parser counts them.
  const tap = { seq: [{ name: "tap" }] };
  const nested = (n) => (n === 0 ? tap : { and: [tap, { or: [tap, nested(n - 1)] }] });
  assert.deepEqual(ruleFromJSON(nested(32)), parseRule(printRule(nested(32))));
  assert.throws(() => parseRule(printRule(nested(33))), RuleError);
  assert.throws(() => ruleFromJSON(nested(33)), /deeper than 32 levels/);
});

test("a windowed count keeps at most k+1 times, whatever the number of events", () => {
  const evaluator = new Evaluator([parseRule("count(tap) >= 3 within 1h")]);
  for (let i = 0; i < 10000; i++) evaluator.record("tap", undefined, i * 1000);
  assert.equal(evaluator.value(0), true);
  const [term] = evaluator.terms.values();
  assert.equal(term.state.times.length, 4);
  assert.equal(JSON.stringify(evaluator.snapshot()).length < 500, true);
});

test("a Date set in the context is a time; an invalid Date is no value at all", () => {
  const evaluator = new Evaluator([parseRule("user.firstOrderAt < 2026-01-01"), parseRule("user.firstOrderAt != 2026-01-01")]);
  evaluator.setContext("user.firstOrderAt", new Date("2025-12-31T23:59:59.999Z"), 0);
  assert.deepEqual([evaluator.value(0), evaluator.value(1)], [true, true]);
  evaluator.setContext("user.firstOrderAt", new Date("2026-01-01T05:30:00+05:30"), 0);
  assert.deepEqual([evaluator.value(0), evaluator.value(1)], [false, false]);
  evaluator.setContext("user.firstOrderAt", new Date("nonsense"), 0);
  assert.deepEqual([evaluator.value(0), evaluator.value(1)], [false, false]);
  // Kept state holds the time as milliseconds, which a snapshot carries over.
  evaluator.setContext("user.firstOrderAt", new Date(0), 0);
  const again = new Evaluator([parseRule("user.firstOrderAt < 2026-01-01")], JSON.parse(JSON.stringify(evaluator.snapshot())));
  assert.equal(again.value(0), true);
});
