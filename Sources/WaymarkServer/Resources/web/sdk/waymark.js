// waymark.js: Waymark's web SDK. One ES module, no dependencies, no build step.
//
//   import { Waymark } from "https://waymark.example.com/sdk/waymark.js";
//   Waymark.start({ key: "wm_client_...", server: "https://waymark.example.com", user: "u42" });
//
// It has three layers, in this order in the file:
//   1. the rule language: parseRule (text), ruleFromJSON (the server's JSON form), printRule;
//   2. the engine: Evaluator (incremental, bounded memory per term) and Engine (the scheduler with
//      the same lifecycle as the Swift WaymarkEngine: waiting, active, paused, finished);
//   3. the browser client: catalog fetch with ETag and an offline copy, event capture, a queue that
//      survives reloads, renderers (tooltip, spotlight, pointer, banner, modal), tours with media,
//      read-to-bottom credits, narration, and pausing around full-screen video.
// Layers 1 and 2 touch no browser API, so node's test runner checks them against conformance/.

// ---------------------------------------------------------------------------------------------
// 1. The rule language
// ---------------------------------------------------------------------------------------------

/** The limits a rule must respect, so that a rule from anywhere costs bounded work. */
export const LIMITS = Object.freeze({ maxLength: 4096, maxDepth: 32, maxCount: 10000, maxWindowDays: 3650 });
const KEYWORDS = new Set(["and", "or", "not", "then", "within", "count", "in", "true", "false"]);
const UNIT_MS = { s: 1000, m: 60000, h: 3600000, d: 86400000, w: 604800000 };
const COMPARATORS = ["==", "!=", ">=", "<=", ">", "<"];
const ATOM_EXPECTATION = "an event, a comparison, count(...), true, false, NOT or (";
const LITERAL_EXPECTATION = 'a literal: a number, a "string", true, false or a version such as v1.3';
const COMPARATOR_EXPECTATION = "a comparison operator: ==, !=, >=, <=, > or <";

/** An error in a rule's text: code (syntax, tooLong, tooDeep, outOfRange, invalidComparison,
 *  reservedWord), message, what was expected, and the 1-based line and column (in code points). */
export class RuleError extends Error {
  constructor(code, message, expected, line, column, offset) {
    super(`${message} at ${line}:${column}` + (expected ? `, expected ${expected}` : ""));
    Object.assign(this, { name: "RuleError", code, reason: message, expected, line, column, offset });
  }
}

const isDigit = (c) => c !== undefined && c >= "0" && c <= "9";
const isNameChar = (c) => c !== undefined && /^[A-Za-z0-9_-]$/.test(c);
const grouped = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/**
 * Parses a rule's text into its JSON form, the same objects the server ships:
 * `{"or":[{"seq":[{"name":"tap","target":"search"}]},{"seq":[{"name":"scroll"}],"within":"30s"}]}`.
 * Throws a RuleError with the position on any text that is not a rule.
 */
export function parseRule(text) {
  const p = new RuleParser(String(text));
  if (p.chars.length > LIMITS.maxLength) {
    throw p.error("tooLong", `the rule is longer than ${grouped(LIMITS.maxLength)} characters`, undefined, LIMITS.maxLength);
  }
  const rule = p.parseOr();
  p.skipSpace();
  if (!p.atEnd) throw p.unexpected("AND, OR or the end of the rule");
  return rule;
}

class RuleParser {
  constructor(text) {
    this.chars = Array.from(text); // code points, as the Swift parser counts Unicode scalars
    this.pos = 0;
    this.depth = 0;
  }
  get atEnd() { return this.pos >= this.chars.length; }
  get cur() { return this.chars[this.pos]; }

  parseOr() {
    const operands = [this.parseAnd()];
    while (this.consumeKeyword("or")) operands.push(this.parseAnd());
    return operands.length === 1 ? operands[0] : { or: operands };
  }
  parseAnd() {
    const operands = [this.parseNot()];
    while (this.consumeKeyword("and")) operands.push(this.parseNot());
    return operands.length === 1 ? operands[0] : { and: operands };
  }
  parseNot() {
    this.skipSpace();
    const start = this.pos;
    if (this.consumeKeyword("not")) {
      this.enterLevel(start);
      const operand = this.parseNot();
      this.depth -= 1;
      return { not: operand };
    }
    return this.parseAtom();
  }
  parseAtom() {
    this.skipSpace();
    const start = this.pos;
    const c = this.cur;
    if (c === undefined) throw this.unexpected(ATOM_EXPECTATION);
    if (c === "(") {
      this.enterLevel(start);
      this.pos += 1;
      const inner = this.parseOr();
      this.skipSpace();
      if (this.cur !== ")") throw this.unexpected("AND, OR or )");
      this.pos += 1;
      this.depth -= 1;
      return inner;
    }
    if (!isNameChar(c)) throw this.unexpected(ATOM_EXPECTATION);
    const word = this.peekWord();
    const lower = word.toLowerCase();
    if (lower === "true" || lower === "false") {
      this.pos += word.length;
      return { const: lower === "true" };
    }
    if (lower === "count") {
      this.pos += word.length;
      return this.parseCount();
    }
    if (KEYWORDS.has(lower)) throw this.unexpected(ATOM_EXPECTATION);
    if (this.chars[this.pos + word.length] === ".") return this.parseComparison();
    return this.parseSequence();
  }
  parseSequence() {
    const events = [this.parseEvent()];
    while (this.consumeKeyword("then")) {
      this.skipSpace();
      events.push(this.parseEvent());
    }
    return withWindow({ seq: events }, this.parseOptionalWindow());
  }
  parseCount() {
    this.skipSpace();
    if (this.cur !== "(") throw this.unexpected("( after count");
    this.pos += 1;
    this.skipSpace();
    const event = this.parseEvent();
    this.skipSpace();
    if (this.cur !== ")") throw this.unexpected(")");
    this.pos += 1;
    const cmp = this.parseComparator(COMPARATOR_EXPECTATION);
    this.skipSpace();
    const start = this.pos;
    const threshold = this.readInteger();
    if (threshold === null || this.cur === ".") {
      this.pos = start;
      throw this.unexpected(`a whole number from 0 to ${grouped(LIMITS.maxCount)}`);
    }
    if (threshold > LIMITS.maxCount) {
      throw this.error("outOfRange", `count threshold ${threshold} is larger than ${grouped(LIMITS.maxCount)}`, undefined, start);
    }
    return withWindow({ count: event, cmp, value: threshold }, this.parseOptionalWindow());
  }
  parseComparison() {
    const components = [this.parseName()];
    while (this.cur === ".") {
      this.pos += 1;
      components.push(this.parseName());
    }
    const path = components.join(".");
    if (this.consumeKeyword("in")) {
      this.skipSpace();
      if (this.cur !== "[") throw this.unexpected("[ after in");
      this.pos += 1;
      const literals = [this.parseLiteral()];
      for (;;) {
        this.skipSpace();
        if (this.cur === ",") {
          this.pos += 1;
          literals.push(this.parseLiteral());
        } else if (this.cur === "]") {
          this.pos += 1;
          return { path, in: literals };
        } else {
          throw this.unexpected(", or ]");
        }
      }
    }
    this.skipSpace();
    const operatorStart = this.pos;
    const cmp = this.parseComparator(`${COMPARATOR_EXPECTATION}, or in`);
    const value = this.parseLiteral();
    if (typeof value === "boolean" && cmp !== "==" && cmp !== "!=") {
      throw this.error("invalidComparison", `operator ${cmp} does not apply to booleans`, "== or !=", operatorStart);
    }
    return { path, cmp, value };
  }
  parseEvent() {
    const name = this.parseName();
    if (this.cur !== ":") return { name };
    this.pos += 1;
    return { name, target: this.parseName() };
  }
  parseName() {
    const start = this.pos;
    if (!isNameChar(this.cur)) throw this.unexpected("a name");
    const word = this.peekWord();
    if (KEYWORDS.has(word.toLowerCase())) {
      throw this.error("reservedWord", `"${word}" is a keyword and cannot be a name`, undefined, start);
    }
    this.pos += word.length;
    return word;
  }
  parseComparator(expected) {
    this.skipSpace();
    const two = (this.cur ?? "") + (this.chars[this.pos + 1] ?? "");
    const cmp = COMPARATORS.find((c) => (c.length === 2 ? two === c : this.cur === c));
    if (!cmp) throw this.unexpected(expected);
    this.pos += cmp.length;
    return cmp;
  }
  parseLiteral() {
    this.skipSpace();
    const start = this.pos;
    const c = this.cur;
    if (c === undefined) throw this.unexpected(LITERAL_EXPECTATION);
    if (c === '"') return this.parseString();
    if (c === "-" || isDigit(c)) return this.parseNumber();
    if ((c === "v" || c === "V") && isDigit(this.chars[this.pos + 1])) {
      this.pos += 1;
      const components = [];
      do {
        if (components.length > 0) this.pos += 1;
        const componentStart = this.pos;
        const value = this.readInteger();
        if (value === null) {
          this.pos = start;
          throw this.error("syntax", `invalid version "${this.peekWordOrLiteral()}"`, LITERAL_EXPECTATION, start);
        }
        if (value > 2147483647) throw this.error("outOfRange", "version component is too large", undefined, componentStart);
        components.push(value);
      } while (this.cur === "." && isDigit(this.chars[this.pos + 1]));
      this.expectLiteralEnd(start);
      return { version: components.join(".") };
    }
    if (isNameChar(c)) {
      const word = this.peekWord();
      const lower = word.toLowerCase();
      if (lower === "true" || lower === "false") {
        this.pos += word.length;
        return lower === "true";
      }
      throw this.error("syntax", `unexpected "${word}"`, `a literal (strings are written in quotes: "${word}")`, start);
    }
    throw this.unexpected(LITERAL_EXPECTATION);
  }
  parseString() {
    const start = this.pos;
    this.pos += 1;
    let text = "";
    while (this.cur !== undefined) {
      const c = this.cur;
      this.pos += 1;
      if (c === '"') return text;
      if (c === "\\") {
        const escaped = this.cur;
        if (escaped !== '"' && escaped !== "\\") {
          throw this.error("syntax", "unknown escape in a string", '\\" or \\\\', this.pos - 1);
        }
        text += escaped;
        this.pos += 1;
      } else {
        text += c;
      }
    }
    throw this.error("syntax", "unterminated string", 'a closing "', start);
  }
  parseNumber() {
    const start = this.pos;
    if (this.cur === "-") this.pos += 1;
    if (this.readDigits() === 0) {
      this.pos = start;
      throw this.error("syntax", `invalid number "${this.peekWordOrLiteral()}"`, LITERAL_EXPECTATION, start);
    }
    if (this.cur === "." && isDigit(this.chars[this.pos + 1])) {
      this.pos += 1;
      this.readDigits();
    }
    this.expectLiteralEnd(start);
    const text = this.chars.slice(start, this.pos).join("");
    const value = Number(text);
    if (!Number.isFinite(value)) throw this.error("outOfRange", `number ${text} is too large`, undefined, start);
    return value;
  }
  expectLiteralEnd(start) {
    if (isNameChar(this.cur) || this.cur === ".") {
      this.pos = start;
      throw this.error("syntax", `invalid literal "${this.peekWordOrLiteral()}"`, LITERAL_EXPECTATION, start);
    }
  }
  parseOptionalWindow() {
    if (!this.consumeKeyword("within")) return undefined;
    this.skipSpace();
    const start = this.pos;
    const word = isNameChar(this.cur) ? this.peekWord() : "";
    const expected = "a duration such as 30s, 5m, 2h, 7d or 1w";
    const unit = word.slice(-1);
    const digits = word.slice(0, -1);
    if (word.length < 2 || !(unit in UNIT_MS) || !/^[0-9]+$/.test(digits)) {
      if (word === "") throw this.unexpected(expected);
      throw this.error("syntax", `invalid duration "${word}"`, expected, start);
    }
    const maxAmount = Math.floor((LIMITS.maxWindowDays * 86400) / (UNIT_MS[unit] / 1000));
    if (Number(digits) > maxAmount) {
      throw this.error("outOfRange", `window ${word} is longer than ${grouped(LIMITS.maxWindowDays)} days`, undefined, start);
    }
    this.pos += word.length;
    return `${Number(digits)}${unit}`;
  }

