// The engine: Evaluator keeps every rule's value up to date from events and context, with bounded
// state per term; Engine schedules tips with the same lifecycle as the Swift WaymarkEngine
// (waiting, active, paused, finished) and answers render commands. Both are checked against the
// scheduling scenarios in conformance/engine/. No browser API is used here.

import { UNIT_MS, printRule } from "./rules.js";
import { compareLiteral, holds, typedValue } from "./values.js";

const windowMillis = (within) => (within === undefined ? -1 : Number(within.slice(0, -1)) * UNIT_MS[within.slice(-1)]);
// A value against a comparison's or a property test's `{cmp, value}` or `{in}`.
function passes(test, value) {
  if (!("in" in test)) return compareLiteral(value, test.cmp, test.value);
  for (let k = 0; k < test.in.length; k++) if (compareLiteral(value, "==", test.in[k])) return true;
  return false;
}
// An event matches a pattern by name, by target when the pattern has one, and by every property
// test of its `where`.
function matches(pattern, name, target, props) {
  if (pattern.name !== name || (pattern.target !== undefined && pattern.target !== target)) return false;
  const where = pattern.where;
  for (let i = 0; where && i < where.length; i++) if (!passes(where[i], props[where[i].prop])) return false;
  return true;
}
const NO_PROPS = {};

/**
 * The moments at which something changes by time alone (a window closing, a display time running
 * out), as a binary min-heap of (time, id) in two arrays: pushing and popping allocate nothing once
 * they have grown. An entry is never taken out early; its owner skips one that is no longer
 * current when it comes to the top.
 */
class Deadlines {
  constructor() {
    /** @type {number[]} */ this.times = [];
    /** @type {number[]} */ this.ids = [];
    this.size = 0;
    this.nextTime = 0; // the time the next push adds
  }

  /** Adds (`nextTime`, id). (The time is a field, not an argument: a clock time handed to a call
   *  the JIT does not inline costs a boxed copy, and an event can push several.) */
  push(id) {
    const { times, ids } = this, time = this.nextTime;
    let at = this.size++;
    for (let parent; at > 0 && times[(parent = (at - 1) >> 1)] > time; at = parent) {
      times[at] = times[parent];
      ids[at] = ids[parent];
    }
    times[at] = time;
    ids[at] = id;
  }

  pop() {
    const { times, ids } = this;
    const size = --this.size;
    const time = times[size], id = ids[size];
    let at = 0;
    for (let child; (child = 2 * at + 1) < size; at = child) {
      if (child + 1 < size && times[child + 1] < times[child]) child++;
      if (times[child] >= time) break;
      times[at] = times[child];
      ids[at] = ids[child];
    }
    times[at] = time;
    ids[at] = id;
  }
}

// A term's kind: an event seen (within a window), a chain of events (THEN), a count, a comparison.
const OCCURRENCE = 0, CHAIN = 1, COUNT = 2, COMPARISON = 3;

// A time that has not come: -Infinity, so that time fields hold only numbers (which the JIT keeps
// unboxed); JSON writes it as null, as snapshots have it.
const NEVER = -Infinity;
const time = (t) => t ?? NEVER;

/** Takes an event at the evaluator's time into a term's state; whether the state changed. (The
 *  time is read here, not handed in: a number past 2^30 crossing a call can cost a boxed copy.) */
function take(term, name, target, props, evaluator) {
  const { rule, state } = term, t = evaluator.clock;
  if (term.kind === OCCURRENCE) {
    if (!matches(rule.seq[0], name, target, props)) return false;
    state.last = t;
    return true;
  }
  if (term.kind === COUNT) {
    if (!matches(rule.count, name, target, props)) return false;
    const times = state.times;
    if (term.window >= 0) {
      // The k+1 latest times, oldest first.
      if (times.length > rule.value) {
        for (let k = 1; k < times.length; k++) times[k - 1] = times[k];
        times[times.length - 1] = t;
      } else times.push(t);
    } else if (state.count > rule.value) return false;
    else state.count += 1;
    return true;
  }
  if (state.done) return false;
  const stages = rule.seq, starts = state.starts, last = stages.length - 1;
  let changed = false;
  // Latest stage first, so that one event never counts for two stages of one start.
  for (let i = last - 1; i >= 0; i--) {
    const start = starts[i];
    if (start === NEVER || !matches(stages[i + 1], name, target, props)) continue;
    if (i + 1 === last) {
      if (term.window < 0 || t - start <= term.window) changed = state.done = true;
    } else if (starts[i + 1] < start) {
      starts[i + 1] = start;
      changed = true;
    }
  }
  if (matches(stages[0], name, target, props)) {
    starts[0] = t;
    changed = true;
  }
  return changed;
}

