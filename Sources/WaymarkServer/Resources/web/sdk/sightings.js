// What the app has: the anchors and screen areas a screen shows, reported to the server
// (POST /v1/anchors) at most once a day a screen by each browser, so that the console can offer
// authors the names developers gave them and warn of a tip that names one no screen has. Names
// only: the page's data-waymark-anchor and data-waymark-container values, never its text, and no
// user. And a shown tip whose anchor the page lacks, which the console shows its author. Loaded as
// a part, when a screen is due or a tip shows.

import { isShown, parseAnchor } from "./placement.js";

/** The names the server takes, each once, at most 200: 1 to 128 printable ASCII characters
 *  without spaces, "[", "]" or ":" (anything else is left out, not sent to be refused). */
export function reportable(names) {
  return [...new Set(names)].filter((name) => /^[!-9;-Z\\^-~]{1,128}$/.test(name)).slice(0, 200);
}

/** How many elements `selector` matches, at most 10,000; 0 for one this browser cannot read. */
export function matches(doc, selector) {
  try {
    return Math.min(doc.querySelectorAll(selector).length, 10000);
  } catch {
    return 0;
  }
}

// The screens on their way: an app that names the same screen twice in a row sends it once.
const sending = new Set();

/** Sends what the screen `screen` shows, if the user is still on it and it was not reported
 *  `today`, and marks it reported under `key` once the server has it. */
export async function report(client, key, screen, today) {
  const storage = client.window.localStorage;
  if (client.stopped || client.lastScreen !== screen || storage.getItem(key) === today || sending.has(key)) return;
  sending.add(key);
  const doc = client.document;
  // What the screen shows: a single-page app keeps its other screens' elements, hidden, in the page.
  const values = (attribute) => [...doc.querySelectorAll(`[${attribute}]`)].filter(isShown).map((element) => element.getAttribute(attribute));
  const anchors = values("data-waymark-anchor");
  const selectors = new Map();
  for (const tip of client.catalog?.tips ?? []) {
    // A tip may name an element by its id, or by the name its taps carry: one the page has counts
    // as seen.
    const name = tip.anchor && parseAnchor(tip.anchor)?.name;
    const element = name && (doc.getElementById(name) ?? doc.querySelector(`[data-waymark="${CSS.escape(name)}"]`));
    if (element && isShown(element)) anchors.push(name);
    // A selector says how many elements it matches here: the console warns of none or several.
    if (tip.selector && selectors.size < 50) selectors.set(tip.selector, matches(doc, tip.selector));
  }
  const body = {
    platform: client.context.platform, screen, anchors: reportable(anchors), areas: reportable(values("data-waymark-container")),
    selectors: [...selectors].map(([selector, count]) => ({ selector, matches: count })),
  };
  if ((await client.transport.post("/v1/anchors", body))?.outcome === "granted") storage.setItem(key, today);
  sending.delete(key);
}

/** A shown tip whose anchor is not in the page 5 s later, in the same screen view (`missed`, the
 *  view's tips reported so far, on `screen`), is reported once per view as `anchor_missing`: the
 *  console tells its author where it points at nothing. */
export function lookForAnchor(client, id, missed, screen) {
  setTimeout(() => {
    const entry = client.renderer.rendered.get(id);
    if (!entry?.lost || entry.paused || missed !== client.missed || missed.has(id)) return;
    missed.add(id);
    const tip = client.catalog.tips.find((t) => t.id === id);
    client.enqueue("anchor_missing", id, { anchor: tip.anchor ?? tip.selector, screen }, Date.now());
  }, 5000);
}
