// The rule language as the server ships it: ruleFromJSON checks a rule in its JSON form, printRule
// writes the canonical text (the engine's key for a term). Reading a rule's text is ruletext.js's
// work, which pages do not need. The same language as the Swift WaymarkRules, checked against the
// shared cases in conformance/ (docs/rules.md is its reference). No browser API is used here.

/** The limits a rule must respect, so that a rule from anywhere costs bounded work. */
export const LIMITS = Object.freeze({ maxLength: 4096, maxDepth: 32, maxCount: 10000, maxWindowDays: 3650 });
/** Words that cannot be names, in any case. */
export const KEYWORDS = new Set(["and", "or", "not", "then", "within", "count", "in", "true", "false"]);
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

const NAME = /^[A-Za-z0-9_-]+$/;
const WINDOW = /^(0|[1-9][0-9]*)([smhdw])$/;
const VERSION = /^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*$/;
const SHAPES = { const: ["const"], not: ["not"], and: ["and"], or: ["or"], seq: ["seq", "within"], count: ["count", "cmp", "value", "within"] };

/**
 * Reads a rule in the server's JSON form, accepting what the parser could produce and nothing
 * else the engine could trip on: known keys only, names that are not keywords, canonical windows
 * and versions, the limits on counts, windows and depth. Returns a fresh copy; throws a TypeError
 * saying what is wrong.
 */
export function ruleFromJSON(json) {
  const rule = read(json, 0, 0);
  // Written text is at most maxLength characters; printed canonically (spaces around operators),
  // never twice as long.
  if (printRule(rule).length > 2 * LIMITS.maxLength) invalid("the rule is longer than the language allows");
  return rule;
}

function invalid(message) {
  throw new TypeError(`invalid rule: ${message}`);
}

// context is printRule's precedence: an AND inside a NOT, or an OR inside an AND, is written in
// parentheses, and parentheses and NOT are the levels the parser counts.
function read(node, context, depth) {
  if (node === null || typeof node !== "object" || Array.isArray(node)) invalid("a rule must be an object");
  const kind = Object.keys(SHAPES).find((k) => k in node) ?? ("path" in node ? ("in" in node ? "in" : "path") : null);
  if (!kind) invalid("a rule needs one of the keys const, not, and, or, seq, count or path");
  const shape = SHAPES[kind] ?? (kind === "in" ? ["path", "in"] : ["path", "cmp", "value"]);
  const extra = Object.keys(node).find((k) => !shape.includes(k));
  if (extra !== undefined) invalid(`unexpected key "${extra}"`);
  const level = () => {
    if (depth + 1 > LIMITS.maxDepth) invalid(`it nests deeper than ${LIMITS.maxDepth} levels`);
    return depth + 1;
  };
  switch (kind) {
    case "const":
      if (typeof node.const !== "boolean") invalid("const must be true or false");
      return { const: node.const };
    case "not":
      return { not: read(node.not, 2, level()) };
    case "and":
    case "or": {
      const list = node[kind];
      if (!Array.isArray(list) || list.length < 2) invalid("AND and OR need at least two operands");
      const inner = (kind === "and" ? context > 1 : context > 0) ? level() : depth;
      return { [kind]: list.map((o) => read(o, kind === "and" ? 1 : 0, inner)) };
    }
    case "seq":
      if (!Array.isArray(node.seq) || node.seq.length === 0) invalid("a sequence needs at least one event");
      return withWindow({ seq: node.seq.map(readEvent) }, node.within);
    case "count":
      if (!Number.isInteger(node.value) || node.value < 0 || node.value > LIMITS.maxCount) {
        invalid(`a count's threshold is a whole number from 0 to ${LIMITS.maxCount}`);
      }
      return withWindow({ count: readEvent(node.count), cmp: readComparator(node.cmp), value: node.value }, node.within);
    case "in":
      if (!Array.isArray(node.in) || node.in.length === 0) invalid("in [...] needs at least one literal");
      return { path: readPath(node.path), in: node.in.map(readLiteral) };
    default: {
      const cmp = readComparator(node.cmp);
      const value = readLiteral(node.value);
      if (typeof value === "boolean" && cmp !== "==" && cmp !== "!=") invalid(`operator ${cmp} does not apply to booleans`);
      return { path: readPath(node.path), cmp, value };
    }
  }
}

function readName(name) {
  if (typeof name !== "string" || !NAME.test(name)) invalid(`${JSON.stringify(name)} is not a name`);
  if (KEYWORDS.has(name.toLowerCase())) invalid(`"${name}" is a keyword and cannot be a name`);
  return name;
}

function readEvent(event) {
  if (event === null || typeof event !== "object") invalid("an event must be an object");
  const extra = Object.keys(event).find((k) => k !== "name" && k !== "target");
  if (extra !== undefined) invalid(`unexpected key "${extra}" in an event`);
  const name = readName(event.name);
  return event.target === undefined || event.target === null ? { name } : { name, target: readName(event.target) };
}

function readPath(path) {
  const components = typeof path === "string" ? path.split(".") : [];
  if (components.length < 2) invalid(`${JSON.stringify(path)} is not a path such as user.plan`);
  components.forEach(readName);
  return path;
}

function readComparator(cmp) {
  if (!COMPARATORS.includes(cmp)) invalid(`${JSON.stringify(cmp)} is not a comparison operator`);
  return cmp;
}

function readLiteral(value) {
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (value !== null && typeof value === "object" && Object.keys(value).join() === "version") {
    const version = value.version;
    if (typeof version === "string" && VERSION.test(version) && version.split(".").every((c) => Number(c) <= 2147483647)) return { version };
  }
  invalid(`${JSON.stringify(value)} is not a literal`);
}

function withWindow(node, within) {
  if (within === undefined || within === null) return node;
  const match = typeof within === "string" ? WINDOW.exec(within) : null;
  if (!match) invalid(`${JSON.stringify(within)} is not a window such as 30s, 5m, 2h, 7d or 1w`);
  if (Number(match[1]) * UNIT_MS[match[2]] > LIMITS.maxWindowDays * UNIT_MS.d) invalid(`window ${within} is longer than ${LIMITS.maxWindowDays} days`);
  node.within = within;
  return node;
}