/**
 * Evaluates rules incrementally over events, time and context. Memory is bounded per term (each
 * occurrence, count, sequence and comparison), never by the number of events: a windowed count keeps
 * its k+1 latest times, a sequence the latest start that reached each stage. Terms are shared by
 * every rule that mentions them and keyed by their text, so state survives a new catalog. Each term
 * keeps its value; one that changes by time alone is woken at that moment from a heap of deadlines,
 * so an event costs the terms listening for its name, and allocates nothing.
 */
export class Evaluator {
  /** With `tracking`, the rules whose terms changed value are noted, `changed[0..<changedCount]`
   *  (a rule may be noted twice), for the owner to take and clear. */
  constructor(rules = [], snapshot = undefined, tracking = false) {
    // The time (ms), NEVER before anything happened.
    this.clock = time(snapshot?.now);
    this.context = new Map(Object.entries(snapshot?.context ?? {}));
    this.terms = new Map();
    this.byId = [];
    // By event name, the terms that event can change whatever its target, and by name and target
    // those listening for that target alone (see `listen`).
    this.listeners = new Map();
    this.targeted = new Map();
    this.readers = new Map(); // context path -> the comparisons that read it
    this.deadlines = new Deadlines();
    this.tracking = tracking;
    /** @type {number[]} */ this.changed = [];
    this.changedCount = 0;
    const saved = snapshot?.terms ?? {};
    this.rules = rules.map((rule, index) => this.compile(rule, saved, index));
    for (const term of this.byId) {
      if (term.kind !== COMPARISON && !term.all) this.listen(term);
      term.value = this.termValue(term);
      this.schedule(term);
    }
  }

  compile(rule, saved, index) {
    if ("not" in rule) return { not: this.compile(rule.not, saved, index) };
    if ("and" in rule) return { and: rule.and.map((r) => this.compile(r, saved, index)) };
    if ("or" in rule) return { or: rule.or.map((r) => this.compile(r, saved, index)) };
    if ("const" in rule) return rule;
    const key = printRule(rule);
    let term = this.terms.get(key);
    if (!term) {
      const kind = "seq" in rule ? (rule.seq.length > 1 ? CHAIN : OCCURRENCE) : "count" in rule ? COUNT : COMPARISON;
      const state = newTermState(rule, saved[key]);
      const window = windowMillis(rule.within);
      // A chain with a window listens for all its names, whatever the target.
      const all = kind === CHAIN && window >= 0;
      term = { id: this.byId.length, key, rule, kind, window, state, rules: [], value: false, deadline: Infinity, all, home: null, slot: 0 };
      this.terms.set(key, term);
      this.byId.push(term);
      if (kind === COMPARISON) listIn(this.readers, rule.path).push(term);
      else if (all) for (const name of new Set(rule.seq.map((e) => e.name))) listIn(this.listeners, name).push(term);
    }
    if (!term.rules.includes(index)) term.rules.push(index);
    return { term };
  }

  /** Moves the clock forward (never back) to `time` (NEVER: where it is), waking every term whose value
   *  changes by then. (The time is `clock`: a number handed back from a call can cost a boxed copy.) */
  advance(time) {
    if (time > this.clock) this.clock = time;
    const now = this.clock, heap = this.deadlines;
    while (heap.size > 0 && heap.times[0] <= now) {
      const due = heap.times[0], term = this.byId[heap.ids[0]];
      heap.pop();
      if (term.deadline !== due) continue; // stale: the term has moved on
      term.deadline = Infinity;
      this.refresh(term);
    }
  }

