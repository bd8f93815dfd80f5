// The engine: Evaluator keeps every rule's value up to date from events and context, with bounded
// state per term; Engine schedules tips with the same lifecycle as the Swift WaymarkEngine
// (waiting, active, paused, finished) and answers render commands. Both are checked against the
// scheduling scenarios in conformance/engine/. No browser API is used here.

import { UNIT_MS, printRule } from "./rules.js";
import { compareLiteral, holds, typedValue } from "./values.js";

const windowMillis = (within) => (within === undefined ? -1 : Number(within.slice(0, -1)) * UNIT_MS[within.slice(-1)]);
// A value against a comparison's or a property test's `{cmp, value}` or `{in}`.
const passes = (test, value) => ("in" in test ? test.in.some((l) => compareLiteral(value, "==", l)) : compareLiteral(value, test.cmp, test.value));
// An event matches a pattern by name, by target when the pattern has one, and by every property
// test of its `where`.
const matches = (pattern, name, target, props) => pattern.name === name && (pattern.target === undefined || pattern.target === target)
  && (!pattern.where || pattern.where.every((t) => passes(t, props[t.prop])));

/**
 * Evaluates rules incrementally over events, time and context. Memory is bounded per term (each
 * occurrence, count, sequence and comparison), never by the number of events: a windowed count keeps
 * its k+1 latest times, a sequence the latest start that reached each stage. Terms are shared by
 * every rule that mentions them and keyed by their text, so state survives a new catalog.
 */
export class Evaluator {
  constructor(rules = [], snapshot = undefined) {
    this.now = snapshot?.now ?? null;
    this.context = new Map(Object.entries(snapshot?.context ?? {}));
    this.terms = new Map();
    this.listeners = new Map(); // event name -> the terms that event can change
    this.rules = [];
    const saved = snapshot?.terms ?? {};
    for (const rule of rules) this.rules.push(this.compile(rule, saved));
  }

  compile(rule, saved) {
    if ("not" in rule) return { not: this.compile(rule.not, saved) };
    if ("and" in rule) return { and: rule.and.map((r) => this.compile(r, saved)) };
    if ("or" in rule) return { or: rule.or.map((r) => this.compile(r, saved)) };
    if ("const" in rule) return rule;
    const key = printRule(rule);
    let term = this.terms.get(key);
    if (!term) {
      term = { key, rule, window: windowMillis(rule.within), state: saved[key] ? structuredCloneish(saved[key]) : newTermState(rule) };
      this.terms.set(key, term);
      const names = new Set("seq" in rule ? rule.seq.map((e) => e.name) : "count" in rule ? [rule.count.name] : []);
      for (const name of names) {
        if (!this.listeners.has(name)) this.listeners.set(name, []);
        this.listeners.get(name).push(term);
      }
    }
    return { term };
  }

  /** Moves the clock forward (never back) and returns the current time. */
  advance(time) {
    this.now = this.now === null ? time : Math.max(this.now, time);
    return this.now;
  }

  record(name, target, time, props = {}) {
    this.advance(time);
    const t = this.now;
    for (const term of this.listeners.get(name) ?? []) {
      const { rule, state } = term;
      if ("seq" in rule) {
        const stages = rule.seq;
        if (stages.length === 1) {
          if (matches(stages[0], name, target, props)) state.last = t;
          continue;
        }
        if (state.done) continue;
        // Latest stage first, so that one event never counts for two stages of one start.
        for (let i = stages.length - 2; i >= 0; i--) {
          const start = state.starts[i];
          if (start === null || !matches(stages[i + 1], name, target, props)) continue;
          if (i + 1 === stages.length - 1) {
            if (term.window < 0 || t - start <= term.window) state.done = true;
          } else if (state.starts[i + 1] === null || state.starts[i + 1] < start) {
            state.starts[i + 1] = start;
          }
        }
        if (matches(stages[0], name, target, props)) state.starts[0] = t;
      } else if (matches(rule.count, name, target, props)) {
        if (term.window < 0) state.count = Math.min(state.count + 1, rule.value + 1);
        else {
          state.times.push(t);
          if (state.times.length > rule.value + 1) state.times.shift();
        }
      }
    }
  }

  /** Sets a context value (a Date or {time} is a time, {version} a version); null removes it. */
  setContext(path, value, time) {
    this.advance(time);
    value = typedValue(value);
    if (value === null || value === undefined) this.context.delete(path);
    else this.context.set(path, value);
  }

