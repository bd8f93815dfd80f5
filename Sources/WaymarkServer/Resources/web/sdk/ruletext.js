// The rule language's text: parseRule reads a rule as people write it, with a RuleError that says
// where and why it is not one. The server parses every rule when a catalog is published and ships
// the JSON form, so pages never need this module: the served SDK leaves it out, and the console and
// tools load it from /sdk/src/ruletext.js. The same language as the Swift WaymarkRules, checked
// against the shared cases in conformance/ (docs/rules.md is its reference).

import { COMPARATORS, KEYWORDS, LIMITS, UNIT_MS } from "./rules.js";
import { formatTime, readMoment } from "./values.js";

const ATOM_EXPECTATION = "an event, a comparison, count(...), true, false, NOT or (";
const LITERAL_EXPECTATION = 'a literal: a number, a "string", true, false, a version such as v1.3 or a time such as 2026-01-15';
const TIME_EXPECTATION = "a date such as 2026-01-15 or a time such as 2026-01-15T10:30:00Z or 2026-01-15T16:00:00+05:30";
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
    return { path: components.join("."), ...this.parseTest() };
  }
  // What follows a path or a property: `op literal` ({cmp, value}) or `in [literal, ...]` ({in}).
  parseTest() {
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
          return { in: literals };
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
    return { cmp, value };
  }
  parseEvent() {
    const event = { name: this.parseName() };
    if (this.cur === ":") {
      this.pos += 1;
      event.target = this.parseName();
    }
    if (!this.consumeKeyword("where")) return event;
    event.where = [this.parsePropertyTest()];
    // An AND goes on with the conditions only before another property test: what may follow an
    // event in a rule (an event, count, a dotted path, NOT, a parenthesis) never reads as one.
    while (this.atPropertyTestAfterAnd()) {
      this.consumeKeyword("and");
      event.where.push(this.parsePropertyTest());
    }
    return event;
  }
  parsePropertyTest() {
    this.skipSpace();
    if (!isNameChar(this.cur)) throw this.unexpected('a property test such as amount >= 500 or category in ["tv"]');
    const prop = this.parseName();
    if (this.cur === ".") throw this.error("syntax", "a property's name has no dots", `${COMPARATOR_EXPECTATION}, or in`, this.pos);
    return { prop, ...this.parseTest() };
  }
  atPropertyTestAfterAnd() {
    const saved = this.pos;
    let answer = false;
    if (this.consumeKeyword("and")) {
      this.skipSpace();
      const word = isNameChar(this.cur) ? this.peekWord() : "";
      if (word && !KEYWORDS.has(word.toLowerCase())) {
        this.pos += word.length;
        if (this.consumeKeyword("in")) answer = true;
        else {
          this.skipSpace();
          answer = "=!<>".includes(this.cur ?? "x");
        }
      }
    }
    this.pos = saved;
    return answer;
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
    // Four digits then "-": a date, which no number can be.
    if (/^\d{4}-$/.test(this.chars.slice(start, start + 5).join(""))) {
      while (this.cur !== undefined && /[A-Za-z0-9_:.+-]/.test(this.cur)) this.pos += 1;
      const text = this.chars.slice(start, this.pos).join("");
      const moment = readMoment(text);
      if (moment === null) throw this.error("syntax", `invalid time "${text}"`, TIME_EXPECTATION, start);
      return { time: printMoment(moment) };
    }
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

/** A moment as rules print it: the date alone at midnight UTC, else a UTC date-time. */
function printMoment(ms) {
  return ms % 86400000 ? formatTime(ms) : formatTime(ms).slice(0, 10);
}