  /** The current time, or null before anything happened. */
  get now() {
    return this.clock === NEVER ? null : this.clock;
  }

  record(name, target, time, props = NO_PROPS) {
    this.advance(time);
    const any = this.listeners.get(name), one = target === undefined ? undefined : this.targeted.get(name)?.get(target);
    // A term that moves from one of the two lists to the other is not visited again: each is
    // visited only up to where it ended before.
    const untargeted = any ? any.length : 0;
    if (one) this.visit(one, one.length, name, target, props);
    if (any) this.visit(any, untargeted, name, target, props);
  }

  /** Gives an event to the first `count` terms of a list. Backwards: a term that leaves the list is
   *  swapped with the last, which was seen already (or came after the event). */
  visit(list, count, name, target, props) {
    for (let k = count - 1; k >= 0; k--) {
      const term = list[k];
      if (!take(term, name, target, props, this)) continue;
      this.refresh(term);
      if (!term.all) this.listen(term);
    }
  }

  /** Puts a term in the list of the one pattern it waits for now, or in none: an occurrence or a
   *  count waits for its pattern until, with no window, it is seen or past its threshold; a chain
   *  with no window for its next stage alone (when a stage was reached does not matter then). A
   *  term knows its place in its list, so it leaves in constant time; an event with another
   *  target never reaches it. */
  listen(term) {
    const { kind, rule, state } = term;
    let pattern = kind === COUNT ? rule.count : rule.seq[0];
    if (kind === CHAIN) {
      let reached = 0;
      while (reached < state.starts.length && state.starts[reached] !== NEVER) reached++;
      pattern = state.done ? null : rule.seq[reached];
    } else if (term.window < 0 && (kind === OCCURRENCE ? state.last !== NEVER : state.count > rule.value)) pattern = null;
    const wanted = !pattern ? null : pattern.target === undefined ? listIn(this.listeners, pattern.name) : listIn(listIn(this.targeted, pattern.name, Map), pattern.target);
    const home = term.home;
    if (home === wanted) return;
    if (home) {
      const last = home.pop();
      if (last !== term) {
        home[term.slot] = last;
        last.slot = term.slot;
      }
    }
    term.home = wanted;
    if (wanted) {
      term.slot = wanted.length;
      wanted.push(term);
    }
  }

  /** Sets a context value (a Date or {time} is a time, {version} a version); null removes it. */
  setContext(path, value, time) {
    this.advance(time);
    value = typedValue(value);
    if (value === null || value === undefined) this.context.delete(path);
    else this.context.set(path, value);
    for (const term of this.readers.get(path) ?? []) this.refresh(term);
  }

  /** The value of the i-th rule now. */
  value(index) {
    return this.evaluate(this.rules[index]);
  }

  evaluate(node) {
    if ("term" in node) return node.term.value;
    if ("const" in node) return node.const;
    if ("not" in node) return !this.evaluate(node.not);
    // AND: no operand false; OR: some operand true.
    const and = "and" in node, operands = and ? node.and : node.or;
    for (let k = 0; k < operands.length; k++) if (this.evaluate(operands[k]) !== and) return !and;
    return and;
  }

  termValue({ rule, kind, window, state }) {
    const now = this.clock === NEVER ? 0 : this.clock;
    if (kind === OCCURRENCE) return state.last !== NEVER && (window < 0 || now - state.last <= window);
    if (kind === CHAIN) return state.done;
    if (kind === COUNT) {
      let count = state.count;
      if (window >= 0) {
        count = 0;
        for (let k = 0; k < state.times.length; k++) if (now - state.times[k] <= window) count++;
      }
      return holds(rule.cmp, count === rule.value ? 0 : count < rule.value ? -1 : 1);
    }
    return passes(rule, this.context.get(rule.path));
  }