  /** The value of the i-th rule now. */
  value(index) {
    return this.evaluate(this.rules[index]);
  }

  evaluate(node) {
    if ("const" in node) return node.const;
    if ("not" in node) return !this.evaluate(node.not);
    if ("and" in node) return node.and.every((n) => this.evaluate(n));
    if ("or" in node) return node.or.some((n) => this.evaluate(n));
    return this.termValue(node.term);
  }

  termValue({ rule, window, state }) {
    const now = this.now ?? 0;
    if ("seq" in rule) {
      if (rule.seq.length > 1) return state.done;
      return state.last !== null && (window < 0 || now - state.last <= window);
    }
    if ("count" in rule) {
      const count = window < 0 ? state.count : state.times.filter((t) => now - t <= window).length;
      return holds(rule.cmp, count === rule.value ? 0 : count < rule.value ? -1 : 1);
    }
    return passes(rule, this.context.get(rule.path));
  }

  /** The next moment after now when a rule can change without an event, or null. */
  nextChange() {
    const now = this.now ?? 0;
    let next = Infinity;
    for (const { rule, window, state } of this.terms.values()) {
      if (window < 0) continue;
      const times = "count" in rule ? state.times : rule.seq.length === 1 && state.last !== null ? [state.last] : [];
      for (const t of times) if (t + window + 1 > now) next = Math.min(next, t + window + 1);
    }
    return next === Infinity ? null : next;
  }

  snapshot() {
    const terms = {};
    for (const [key, term] of this.terms) terms[key] = term.state;
    return { now: this.now, context: Object.fromEntries(this.context), terms: structuredCloneish(terms) };
  }
}

function newTermState(rule) {
  if ("seq" in rule) return rule.seq.length === 1 ? { last: null } : { starts: rule.seq.slice(1).map(() => null), done: false };
  if ("count" in rule) return { count: 0, times: [] };
  return {};
}
const structuredCloneish = (value) => JSON.parse(JSON.stringify(value));

const FREQUENCY_MS = { immediate: 0, hourly: 3600000, daily: 86400000, weekly: 604800000, monthly: 2592000000 };

