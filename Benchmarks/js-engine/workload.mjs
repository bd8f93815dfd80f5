// The engine benchmark's workload, made by the same generator as Benchmarks/Benchmarks/
// EngineBenchmarks and android/src/bench (the same 1,000 tips over 200 event names and the same
// events, 50 ms apart), for the web engine's benchmark (bench.mjs) and its allocation test
// (Tests/web/allocation.test.mjs).

import { parseRule } from "../../Sources/WaymarkServer/Resources/web/sdk/ruletext.js";

const MASK = (1n << 64n) - 1n;
const MULTIPLIER = 6364136223846793005n;
const INCREMENT = 1442695040888963407n;
export const START = 1767225600000;

/** The generator's 64-bit LCG: the same numbers as the Swift and Java benchmarks draw. */
class Generator {
  constructor(seed) { this.state = BigInt(seed); }
  next(bound) {
    this.state = (this.state * MULTIPLIER + INCREMENT) & MASK;
    return Number((this.state >> 33n) % BigInt(bound));
  }
}

export function workload() {
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
export function order(count, size) {
  const random = new Generator(42);
  const indices = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    random.state = (random.state * MULTIPLIER + INCREMENT) & MASK;
    indices[i] = Number((random.state >> 33n) % BigInt(size));
  }
  return indices;
}

/** `count` times after `clock`, 50 ms apart, each a number object already: as a page's times come
 *  from Date.now(), which makes a heap number of each (ms since 1970 are past what V8 keeps as a
 *  small integer). A loop that adds to a number instead boxes each time it passes on, and that box
 *  would count as the engine's. (An array that also holds null keeps its numbers boxed.) */
export function boxed(clock, count) {
  const times = [null];
  for (let i = 1; i <= count; i++) times.push(clock + 50 * i);
  return times.slice(1);
}