  /** The term's value and deadline after its state changed; its rules are noted when its value did. */
  refresh(term) {
    const value = this.termValue(term);
    if (value !== term.value) {
      term.value = value;
      for (let k = 0; this.tracking && k < term.rules.length; k++) this.changed[this.changedCount++] = term.rules[k];
    }
    this.schedule(term);
  }

  /** Puts the next moment after now when the term's value can change without an event in the heap. */
  schedule(term) {
    const { kind, window, state } = term, now = this.clock === NEVER ? 0 : this.clock;
    let next = Infinity;
    if (kind === OCCURRENCE && window >= 0 && state.last + window + 1 > now) next = state.last + window + 1;
    for (let k = 0; kind === COUNT && window >= 0 && k < state.times.length && next === Infinity; k++) {
      if (state.times[k] + window + 1 > now) next = state.times[k] + window + 1;
    }
    // A deadline already in the heap that comes no later stays: when it comes, the term is
    // refreshed and scheduled again (a window that moves with each event pushes nothing).
    if (term.deadline <= next) return;
    term.deadline = this.deadlines.nextTime = next;
    this.deadlines.push(term.id);
  }

  /** The next moment after now when a rule can change without an event, or null. */
  nextChange() {
    this.dropStale();
    return this.deadlines.size > 0 ? this.deadlines.times[0] : null;
  }

  /** Drops the deadlines at the top of the heap that are no longer their terms'. */
  dropStale() {
    const heap = this.deadlines;
    while (heap.size > 0 && this.byId[heap.ids[0]].deadline !== heap.times[0]) heap.pop();
  }

  snapshot() {
    const terms = {};
    for (const [key, term] of this.terms) terms[key] = term.state;
    return { now: this.now, context: Object.fromEntries(this.context), terms: structuredCloneish(terms) };
  }
}

/** The list of `key` in `map`, made (an array, or a `Kind`) when first asked for.
 *  @param {Map<any, any>} map @param {any} key @param {new () => any} [Kind] */
function listIn(map, key, Kind = Array) {
  if (!map.has(key)) map.set(key, new Kind());
  return map.get(key);
}

/** A term's state, new or as a snapshot kept it. */
function newTermState(rule, saved = {}) {
  if ("seq" in rule) return rule.seq.length === 1 ? { last: time(saved.last) } : { starts: rule.seq.slice(1).map((_, i) => time(saved.starts?.[i])), done: Boolean(saved.done) };
  if ("count" in rule) return { count: saved.count ?? 0, times: [...(saved.times ?? [])] };
  return {};
}
const structuredCloneish = (value) => JSON.parse(JSON.stringify(value));

const FREQUENCY_MS = { immediate: 0, hourly: 3600000, daily: 86400000, weekly: 604800000, monthly: 2592000000 };
// What a step answers when nothing changed: one array, so that such a step allocates nothing.
const NOTHING = Object.freeze([]);

/**
 * Decides, on every event, which tip shows in which container, as the Swift engine does: a tip shows
 * when it is waiting, its trigger is true and its dismissal false, its container visible and free,
 * every earlier tip of its group finished, and its policy and the display frequency allow. Among
 * tips wanting one container the highest priority wins, then catalog order. Time-driven changes
 * happen at their exact moment. Every call takes the time (ms) and returns render commands:
 * `{action: "show"|"hide"|"pause"|"resume", tip, container, anchor, reason, time}`.
 *
 * A step looks only at what can have changed, as the Java engine's does: the tips whose rules
 * changed value (the evaluator notes them), whose expiry or display end came (a heap of deadlines),
 * or whose group's earlier tip finished; and the containers that became free or visible. A free,
 * visible container left alone had no tip to show in the last step, so only its tips that changed
 * can have one now.
 *
 * tips: `[{id, container, anchor, trigger, dismissal, priority, group, order,
 *          policy: {maxDisplayCount, maxDisplayDuration (seconds), expiresAt (ms)}}]`, rules in JSON form.
 */
export class Engine {
  /**
   * @param {any[]} tips
   * @param {{frequency?: string, snapshot?: any, sightReported?: boolean}} options
   */
  constructor(tips, { frequency = "immediate", snapshot, sightReported = false } = {}) {
    // With sightReported the renderer says when a showing tip comes into sight (setTip): a tip
    // shows and resumes out of sight, and its display time starts when it is seen.
    this.sightReported = sightReported;
    this.configure(tips, frequency, snapshot);
  }