/**
 * Decides, on every event, which tip shows in which container, as the Swift engine does: a tip shows
 * when it is waiting, its trigger is true and its dismissal false, its container visible and free,
 * every earlier tip of its group finished, and its policy and the display frequency allow. Among
 * tips wanting one container the highest priority wins, then catalog order. Time-driven changes
 * happen at their exact moment. Every call takes the time (ms) and returns render commands:
 * `{action: "show"|"hide"|"pause"|"resume", tip, container, anchor, reason, time}`.
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
    this.tips = tips.map((tip) => ({ priority: 0, order: 0, policy: {}, ...tip }));
    this.gap = FREQUENCY_MS[frequency] ?? 0;
    this.frequency = frequency;
    const rules = [];
    for (const tip of this.tips) rules.push(tip.trigger, tip.dismissal ?? { const: false });
    this.evaluator = new Evaluator(rules, snapshot?.evaluator);
    this.containers = [];
    for (const tip of this.tips) if (!this.containers.includes(tip.container)) this.containers.push(tip.container);
    this.byContainer = new Map(this.containers.map((c) => [c, []]));
    this.tips.forEach((tip, i) => this.byContainer.get(tip.container).push(i));
    for (const list of this.byContainer.values()) list.sort((a, b) => this.tips[b].priority - this.tips[a].priority || a - b);
    // Per tip, the tips of its group with a lower order, which must finish first.
    this.predecessors = this.tips.map((tip) =>
      tip.group == null ? [] : this.tips.flatMap((other, j) => (other.group === tip.group && other.order < tip.order ? [j] : [])));
    this.hidden = new Set(snapshot?.hidden ?? []);
    this.lastShow = snapshot?.lastShow ?? null;
    this.retired = { ...(snapshot?.retired ?? {}) };
    const saved = { ...(snapshot?.states ?? {}), ...this.retired };
    this.states = this.tips.map((tip) => {
      const state = saved[tip.id];
      delete this.retired[tip.id];
      return state ? { ...state } : { phase: "waiting", displayCount: 0, displayedMillis: 0, activeSince: null };
    });
    for (const [id, state] of Object.entries(snapshot?.states ?? {})) {
      if (!this.tips.some((tip) => tip.id === id)) this.retired[id] = state;
    }
    this.occupant = new Map();
    this.states.forEach((state, i) => {
      if (state.phase === "active" || state.phase === "paused") this.occupant.set(this.tips[i].container, i);
    });
    this.output = [];
  }

  get now() { return this.evaluator.now; }

  record(name, target, time, props) { return this.perform(time, () => this.evaluator.record(name, target ?? undefined, this.now, props)); }
  advance(time) { return this.perform(time, () => {}); }
  setContext(values, time) {
    return this.perform(time, () => {
      for (const path of Object.keys(values).sort()) this.evaluator.setContext(path, values[path], this.now);
    });
  }
  setContainer(container, visible, time) { return this.perform(time, () => this.changeVisibility(container, visible)); }
  /** Says whether a showing tip is where the user can see it (the Swift engine's `setTip`):
   *  display time counts only while it is; a tip shows visible until said otherwise. */
  setTip(id, visible, time) {
    return this.perform(time, () => {
      const i = this.tips.findIndex((t) => t.id === id);
      const state = this.states[i];
      if (state?.phase !== "active" || visible === counting(state)) return;
      if (visible) state.activeSince = this.now;
      else {
        settleTime(state, this.now);
        state.activeSince = null;
      }
    });
  }
  close(id, time) {
    return this.perform(time, () => {
      const tip = this.tips.findIndex((t) => t.id === id);
      if (tip >= 0) this.finish(tip, "closed");
    });
  }

  /** Replaces the catalog: tips keep their states by id, rules their terms by text. */
  update(tips, time) {
    const commands = this.advance(time);
    const kept = new Map(tips.map((t) => [t.id, t.container]));
    this.tips.forEach((tip, i) => {
      const phase = this.states[i].phase;
      if (phase !== "active" && phase !== "paused") return;
      if (!kept.has(tip.id)) this.finish(i, "removed");
      else if (kept.get(tip.id) !== tip.container) {
        this.finish(i, "removed");
        this.states[i] = { phase: "waiting", displayCount: 0, displayedMillis: 0, activeSince: null };
      }
    });
    this.tips.forEach((tip, i) => {
      if (!kept.has(tip.id) && !isFinished(this.states[i])) this.states[i].phase = "finished:removed";
    });
    commands.push(...this.takeOutput());
    const next = new Engine(tips, { frequency: this.frequency, snapshot: this.snapshot() });
    Object.assign(this, next);
    return commands.concat(this.advance(time));
  }

  /** A tip's phase: waiting, active, paused or finished:REASON; undefined for an unknown id. */
  phase(id) {
    const i = this.tips.findIndex((t) => t.id === id);
    return i >= 0 ? this.states[i].phase : this.retired[id]?.phase;
  }

  /** The active tips, as show commands: what a renderer draws after a reload. */
  activeTips() {
    return this.tips.flatMap((tip, i) => (this.states[i].phase === "active" ? [this.command("show", i)] : []));
  }

  /** No later than the next moment something can change without an event; null: nothing will. */
  nextChange() {
    const now = this.now ?? 0;
    let next = this.evaluator.nextChange() ?? Infinity;
    this.tips.forEach((tip, i) => {
      const state = this.states[i];
      if (isFinished(state)) return;
      if (tip.policy.expiresAt != null && tip.policy.expiresAt > now) next = Math.min(next, tip.policy.expiresAt);
      const end = this.displayEnd(i);
      if (end !== null && end > now) next = Math.min(next, end);
    });
    if (this.gap > 0 && this.lastShow !== null && this.lastShow + this.gap > now) next = Math.min(next, this.lastShow + this.gap);
    return next === Infinity ? null : next;
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

  /** What the user has seen and done with each tip, by id (tips this catalog lacks too; a tip
   *  showing now with its time so far), to share with their other devices:
   *  `{shown, displayedMillis, finished}`, `finished` a reason. */
  progress() {
    const out = {};
    for (const [id, state] of Object.entries(this.tipStates())) {
      const finished = ENDINGS[state.phase.slice(9)] ? state.phase.slice(9) : undefined;
      const displayedMillis = state.displayedMillis + (counting(state) ? this.now - state.activeSince : 0);
      if (state.displayCount || displayedMillis || finished) {
        out[id] = { shown: state.displayCount, displayedMillis, ...(finished && { finished }) };
      }
    }
    return out;
  }

  /** Takes in the user's progress from their other devices (the Swift engine's merge): counts
   *  rise to the larger, the stronger ending wins, and a tip finished elsewhere, or there as often
   *  or as long as its policy allows, finishes here. Nothing is taken back, so merging again
   *  changes nothing. */
  merge(progress, time) {
    return this.perform(time, () => {
      for (const id of Object.keys(progress).sort()) {
        const remote = progress[id];
        const i = this.tips.findIndex((t) => t.id === id);
        const state = i >= 0 ? this.states[i] : (this.retired[id] ??= { phase: "waiting", displayCount: 0, displayedMillis: 0, activeSince: null });
        // A showing tip's time so far is part of its total before the larger is taken, so what
        // arrives at one moment comes to the same state in any order.
        settleTime(state, this.now);
        state.displayCount = Math.max(state.displayCount, remote.shown ?? 0);
        state.displayedMillis = Math.max(state.displayedMillis, remote.displayedMillis ?? 0);
        let reason = ENDINGS[remote.finished] ? remote.finished : null;
        const policy = this.tips[i]?.policy ?? {};
        if (!reason && i >= 0 && state.phase !== "active" && !isFinished(state)) {
          if (policy.maxDisplayCount != null && state.displayCount >= policy.maxDisplayCount) reason = "maxDisplayCount";
          else if (policy.maxDisplayDuration != null && state.displayedMillis >= Math.trunc(policy.maxDisplayDuration * 1000)) reason = "maxDisplayDuration";
        }
        if (!reason) continue;
        if (!isFinished(state) && i >= 0) this.finish(i, reason);
        else if ((ENDINGS[state.phase.slice(9)] ?? -1) < ENDINGS[reason]) state.phase = `finished:${reason}`;
      }
    });
  }

  // The step: play every deadline up to the time at its own moment, then the input, then settle.
  perform(time, change) {
    for (;;) {
      const next = this.now === null ? null : this.nextChange();
      if (next === null || next > time) break;
      this.evaluator.advance(next);
      this.settle();
    }
    this.evaluator.advance(time);
    change();
    this.settle();
    return this.takeOutput();
  }

  takeOutput() {
    const output = this.output;
    this.output = [];
    return output;
  }

  settle() {
    this.tips.forEach((tip, i) => {
      if (isFinished(this.states[i])) return;
      this.checkTimeLimits(i);
      if (!isFinished(this.states[i]) && this.evaluator.value(i * 2 + 1)) this.finish(i, "dismissed");
    });
    this.fill();
  }

  fill() {
    const now = this.now;
    if (this.gap > 0 && this.lastShow !== null && now < this.lastShow + this.gap) return;
    const candidates = [];
    for (const container of this.containers) {
      if (this.occupant.has(container) || this.hidden.has(container)) continue;
      const best = this.byContainer.get(container).find((i) => this.isEligible(i));
      if (best !== undefined) candidates.push(best);
    }
    candidates.sort((a, b) => this.tips[b].priority - this.tips[a].priority || a - b);
    for (const [position, tip] of candidates.entries()) {
      if (position > 0 && this.gap > 0) break; // the frequency allows one tip now; the others wait
      this.show(tip);
    }
  }

  isEligible(i) {
    const tip = this.tips[i];
    if (this.states[i].phase !== "waiting" || !this.evaluator.value(i * 2) || this.evaluator.value(i * 2 + 1)) return false;
    if (tip.policy.expiresAt != null && this.now >= tip.policy.expiresAt) return false;
    return this.predecessors[i].every((j) => isFinished(this.states[j]));
  }

  show(i) {
    Object.assign(this.states[i], { phase: "active", activeSince: this.sightReported ? null : this.now });
    this.states[i].displayCount += 1;
    this.occupant.set(this.tips[i].container, i);
    this.lastShow = this.now;
    this.emit("show", i);
  }

  finish(i, reason) {
    const state = this.states[i];
    if (isFinished(state)) return;
    settleTime(state, this.now);
    if (state.phase === "active" || state.phase === "paused") {
      this.emit("hide", i, reason);
      this.occupant.delete(this.tips[i].container);
    }
    state.phase = `finished:${reason}`;
  }

  changeVisibility(container, visible) {
    if (visible) {
      if (!this.hidden.delete(container)) return;
      const i = this.occupant.get(container);
      if (i !== undefined && this.states[i].phase === "paused") {
        Object.assign(this.states[i], { phase: "active", activeSince: this.sightReported ? null : this.now });
        this.states[i].displayCount += 1;
        this.emit("resume", i);
      }
    } else {
      if (this.hidden.has(container)) return;
      this.hidden.add(container);
      const i = this.occupant.get(container);
      if (i === undefined || this.states[i].phase !== "active") return;
      const limit = this.tips[i].policy.maxDisplayCount;
      if (limit != null && this.states[i].displayCount >= limit) this.finish(i, "maxDisplayCount");
      else {
        settleTime(this.states[i], this.now);
        this.states[i].phase = "paused";
        this.emit("pause", i);
      }
    }
  }

  checkTimeLimits(i) {
    const tip = this.tips[i];
    const end = this.displayEnd(i);
    if (tip.policy.expiresAt != null && this.now >= tip.policy.expiresAt) this.finish(i, "expired");
    else if (end !== null && this.now >= end) this.finish(i, "maxDisplayDuration");
  }

  /** When an active tip's display time runs out, or null. */
  displayEnd(i) {
    const state = this.states[i];
    const limit = this.tips[i].policy.maxDisplayDuration;
    if (!counting(state) || limit == null) return null;
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

const isFinished = (state) => state.phase.startsWith("finished");
/** Whether a tip's display time runs: it shows and is visible. */
const counting = (state) => state.phase === "active" && state.activeSince !== null;
/** Adds a visible stretch to the tip's display time and starts the next one now. */
function settleTime(state, now) {
  if (!counting(state)) return;
  state.displayedMillis += now - state.activeSince;
  state.activeSince = now;
}

// The endings a user's devices share, by strength: of two, what the user did outranks what a
// policy decided. (A tip taken out of a catalog is no ending the user made.)
const ENDINGS = { expired: 1, maxDisplayDuration: 2, maxDisplayCount: 3, dismissed: 4, closed: 5 };

/**
 * Which tour opens by its trigger, as every SDK decides it (docs/rules.md#tours): one at a time;
 * when none is open, the first in catalog order whose trigger holds and that has not ended, at
 * the furthest page reached. A tour that ended, finished or dismissed, here or on another device,
 * never opens by its trigger again; one left open opens again where the user was.
 * `progress` is { id: { page, finished, dismissed } }, as the user's devices share it.
 * tours: `[{id, trigger, pages}]`, the trigger a rule in JSON form (none: the app opens it).
 */
export class TourGate {
  constructor(tours, progress = {}, snapshot = undefined) {
    this.tours = tours;
    this.triggered = tours.filter((t) => t.trigger);
    this.evaluator = new Evaluator(this.triggered.map((t) => t.trigger), snapshot);
    this.progress = progress;
    this.open = null;
  }

  ended(id) {
    const p = this.progress[id];
    return Boolean(p?.finished || p?.dismissed);
  }

  /** Takes in progress (a join: the further page, each ending either has); whether it grew. An
   *  open tour that ended elsewhere is no longer open. */
  merge(other) {
    let grew = false;
    for (const [id, p] of Object.entries(other)) {
      const a = this.progress[id] ?? { page: 0, finished: false };
      const b = { page: Math.max(a.page, p.page ?? 0), finished: a.finished || Boolean(p.finished) };
      if (a.dismissed || p.dismissed) b.dismissed = true;
      grew ||= JSON.stringify(a) !== JSON.stringify(b);
      this.progress[id] = b;
    }
    if (this.ended(this.open)) this.open = null;
    return grew;
  }

  reached(id, page) {
    return this.merge({ [id]: { page } });
  }

  /** The user ended a tour at `page`: "finished" or "dismissed". */
  end(id, page, ending) {
    if (this.open === id) this.open = null;
    return this.merge({ [id]: { page, [ending]: true } });
  }

  /** A button of `kind` pressed on `page`: next moves on (on the last page it finishes), dismiss
   *  dismisses, route and tour finish (and a tour button's tour is open), url changes nothing. */
  pressed(id, page, kind, to) {
    if (kind === "next") return page + 1 < this.tours.find((t) => t.id === id)?.pages ? this.reached(id, page + 1) : this.end(id, page, "finished");
    const ending = kind === "dismiss" ? "dismissed" : (kind === "route" || kind === "tour") && "finished";
    const grew = Boolean(ending) && this.end(id, page, ending);
    if (kind === "tour" && to) this.open = to;
    return grew;
  }

  /** The tour to open now, marked open: { tour, page }, or null. */
  due() {
    if (this.open) return null;
    const tour = this.triggered.find((t, i) => this.evaluator.value(i) && !this.ended(t.id));
    if (!tour) return null;
    this.open = tour.id;
    return { tour: tour.id, page: Math.min(this.progress[tour.id]?.page ?? 0, Math.max(tour.pages - 1, 0)) };
  }
}
