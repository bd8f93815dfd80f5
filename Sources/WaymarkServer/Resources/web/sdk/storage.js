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