  configure(tips, frequency, snapshot) {
    const list = (this.tips = tips.map((tip) => ({ priority: 0, order: 0, policy: {}, ...tip })));
    this.gap = FREQUENCY_MS[frequency] ?? 0;
    this.frequency = frequency;
    const rules = [];
    for (const tip of list) rules.push(tip.trigger, tip.dismissal ?? { const: false });
    this.evaluator = new Evaluator(rules, snapshot?.evaluator, true);
    this.index = new Map();
    for (const tip of list) if (!this.index.has(tip.container)) this.index.set(tip.container, this.index.size);
    this.containers = [...this.index.keys()];
    this.containerOf = list.map((tip) => this.index.get(tip.container));
    this.byContainer = this.containers.map((_, c) => list.flatMap((_, i) => (this.containerOf[i] === c ? [i] : [])).sort((a, b) => (this.before(a, b) ? -1 : 1)));
    // Per tip, the tips of its group with a lower order, which must finish first; and those that wait for it.
    this.predecessors = list.map((tip) => (tip.group == null ? [] : list.flatMap((other, j) => (other.group === tip.group && other.order < tip.order ? [j] : []))));
    this.successors = list.map(() => []);
    this.predecessors.forEach((before, i) => before.forEach((j) => this.successors[j].push(i)));
    this.hidden = new Set(snapshot?.hidden ?? []);
    this.lastShow = time(snapshot?.lastShow); // NEVER before the first
    this.retired = { ...(snapshot?.retired ?? {}) };
    const saved = { ...(snapshot?.states ?? {}), ...this.retired };
    this.states = list.map((tip) => {
      const state = saved[tip.id];
      delete this.retired[tip.id];
      return state ? { ...state } : newTipState();
    });
    for (const [id, state] of Object.entries(snapshot?.states ?? {})) {
      if (!list.some((tip) => tip.id === id)) this.retired[id] = state;
    }
    this.occupant = this.containers.map(() => -1);
    this.states.forEach((state, i) => {
      if (state.phase === "active" || state.phase === "paused") this.occupant[this.containerOf[i]] = i;
    });
    this.output = [];
    this.upcoming = Infinity;
    // What a step must look at: the tips whose rules or limits changed, the containers that became
    // free or visible (all of them when a frequency's gap ends). Everything else is as the last step left it.
    this.dirty = [];
    this.dirtyCount = 0;
    this.isDirty = new Uint8Array(list.length);
    this.scan = new Set();
    this.scanAll = true;
    this.blocked = false;
    this.best = this.containers.map(() => -1);
    this.candidates = [];
    // Expiries and display ends: an entry is current while it is the tip's expiry or display end.
    this.deadlines = new Deadlines();
    list.forEach((tip, i) => {
      this.mark(i);
      if (tip.policy.expiresAt != null) {
        this.deadlines.nextTime = tip.policy.expiresAt;
        this.deadlines.push(i);
      }
      this.schedule(i);
    });
  }

  get now() { return this.evaluator.now; }

  record(name, target, time, props) {
    this.catchUp(time);
    // The evaluator's clock is moved already: the time is not handed on (that can box it).
    this.evaluator.record(name, target ?? undefined, NEVER, props);
    return this.step();
  }
  advance(time) {
    this.catchUp(time);
    return this.step();
  }
  setContext(values, time) {
    this.catchUp(time);
    for (const path of Object.keys(values).sort()) this.evaluator.setContext(path, values[path], NEVER);
    return this.step();
  }
  setContainer(container, visible, time) {
    this.catchUp(time);
    this.changeVisibility(container, visible);
    return this.step();
  }
  /** Says whether a showing tip is where the user can see it (the Swift engine's `setTip`):
   *  display time counts only while it is; a tip shows visible until said otherwise. */
  setTip(id, visible, time) {
    this.catchUp(time);
    const i = this.indexOf(id);
    const state = this.states[i];
    if (state?.phase === "active" && visible !== counting(state)) {
      if (visible) {
        state.activeSince = this.evaluator.clock;
        this.schedule(i);
      } else {
        settleTime(state, this.evaluator.clock);
        state.activeSince = null;
      }
    }
    return this.step();
  }
  close(id, time) {
    this.catchUp(time);
    const i = this.indexOf(id);
    if (i >= 0) this.finish(i, "closed");
    return this.step();
  }

