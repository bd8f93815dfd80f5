// What the app has: the names a screen reports, and when it reports them (sightings.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { report, reportable } from "../../Sources/WaymarkServer/Resources/web/sdk/sightings.js";

test("only names the server takes are sent, each once, at most 200", () => {
  assert.deepEqual(reportable(["cart-link", "a:b", "row[1]", "two words", "खोज", "", "cart-link", "x".repeat(129), "a\\b"]), ["cart-link", "a\\b"]);
  assert.equal(reportable(Array.from({ length: 300 }, (_, i) => `n${i}`)).length, 200);
});

/** An element as isShown() sees it: in the page, drawn, and inside a hidden screen or not. */
const element = (value, hidden = false) => ({
  getAttribute: () => value, isConnected: true, closest: () => (hidden ? {} : null), getBoundingClientRect: () => ({ width: 20, height: 10 }),
});

// CSS.escape, as a browser has it, for the names used here (none needs escaping).
globalThis.CSS ??= /** @type {any} */ ({ escape: (text) => text });

/** A page with marked elements (another screen's, hidden, among them), and a transport that answers as told. */
function client({ answer = { outcome: "granted" }, screen = "products" } = {}) {
  const marked = {
    "data-waymark-anchor": [element("product"), element("product"), element("cart link"), element("cart-link"), element("checkout-button", true)],
    "data-waymark-container": [element("products"), element("header"), element("cart", true)],
  };
  const stored = new Map();
  const posts = [];
  return {
    posts, stored,
    lastScreen: screen,
    context: { platform: "web" },
    catalog: { tips: [{ anchor: "search-box:visible" }, { anchor: "nowhere" }, { anchor: "add-to-cart" }, {}, { selector: ".pay" }, { selector: "a::" }] },
    document: {
      querySelectorAll: (selector) => {
        if (selector === ".pay") return [{}, {}];
        if (selector === "a::") throw new SyntaxError("not a selector here");
        return marked[selector.slice(1, -1)] ?? [];
      },
      getElementById: (id) => (id === "search-box" ? element("search-box") : id === "nowhere" ? element("nowhere", true) : null),
      // A button whose taps are named add-to-cart (data-waymark), as a proposed tip names its anchor.
      querySelector: (selector) => (selector === '[data-waymark="add-to-cart"]' ? element("add-to-cart") : null),
    },
    window: { localStorage: { getItem: (key) => stored.get(key) ?? null, setItem: (key, value) => stored.set(key, value) } },
    transport: { post: async (path, body) => (posts.push([path, body]), answer) },
  };
}

test("a screen reports its anchors, areas and the ids and tap names tips name, and is done for the day once kept", async () => {
  const page = client();
  await report(page, "waymark:screen:products", "products", "Fri Nov 27 2026");
  assert.deepEqual(page.posts, [[
    "/v1/anchors",
    {
      platform: "web", screen: "products", anchors: ["product", "cart-link", "search-box", "add-to-cart"], areas: ["products", "header"],
      selectors: [{ selector: ".pay", matches: 2 }, { selector: "a::", matches: 0 }],
    },
  ]]);
  assert.deepEqual([...page.stored], [["waymark:screen:products", "Fri Nov 27 2026"]]);
  await report(page, "waymark:screen:products", "products", "Fri Nov 27 2026");
  assert.equal(page.posts.length, 1, "once a day");
});

test("a screen named twice in a row is sent once", async () => {
  const page = client();
  await Promise.all([1, 2].map(() => report(page, "waymark:screen:products", "products", "today")));
  assert.equal(page.posts.length, 1);
});

test("nothing is marked when the server did not keep it, and nothing is sent once the user moved on", async () => {
  const offline = client({ answer: null });
  await report(offline, "waymark:screen:products", "products", "today");
  assert.equal(offline.stored.size, 0, "asked again at the next view");
  const moved = client({ screen: "cart" });
  await report(moved, "waymark:screen:products", "products", "today");
  assert.deepEqual(moved.posts, []);
});
