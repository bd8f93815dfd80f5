// The web SDK's engine (waymark.js) on the engine benchmark's workload, made by the same generator
// as Benchmarks/Benchmarks/EngineBenchmarks and android/src/bench (the same 1,000 tips over 200
// event names and the same events, 50 ms apart), so its figure stands beside Swift's and Java's.
// Warms up, then times runs of EVENTS events each and prints the median per event.
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

function measure(what, events, runs, prepare) {
  prepare()(Math.min(events, 2000)); // warm-up: the JIT compiles the hot paths
  const perEvent = [];
  let sink = 0;
  for (let run = 0; run < runs; run++) {
    const feed = prepare();
    const start = process.hrtime.bigint();
    sink += feed(events);
    perEvent.push(Number(process.hrtime.bigint() - start) / events);
  }
  perEvent.sort((a, b) => a - b);
  const median = perEvent[Math.floor(perEvent.length / 2)];
  console.log(`${what.padEnd(40)} ${(median / 1000).toFixed(1).padStart(8)} µs/event (p50 of ${runs} runs of ${events}), `
    + `${(1e3 / median).toFixed(3)} million events/s  [${sink % 10}]`);
}

const events = Number(process.argv[2] ?? 20000);
const runs = Number(process.argv[3] ?? 5);
const { tips, events: pool } = workload();
const indices = order(events, pool.length);
console.log(`node ${process.version}, ${process.arch}`);
measure("Engine: 1,000 tips, 200 names", events, runs, () => {
  const engine = new Engine(tips);
  let clock = START;
  engine.setContext({ "app.version": "1.4.0", "device.platform": "ios" }, clock);
  return (count) => {
    let commands = 0;
    for (let i = 0; i < count; i++) {
      const [name, target] = pool[indices[i]];
      clock += 50;
      commands += engine.record(name, target, clock, {}).length;
    }
    return commands;
  };
});
measure("Evaluator only: 2,000 rules", events, runs, () => {
  const rules = tips.flatMap((tip) => [tip.trigger, tip.dismissal]);
  const evaluator = new Evaluator(rules);
  let clock = START;
  return (count) => {
    for (let i = 0; i < count; i++) {
      const [name, target] = pool[indices[i]];
      clock += 50;
      evaluator.record(name, target, clock, {});
    }
    return evaluator.value(0) ? 1 : 0;
  };
});