  skipSpace() {
    while (this.cur === " " || this.cur === "\t" || this.cur === "\n" || this.cur === "\r") this.pos += 1;
  }
  consumeKeyword(keyword) {
    const saved = this.pos;
    this.skipSpace();
    if (isNameChar(this.cur) && this.peekWord().toLowerCase() === keyword) {
      this.pos += keyword.length;
      return true;
    }
    this.pos = saved;
    return false;
  }
  peekWord() {
    let end = this.pos;
    while (isNameChar(this.chars[end])) end += 1;
    return this.chars.slice(this.pos, end).join("");
  }
  peekWordOrLiteral() {
    let end = this.pos;
    while (isNameChar(this.chars[end]) || this.chars[end] === ".") end += 1;
    return this.chars.slice(this.pos, end).join("");
  }
  readDigits() {
    const start = this.pos;
    while (isDigit(this.cur)) this.pos += 1;
    return this.pos - start;
  }
  /** Digits as a whole number (saturating), or null when none or when a name runs on. */
  readInteger() {
    if (!isDigit(this.cur)) return null;
    const start = this.pos;
    let value = 0;
    while (isDigit(this.cur)) {
      value = Math.min(value * 10 + (this.cur.charCodeAt(0) - 48), Number.MAX_SAFE_INTEGER);
      this.pos += 1;
    }
    if (isNameChar(this.cur)) {
      this.pos = start;
      return null;
    }
    return value;
  }
  enterLevel(start) {
    this.depth += 1;
    if (this.depth > LIMITS.maxDepth) {
      throw this.error("tooDeep", `the rule nests deeper than ${LIMITS.maxDepth} levels`, undefined, start);
    }
  }
  unexpected(expected) {
    const c = this.cur;
    if (c === undefined) return this.error("syntax", "unexpected end of the rule", expected, this.pos);
    let found;
    if (isNameChar(c)) found = `"${this.peekWord()}"`;
    else if (c === '"') found = "string";
    else if (/\s/u.test(c) || c.codePointAt(0) < 0x20 || c.codePointAt(0) === 0x7f) {
      found = `character U+${c.codePointAt(0).toString(16).toUpperCase()}`;
    } else found = `"${c}"`;
    return this.error("syntax", `unexpected ${found}`, expected, this.pos);
  }
  error(code, message, expected, offset) {
    let line = 1;
    let column = 1;
    for (const c of this.chars.slice(0, Math.min(offset, this.chars.length))) {
      if (c === "\n") {
        line += 1;
        column = 1;
      } else column += 1;
    }
    if (offset > this.chars.length) column += offset - this.chars.length;
    return new RuleError(code, message, expected, line, column, offset);
  }
}

function withWindow(node, within) {
  if (within !== undefined) node.within = within;
  return node;
}

/** The rule as text, in a canonical form that parses back to the same rule. */
export function printRule(rule) {
  return print(rule, 0);
  // Precedence: 0 = OR, 1 = AND, 2 = NOT and atoms.
  function print(r, context) {
    if ("const" in r) return r.const ? "true" : "false";
    if ("not" in r) return "NOT " + print(r.not, 2);
    if ("and" in r) return paren(r.and.map((o) => print(o, 1)).join(" AND "), context > 1);
    if ("or" in r) return paren(r.or.map((o) => print(o, 0)).join(" OR "), context > 0);
    if ("seq" in r) return r.seq.map(printEvent).join(" THEN ") + (r.within ? ` within ${r.within}` : "");
    if ("count" in r) return `count(${printEvent(r.count)}) ${r.cmp} ${r.value}` + (r.within ? ` within ${r.within}` : "");
    if ("in" in r) return `${r.path} in [${r.in.map(printLiteral).join(", ")}]`;
    return `${r.path} ${r.cmp} ${printLiteral(r.value)}`;
  }
  function paren(text, needed) { return needed ? `(${text})` : text; }
}
const printEvent = (e) => (e.target === undefined || e.target === null ? e.name : `${e.name}:${e.target}`);
function printLiteral(value) {
  if (typeof value === "string") return '"' + value.replace(/[\\"]/g, (c) => "\\" + c) + '"';
  if (typeof value === "object") return "v" + value.version;
  return String(value);
}

/** Reads a rule in the server's JSON form, accepting exactly what the parser could produce. */
export function ruleFromJSON(json) {
  // The discriminating key decides the shape, as in the Swift decoder; other keys are errors.
  const shapes = { const: ["const"], not: ["not"], and: ["and"], or: ["or"], seq: ["seq", "within"], count: ["count", "cmp", "value", "within"] };
  check(json);
  const text = printRule(json);
  const reparsed = parseRule(text);
  if (printRule(reparsed) !== text) throw new TypeError(`invalid rule: ${text} does not read back as the same rule`);
  return reparsed;

  function check(node) {
    if (node === null || typeof node !== "object" || Array.isArray(node)) throw new TypeError("a rule must be an object");
    const keys = Object.keys(node);
    const kind = Object.keys(shapes).find((k) => k in node);
    const shape = kind ? shapes[kind] : "path" in node ? ("in" in node ? ["path", "in"] : ["path", "cmp", "value"]) : null;
    if (!shape) throw new TypeError("a rule needs one of the keys const, not, and, or, seq, count or path");
    const extra = keys.find((k) => !shape.includes(k));
    if (extra !== undefined) throw new TypeError(`unexpected key "${extra}" in a rule`);
    if ("not" in node) check(node.not);
    for (const list of [node.and, node.or]) {
      if (list === undefined) continue;
      if (!Array.isArray(list) || list.length < 2) throw new TypeError("AND and OR need at least two operands");
      list.forEach(check);
    }
    if ("seq" in node && (!Array.isArray(node.seq) || node.seq.length === 0)) throw new TypeError("a sequence needs at least one event");
    if ("in" in node && (!Array.isArray(node.in) || node.in.length === 0)) throw new TypeError("in [...] needs at least one literal");
  }
}

// ---------------------------------------------------------------------------------------------
// Values and time
// ---------------------------------------------------------------------------------------------

/** Compares strings by code point, which is the UTF-8 byte order the language specifies. */
function compareStrings(a, b) {
  const x = Array.from(a, (c) => c.codePointAt(0));
  const y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

/** A version made only of digits and dots ("1.10.2") as numbers, or null. */
function readVersion(text) {
  if (!/^[0-9]+(\.[0-9]+)*$/.test(text)) return null;
  const parts = text.split(".").map(Number);
  return parts.every(Number.isSafeInteger) ? parts : null;
}
function compareVersions(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
function holds(cmp, order) {
  switch (cmp) {
    case "==": return order === 0;
    case "!=": return order !== 0;
    case ">=": return order >= 0;
    case "<=": return order <= 0;
    case ">": return order > 0;
    default: return order < 0;
  }
}

/** A context value compared with a literal: a missing value or another type is false, even for !=. */
function compareLiteral(value, cmp, literal) {
  if (value === undefined || value === null) return false;
  if (typeof literal === "number") return typeof value === "number" && holds(cmp, value === literal ? 0 : value < literal ? -1 : 1);
  if (typeof literal === "string") return typeof value === "string" && holds(cmp, compareStrings(value, literal));
  if (typeof literal === "boolean") {
    if (typeof value !== "boolean") return false;
    return cmp === "==" ? value === literal : cmp === "!=" ? value !== literal : false;
  }
  if (typeof value !== "string") return false;
  const version = readVersion(value);
  return version !== null && holds(cmp, compareVersions(version, literal.version.split(".").map(Number)));
}

/** Milliseconds since 1970 for an RFC 3339 date-time, or null. */
export function parseTime(text) {
  const m = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/.exec(String(text));
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 60) return null;
  const millis = m[7] ? Number((m[7] + "00").slice(0, 3)) : 0;
  const offset = m[8] ? 0 : (m[9] === "-" ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11]));
  if (!m[8] && (Number(m[10]) > 23 || Number(m[11]) > 59)) return null;
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, millis);
  return utc.getTime() - offset * 60000;
}

