// The web SDK's engine (waymark.js) on the engine benchmark's workload, made by the same generator
// as Benchmarks/Benchmarks/EngineBenchmarks and android/src/bench (the same 1,000 tips over 200
// event names and the same events, 50 ms apart), so its figure stands beside Swift's and Java's.
// Warms up, then times runs of EVENTS events each and prints the median per event, and the bytes an
// event allocates once the engine is warm (with the run script's --expose-gc).
//
//   Benchmarks/js-engine/run [EVENTS [RUNS]]

import { Engine, Evaluator } from "../../Sources/WaymarkServer/Resources/web/sdk/engine.js";
import { START, boxed, order, workload } from "./workload.mjs";

// How many events a window of allocation counting takes: few enough that the young generation
// (the run script makes it 64 MB) holds what they allocate, so no collection hides any of it.
const WINDOW = 100000;

function measure(what, events, runs, prepare) {
  prepare().feed(Math.min(events, 200000)); // warm-up: the JIT compiles the hot paths
  const perEvent = [];
  let sink = 0;
  let feeder;
  for (let run = 0; run < runs; run++) {
    feeder = prepare();
    const start = process.hrtime.bigint();
    sink += feeder.feed(events);
    perEvent.push(Number(process.hrtime.bigint() - start) / events);
  }
  perEvent.sort((a, b) => a - b);
  const median = perEvent[Math.floor(perEvent.length / 2)];
  // Bytes allocated per event, in steady state: the last run's engine goes on for a window, with
  // its times made before the window opens (see `boxed`).
  let allocated = "";
  if (globalThis.gc) {
    const times = boxed(feeder.clock(), 2 * WINDOW);
    const warm = times.slice(0, WINDOW), counted = times.slice(WINDOW);
    sink += feeder.feedTimes(warm); // the JIT compiles this loop too
    globalThis.gc();
    const before = process.memoryUsage().heapUsed;
    sink += feeder.feedTimes(counted);
    allocated = `, ${((process.memoryUsage().heapUsed - before) / WINDOW).toFixed(2)} bytes allocated per event`;
  }
  console.log(`${what.padEnd(40)} ${median.toFixed(0).padStart(8)} ns/event (p50 of ${runs} runs of ${events}), `
    + `${(1e3 / median).toFixed(3)} million events/s${allocated}  [${sink % 10}]`);
}

const events = Number(process.argv[2] ?? 20000);
const runs = Number(process.argv[3] ?? 5);
const { tips, events: pool } = workload();
const indices = order(events + WINDOW, pool.length);
const names = Array.from(indices, (i) => pool[i][0]);
const targets = Array.from(indices, (i) => pool[i][1]);
const props = {};
console.log(`node ${process.version}, ${process.arch}`);

// Each run's loop feeds events in order, going on where the last call stopped. The loops are
// written out, not given a callback: a call through a closure the JIT does not inline costs a boxed
// number for the clock, which is the benchmark's cost, not the engine's.
function engineFeeder(start) {
  const engine = new Engine(tips);
  engine.setContext({ "app.version": "1.4.0", "device.platform": "ios" }, start);
  let clock = start;
  let fed = 0;
  return {
    clock: () => clock,
    feed(count) {
      let out = 0;
      for (let i = 0; i < count; i++, fed++) {
        clock += 50;
        out += engine.record(names[fed % names.length], targets[fed % targets.length], clock, props).length;
      }
      return out;
    },
    feedTimes(times) {
      let out = 0;
      for (let i = 0; i < times.length; i++, fed++) {
        out += engine.record(names[fed % names.length], targets[fed % targets.length], times[i], props).length;
      }
      clock = times[times.length - 1];
      return out;
    },
  };
}

measure("Engine: 1,000 tips, 200 names", events, runs, () => engineFeeder(START));
// The same from time 0: times stay below 2^30, which V8 keeps as small integers, never as heap
// numbers. What the run above allocates and this one does not is V8 boxing clock times.
measure("Engine, the clock from 0", events, runs, () => engineFeeder(0));
measure("Evaluator only: 2,000 rules", events, runs, () => {
  const evaluator = new Evaluator(tips.flatMap((tip) => [tip.trigger, tip.dismissal]));
  let clock = START;
  let fed = 0;
  return {
    clock: () => clock,
    feed(count) {
      for (let i = 0; i < count; i++, fed++) {
        clock += 50;
        evaluator.record(names[fed % names.length], targets[fed % targets.length], clock, props);
      }
      return 0;
    },
    feedTimes(times) {
      for (let i = 0; i < times.length; i++, fed++) evaluator.record(names[fed % names.length], targets[fed % targets.length], times[i], props);
      clock = times[times.length - 1];
      return 0;
    },
  };
});