  /** Replaces the catalog: tips keep their states by id, rules their terms by text. */
  update(tips, time) {
    const commands = [...this.advance(time)];
    const kept = new Map(tips.map((t) => [t.id, t.container]));
    this.tips.forEach((tip, i) => {
      const phase = this.states[i].phase;
      if (phase !== "active" && phase !== "paused") return;
      if (!kept.has(tip.id)) this.finish(i, "removed");
      else if (kept.get(tip.id) !== tip.container) {
        this.finish(i, "removed");
        this.states[i] = newTipState();
      }
    });
    this.tips.forEach((tip, i) => {
      if (!kept.has(tip.id) && !isFinished(this.states[i])) this.states[i].phase = "finished:removed";
    });
    commands.push(...this.takeOutput());
    this.configure(tips, this.frequency, this.snapshot());
    return commands.concat(this.advance(time));
  }

  indexOf(id) {
    return this.tips.findIndex((t) => t.id === id);
  }

  /** A tip's phase: waiting, active, paused or finished:REASON; undefined for an unknown id. */
  phase(id) {
    const i = this.indexOf(id);
    return i >= 0 ? this.states[i].phase : this.retired[id]?.phase;
  }

  /** The active tips, as show commands: what a renderer draws after a reload. */
  activeTips() {
    return this.tips.flatMap((tip, i) => (this.states[i].phase === "active" ? [this.command("show", i)] : []));
  }

  /** No later than the next moment something can change without an event; null: nothing will. */
  nextChange() {
    this.deadline();
    return this.upcoming === Infinity ? null : this.upcoming;
  }

  /** Sets `upcoming` to the next moment after now that something can change without an event, or
   *  Infinity, dropping the deadlines that are no longer current. (A field, not an answer: a time
   *  handed back from a call can cost the JIT a boxed number.) */
  deadline() {
    const evaluator = this.evaluator, now = evaluator.clock, heap = this.deadlines;
    for (; heap.size > 0; heap.pop()) {
      const time = heap.times[0], i = heap.ids[0];
      if (!isFinished(this.states[i]) && time > now && (this.tips[i].policy.expiresAt === time || this.displayEnd(i) === time)) break;
    }
    evaluator.dropStale();
    // (An if, not a conditional expression: node 20 boxed the conditional's number on every call.)
    let next = Infinity;
    if (evaluator.deadlines.size > 0) next = evaluator.deadlines.times[0];
    if (heap.size > 0 && heap.times[0] < next) next = heap.times[0];
    const gapEnds = this.lastShow + this.gap;
    if (gapEnds > now && gapEnds < next) next = gapEnds;
    this.upcoming = next;
  }

  snapshot() {
    return { evaluator: this.evaluator.snapshot(), states: this.tipStates(), hidden: [...this.hidden], lastShow: this.lastShow };
  }

  /** Every tip's state by id (copies), tips this catalog lacks too. */
  tipStates() {
    const states = { ...this.retired };
    // Backwards, so that of two tips with one id the first wins, as the Swift engine has it.
    for (let i = this.tips.length - 1; i >= 0; i--) states[this.tips[i].id] = { ...this.states[i] };
    return states;
  }



  // A step: every deadline up to the time is played at its own moment, then the input, then settle.
  catchUp(time) {
    const evaluator = this.evaluator;
    if (evaluator.clock !== NEVER) {
      for (this.deadline(); this.upcoming <= time; this.deadline()) {
        evaluator.clock = this.upcoming; // from field to field: no number boxed on the way
        this.moveTo(NEVER);
        this.settle();
      }
    }
    this.moveTo(time);
  }

