// The web SDK's engine (waymark.js) on the engine benchmark's workload, made by the same generator
// as Benchmarks/Benchmarks/EngineBenchmarks and android/src/bench (the same 1,000 tips over 200
// event names and the same events, 50 ms apart), so its figure stands beside Swift's and Java's.
// Warms up, then times runs of EVENTS events each and prints the median per event, and the bytes an
// event allocates once the engine is warm (with the run script's --expose-gc).
//
//   Benchmarks/js-engine/run [EVENTS [RUNS]]

import { Engine, Evaluator } from "../../Sources/WaymarkServer/Resources/web/sdk/engine.js";
import { parseRule } from "../../Sources/WaymarkServer/Resources/web/sdk/ruletext.js";

const MASK = (1n << 64n) - 1n;
const MULTIPLIER = 6364136223846793005n;
const INCREMENT = 1442695040888963407n;
const START = 1767225600000;

/** The generator's 64-bit LCG: the same numbers as the Swift and Java benchmarks draw. */
class Generator {
  constructor(seed) { this.state = BigInt(seed); }
  next(bound) {
    this.state = (this.state * MULTIPLIER + INCREMENT) & MASK;
    return Number((this.state >> 33n) % BigInt(bound));
  }
}

function workload() {
  const random = new Generator(7);
  const name = () => `e${random.next(200)}`;
  const event = () => (random.next(4) === 0 ? `${name()}:t${random.next(4)}` : name());
  const term = () => {
    switch (random.next(8)) {
      case 0: return event();
      case 1: return `count(${event()}) >= ${2 + random.next(20)}`;
      case 2: return `count(${event()}) >= ${2 + random.next(5)} within ${1 + random.next(10)}m`;
      case 3: return `${event()} within ${10 + random.next(50)}s`;
      case 4: return `${event()} THEN ${event()} within ${1 + random.next(30)}m`;
      case 5: return `NOT ${event()}`;
      case 6: return `app.version >= v1.${random.next(6)}`;
      default: return 'device.platform in ["ios", "android"]';
    }
  };
  const tips = [];
  for (let index = 0; index < 1000; index++) {
    const a = term();
    const b = term();
    const c = term();
    const trigger = parseRule(`(${a} AND ${b}) OR ${c}`);
    const dismissal = random.next(2) === 0
      ? parseRule(`count(${event()}) >= ${50 + random.next(200)}`)
      : parseRule(`${event()} THEN ${event()} THEN ${event()}`);
    const container = `c${random.next(40)}`;
    tips.push({ id: `tip${index}`, container, trigger, dismissal, priority: random.next(5) });
  }
  const events = [];
  for (let i = 0; i < 1000; i++) {
    if (random.next(4) === 0) events.push([name(), `t${random.next(4)}`]);
    else events.push([name(), undefined]);
  }
  return { tips, events };
}

/** The indices of the events fed, drawn as the other benchmarks draw them (seed 42), before the clock starts. */
function order(count, size) {
  const random = new Generator(42);
  const indices = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    random.state = (random.state * MULTIPLIER + INCREMENT) & MASK;
    indices[i] = Number((random.state >> 33n) % BigInt(size));
  }
  return indices;
}

// How many events a window of allocation counting takes: few enough that the young generation
// (the run script makes it 64 MB) holds what they allocate, so no collection hides any of it.
const WINDOW = 100000;

function measure(what, events, runs, prepare) {
  prepare()(Math.min(events, 200000)); // warm-up: the JIT compiles the hot paths
  const perEvent = [];
  let sink = 0;
  let feed;
  for (let run = 0; run < runs; run++) {
    feed = prepare();
    const start = process.hrtime.bigint();
    sink += feed(events);
    perEvent.push(Number(process.hrtime.bigint() - start) / events);
  }
  perEvent.sort((a, b) => a - b);
  const median = perEvent[Math.floor(perEvent.length / 2)];
  // Bytes allocated per event, in steady state: the last run's engine goes on for a window.
  let allocated = "";
  if (globalThis.gc) {
    globalThis.gc();
    const before = process.memoryUsage().heapUsed;
    sink += feed(WINDOW);
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
  return (count) => {
    let out = 0;
    for (let i = 0; i < count; i++, fed++) {
      clock += 50;
      out += engine.record(names[fed % names.length], targets[fed % targets.length], clock, props).length;
    }
    return out;
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
  return (count) => {
    for (let i = 0; i < count; i++, fed++) {
      clock += 50;
      evaluator.record(names[fed % names.length], targets[fed % targets.length], clock, props);
    }
    return 0;
  };
});
