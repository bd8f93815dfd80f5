// The rule language as the server ships it: ruleFromJSON checks a rule in its JSON form, printRule
// writes the canonical text (the engine's key for a term). Reading a rule's text is ruletext.js's
// work, which pages do not need. The same language as the Swift WaymarkRules, checked against the
// shared cases in conformance/ (docs/rules.md is its reference). No browser API is used here.

import { readMoment } from "./values.js";

/** The limits a rule must respect, so that a rule from anywhere costs bounded work. */
export const LIMITS = Object.freeze({ maxLength: 4096, maxDepth: 32, maxCount: 10000, maxWindowDays: 3650 });
/** Words that cannot be names, in any case. */
export const KEYWORDS = new Set(["and", "or", "not", "then", "within", "count", "in", "true", "false", "where"]);
/** Milliseconds in one unit of a window ("30s", "2h", "7d"). */
export const UNIT_MS = { s: 1000, m: 60000, h: 3600000, d: 86400000, w: 604800000 };
export const COMPARATORS = ["==", "!=", ">=", "<=", ">", "<"];

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
    return r.path + printTest(r);
  }
  function paren(text, needed) { return needed ? `(${text})` : text; }
}
const printTest = (t) => ("in" in t ? ` in [${t.in.map(printLiteral).join(", ")}]` : ` ${t.cmp} ${printLiteral(t.value)}`);
const printEvent = (e) => (e.target == null ? e.name : `${e.name}:${e.target}`)
  + (e.where ? " where " + e.where.map((t) => t.prop + printTest(t)).join(" AND ") : "");
function printLiteral(value) {
  if (typeof value === "string") return '"' + value.replace(/[\\"]/g, (c) => "\\" + c) + '"';
  if (typeof value === "object") return value.time ?? "v" + value.version;
  return String(value);
}

const NAME = /^[A-Za-z0-9_-]+$/;
const WINDOW = /^(0|[1-9][0-9]*)([smhdw])$/;
const VERSION = /^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*$/;
const SHAPES = { const: ["const"], not: ["not"], and: ["and"], or: ["or"], seq: ["seq", "within"], count: ["count", "cmp", "value", "within"], in: ["path", "in"], path: ["path", "cmp", "value"] };

/**
 * Reads a rule in the server's JSON form, accepting what the parser could produce and nothing
 * else the engine could trip on: known keys only, names that are not keywords, canonical windows
 * and versions, the limits on counts, windows and depth. Returns a fresh copy; throws a TypeError
 * naming the part that is wrong. (The server checked the rule's text when it was published, so
 * this guards against a damaged catalog, not an author's mistake.)
 */
export function ruleFromJSON(json) {
  const rule = read(json, 0, 0);
  // Written text is at most maxLength characters; printed canonically (spaces around operators),
  // never twice as long.
  check(printRule(rule).length <= 2 * LIMITS.maxLength, "the rule's length");
  return rule;
}

function check(ok, part) {
  if (!ok) throw new TypeError(`invalid rule: ${typeof part === "string" ? part : JSON.stringify(part)}`);
}

// context is printRule's precedence: an AND inside a NOT, or an OR inside an AND, is written in
// parentheses, and parentheses and NOT are the levels the parser counts (at most maxDepth).
function read(node, context, depth) {
  check(node !== null && typeof node === "object" && !Array.isArray(node), node);
  const kind = ["const", "not", "and", "or", "seq", "count", "in", "path"].find((k) => k in node);
  check(kind && Object.keys(node).every((k) => SHAPES[kind].includes(k)), node);
  const deeper = () => {
    check(depth < LIMITS.maxDepth, `nested deeper than ${LIMITS.maxDepth} levels`);
    return depth + 1;
  };
  if (kind === "const") {
    check(typeof node.const === "boolean", node);
    return { const: node.const };
  }
  if (kind === "not") return { not: read(node.not, 2, deeper()) };
  if (kind === "and" || kind === "or") {
    const list = node[kind];
    check(Array.isArray(list) && list.length > 1, node);
    const inner = (kind === "and" ? context > 1 : context > 0) ? deeper() : depth;
    return { [kind]: list.map((o) => read(o, kind === "and" ? 1 : 0, inner)) };
  }
  if (kind === "seq") {
    check(Array.isArray(node.seq) && node.seq.length > 0, node);
    return withWindow({ seq: node.seq.map(readEvent) }, node.within);
  }
  if (kind === "count") {
    check(Number.isInteger(node.value) && node.value >= 0 && node.value <= LIMITS.maxCount && COMPARATORS.includes(node.cmp), node);
    return withWindow({ count: readEvent(node.count), cmp: node.cmp, value: node.value }, node.within);
  }
  const path = node.path;
  check(typeof path === "string" && path.includes(".") && path.split(".").every(isName), node);
  return { path, ...readTest(node) };
}

// A comparison's or a property test's `{cmp, value}` or `{in}`.
function readTest(node) {
  if ("in" in node) {
    check(Array.isArray(node.in) && node.in.length > 0, node);
    return { in: node.in.map(readLiteral) };
  }
  const value = readLiteral(node.value);
  check(COMPARATORS.includes(node.cmp) && (typeof value !== "boolean" || node.cmp === "==" || node.cmp === "!="), node);
  return { cmp: node.cmp, value };
}

const isName = (name) => typeof name === "string" && NAME.test(name) && !KEYWORDS.has(name.toLowerCase());

function readEvent(event) {
  check(event !== null && typeof event === "object" && Object.keys(event).every((k) => ["name", "target", "where"].includes(k)), event);
  const { name, target, where } = event;
  check(isName(name) && (target == null || isName(target)) && (where == null || (Array.isArray(where) && where.length)), event);
  const read = target == null ? { name } : { name, target };
  if (where) read.where = where.map((test) => {
    check(test !== null && typeof test === "object", test);
    const shape = "in" in test ? ["prop", "in"] : ["prop", "cmp", "value"];
    check(isName(test.prop) && Object.keys(test).every((k) => shape.includes(k)), test);
    return { prop: test.prop, ...readTest(test) };
  });
  return read;
}

// A time literal is kept as its text, which the server writes as rules print it ({time: "2026-01-15"}).
function readLiteral(value) {
  const { version, time } = value ?? {};
  const keys = Object.keys(value ?? {}).join();
  check(typeof value === "string" || typeof value === "boolean" || Number.isFinite(value)
    || (keys === "time" && readMoment(time) !== null)
    || (keys === "version" && VERSION.test(version) && version.split(".").every((c) => c <= 2147483647)), value);
  return typeof value !== "object" ? value : keys === "time" ? { time } : { version };
}

function withWindow(node, within) {
  if (within == null) return node;
  const match = WINDOW.exec(within);
  check(match && /** @type {any} */ (match[1]) * UNIT_MS[match[2]] <= LIMITS.maxWindowDays * UNIT_MS.d, `window ${within}`);
  node.within = within;
  return node;
}