  /** Moves the clock to `time` (NEVER: where it is); the tips whose deadlines it reaches are looked at in
   *  the next settle. */
  moveTo(time) {
    this.evaluator.advance(time);
    const now = this.evaluator.clock, heap = this.deadlines;
    for (; heap.size > 0 && heap.times[0] <= now; heap.pop()) this.mark(heap.ids[0]);
  }

  step() {
    this.settle();
    return this.takeOutput();
  }

  takeOutput() {
    const output = this.output;
    if (output.length === 0) return NOTHING;
    this.output = [];
    return output;
  }

  mark(i) {
    if (this.isDirty[i]) return;
    this.isDirty[i] = 1;
    this.dirty[this.dirtyCount++] = i;
  }

  /** Puts an active tip's display end in the heap of deadlines. */
  schedule(i) {
    const end = this.displayEnd(i);
    if (end === end) {
      this.deadlines.nextTime = end;
      this.deadlines.push(i);
    }
  }

  settle() {
    const { evaluator, dirty, states } = this;
    for (let k = 0; k < evaluator.changedCount; k++) this.mark(evaluator.changed[k] >> 1);
    evaluator.changedCount = 0;
    // In the order they were marked: of two tips hidden at one instant, which comes first is no
    // decision (the conformance cases say so), and sorting would allocate.
    for (let k = 0; k < this.dirtyCount; k++) {
      const i = dirty[k];
      if (isFinished(states[i])) continue;
      this.checkTimeLimits(i);
      if (!isFinished(states[i]) && evaluator.value(i * 2 + 1)) this.finish(i, "dismissed");
    }
    this.fill();
    for (let k = 0; k < this.dirtyCount; k++) this.isDirty[dirty[k]] = 0;
    this.dirtyCount = 0;
  }

  fill() {
    const now = this.evaluator.clock;
    if (now < this.lastShow + this.gap) {
      // What changes meanwhile is looked at when the gap ends: then every container is.
      this.blocked = true;
      return;
    }
    if (this.blocked) this.scanAll = true;
    this.blocked = false;
    const { best, candidates } = this;
    let found = this.scanAll || this.scan.size ? this.scanContainers() : 0;
    for (let k = 0; k < this.dirtyCount; k++) {
      const i = this.dirty[k], c = this.containerOf[i];
      if (!this.isFree(c) || !this.isEligible(i)) continue;
      if (best[c] < 0) candidates[found++] = c;
      if (best[c] < 0 || this.before(i, best[c])) best[c] = i;
    }
    if (found > 0) this.showBest(found);
  }

  /** Shows the best tip of each of the first `found` candidate containers, highest priority first.
   *  (Apart from fill: a function whose closures capture its variables allocates on every call.) */
  showBest(found) {
    const { best, candidates } = this;
    const chosen = candidates.slice(0, found).map((c) => best[c]).sort((a, b) => (this.before(a, b) ? -1 : 1));
    for (let k = 0; k < found; k++) best[candidates[k]] = -1;
    // The frequency allows one tip now; the others wait.
    for (const i of this.gap > 0 ? chosen.slice(0, 1) : chosen) this.show(i);
  }

  /** The best eligible tip of each free container to look at again (all of them after a gap),
   *  as `fill`'s first candidates; how many. */
  scanContainers() {
    let found = 0;
    for (const c of this.scanAll ? this.containers.keys() : this.scan) {
      if (!this.isFree(c)) continue;
      for (const i of this.byContainer[c]) {
        if (!this.isEligible(i)) continue;
        this.best[c] = i;
        this.candidates[found++] = c;
        break;
      }
    }
    this.scan.clear();
    this.scanAll = false;
    return found;
  }

  isFree(c) {
    return this.occupant[c] < 0 && !this.hidden.has(this.containers[c]);
  }

  /** Whether tip `a` goes before `b`: a higher priority, then catalog order. */
  before(a, b) {
    const pa = this.tips[a].priority, pb = this.tips[b].priority;
    return pa !== pb ? pa > pb : a < b;
  }

