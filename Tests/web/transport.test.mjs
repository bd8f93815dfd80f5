// What the SDK says to the server and keeps on the phone, without a browser: fetch and
// localStorage are small in-memory stand-ins here; the Chromium tests run the same code against a
// real server and a real localStorage.
import { test } from "node:test";
import assert from "node:assert/strict";
import { KeptState } from "../../Sources/WaymarkServer/Resources/web/sdk/storage.js";
import { Transport, eventID } from "../../Sources/WaymarkServer/Resources/web/sdk/transport.js";

class MemoryStorage {
  constructor() { this.items = new Map(); }
  getItem(name) { return this.items.has(name) ? this.items.get(name) : null; }
  setItem(name, value) { this.items.set(name, String(value)); }
}

/** A fetch that answers from `answers` in turn (a function of the request, or an Error to throw)
 *  and keeps the requests. */
function server(...answers) {
  const requests = [];
  const fetch = async (url, options = {}) => {
    requests.push({ url, ...options });
    const answer = answers.shift();
    if (answer instanceof Error) throw answer;
    const { status = 200, body = {}, etag } = answer;
    return {
      status, ok: status >= 200 && status < 300,
      headers: { get: (name) => (name === "ETag" ? etag ?? null : null) },
      json: async () => body,
    };
  };
  return { requests, fetch };
}

function transport(fetch, kept = new KeptState(new MemoryStorage(), "waymark:test:u1:")) {
  const made = new Transport({ window: { fetch }, server: "https://waymark.example", key: "wm_pk_test", kept });
  made.schedule = () => {}; // no timers: each test sends when it says so
  return made;
}

test("the catalog is kept with its ETag and used again when the server says 304, fails or cannot be reached", async (t) => {
  t.mock.method(console, "warn", () => {});
  const catalog = { version: 3, tips: [] };
  const kept = new KeptState(new MemoryStorage(), "waymark:test:u1:");
  const { requests, fetch } = server({ status: 200, body: catalog, etag: '"v3"' }, { status: 304 }, { status: 503 }, new TypeError("offline"));
  const sdk = transport(fetch, kept);
  assert.equal(sdk.keptCatalog({ platform: "web", user: "u1" }), null);
  assert.deepEqual(await sdk.catalog({ platform: "web", user: "u1" }), { catalog, changed: true });
  assert.equal(requests[0].url, "https://waymark.example/v1/catalog?platform=web&user=u1");
  assert.equal(requests[0].headers.Authorization, "Bearer wm_pk_test");
  assert.equal(requests[0].headers["If-None-Match"], undefined);
  for (let i = 1; i <= 3; i++) assert.deepEqual(await sdk.catalog({ platform: "web", user: "u1" }), { catalog, changed: false });
  assert.equal(requests[1].headers["If-None-Match"], '"v3"');
  assert.deepEqual(kept.load("catalog", null), { etag: '"v3"', query: "platform=web&user=u1", catalog });
  // The next visit runs from the kept copy at once, if it asks for the same catalog.
  assert.deepEqual(sdk.keptCatalog({ platform: "web", user: "u1" }), catalog);
  assert.equal(sdk.keptCatalog({ platform: "web", user: "u1", locale: "hi-IN" }), null);
});

test("with nothing kept and no server, there is no catalog", async (t) => {
  t.mock.method(console, "warn", () => {});
  assert.deepEqual(await transport(server(new TypeError("offline")).fetch).catalog({}), { catalog: null, changed: false });
});

test("events the server took leave the queue; events it could not take wait, whatever it answered", async (t) => {
  t.mock.method(console, "warn", () => {});
  const event = (n) => ({ id: eventID(1_700_000_000_000 + n), user: "u1", name: "tap", timestamp: "2023-11-14T22:13:20Z" });
  const { requests, fetch } = server({ status: 503 }, { status: 400 }, new TypeError("offline"), {
    status: 200, body: { results: [{ id: "x", status: "accepted" }] },
  });
  const sdk = transport(fetch);
  const events = [0, 1, 2].map(event);
  for (const e of events) sdk.send(e);
  for (let attempt = 1; attempt <= 3; attempt++) {
    await sdk.flush();
    assert.equal(sdk.queue.length, 3, `attempt ${attempt} kept every event`);
    assert.equal(sdk.failures, attempt);
  }
  await sdk.flush();
  assert.equal(sdk.queue.length, 0);
  assert.equal(sdk.failures, 0);
  assert.deepEqual(JSON.parse(requests[3].body).events.map((e) => e.id), events.map((e) => e.id));
});

test("events go in batches of 100 until the queue is empty, and the queue keeps the newest 10,000", async () => {
  const accept = { status: 200, body: { results: [] } };
  const { requests, fetch } = server(accept, accept, accept);
  const sdk = transport(fetch);
  for (let n = 0; n < 250; n++) sdk.send({ id: `e${n}`, name: "scroll" });
  await sdk.flush();
  assert.deepEqual(requests.map((r) => JSON.parse(r.body).events.length), [100, 100, 50]);
  for (let n = 0; n < 10_005; n++) sdk.send({ id: `f${n}` });
  assert.equal(sdk.queue.length, 10_000);
  assert.equal(sdk.queue[0].id, "f5");
});

test("a post (a credit claim, an identify) says whether it was granted or refused, and why", async () => {
  const { requests, fetch } = server(
    { status: 201, body: { credits: 10 } },
    { status: 403, body: { error: { code: "read_too_quickly", message: "read in 5 s" } } },
    // The server has not the page's read-to-bottom yet (its batch is on the way): asked again.
    { status: 409, body: { error: { code: "not_read", message: "no page_read_to_bottom" } } },
    { status: 201, body: { credits: 3 } },
  );
  const sdk = transport(fetch);
  const claim = { user: "u1", userHash: "h", tour: "welcome", page: "p1" };
  assert.deepEqual(await sdk.post("/v1/rewards/claims", claim), { outcome: "granted", answer: { credits: 10 } });
  assert.deepEqual(await sdk.post("/v1/rewards/claims", claim), { outcome: "refused", message: "read in 5 s" });
  assert.deepEqual(await sdk.post("/v1/rewards/claims", claim), { outcome: "granted", answer: { credits: 3 } });
  assert.equal(requests.length, 4);
  assert.deepEqual(JSON.parse(requests[0].body), claim);
  assert.match(requests[0].url, /\/v1\/rewards\/claims$/);
});

test("kept state survives a new KeptState on the same storage, and a full storage stops nothing", () => {
  const storage = new MemoryStorage();
  const first = new KeptState(storage, "waymark:a:u1:");
  first.persist("queue", () => [1, 2]);
  first.writePending();
  assert.deepEqual(new KeptState(storage, "waymark:a:u1:").load("queue", []), [1, 2]);
  assert.deepEqual(new KeptState(storage, "waymark:b:u1:").load("queue", []), [], "another key's state is apart");
  const full = new KeptState({ getItem: () => null, setItem: () => { throw new Error("QuotaExceededError"); } }, "p:");
  full.save("queue", [1]);
  assert.deepEqual(full.load("queue", []), []);
});

test("event ids are UUIDv7, in the order they were made even within one millisecond", () => {
  const ids = Array.from({ length: 50 }, () => eventID(1_700_000_000_000));
  for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
});