/** RFC 3339 in UTC, with milliseconds only when there are any. */
export function formatTime(millis) {
  return new Date(millis).toISOString().replace(".000Z", "Z");
}

const windowMillis = (within) => (within === undefined ? -1 : Number(within.slice(0, -1)) * UNIT_MS[within.slice(-1)]);
const matches = (pattern, name, target) => pattern.name === name && (pattern.target === undefined || pattern.target === target);

// ---------------------------------------------------------------------------------------------
// 2. The engine
// ---------------------------------------------------------------------------------------------

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

  record(name, target, time) {
    this.advance(time);
    const t = this.now;
    for (const term of this.listeners.get(name) ?? []) {
      const { rule, state } = term;
      if ("seq" in rule) {
        const stages = rule.seq;
        if (stages.length === 1) {
          if (matches(stages[0], name, target)) state.last = t;
          continue;
        }
        if (state.done) continue;
        // Latest stage first, so that one event never counts for two stages of one start.
        for (let i = stages.length - 2; i >= 0; i--) {
          const start = state.starts[i];
          if (start === null || !matches(stages[i + 1], name, target)) continue;
          if (i + 1 === stages.length - 1) {
            if (term.window < 0 || t - start <= term.window) state.done = true;
          } else if (state.starts[i + 1] === null || state.starts[i + 1] < start) {
            state.starts[i + 1] = start;
          }
        }
        if (matches(stages[0], name, target)) state.starts[0] = t;
      } else if (matches(rule.count, name, target)) {
        if (term.window < 0) state.count = Math.min(state.count + 1, rule.value + 1);
        else {
          state.times.push(t);
          if (state.times.length > rule.value + 1) state.times.shift();
        }
      }
    }
  }

  setContext(path, value, time) {
    this.advance(time);
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
    const value = this.context.get(rule.path);
    if ("in" in rule) return rule.in.some((literal) => compareLiteral(value, "==", literal));
    return compareLiteral(value, rule.cmp, rule.value);
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
  constructor(tips, { frequency = "immediate", snapshot } = {}) {
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

  record(name, target, time) { return this.perform(time, () => this.evaluator.record(name, target ?? undefined, this.now)); }
  advance(time) { return this.perform(time, () => {}); }
  setContext(values, time) {
    return this.perform(time, () => {
      for (const path of Object.keys(values).sort()) this.evaluator.setContext(path, values[path], this.now);
    });
  }
  setContainer(container, visible, time) { return this.perform(time, () => this.changeVisibility(container, visible)); }
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
    const states = { ...this.retired };
    // Backwards, so that of two tips with one id the first wins, as the Swift engine has it.
    for (let i = this.tips.length - 1; i >= 0; i--) states[this.tips[i].id] = { ...this.states[i] };
    return { evaluator: this.evaluator.snapshot(), states, hidden: [...this.hidden], lastShow: this.lastShow };
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
    Object.assign(this.states[i], { phase: "active", activeSince: this.now });
    this.states[i].displayCount += 1;
    this.occupant.set(this.tips[i].container, i);
    this.lastShow = this.now;
    this.emit("show", i);
  }

  finish(i, reason) {
    const state = this.states[i];
    if (isFinished(state)) return;
    if (state.phase === "active") state.displayedMillis += this.now - state.activeSince;
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
        Object.assign(this.states[i], { phase: "active", activeSince: this.now });
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
        this.states[i].displayedMillis += this.now - this.states[i].activeSince;
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
    if (state.phase !== "active" || limit == null) return null;
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

// ---------------------------------------------------------------------------------------------
// 3. The browser client
// ---------------------------------------------------------------------------------------------

/** Seconds as m:ss, the length a narration button shows. */
export function formatDuration(seconds) {
  const whole = Math.max(0, Math.round(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

const RTL_LANGUAGES = new Set(["ar", "he", "fa", "ur", "ps", "sd", "ug", "yi", "dv", "ckb"]);
const MAX_QUEUE = 10000;
const BATCH = 100;

/** A time-ordered event id (UUIDv7, RFC 9562): the server's index stays in insertion order. */
let lastIdMillis = 0;
let idCounter = 0;
export function eventID(millis = Date.now()) {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  if (millis <= lastIdMillis) {
    millis = lastIdMillis;
    idCounter = (idCounter + 1) & 0xfff;
    if (idCounter === 0) millis = ++lastIdMillis;
  } else {
    idCounter = bytes[6] & 0x07; // a random start that leaves room to count up
  }
  lastIdMillis = millis;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = millis % 256;
    millis = Math.floor(millis / 256);
  }
  bytes[6] = 0x70 | (idCounter >> 8);
  bytes[7] = idCounter & 0xff;
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A name the rule language accepts ([A-Za-z0-9_-]+), made from any text, or undefined. */
function asName(text) {
  const name = String(text ?? "").trim().replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 64);
  return name || undefined;
}

// Only these survive into the page; everything else is dropped with its children kept as text.
const ALLOWED_TAGS = new Set(["P", "BR", "STRONG", "B", "EM", "I", "U", "S", "CODE", "PRE", "BLOCKQUOTE", "UL", "OL", "LI", "A", "IMG", "H1", "H2", "H3", "H4", "H5", "H6", "SPAN", "SMALL", "SUB", "SUP", "HR"]);
const DROPPED_WITH_CONTENT = new Set(["SCRIPT", "STYLE", "IFRAME", "OBJECT", "EMBED", "TEMPLATE", "NOSCRIPT", "SVG", "MATH", "TEXTAREA", "SELECT", "TITLE", "XMP", "NOEMBED", "NOFRAMES", "FORM", "INPUT", "BUTTON"]);

/** An http(s) URL, absolute, or null: never javascript:, data: or anything else. */
export function safeURL(text, base) {
  try {
    const url = new URL(String(text), base);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The catalog's (already sanitized) HTML as DOM nodes, built element by element from an inert parse:
 * no markup string is ever assigned to the live page, so a catalog that carries <script>, onerror=,
 * javascript: URLs or style runs none of it.
 */
export function buildContent(html, doc = document) {
  const parsed = new DOMParser().parseFromString(`<body>${String(html ?? "")}</body>`, "text/html");
  const fragment = doc.createDocumentFragment();
  copyChildren(parsed.body, fragment, doc, 0);
  return fragment;
}

function copyChildren(from, to, doc, depth) {
  for (const node of from.childNodes) {
    if (node.nodeType === 3) to.appendChild(doc.createTextNode(node.data));
    if (node.nodeType !== 1 || depth > 32) continue;
    const tag = node.tagName.toUpperCase();
    if (DROPPED_WITH_CONTENT.has(tag)) continue;
    if (!ALLOWED_TAGS.has(tag)) {
      copyChildren(node, to, doc, depth + 1);
      continue;
    }
    const element = doc.createElement(tag.toLowerCase());
    if (tag === "A") {
      const href = safeURL(node.getAttribute("href"));
      if (href) {
        element.setAttribute("href", href);
        element.setAttribute("target", "_blank");
        element.setAttribute("rel", "noopener noreferrer nofollow");
      }
    } else if (tag === "IMG") {
      const src = safeURL(node.getAttribute("src"));
      if (!src) continue;
      element.setAttribute("src", src);
      element.setAttribute("alt", node.getAttribute("alt") ?? "");
    }
    const title = node.getAttribute("title");
    if (title) element.setAttribute("title", title);
    copyChildren(node, element, doc, depth + 1);
    to.appendChild(element);
  }
}

const STYLE = `
.wm-tip,.wm-tip *,.wm-pointer,.wm-spot,.wm-tour,.wm-tour *{box-sizing:border-box}
.wm-tip{position:absolute;z-index:2147483000;max-width:min(320px,90vw);background:#1d2a44;color:#fff;border-radius:10px;padding:12px 14px;box-shadow:0 6px 24px rgba(0,0,0,.3);font:15px/1.4 system-ui,sans-serif}
.wm-tip:focus{outline:3px solid #ffbf47;outline-offset:2px}
.wm-tip h2{font-size:16px;margin:0 28px 6px 0}.wm-tip p{margin:0 0 6px}.wm-tip a{color:#9cd3ff}
.wm-tip img{max-width:100%}
.wm-close{position:absolute;top:6px;right:8px;background:none;border:0;color:inherit;font-size:20px;cursor:pointer;line-height:1}
[dir=rtl] .wm-close{right:auto;left:8px}[dir=rtl].wm-tip h2{margin:0 0 6px 28px}
.wm-kind-banner{position:fixed;bottom:0;left:0;right:0;max-width:none;border-radius:0}
.wm-kind-modal{position:fixed;top:50%;left:50%;transform:translate(-50%,-50%);max-width:min(440px,92vw)}
.wm-backdrop{position:fixed;inset:0;background:rgba(0,0,0,.45);z-index:2147482999}
.wm-speaking{outline:3px solid #ffbf47!important;outline-offset:3px;border-radius:4px}
.wm-spot{position:absolute;z-index:2147482998;border-radius:8px;box-shadow:0 0 0 9999px rgba(0,0,0,.55);pointer-events:none;transition:all .2s}
.wm-pointer{position:absolute;z-index:2147483001;width:28px;height:28px;border-radius:50%;background:rgba(255,191,71,.9);border:2px solid #fff;pointer-events:none}
.wm-g-tap{animation:wm-tap 1.2s infinite}.wm-g-double-tap{animation:wm-dtap 1.4s infinite}.wm-g-long-press{animation:wm-long 2s infinite}
.wm-g-swipe-left{animation:wm-left 1.6s infinite}.wm-g-swipe-right{animation:wm-right 1.6s infinite}
.wm-g-swipe-up{animation:wm-up 1.6s infinite}.wm-g-swipe-down{animation:wm-down 1.6s infinite}
@keyframes wm-tap{0%,100%{transform:scale(1)}50%{transform:scale(.6)}}
@keyframes wm-dtap{0%,30%,60%,100%{transform:scale(1)}15%,45%{transform:scale(.6)}}
@keyframes wm-long{0%{transform:scale(1)}60%,90%{transform:scale(1.6);opacity:.6}100%{transform:scale(1)}}
@keyframes wm-left{0%{transform:translateX(40px);opacity:0}20%{opacity:1}100%{transform:translateX(-40px);opacity:0}}
@keyframes wm-right{0%{transform:translateX(-40px);opacity:0}20%{opacity:1}100%{transform:translateX(40px);opacity:0}}
@keyframes wm-up{0%{transform:translateY(40px);opacity:0}20%{opacity:1}100%{transform:translateY(-40px);opacity:0}}
@keyframes wm-down{0%{transform:translateY(-40px);opacity:0}20%{opacity:1}100%{transform:translateY(40px);opacity:0}}
.wm-actions{display:flex;gap:8px;margin-top:8px;flex-wrap:wrap}
.wm-actions button{background:#fff;color:#1d2a44;border:0;border-radius:6px;padding:6px 10px;font:inherit;cursor:pointer}
.wm-tour{position:fixed;z-index:2147483002;background:#fff;color:#1d2a44;display:flex;flex-direction:column;font:16px/1.5 system-ui,sans-serif;box-shadow:0 10px 40px rgba(0,0,0,.35)}
.wm-tour.wm-large{right:24px;bottom:24px;width:420px;height:min(640px,80vh);border-radius:12px}
.wm-tour.wm-small{inset:0}
.wm-tour header{display:flex;align-items:center;gap:8px;padding:10px 14px;border-bottom:1px solid #ddd}
.wm-tour header h2{flex:1;font-size:18px;margin:0}.wm-tour .wm-close{position:static;color:#1d2a44}
.wm-tour-body{flex:1;overflow:auto;padding:14px}
.wm-tour-body video{width:100%;border-radius:8px;background:#000}
.wm-tour footer{display:flex;align-items:center;gap:8px;padding:10px 14px;border-top:1px solid #ddd}
.wm-tour footer .wm-progress{flex:1}
.wm-tour footer button{border:1px solid #1d2a44;background:#1d2a44;color:#fff;border-radius:6px;padding:6px 14px;font:inherit;cursor:pointer}
.wm-tour footer button:disabled{opacity:.4;cursor:default}
.wm-tour .wm-actions button{border:1px solid #1d2a44}
.wm-credit{background:#e6f6e6;color:#135e13;border-radius:6px;padding:6px 10px;margin-top:10px}
.wm-survey fieldset{border:0;margin:6px 0;padding:0;display:flex;flex-wrap:wrap;gap:4px}
.wm-scale label{position:relative;margin:0}
.wm-scale input{position:absolute;opacity:0;width:1px;height:1px;margin:0}
.wm-scale span{display:inline-block;min-width:30px;padding:5px 4px;text-align:center;border:1px solid currentColor;border-radius:6px;cursor:pointer}
.wm-scale input:checked+span{background:#ffbf47;color:#1d2a44;border-color:#ffbf47}
.wm-scale input:focus-visible+span{outline:3px solid #ffbf47;outline-offset:2px}
.wm-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.wm-comment{display:block;width:100%;margin:4px 0;font:inherit;border-radius:6px;padding:4px 6px}
.wm-survey button{background:#fff;color:#1d2a44;border:0;border-radius:6px;padding:6px 12px;font:inherit;cursor:pointer}
.wm-survey button:disabled{opacity:.5;cursor:default}
.wm-paused{visibility:hidden!important}
@media (prefers-reduced-motion: reduce){.wm-pointer,.wm-spot{animation:none!important;transition:none!important}}
`;

/** The SDK in a page: `await Waymark.start({ key, server, user, userHash, context })`. */
export class WaymarkClient {
  constructor(options) {
    const { key, server, user, userHash, context = {}, window: win = globalThis.window } = options;
    if (!key || !user) throw new TypeError("Waymark.start needs a key and a user");
    this.window = win;
    this.document = win.document;
    this.key = key;
    this.server = String(server ?? new URL(import.meta.url).origin).replace(/\/+$/, "");
    this.user = String(user);
    this.userHash = userHash;
    this.context = {
      platform: context.platform ?? "web",
      model: context.model ?? (win.navigator.userAgentData?.mobile || /Mobi/.test(win.navigator.userAgent) ? "mobile-browser" : "desktop-browser"),
      appVersion: context.appVersion,
      locale: context.locale ?? win.navigator.language,
    };
    this.extraContext = { ...(context.values ?? {}) };
    this.flushEvery = options.flushEvery ?? 5000;
    this.storage = win.localStorage;
    this.prefix = `waymark:${key.slice(-12)}:${this.user}:`;
    this.rendered = new Map(); // tip id -> { root, extras, place, previousFocus }
    this.pending = new Map(); // storage writes waiting for persist()
    this.timers = new Set();
    this.listeners = [];
    this.failures = 0;
    this.stopped = false;
  }

  // -- Storage (localStorage; a full or missing storage never stops the SDK) --
  load(name, fallback) {
    try {
      const text = this.storage.getItem(this.prefix + name);
      return text === null ? fallback : JSON.parse(text);
    } catch {
      return fallback;
    }
  }
  save(name, value) {
    try {
      this.storage.setItem(this.prefix + name, JSON.stringify(value));
    } catch {
      /* storage full or disabled: keep going in memory */
    }
  }
  /** Saves soon, coalesced: a tap never serializes the queue or the engine itself. `value` is a
   *  function, called once when the write happens; hiding the page writes at once. */
  persist(name, value) {
    this.pending.set(name, value);
    if (!this.persistTimer) this.persistTimer = setTimeout(() => this.writePending(), 200);
  }
  writePending() {
    clearTimeout(this.persistTimer);
    this.persistTimer = null;
    for (const [name, value] of this.pending) this.save(name, value());
    this.pending.clear();
  }

  /** The renderers' styles: a constructed style sheet where the browser has them, which a page's
   *  Content-Security-Policy without 'unsafe-inline' still allows; else a <style> element. */
  installStyle() {
    const win = this.window;
    if (win.CSSStyleSheet && "adoptedStyleSheets" in this.document) {
      this.sheet = new win.CSSStyleSheet();
      this.sheet.replaceSync(STYLE);
      this.document.adoptedStyleSheets = [...this.document.adoptedStyleSheets, this.sheet];
      return;
    }
    const style = this.document.createElement("style");
    style.textContent = STYLE;
    style.dataset.waymark = "style";
    this.document.head.appendChild(style);
  }
  removeStyle() {
    if (this.sheet) this.document.adoptedStyleSheets = this.document.adoptedStyleSheets.filter((sheet) => sheet !== this.sheet);
    this.document.querySelector("style[data-waymark=style]")?.remove();
  }

  async start() {
    this.installStyle();
    this.queue = this.load("queue", []);
    this.claimed = new Set(this.load("claimed", []));
    this.finishedTours = new Set(this.load("finishedTours", []));
    await this.refresh();
    this.capture();
    this.record("activation");
    this.guessScreen();
    this.schedule(() => this.flush(), 0);
    return this;
  }

  /** Fetches the catalog (If-None-Match), keeps the last good one, and runs from it offline. */
  async refresh() {
    this.refreshedAt = Date.now();
    const cached = this.load("catalog", null);
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries({ ...this.context, user: this.user })) if (value) query.set(name, value);
    let catalog = cached?.catalog ?? null;
    try {
      const headers = { Authorization: `Bearer ${this.key}` };
      if (cached?.etag) headers["If-None-Match"] = cached.etag;
      const response = await this.window.fetch(`${this.server}/v1/catalog?${query}`, { headers });
      if (response.status === 200) {
        catalog = await response.json();
        this.save("catalog", { etag: response.headers.get("ETag"), catalog });
      } else if (response.status !== 304) {
        console.warn(`waymark: the catalog answered ${response.status}; using the kept copy`);
      }
    } catch (error) {
      console.warn("waymark: the server cannot be reached; starting from the kept catalog", error);
    }
    this.apply(catalog ?? { version: 0, frequency: "immediate", tips: [], tours: [] });
  }

  apply(catalog) {
    this.catalog = catalog;
    const tips = [];
    for (const tip of catalog.tips ?? []) {
      try {
        tips.push({
          ...tip,
          trigger: ruleFromJSON(tip.trigger),
          dismissal: tip.dismissal ? ruleFromJSON(tip.dismissal) : undefined,
          policy: { ...tip.policy, expiresAt: tip.policy?.expiresAt ? parseTime(tip.policy.expiresAt) : undefined },
        });
      } catch (error) {
        console.warn(`waymark: tip ${tip.id} is skipped: ${error.message}`);
      }
    }
    this.tours = new Map((catalog.tours ?? []).map((tour) => [tour.id, tour]));
    const tourRules = [];
    for (const tour of catalog.tours ?? []) {
      try {
        if (tour.trigger) tourRules.push({ tour: tour.id, rule: ruleFromJSON(tour.trigger) });
      } catch (error) {
        console.warn(`waymark: tour ${tour.id} has a bad trigger: ${error.message}`);
      }
    }
    const now = Date.now();
    if (!this.engine) {
      this.engine = new Engine(tips, { frequency: catalog.frequency, snapshot: this.load("engine", undefined) });
      this.render(this.engine.advance(now));
      // Tips that were showing before the reload are drawn again, not shown (and counted) again.
      for (const command of this.engine.activeTips()) {
        const tip = catalog.tips.find((t) => t.id === command.tip);
        if (tip && !this.rendered.has(tip.id)) this.draw(tip);
      }
    } else {
      this.render(this.engine.update(tips, now));
    }
    this.tourRules = tourRules;
    this.tourEvaluator = new Evaluator(tourRules.map((t) => t.rule), this.load("tours", undefined));
    this.setContextValues({});
  }

  // -- Input --

  /** Records an event the app names itself: `Waymark.track("add_to_cart", "sku-42")`. */
  record(name, target, properties = {}) {
    const cleanName = asName(name);
    if (!cleanName || this.stopped) return [];
    const cleanTarget = target === undefined || target === null ? undefined : asName(target);
    const now = Date.now();
    this.enqueue(cleanName, cleanTarget, properties, now);
    this.tourEvaluator.record(cleanName, cleanTarget, now);
    const commands = this.engine.record(cleanName, cleanTarget, now);
    this.render(commands);
    this.checkTours();
    return commands;
  }

  setContextValues(values) {
    Object.assign(this.extraContext, values);
    const all = {
      "device.platform": this.context.platform, "device.model": this.context.model, "app.version": this.context.appVersion,
      "user.locale": this.context.locale, "user.id": this.user, ...this.extraContext,
    };
    const now = Date.now();
    for (const [path, value] of Object.entries(all)) this.tourEvaluator.setContext(path, value ?? null, now);
    this.render(this.engine.setContext(Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v ?? null])), now));
  }

  /** The app says which screen shows: `Waymark.screen("product")`. An app that names its screens
   *  this way turns off the SDK's own guess from path changes, so no view counts twice. */
  screen(name) {
    this.namesScreens = true;
    this.recordScreen(name);
  }

  /** A path change in a single-page app, when the app does not name its screens itself. */
  guessScreen() {
    if (this.namesScreens) return;
    const name = asName(this.currentScreen()) ?? "home";
    if (name !== this.lastScreen) this.recordScreen(name);
  }

  recordScreen(name) {
    this.lastScreen = asName(name) ?? "home";
    this.record("screen", this.lastScreen);
    this.syncContainers();
  }

  currentScreen() {
    const declared = [...this.document.querySelectorAll("[data-waymark-screen]")].find(isShown)?.getAttribute("data-waymark-screen");
    if (declared) return declared;
    const path = this.window.location.pathname.replace(/\/+$/, "").split("/").pop();
    return path && path !== "index.html" ? path.replace(/\.html?$/, "") : "home";
  }

  /** Tells the engine which containers are on screen: a container the page marks with an element
   *  `data-waymark-container="NAME"` shows while that element does; one it does not mark (a banner
   *  over every screen) is always visible. */
  syncContainers() {
    if (this.fullscreen) return;
    const now = Date.now();
    const commands = [];
    for (const container of this.engine.containers) {
      const element = this.document.querySelector(`[data-waymark-container="${CSS.escape(container)}"]`);
      commands.push(...this.engine.setContainer(container, element ? isShown(element) : true, now));
    }
    this.render(commands);
  }

  capture() {
    const on = (target, type, handler, options) => {
      target.addEventListener(type, handler, options);
      this.listeners.push(() => target.removeEventListener(type, handler, options));
    };
    const doc = this.document;
    on(doc, "click", (event) => {
      if (event.target.closest?.("[data-waymark-ui]")) return;
      const element = event.target.closest?.("[data-waymark],[id]");
      const target = element ? element.getAttribute("data-waymark") ?? element.id : undefined;
      this.record("tap", target);
    }, true);
    let lastScroll = 0;
    on(this.window, "scroll", () => {
      const now = Date.now();
      if (now - lastScroll < 1000) return;
      lastScroll = now;
      this.record("scroll");
    }, { capture: true, passive: true });
    const lastKey = new Map();
    on(doc, "keydown", (event) => {
      const field = event.target;
      if (event.key === "Escape") return this.closeTopmost(event);
      if (!field || !/^(INPUT|TEXTAREA)$/.test(field.tagName ?? "") && !field.isContentEditable) return;
      // Typing a survey's comment is not the app being used.
      if (field.closest?.("[data-waymark-ui]")) return;
      const target = field.getAttribute("data-waymark") ?? field.id ?? undefined;
      const now = Date.now();
      if (now - (lastKey.get(target) ?? 0) < 1000) return;
      lastKey.set(target, now);
      this.record("keystroke", target || undefined);
    }, true);
    on(doc, "visibilitychange", () => {
      if (doc.visibilityState !== "visible") {
        this.writePending();
        return this.flush({ keepalive: true });
      }
      this.record("activation");
      // A page left open for long picks up a newly published catalog when it comes back.
      if (Date.now() - this.refreshedAt > 60000) this.refresh();
    });
    on(this.window, "pagehide", () => {
      this.writePending();
      this.flush({ keepalive: true });
    });
    // After the app's own handlers have drawn the new screen.
    const screenChanged = () => setTimeout(() => this.guessScreen(), 0);
    on(this.window, "popstate", screenChanged);
    on(this.window, "hashchange", screenChanged);
    on(doc, "fullscreenchange", () => this.onFullscreen());
    on(this.window, "online", () => this.flush());
    const history = this.window.history;
    for (const method of ["pushState", "replaceState"]) {
      const original = history[method];
      history[method] = (...args) => {
        const result = original.apply(history, args);
        screenChanged();
        return result;
      };
      this.listeners.push(() => { history[method] = original; });
    }
    // Anchors that appear later (lazy content, recycled lists) and containers that come and go.
    let pending = false;
    this.observer = new this.window.MutationObserver(() => {
      if (pending) return;
      pending = true;
      this.window.requestAnimationFrame(() => {
        pending = false;
        this.syncContainers();
        for (const entry of this.rendered.values()) entry.place?.();
      });
    });
    this.observer.observe(doc.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ["hidden", "class", "style"] });
    const place = () => { for (const entry of this.rendered.values()) entry.place?.(); };
    on(this.window, "resize", place);
    on(this.window, "scroll", place, { capture: true, passive: true });
    // Anchors also move with layout changes that fire no event (fonts, images, animations): check
    // the drawn tips' anchors a few times a second, only while some tip is drawn.
    const follow = setInterval(() => { if (this.rendered.size > 0) place(); }, 250);
    this.listeners.push(() => clearInterval(follow));
    this.scheduleEngine();
  }

  // -- Time: the engine's next change, as a timer --
  scheduleEngine() {
    clearTimeout(this.engineTimer);
    const next = this.engine.nextChange();
    if (next === null || this.stopped) return;
    this.engineTimer = setTimeout(() => {
      this.render(this.engine.advance(Date.now()));
      this.scheduleEngine();
    }, Math.min(Math.max(0, next - Date.now()), 2 ** 31 - 1));
  }

  schedule(fn, delay) {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, delay);
    this.timers.add(timer);
  }

  // -- Events: a queue in localStorage, sent in batches with retry and backoff --
  enqueue(name, target, properties, time) {
    const event = { id: eventID(time), user: this.user, name, timestamp: formatTime(time) };
    if (target) event.target = target;
    const props = { platform: this.context.platform, ...properties };
    if (this.context.appVersion) props.appVersion = this.context.appVersion;
    if (this.context.locale) props.locale = this.context.locale;
    event.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, String(v)]));
    this.queue.push(event);
    if (this.queue.length > MAX_QUEUE) this.queue.splice(0, this.queue.length - MAX_QUEUE);
    this.persist("queue", () => this.queue);
    if (this.queue.length >= BATCH / 2 && !this.flushing) this.schedule(() => this.flush(), 0);
  }

  /** Sends queued events; accepted, duplicate and rejected ones leave the queue, the rest wait. */
  async flush({ keepalive = false } = {}) {
    if (this.flushing || this.queue.length === 0) return this.rescheduleFlush();
    this.flushing = true;
    const batch = this.queue.slice(0, BATCH);
    try {
      const response = await this.window.fetch(`${this.server}/v1/events`, {
        method: "POST", keepalive: keepalive && JSON.stringify(batch).length < 60000,
        headers: { Authorization: `Bearer ${this.key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ events: batch }),
      });
      if (response.ok) {
        const answer = await response.json();
        for (const result of answer.results ?? []) {
          if (result.status === "rejected") console.warn(`waymark: event ${result.id} rejected: ${result.reason}`);
        }
        const sent = new Set(batch.map((e) => e.id));
        this.queue = this.queue.filter((e) => !sent.has(e.id));
        this.persist("queue", () => this.queue);
        this.failures = 0;
      } else if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
        console.warn(`waymark: events answered ${response.status}; kept for later`);
        this.failures += 1;
      } else {
        this.failures += 1;
      }
    } catch {
      this.failures += 1;
    } finally {
      this.flushing = false;
    }
    if (this.failures === 0 && this.queue.length > 0) return this.flush({ keepalive });
    this.rescheduleFlush();
  }

  rescheduleFlush() {
    if (this.stopped || this.flushTimerSet) return;
    this.flushTimerSet = true;
    const backoff = this.failures === 0 ? this.flushEvery : Math.min(60000, 1000 * 2 ** Math.min(this.failures, 6)) * (0.5 + Math.random() / 2);
    this.schedule(() => {
      this.flushTimerSet = false;
      this.flush();
    }, backoff);
  }

  // -- Rendering --
  render(commands) {
    if (commands.length > 0) this.persist("engine", () => this.engine.snapshot());
    for (const command of commands) {
      const tip = (this.catalog.tips ?? []).find((t) => t.id === command.tip);
      const properties = { tip: command.tip, container: command.container };
      if (tip?.variant) properties.variant = tip.variant;
      if (command.action === "show") {
        this.enqueue("tip_shown", command.tip, properties, command.time);
        if (tip) this.draw(tip);
      } else if (command.action === "resume") {
        this.rendered.get(command.tip)?.root.classList.remove("wm-paused");
      } else if (command.action === "pause") {
        this.rendered.get(command.tip)?.root.classList.add("wm-paused");
      } else {
        if (command.reason === "closed") this.enqueue("tip_closed", command.tip, properties, command.time);
        if (command.reason === "dismissed") this.enqueue("tip_dismissed", command.tip, properties, command.time);
        this.erase(command.tip);
      }
    }
    if (this.engine) this.scheduleEngine();
  }

  draw(tip) {
    this.erase(tip.id);
    const doc = this.document;
    const kind = tip.renderer ?? "tooltip";
    const root = doc.createElement("div");
    root.className = `wm-tip wm-kind-${asName(kind)}`;
    root.dataset.waymarkUi = "tip";
    root.dataset.waymarkTip = tip.id;
    root.tabIndex = -1;
    const language = (tip.content.locale ?? "").split("-")[0];
    if (language && language !== "default") root.lang = tip.content.locale;
    root.dir = RTL_LANGUAGES.has(language) ? "rtl" : "ltr";
    root.setAttribute("role", "dialog");
    if (kind === "modal") root.setAttribute("aria-modal", "true");
    const titleId = `wm-title-${asName(tip.id)}`;
    root.setAttribute("aria-labelledby", titleId);
    const title = doc.createElement("h2");
    title.id = titleId;
    title.textContent = tip.content.title;
    const body = doc.createElement("div");
    body.className = "wm-body";
    body.appendChild(buildContent(tip.content.html, doc));
    const close = doc.createElement("button");
    close.className = "wm-close";
    close.type = "button";
    close.setAttribute("aria-label", "Close");
    close.textContent = "×";
    close.addEventListener("click", () => this.close(tip.id));
    const actions = doc.createElement("div");
    actions.className = "wm-actions";
    const anchor = tip.anchor ? this.findAnchor(tip.anchor) : null;
    actions.appendChild(this.narrationControl(tip.content, tip.id, anchor ?? root));
    root.append(close, title, body);
    if (tip.survey) root.append(this.surveyForm(tip));
    root.append(actions);
    const extras = [];
    if (kind === "modal") {
      const backdrop = doc.createElement("div");
      backdrop.className = "wm-backdrop";
      backdrop.dataset.waymarkUi = "backdrop";
      extras.push(backdrop);
    }
    let spot = null;
    let pointer = null;
    if (kind === "spotlight") {
      spot = doc.createElement("div");
      spot.className = "wm-spot";
      spot.dataset.waymarkUi = "spotlight";
      extras.push(spot);
    }
    if (kind === "pointer") {
      pointer = doc.createElement("div");
      pointer.className = `wm-pointer wm-g-${asName(tip.gesture) ?? "tap"}`;
      pointer.dataset.waymarkUi = "pointer";
      pointer.dataset.gesture = tip.gesture ?? "tap";
      pointer.setAttribute("aria-hidden", "true");
      extras.push(pointer);
    }
    const anchored = kind !== "banner" && kind !== "modal" && tip.anchor;
    const place = () => {
      if (!anchored) return;
      const anchor = this.findAnchor(tip.anchor);
      // Waits for an anchor that is not in the page yet, and hides while it is gone.
      const shown = anchor && isShown(anchor);
      root.hidden = !shown;
      for (const extra of extras) extra.hidden = !shown;
      if (!shown) return;
      const box = anchor.getBoundingClientRect();
      const x = this.window.scrollX;
      const y = this.window.scrollY;
      const below = box.bottom + 12 + root.offsetHeight < this.window.innerHeight || box.top < root.offsetHeight + 12;
      const left = Math.max(8, Math.min(box.left + x, x + this.window.innerWidth - root.offsetWidth - 8));
      root.style.left = `${left}px`;
      root.style.top = `${below ? box.bottom + y + 12 : box.top + y - root.offsetHeight - 12}px`;
      if (spot) Object.assign(spot.style, { left: `${box.left + x - 6}px`, top: `${box.top + y - 6}px`, width: `${box.width + 12}px`, height: `${box.height + 12}px` });
      if (pointer) Object.assign(pointer.style, { left: `${box.left + x + box.width / 2 - 14}px`, top: `${box.top + y + box.height / 2 - 14}px` });
    };
    doc.body.append(...extras, root);
    const previousFocus = doc.activeElement;
    this.rendered.set(tip.id, { root, extras, place, previousFocus });
    place();
    if (!root.hidden && !isTyping(previousFocus)) root.focus({ preventScroll: true });
  }

  /** A survey's scores as a radio group (arrow keys move between them), an optional comment,
   *  and a send button that waits for a score. */
  surveyForm(tip) {
    const doc = this.document;
    const survey = tip.survey;
    const form = doc.createElement("form");
    form.className = "wm-survey";
    const scale = doc.createElement("fieldset");
    scale.className = "wm-scale";
    const legend = doc.createElement("legend");
    legend.className = "wm-hidden";
    legend.textContent = tip.content.title;
    scale.append(legend);
    for (let score = survey.min; score <= survey.max; score += 1) {
      const label = doc.createElement("label");
      const input = doc.createElement("input");
      input.type = "radio";
      input.name = `wm-score-${asName(tip.id)}`;
      input.value = String(score);
      const text = doc.createElement("span");
      text.textContent = String(score);
      label.append(input, text);
      scale.append(label);
    }
    form.append(scale);
    let comment = null;
    if (survey.comment) {
      comment = doc.createElement("textarea");
      comment.className = "wm-comment";
      comment.rows = 2;
      comment.maxLength = 500;
      comment.placeholder = "Comment (optional)";
      comment.setAttribute("aria-label", "Comment (optional)");
      form.append(comment);
    }
    const send = doc.createElement("button");
    send.type = "submit";
    send.textContent = "Send";
    send.disabled = true;
    form.append(send);
    form.addEventListener("change", () => { send.disabled = !form.querySelector("input:checked"); });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const chosen = form.querySelector("input:checked");
      if (chosen) this.answer(tip.id, Number(chosen.value), comment?.value ?? "");
    });
    return form;
  }

  /** Sends a survey's answer as `survey_answered` (the comment cut to the 512 bytes an event
   *  property holds). A survey's default dismissal is that event, which hides it; a survey whose
   *  author chose another dismissal is closed. */
  answer(id, score, comment = "") {
    const tip = (this.catalog?.tips ?? []).find((t) => t.id === id);
    const survey = tip?.survey;
    if (!survey || !Number.isInteger(score) || score < survey.min || score > survey.max) return false;
    const properties = { tip: id, score: String(score) };
    if (tip.variant) properties.variant = tip.variant;
    const text = utf8Prefix(String(comment).trim(), 512);
    if (text) properties.comment = text;
    this.record("survey_answered", id, properties);
    if (this.rendered.has(id)) this.close(id);
    return true;
  }

  findAnchor(anchor) {
    return this.document.querySelector(`[data-waymark-anchor="${CSS.escape(anchor)}"]`) ?? this.document.getElementById(anchor);
  }

  erase(id) {
    const entry = this.rendered.get(id);
    if (!entry) return;
    this.rendered.delete(id);
    const hadFocus = entry.root.contains(this.document.activeElement);
    this.window.speechSynthesis?.cancel?.();
    entry.root.remove();
    for (const extra of entry.extras) extra.remove();
    if (hadFocus && entry.previousFocus?.isConnected) entry.previousFocus.focus({ preventScroll: true });
  }

  /** The user closed a tip: it never comes back. */
  close(id) {
    this.render(this.engine.close(id, Date.now()));
  }

  closeTopmost(event) {
    if (this.tourPanel && !this.tourPanel.root.classList.contains("wm-paused")) {
      event.preventDefault();
      return this.closeTour();
    }
    const focused = this.document.activeElement?.closest?.("[data-waymark-tip]");
    const id = focused?.dataset.waymarkTip ?? [...this.rendered.keys()].pop();
    if (id) {
      event.preventDefault();
      this.close(id);
    }
  }

  /**
   * The narration control: play/pause for the content's narration (a recording, or speech the
   * server made), else reading aloud with the browser's voice, on request only: nothing starts by
   * itself. While it speaks, `highlight` (the tip's anchor, or the tour page) carries the class
   * wm-speaking. Starting from the beginning records narration_played, hearing it to the end
   * narration_completed, with the target, `properties` (a tour's page), the narration's source and
   * the locale of the words it speaks (`contentLocale`; `locale` is the user's, on every event).
   */
  narrationControl(content, target, highlight, properties = {}) {
    const doc = this.document;
    const button = doc.createElement("button");
    button.type = "button";
    button.className = "wm-narrate";
    const narration = content.narration;
    const details = { ...properties, contentLocale: content.locale ?? "default" };
    const speaking = (on) => { if (highlight) highlight.classList.toggle("wm-speaking", on); };
    const audioURL = narration?.url ? safeURL(narration.url, this.server) : null;
    if (audioURL) {
      const audio = doc.createElement("audio");
      audio.src = audioURL;
      audio.preload = "none";
      audio.className = "wm-narration";
      const length = Number.isFinite(narration.duration) ? ` ${formatDuration(narration.duration)}` : "";
      const idle = () => {
        button.textContent = `▶ Listen${length}`;
        button.setAttribute("aria-label", "Play narration");
        button.setAttribute("aria-pressed", "false");
        speaking(false);
      };
      idle();
      button.addEventListener("click", () => {
        // Played from a click, which every browser allows; a refusal leaves the control as it was.
        if (audio.paused) audio.play().catch(idle);
        else audio.pause();
      });
      audio.addEventListener("play", () => {
        button.textContent = "❚❚ Pause";
        button.setAttribute("aria-label", "Pause narration");
        button.setAttribute("aria-pressed", "true");
        speaking(true);
        if (audio.currentTime < 0.5) this.record("narration_played", target, { ...details, source: narration.source ?? "recording" });
      });
      audio.addEventListener("pause", idle);
      audio.addEventListener("ended", () => {
        idle();
        this.record("narration_completed", target, { ...details, source: narration.source ?? "recording" });
      });
      // The audio element sits beside its button: the button's label changes replace its children.
      const control = doc.createDocumentFragment();
      control.append(button, audio);
      return control;
    }
    const synth = this.window.speechSynthesis;
    if (!synth) return doc.createDocumentFragment();
    button.textContent = "Read aloud";
    button.addEventListener("click", () => {
      if (synth.speaking) return synth.cancel();
      const text = highlight?.querySelector?.(".wm-body")?.textContent ?? "";
      const utterance = new this.window.SpeechSynthesisUtterance(`${content.title}. ${text}`);
      if (content.locale && content.locale !== "default") utterance.lang = content.locale;
      utterance.addEventListener?.("start", () => {
        speaking(true);
        this.record("narration_played", target, { ...details, source: "browser" });
      });
      utterance.addEventListener?.("end", () => {
        speaking(false);
        this.record("narration_completed", target, { ...details, source: "browser" });
      });
      synth.speak(utterance);
    });
    return button;
  }

  // -- Tours --
  checkTours() {
    for (const [index, { tour }] of this.tourRules.entries()) {
      if (!this.finishedTours.has(tour) && !this.tourPanel && this.tourEvaluator.value(index)) this.openTour(tour);
    }
    this.persist("tours", () => this.tourEvaluator.snapshot());
  }

  openTour(id, page = 0) {
    const tour = this.tours.get(id);
    if (!tour || tour.pages.length === 0) return false;
    this.closeTour(false);
    const doc = this.document;
    const root = doc.createElement("section");
    root.className = "wm-tour";
    root.dataset.waymarkUi = "tour";
    root.dataset.waymarkTour = id;
    root.setAttribute("role", "dialog");
    root.setAttribute("aria-modal", "true");
    root.tabIndex = -1;
    const header = doc.createElement("header");
    const title = doc.createElement("h2");
    title.id = `wm-tour-title-${asName(id)}`;
    root.setAttribute("aria-labelledby", title.id);
    const close = doc.createElement("button");
    close.className = "wm-close";
    close.type = "button";
    close.setAttribute("aria-label", "Close the tour");
    close.textContent = "×";
    close.addEventListener("click", () => this.closeTour());
    header.append(title, close);
    const body = doc.createElement("div");
    body.className = "wm-tour-body";
    body.tabIndex = 0;
    const footer = doc.createElement("footer");
    const back = doc.createElement("button");
    back.type = "button";
    back.textContent = "Back";
    back.className = "wm-back";
    const progress = doc.createElement("span");
    progress.className = "wm-progress";
    progress.setAttribute("aria-live", "polite");
    const next = doc.createElement("button");
    next.type = "button";
    next.className = "wm-next";
    footer.append(back, progress, next);
    root.append(header, body, footer);
    const panel = { id, tour, root, body, title, progress, back, next, page, previousFocus: doc.activeElement };
    back.addEventListener("click", () => this.showPage(panel, panel.page - 1));
    next.addEventListener("click", () => {
      if (panel.page + 1 < tour.pages.length) this.showPage(panel, panel.page + 1);
      else this.closeTour();
    });
    body.addEventListener("scroll", () => {
      // Where the reader is, to come back to after full-screen video (which scrolls on its own).
      if (!this.document.fullscreenElement && !this.fullscreen) panel.scroll = body.scrollTop;
      this.checkReadToBottom(panel);
    }, { passive: true });
    const size = () => {
      const large = this.window.innerWidth >= 700;
      root.classList.toggle("wm-large", large);
      root.classList.toggle("wm-small", !large);
    };
    size();
    this.window.addEventListener("resize", size);
    panel.cleanup = () => this.window.removeEventListener("resize", size);
    doc.body.appendChild(root);
    this.tourPanel = panel;
    this.showPage(panel, page);
    root.focus({ preventScroll: true });
    return true;
  }

  showPage(panel, index) {
    const page = panel.tour.pages[index];
    if (!page) return;
    const doc = this.document;
    panel.page = index;
    panel.title.textContent = page.content.title;
    panel.body.replaceChildren();
    const language = (page.content.locale ?? "").split("-")[0];
    panel.root.dir = RTL_LANGUAGES.has(language) ? "rtl" : "ltr";
    if (page.media && page.media.url) {
      const src = safeURL(page.media.url, this.server);
      if (src) {
        const video = doc.createElement("video");
        video.src = src;
        video.controls = true;
        video.playsInline = true;
        video.preload = "metadata";
        video.dataset.media = page.media.id;
        const poster = page.media.thumbnail ? safeURL(page.media.thumbnail, this.server) : null;
        if (poster) video.poster = poster;
        video.addEventListener("play", () => this.record("video_played", page.media.id, { tour: panel.id, page: page.id }));
        panel.body.appendChild(video);
      }
    }
    const content = doc.createElement("div");
    content.className = "wm-page";
    content.appendChild(buildContent(page.content.html, doc));
    panel.body.appendChild(content);
    const actions = doc.createElement("div");
    actions.className = "wm-actions";
    actions.appendChild(this.narrationControl(page.content, page.id, panel.body, { tour: panel.id, page: page.id }));
    panel.body.appendChild(actions);
    if (page.reward) {
      const credit = doc.createElement("p");
      credit.className = "wm-credit";
      credit.setAttribute("aria-live", "polite");
      const key = `${panel.id}/${page.id}`;
      credit.textContent = this.claimed.has(key) ? `You earned ${page.reward} credits for this page.` : `Read to the end to earn ${page.reward} credits.`;
      panel.credit = credit;
      panel.body.appendChild(credit);
    } else panel.credit = null;
    panel.body.scrollTop = 0;
    panel.scroll = 0;
    panel.progress.textContent = `Page ${index + 1} of ${panel.tour.pages.length}`;
    panel.back.disabled = index === 0;
    panel.next.textContent = index + 1 < panel.tour.pages.length ? "Next" : "Done";
    panel.readSent = false;
    this.record("page_viewed", page.id, { tour: panel.id, page: page.id });
    this.window.requestAnimationFrame(() => this.checkReadToBottom(panel));
    for (const img of panel.body.querySelectorAll("img,video")) img.addEventListener("loadedmetadata", () => this.checkReadToBottom(panel), { once: true });
  }

  /** At the bottom (or when the page fits): page_read_to_bottom, and the page's credit, claimed once. */
  checkReadToBottom(panel) {
    if (panel.readSent || this.tourPanel !== panel || panel.root.classList.contains("wm-paused")) return;
    const body = panel.body;
    if (body.scrollTop + body.clientHeight < body.scrollHeight - 2) return;
    panel.readSent = true;
    const page = panel.tour.pages[panel.page];
    this.record("page_read_to_bottom", page.id, { tour: panel.id, page: page.id });
    if (page.reward) this.claim(panel, page);
  }

  async claim(panel, page) {
    const key = `${panel.id}/${page.id}`;
    if (!this.userHash) {
      if (panel.credit) panel.credit.textContent = "Sign in to earn credits for reading.";
      return;
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const response = await this.window.fetch(`${this.server}/v1/rewards/claims`, {
          method: "POST",
          headers: { Authorization: `Bearer ${this.key}`, "Content-Type": "application/json" },
          body: JSON.stringify({ user: this.user, userHash: this.userHash, tour: panel.id, page: page.id }),
        });
        const answer = await response.json().catch(() => ({}));
        if (response.ok) {
          this.claimed.add(key);
          this.save("claimed", [...this.claimed]);
          const credits = answer.credits ?? answer.grant?.credits ?? page.reward;
          if (panel.credit) panel.credit.textContent = `You earned ${credits} credits for this page.`;
          panel.root.dispatchEvent(new this.window.CustomEvent("waymark:credit", { detail: answer, bubbles: true }));
          return answer;
        }
        if (response.status < 500 && response.status !== 429) {
          if (panel.credit) panel.credit.textContent = answer.error?.message ?? answer.message ?? "No credit for this page.";
          return;
        }
      } catch {
        /* offline: retry below */
      }
      await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt));
    }
  }

  closeTour(finished = true) {
    const panel = this.tourPanel;
    if (!panel) return;
    this.tourPanel = null;
    panel.cleanup();
    panel.root.remove();
    if (finished) {
      this.finishedTours.add(panel.id);
      this.save("finishedTours", [...this.finishedTours]);
    }
    if (panel.previousFocus?.isConnected) panel.previousFocus.focus({ preventScroll: true });
  }

  /** While a video plays full screen, the tour panel and every tip pause; they come back as they were. */
  onFullscreen() {
    const element = this.document.fullscreenElement;
    const entering = element !== null && element !== undefined;
    if (entering === Boolean(this.fullscreen)) return;
    const now = Date.now();
    if (entering) {
      this.fullscreen = { scroll: this.tourPanel?.scroll ?? 0 };
      this.tourPanel?.root.classList.add("wm-paused");
      for (const container of this.engine.containers) this.render(this.engine.setContainer(container, false, now));
    } else {
      const saved = this.fullscreen;
      this.fullscreen = null;
      const panel = this.tourPanel;
      if (panel) {
        panel.root.classList.remove("wm-paused");
        // The browser scrolls the video back into view as it leaves full screen; put the page back
        // where the reader was, after it has.
        const restore = () => { panel.body.scrollTop = saved.scroll; };
        restore();
        this.window.requestAnimationFrame(() => { restore(); this.window.requestAnimationFrame(restore); });
        setTimeout(restore, 100);
      }
      this.syncContainers();
    }
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.engineTimer);
    for (const timer of this.timers) clearTimeout(timer);
    for (const remove of this.listeners) remove();
    this.observer?.disconnect();
    this.writePending();
    for (const id of [...this.rendered.keys()]) this.erase(id);
    this.closeTour(false);
    this.removeStyle();
  }
}

function isShown(element) {
  if (!element.isConnected || element.closest("[hidden]")) return false;
  const box = element.getBoundingClientRect();
  return box.width > 0 || box.height > 0;
}

/** The longest start of `text` that is at most `bytes` long in UTF-8, whole code points only. */
export function utf8Prefix(text, bytes) {
  const encoder = new TextEncoder();
  if (encoder.encode(text).length <= bytes) return text;
  let used = 0;
  let end = 0;
  for (const char of text) {
    used += encoder.encode(char).length;
    if (used > bytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}

const isTyping = (element) => element && (/^(INPUT|TEXTAREA|SELECT)$/.test(element.tagName) || element.isContentEditable);

/** Draws one tip, as delivered by the server, exactly as the SDK would show it, with no engine,
 *  storage or events: the console's preview. Closing it only removes it. */
export function previewTip(tip, { window: win = globalThis.window, server } = {}) {
  const client = new WaymarkClient({ key: "preview", user: "preview", server, window: win });
  client.installStyle();
  client.catalog = { tips: [tip], tours: [] };
  client.close = (id) => client.erase(id);
  client.answer = (id) => { client.erase(id); return true; };
  client.draw(tip);
  return client;
}

/** The SDK's entry point for pages: one client per page. */
/** Opens one tour at a page as the SDK would, with no engine, storage, events or credit claims:
 *  the console's preview of a tour. */
export function previewTour(tour, page = 0, { window: win = globalThis.window, server } = {}) {
  const client = new WaymarkClient({ key: "preview", user: "preview", server, window: win });
  client.installStyle();
  client.catalog = { tips: [], tours: [tour] };
  client.tours = new Map([[tour.id, tour]]);
  client.claimed = new Set();
  client.finishedTours = new Set();
  client.record = () => [];
  client.claim = async () => undefined;
  client.save = () => undefined;
  client.openTour(tour.id, page);
  return client;
}

export const Waymark = {
  client: null,
  async start(options) {
    this.client?.stop();
    this.client = new WaymarkClient(options);
    return this.client.start();
  },
  track(name, target, properties) { return this.client?.record(name, target, properties) ?? []; },
  screen(name) { this.client?.screen(name); },
  setContext(values) { this.client?.setContextValues(values); },
  startTour(id, page = 0) { return this.client?.openTour(id, page) ?? false; },
  close(tip) { this.client?.close(tip); },
  /** Answers a survey tip for the user, as its own form does: `Waymark.answer("nps", 9, "Fast")`. */
  answer(tip, score, comment) { return this.client?.answer(tip, score, comment) ?? false; },
  flush() { return this.client?.flush(); },
  stop() { this.client?.stop(); this.client = null; },
};
