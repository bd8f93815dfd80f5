// Capture: what the user does in the page, as the events rules speak of (tap, long-press, swipes,
// scroll, keystroke), and the page changes the SDK follows (screens, containers, layout,
// visibility, full screen).

import { isShown, ownScroll } from "./placement.js";

/**
 * Listens to the page until the function it answers is called. `on` receives what happens:
 *   record(name, target)  a tap (target from data-waymark, else the element's id), a long-press or
 *                         a swipe-left, -right, -up or -down from touch input (gestures.js, on a
 *                         touch screen, once that part is here), a scroll (at most
 *                         one a second; not the SDK's own, bringing an anchor into view) or a
 *                         keystroke in a field (one a second per field);
 *   escape(event)         Esc was pressed;
 *   reach(event)          F6 was pressed;
 *   hide() / show()       the page was hidden (or left) / became visible again;
 *   screenChanged()       a single-page app changed its path, after its own handlers ran;
 *   fullscreenChanged()   an element entered or left full screen;
 *   online()              the network came back;
 *   mutated()             the page's elements changed (at most once a frame);
 *   moved()               layout may have moved anchors (resize, rotation, scroll, the visual
 *                         viewport's changes for the keyboard and zoom, fonts that arrived; the
 *                         renderer observes the sizes of what it follows itself).
 * Clicks and keys inside the SDK's own drawings ([data-waymark-ui]) are not the app being used.
 * The function answered has `ready`, a promise settled once touch gestures are followed (or
 * cannot be: a screen without touch, a part that did not load).
 */
export function capture(win, on) {
  const doc = win.document;
  const removers = [];
  const listen = (target, type, handler, options) => {
    target.addEventListener(type, handler, options);
    removers.push(() => target.removeEventListener(type, handler, options));
  };
  // What an event happened to: the nearest element with data-waymark, else with an id.
  const named = (element) => {
    const found = element?.closest?.("[data-waymark],[id]");
    return found ? found.getAttribute("data-waymark") ?? found.id : undefined;
  };
  // `held`: a long press was recorded, so the click its finger's release makes is not a tap.
  const press = { held: false };
  let stopped = false;
  listen(doc, "click", (event) => {
    if (press.held || event.target.closest?.("[data-waymark-ui]")) return;
    on.record("tap", named(event.target));
  }, true);
  // A long press and swipes come from touch input: on a touch screen, from a part of their own
  // (gestures.js), which a page on a screen without touch never downloads.
  const gestures = win.navigator.maxTouchPoints > 0
    ? import("./gestures.js").then((part) => { if (!stopped) removers.push(part.follow(win, named, on.record, press)); },
      (error) => console.warn(`waymark: touch gestures cannot be loaded: ${error.message}`))
    : Promise.resolve();
  let lastScroll = 0;
  listen(win, "scroll", () => {
    const now = Date.now();
    if (now - lastScroll < 1000 || now < ownScroll.until) return;
    lastScroll = now;
    on.record("scroll");
  }, { capture: true, passive: true });
  const lastKey = new Map();
  listen(doc, "keydown", (event) => {
    const field = event.target;
    if (event.key === "Escape") return on.escape(event);
    if (event.key === "F6") return on.reach(event);
    if (!field || !/^(INPUT|TEXTAREA)$/.test(field.tagName ?? "") && !field.isContentEditable) return;
    if (field.closest?.("[data-waymark-ui]")) return;
    const target = field.getAttribute("data-waymark") ?? field.id ?? undefined;
    const now = Date.now();
    if (now - (lastKey.get(target) ?? 0) < 1000) return;
    lastKey.set(target, now);
    on.record("keystroke", target || undefined);
  }, true);
  listen(doc, "visibilitychange", () => (doc.visibilityState === "visible" ? on.show() : on.hide()));
  listen(win, "pagehide", () => on.hide());
  // After the app's own handlers have drawn the new screen.
  const screenChanged = () => setTimeout(() => on.screenChanged(), 0);
  listen(win, "popstate", screenChanged);
  listen(win, "hashchange", screenChanged);
  listen(doc, "fullscreenchange", () => on.fullscreenChanged());
  listen(win, "online", () => on.online());
  const history = win.history;
  for (const method of ["pushState", "replaceState"]) {
    const original = history[method];
    history[method] = (...args) => {
      const result = original.apply(history, args);
      screenChanged();
      return result;
    };
    removers.push(() => { history[method] = original; });
  }
  // Anchors that appear later (lazy content, recycled lists) and containers that come and go.
  let pending = false;
  const observer = new win.MutationObserver(() => {
    if (pending) return;
    pending = true;
    win.requestAnimationFrame(() => {
      pending = false;
      on.mutated();
    });
  });
  observer.observe(doc.documentElement, { childList: true, subtree: true, attributes: true, attributeFilter: ["hidden", "class", "style", "data-waymark-key", "data-waymark-anchor"] });
  removers.push(() => observer.disconnect());
  listen(win, "resize", () => on.moved());
  listen(win, "orientationchange", () => on.moved());
  listen(win, "scroll", () => on.moved(), { capture: true, passive: true });
  // The on-screen keyboard and pinch zoom change what is visible without resizing the window.
  if (win.visualViewport) {
    listen(win.visualViewport, "resize", () => on.moved());
    listen(win.visualViewport, "scroll", () => on.moved());
  }
  // A web font that arrives reflows the text around anchors without any other event.
  if (doc.fonts) listen(doc.fonts, "loadingdone", () => on.moved());
  const stop = () => {
    stopped = true;
    for (const remove of removers) remove();
  };
  stop.ready = gestures;
  return stop;
}

/** The screen the page shows: a shown element's data-waymark-screen, else the path's last part
 *  without .html, else "home". */
export function currentScreen(win) {
  const declared = [...win.document.querySelectorAll("[data-waymark-screen]")].find(isShown)?.getAttribute("data-waymark-screen");
  if (declared) return declared;
  const path = win.location.pathname.replace(/\/+$/, "").split("/").pop();
  return path && path !== "index.html" ? path.replace(/\.html?$/, "") : "home";
}

/** Whether a container shows: the element marked data-waymark-container="NAME" is shown; a
 *  container the page does not mark (a banner over every screen) always is. */
export function containerShown(doc, container) {
  const element = doc.querySelector(`[data-waymark-container="${CSS.escape(container)}"]`);
  return element ? isShown(element) : true;
}
