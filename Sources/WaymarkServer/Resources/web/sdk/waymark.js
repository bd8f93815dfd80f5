// waymark.js: Waymark's web SDK, ES modules with no dependencies and no build step. A Waymark
// server joins this module and everything it imports into one file at /sdk/waymark.js, so a page
// loads the SDK in one request:
//
//   import { Waymark } from "https://waymark.example.com/sdk/waymark.js";
//   Waymark.start({ key: "wm_client_...", server: "https://waymark.example.com", user: "u42" });
//
// The modules, from the language up (docs/web-sdk.md):
//   rules.js      the rule language as the server ships it: ruleFromJSON, printRule
//   values.js     comparing values, RFC 3339 time
//   engine.js     Evaluator (incremental rules) and Engine (the incremental tip scheduler)
//   content.js    the catalog's HTML as DOM through an allowlist, safe URLs, text helpers
//   style.js      the tips' style sheet
//   kinds.js      the look of spotlights, pointers, banners and modals: a part the renderer
//                 loads when a catalog has one of them
//   placement.js  anchors, and where a tip goes beside one
//   narration.js  the listen / read-aloud control
//   tips.js       the six tip renderers
//   modal.js      an open tour or modal tip: the page behind inert, Tab cycling inside
//   tours.js      the tour panel, read-to-bottom and credits, and TourGate (which tour opens): a
//                 part of its own, which the renderer loads when a catalog has a tour
//                 (/sdk/VERSION/tours.js)
//   controls.js   buttons, the survey form, what a pressed button does, hotspot markers: a
//                 part the renderer loads when a catalog has a survey, a button or a hotspot
//   launcher.js   checklists.js (first steps done by rules, their launcher and panel) and
//                 help.js (the help panel and its search): a part the client loads when a
//                 catalog has a checklist or help articles
//   renderer.js   everything drawn in a page, with hooks for what its controls do
//   storage.js    what is kept in localStorage
//   transport.js  catalog, event batches, credit claims, identifies
//   capture.js    taps, scrolls, keystrokes, screens, containers, layout
//   gestures.js   long presses and swipes from touch input: a part capture.js loads on a touch
//                 screen
//   client.js     WaymarkClient, which connects them
//   identity.js   progress on the user's other devices, attributes on the server, tour credits:
//                 a part the client loads for a user with an identity proof (a userHash)
//   bridge.js     the page inside a hybrid app's WebView, drawing what the app's native core
//                 decides: a part loaded only there (docs/hybrid-apps.md)
// Two modules are for tools, not pages, and are no part of the joined file: ruletext.js, the
// parser of a rule's text (the server ships rules parsed), and preview.js, a tip or tour drawn
// alone for the console. Tools load them from /sdk/src/, where every module is served as written. ruletext.js, rules.js, values.js and engine.js touch no
// browser API: node's test runner checks them against conformance/.

import { WaymarkClient } from "./client.js";

// The SDK's public names: the same whether a page loads the joined file or these modules.
export { WaymarkClient } from "./client.js";
export { buildContent, safeURL } from "./content.js";
export { Engine, Evaluator } from "./engine.js";
export { Renderer } from "./renderer.js";
export { LIMITS, printRule, ruleFromJSON } from "./rules.js";
export { eventID } from "./transport.js";
export { formatTime, parseTime } from "./values.js";

/** The SDK's entry point for pages: one client per page. */
export const Waymark = {
  client: null,
  /** In a hybrid app's WebView, whose app gives the page a native bridge (or `options.bridge`),
   *  the app's native core guides and the page draws what it decides (bridge.js). */
  async start(options) {
    this.client?.stop();
    const bridge = options.bridge ?? globalThis.WaymarkNative ?? globalThis.webkit?.messageHandlers?.waymark;
    this.client = bridge ? new (await import("./bridge.js")).WebViewClient({ ...options, bridge }) : new WaymarkClient(options);
    return this.client.start();
  },
  track(name, target, properties) { return this.client?.record(name, target, properties) ?? []; },
  screen(name) { this.client?.screen(name); },
  setContext(values) { this.client?.setContextValues(values); },
  /** Says who the user is: `Waymark.identify("u42", { plan: "plus", firstOrderAt: new Date(…) })`.
   *  Another user than the page started with starts the SDK again for them (give their userHash). */
  async identify(user, attributes = {}, userHash) {
    const client = this.client;
    if (client && String(user) !== client.user) return this.start({ ...client.options, user, userHash, attributes });
    return client?.identify(attributes);
  },
  /** Opens a tour at `page`; without one, where the user left it (from its start if they ended
   *  it), leaving it as it is if it is open. */
  startTour(id, page) { return this.client?.openTour(id, page) ?? false; },
  close(tip) { this.client?.close(tip); },
  /** Answers a survey tip for the user, as its own form does: `Waymark.answer("nps", 9, "Fast")`. */
  answer(tip, score, comment) { return this.client?.answer(tip, score, comment) ?? false; },
  flush() { return this.client?.flush(); },
  stop() { this.client?.stop(); this.client = null; },
};
