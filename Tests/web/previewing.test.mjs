// A preview of the draft: how a tab knows it is in one (storage.js), and leaves it (previewing.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { previewToken } from "../../Sources/WaymarkServer/Resources/web/sdk/storage.js";
import { endPreview, timeOfDay } from "../../Sources/WaymarkServer/Resources/web/sdk/previewing.js";

/** A tab at `href`, with its sessionStorage. */
function tab(href, kept = new Map()) {
  const win = {
    location: { href, search: new URL(href).search, replace: (to) => (win.replacedBy = to) },
    sessionStorage: { getItem: (k) => kept.get(k) ?? null, setItem: (k, v) => kept.set(k, String(v)), removeItem: (k) => kept.delete(k) },
  };
  return win;
}

test("a tab opened from a preview link keeps the token for its other pages, and only that tab", () => {
  const kept = new Map();
  assert.equal(previewToken(tab("https://shop.example/?waymark-preview=wm_preview_1", kept)), "wm_preview_1");
  assert.equal(previewToken(tab("https://shop.example/cart", kept)), "wm_preview_1", "another page of the same tab");
  assert.equal(previewToken(tab("https://shop.example/cart")), null, "another tab");
  // A newer link replaces the token.
  assert.equal(previewToken(tab("https://shop.example/?waymark-preview=wm_preview_2", kept)), "wm_preview_2");
});

test("without storage a tab is in no preview, and the SDK goes on", () => {
  const win = { location: { search: "?waymark-preview=x" }, get sessionStorage() { throw new Error("denied"); } };
  assert.equal(previewToken(win), null);
  assert.equal(previewToken({}), null);
});

test("leaving forgets the token and loads the address without it, keeping the rest", () => {
  const kept = new Map([["waymark:preview", "wm_preview_1"]]);
  const win = tab("https://shop.example/list?page=2&waymark-preview=wm_preview_1#top", kept);
  endPreview(win);
  assert.equal(kept.size, 0);
  assert.equal(win.replacedBy, "https://shop.example/list?page=2#top");
});

test("the end of a preview is said as the page's language writes a time", () => {
  assert.match(timeOfDay("2026-11-27T14:05:00Z", "en-IN"), /\d{1,2}:05/);
  assert.match(timeOfDay("2026-11-27T14:05:00Z", "hi"), /०?5|05/);
  assert.equal(timeOfDay("not a time", "en"), "");
});
