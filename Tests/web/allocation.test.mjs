// The web engine allocates nothing per event once warm (docs/performance.md, "The web SDK's
// engine"): the engine benchmark, on a short run, counts the bytes the heap grows by per event
// with clock times as a page has them. A number V8 boxes on every event is 16 bytes; a few tenths
// of a byte are a show's command or an array growing now and then.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const run = fileURLToPath(new URL("../../Benchmarks/js-engine/run", import.meta.url));

test("the engine and the evaluator allocate nothing per event once warm", () => {
  const out = execFileSync(run, ["200000", "1"], { encoding: "utf8" });
  const allocated = (label) => {
    const line = out.split("\n").find((l) => l.startsWith(label));
    assert.ok(line, `no line for ${label} in:\n${out}`);
    return Number(/([0-9.]+) bytes allocated per event/.exec(line)[1]);
  };
  for (const label of ["Engine: 1,000 tips", "Evaluator only"]) {
    assert.ok(allocated(label) < 8, `${label}: ${allocated(label)} bytes allocated per event (at most 8):\n${out}`);
  }
});
