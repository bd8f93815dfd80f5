// Transport: everything the SDK says to the server. The catalog is fetched with If-None-Match and
// the last good one kept for offline starts; events wait in a kept queue and go in batches, with
// backoff while the server cannot take them; a page's credit is claimed, and the user's attributes
// set, with retries.

const MAX_QUEUE = 10000;
const BATCH = 100;

let lastIdMillis = 0;
let idCounter = 0;

/** A time-ordered event id (UUIDv7, RFC 9562): the server's index stays in insertion order. */
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

export class Transport {
  /** `kept` is the client's KeptState; events are sent every `flushEvery` ms while all goes well. */
  constructor({ window: win, server, key, kept, userHash, flushEvery = 5000 }) {
    this.window = win;
    this.userHash = userHash;
    this.server = server;
    this.key = key;
    this.kept = kept;
    this.flushEvery = flushEvery;
    this.queue = kept.load("queue", []);
    this.failures = 0;
    this.timers = new Set();
    this.stopped = false;
  }

  /** The catalog kept from the last visit for this same `query`, or null: what a page can run
   *  from at once, before the network answers. */
  keptCatalog(query) {
    const kept = this.keptEntry();
    return kept && kept.query === new URLSearchParams(query).toString() ? kept.catalog : null;
  }

  /** The kept catalog with its ETag and query, read from storage once: a start asks for it twice. */
  keptEntry() {
    if (this.keptCatalogEntry === undefined) this.keptCatalogEntry = this.kept.load("catalog", null);
    return this.keptCatalogEntry;
  }

  /** The catalog for `query` (device, app version, locale, user), as `{ catalog, changed }`: the
   *  server's newer one (changed), else the kept one (answered 304, an error, or no network at
   *  all), else null. */
  async catalog(query) {
    const kept = this.keptEntry();
    const search = new URLSearchParams(query).toString();
    try {
      const headers = { Authorization: `Bearer ${this.key}` };
      if (kept?.etag) headers["If-None-Match"] = kept.etag;
      // The user's proof lets targeting read the attributes the server keeps for them.
      if (this.userHash) headers["Waymark-User-Hash"] = this.userHash;
      const response = await this.window.fetch(`${this.server}/v1/catalog?${search}`, { headers });
      if (response.status === 200) {
        const catalog = await response.json();
        this.keptCatalogEntry = { etag: response.headers.get("ETag"), query: search, catalog };
        this.kept.save("catalog", this.keptCatalogEntry);
        return { catalog, changed: true };
      }
      if (response.status !== 304) console.warn(`waymark: the catalog answered ${response.status}; using the kept copy`);
    } catch (error) {
      console.warn("waymark: the server cannot be reached; starting from the kept catalog", error);
    }
    return { catalog: kept?.catalog ?? null, changed: false };
  }

  /** Queues an event (the oldest go past 10,000) and sends soon once half a batch waits. */
  send(event) {
    this.queue.push(event);
    if (this.queue.length > MAX_QUEUE) this.queue.splice(0, this.queue.length - MAX_QUEUE);
    this.kept.persist("queue", () => this.queue);
    if (this.queue.length >= BATCH / 2 && !this.flushing) this.schedule(() => this.flush(), 0);
  }

  /** Sends queued events; accepted, duplicate and rejected ones leave the queue, the rest wait.
   *  `keepalive` lets the last batch of a page that is going away outlive it. */
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
        this.kept.persist("queue", () => this.queue);
        this.failures = 0;
      } else {
        if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
          console.warn(`waymark: events answered ${response.status}; kept for later`);
        }
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

  /** Posts `body` to `path` (a credit claim, an identify), retrying five times while the server
   *  cannot be reached, is busy, or has not yet the events a claim rests on (409, while a batch
   *  is on its way): { outcome: "granted", answer }, { outcome: "refused", message }, or nothing
   *  when every attempt failed. */
  async post(path, body) {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const response = await this.window.fetch(this.server + path, {
          method: "POST",
          headers: { Authorization: `Bearer ${this.key}`, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
        const answer = await response.json().catch(() => ({}));
        if (response.ok) return { outcome: "granted", answer };
        if (response.status < 500 && response.status !== 429 && response.status !== 409) return { outcome: "refused", message: answer.error?.message ?? answer.message };
      } catch {
        /* offline: retry below */
      }
      await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt));
    }
  }

  /** Runs `fn` after `delay` ms unless the transport stops first. */
  schedule(fn, delay) {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, delay);
    this.timers.add(timer);
  }

  stop() {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
  }
}
