// Values and time: how the rule language compares a context value with a literal (numbers, strings
// by code point, versions by their parts, times by their milliseconds) and reads and writes RFC 3339
// times.

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
const compareNumbers = (a, b) => (a === b ? 0 : a < b ? -1 : 1);
export function holds(cmp, order) {
  switch (cmp) {
    case "==": return order === 0;
    case "!=": return order !== 0;
    case ">=": return order >= 0;
    case "<=": return order <= 0;
    case ">": return order > 0;
    default: return order < 0;
  }
}

/** A context value compared with a literal: a missing value or another type is false, even for !=.
 *  Times are {time: ms} (typedValue makes them), versions {version: "5.2.1"} or a string that reads
 *  as one; the literals are the rule's JSON form ({time: "2026-01-15"}, {version: "1.3"}). */
export function compareLiteral(value, cmp, literal) {
  if (value === undefined || value === null) return false;
  if (typeof literal === "number") return typeof value === "number" && holds(cmp, compareNumbers(value, literal));
  if (typeof literal === "string") return typeof value === "string" && holds(cmp, compareStrings(value, literal));
  if (typeof literal === "boolean") {
    if (typeof value !== "boolean") return false;
    return cmp === "==" ? value === literal : cmp === "!=" ? value !== literal : false;
  }
  if (literal.time) return typeof value.time === "number" && holds(cmp, compareNumbers(value.time, readMoment(literal.time)));
  const version = readVersion(typeof value === "string" ? value : String(value.version));
  return version !== null && holds(cmp, compareVersions(version, literal.version.split(".").map(Number)));
}

/** A value as rules compare it: a Date, or {time} with a rule's time text, becomes {time: ms}. */
export function typedValue(value) {
  const time = value instanceof Date ? value.getTime() : typeof value?.time === "string" ? readMoment(value.time) : value?.time;
  return time === undefined ? value : Number.isFinite(time) ? { time } : null;
}

/** Milliseconds for a rule's time: a date (midnight UTC) or an RFC 3339 date-time, years 0000 to 9999. */
export function readMoment(text) {
  const ms = / /.test(text) ? null : parseTime(/^\d{4}-\d\d-\d\d$/.test(text) ? text + "T00:00:00Z" : text);
  return ms >= -62167219200000 && ms <= 253402300799999 ? ms : null;
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