  isEligible(i) {
    const tip = this.tips[i];
    if (this.states[i].phase !== "waiting" || !this.evaluator.value(i * 2) || this.evaluator.value(i * 2 + 1)) return false;
    if (tip.policy.expiresAt != null && this.evaluator.clock >= tip.policy.expiresAt) return false;
    const before = this.predecessors[i];
    for (let k = 0; k < before.length; k++) if (!isFinished(this.states[before[k]])) return false;
    return true;
  }

  show(i) {
    Object.assign(this.states[i], { phase: "active", activeSince: this.sightReported ? null : this.evaluator.clock });
    this.states[i].displayCount += 1;
    this.occupant[this.containerOf[i]] = i;
    this.lastShow = this.evaluator.clock;
    this.schedule(i);
    this.emit("show", i);
  }

  finish(i, reason) {
    const state = this.states[i];
    if (isFinished(state)) return;
    settleTime(state, this.evaluator.clock);
    if (state.phase === "active" || state.phase === "paused") {
      this.emit("hide", i, reason);
      this.occupant[this.containerOf[i]] = -1;
      this.scan.add(this.containerOf[i]);
    }
    state.phase = `finished:${reason}`;
    for (const j of this.successors[i]) this.mark(j);
  }

  changeVisibility(container, visible) {
    const c = this.index.get(container) ?? -1;
    if (visible) {
      if (!this.hidden.delete(container) || c < 0) return;
      this.scan.add(c);
      const i = this.occupant[c];
      if (i >= 0 && this.states[i].phase === "paused") {
        Object.assign(this.states[i], { phase: "active", activeSince: this.sightReported ? null : this.evaluator.clock });
        this.states[i].displayCount += 1;
        this.schedule(i);
        this.emit("resume", i);
      }
    } else {
      if (this.hidden.has(container)) return;
      this.hidden.add(container);
      const i = c < 0 ? -1 : this.occupant[c];
      if (i < 0 || this.states[i].phase !== "active") return;
      const limit = this.tips[i].policy.maxDisplayCount;
      if (limit != null && this.states[i].displayCount >= limit) this.finish(i, "maxDisplayCount");
      else {
        settleTime(this.states[i], this.evaluator.clock);
        this.states[i].phase = "paused";
        this.emit("pause", i);
      }
    }
  }

  checkTimeLimits(i) {
    const tip = this.tips[i];
    const end = this.displayEnd(i);
    if (tip.policy.expiresAt != null && this.evaluator.clock >= tip.policy.expiresAt) this.finish(i, "expired");
    else if (this.evaluator.clock >= end) this.finish(i, "maxDisplayDuration");
  }

  /** When an active tip's display time runs out, or NaN (a number still, which the JIT need not box). */
  displayEnd(i) {
    const state = this.states[i];
    const limit = this.tips[i].policy.maxDisplayDuration;
    if (!counting(state) || limit == null) return NaN;
    return state.activeSince + Math.max(0, Math.trunc(limit * 1000) - state.displayedMillis);
  }

  emit(action, i, reason) {
    this.output.push(this.command(action, i, reason));
  }

  command(action, i, reason) {
    const tip = this.tips[i];
    const command = { action, tip: tip.id, container: tip.container, time: this.now };
    if (tip.anchor != null) command.anchor = tip.anchor;
    if (reason) command.reason = reason;
    return command;
  }
}

export const newTipState = () => ({ phase: "waiting", displayCount: 0, displayedMillis: 0, activeSince: null });
export const isFinished = (state) => state.phase.startsWith("finished");
/** Whether a tip's display time runs: it shows and is visible. */
export const counting = (state) => state.phase === "active" && state.activeSince !== null;
/** Adds a visible stretch to the tip's display time and starts the next one now. */
export function settleTime(state, now) {
  if (!counting(state)) return;
  state.displayedMillis += now - state.activeSince;
  state.activeSince = now;
}

/** The triggers of the tours that have one, in catalog order: the rules a tour gate evaluates. */
export const triggerRules = (tours) => tours.filter((t) => t.trigger).map((t) => t.trigger);
