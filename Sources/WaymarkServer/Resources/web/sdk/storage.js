// What the SDK keeps on the phone between visits, in localStorage under one prefix per key and
// user: the event queue, the engine's state, the last good catalog, claimed credits, finished
// tours. A full or missing storage never stops the SDK; it goes on in memory.

export class KeptState {
  /** `storage` is a Storage (localStorage); `prefix` keeps one key's and user's values apart. */
  constructor(storage, prefix) {
    this.storage = storage;
    this.prefix = prefix;
    this.pending = new Map(); // writes waiting for writePending()
    this.timer = null;
  }

  /** The value kept under `name`, or `fallback`. */
  load(name, fallback) {
    try {
      const text = this.storage.getItem(this.prefix + name);
      return text === null ? fallback : JSON.parse(text);
    } catch {
      return fallback;
    }
  }

  /** Keeps `value` under `name` now. */
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
    if (!this.timer) this.timer = setTimeout(() => this.writePending(), 200);
  }

  /** Writes what persist() is holding, now. */
  writePending() {
    clearTimeout(this.timer);
    this.timer = null;
    for (const [name, value] of this.pending) this.save(name, value());
    this.pending.clear();
  }
}

// The listener's mode (narration.js), per browser, not per user: the person's own choice,
// {"on", "at"} (when, in ms, so that the latest of their devices' choices wins when progress is
// shared), else what the catalog makes the default for their locale. "1" is a choice kept before
// choices had a time.
const LISTEN = "waymark:listen";
const LISTEN_DEFAULT = "waymark:listen-default";

function read(win, key) {
  try {
    return win.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(win, key, value) {
  try {
    if (value === null) win.localStorage.removeItem(key);
    else win.localStorage.setItem(key, value);
  } catch {
    /* storage disabled: the mode lasts for this page */
  }
}

/** The person's own choice, { on, at }, or null when they made none. */
export function listenChoice(win) {
  const text = read(win, LISTEN);
  if (text === "1") return { on: true, at: 0 };
  try {
    const choice = JSON.parse(text);
    return typeof choice?.on === "boolean" && Number.isFinite(choice.at) ? { on: choice.on, at: choice.at } : null;
  } catch {
    return null;
  }
}

/** Whether tips speak as they appear: the person's choice, else the catalog's default. */
export function listening(win) {
  return listenChoice(win)?.on ?? read(win, LISTEN_DEFAULT) === "1";
}

/** Keeps a choice (or the default, with `byDefault`) and tells the page when the mode changes:
 *  a `waymark:listen` event whose detail is the mode. Answers whether it changed. */
export function keepListening(win, choice, byDefault = false) {
  const was = listening(win);
  if (byDefault) write(win, LISTEN_DEFAULT, choice.on ? "1" : null);
  else write(win, LISTEN, JSON.stringify({ on: choice.on, at: choice.at }));
  const now = listening(win);
  if (now !== was) win.dispatchEvent(new win.CustomEvent("waymark:listen", { detail: now }));
  return now !== was;
}

// The language the user picked for the guidance (the dock's picker), per browser.
const LOCALE = "waymark:locale";

/** The language the user picked, or null. */
export const pickedLocale = (win) => read(win, LOCALE);

/** Keeps the language the user picked. */
export const keepLocale = (win, locale) => write(win, LOCALE, locale);

// The draft preview this tab is in: the token of the preview link that opened it, kept for the
// tab's other pages (sessionStorage: another tab, or this one reopened later, is not in it).
export const PREVIEW = "waymark:preview";

/** The token of the draft preview this tab is in, or null. */
export function previewToken(win) {
  try {
    const token = new URLSearchParams(win.location.search).get("waymark-preview");
    return token ? (win.sessionStorage.setItem(PREVIEW, token), token) : win.sessionStorage.getItem(PREVIEW);
  } catch {
    return null;
  }
}
