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
    for (const term of this.terms.values()) {
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
      } else if ("count" in rule && matches(rule.count, name, target)) {
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
    this.tips.forEach((tip, i) => { if (i === this.tips.findIndex((t) => t.id === tip.id)) states[tip.id] = { ...this.states[i] }; });
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
    return this.tips.every((other, j) => other.group == null || other.group !== tip.group || other.order >= tip.order || isFinished(this.states[j]));
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
