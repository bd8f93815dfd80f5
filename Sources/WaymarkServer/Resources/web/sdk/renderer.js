// The renderer: everything the SDK draws in a page (tips, the open tour, their style sheet) and
// nothing else. What its controls do comes from the hooks it is given, so the client connects them
// to the engine and the server, and the console's preview to nothing at all.

import { mostlyInView } from "./placement.js";
import { arrange } from "./stage.js";
import { installStyle } from "./style.js";
import { drawTip } from "./tips.js";

// What a hook the renderer is not given does: nothing (a tip's close button, survey and buttons
// then only take the tip away).
/**
 * @typedef {object} Hooks
 * @property {(name: string, target?: string, properties?: object) => void} record
 * @property {(id: string) => void} seen
 * @property {(id: string, visible: boolean) => void} sight
 * @property {(id: string) => void} [close]
 * @property {(id: string, score: any, comment?: string) => void} [answer]
 * @property {(action: object, where: object) => void} [press]
 * @property {(tour: string, page: number) => Promise<any>} claim
 * @property {(tour: string, page: number) => boolean} isClaimed
 * @property {(id: string, ending: string | undefined, page: number) => void} tourClosed
 * @property {(id: string, page: number, scroll: number) => void} tourMoved
 */
/** @type {Hooks} */
/** The renderers whose look is the kinds part's (kinds.js). */
export const KINDS = ["spotlight", "pointer", "banner", "modal"];
const NO_HOOKS = Object.freeze({ record() {}, seen() {}, sight() {}, async claim() {}, isClaimed: () => false, tourClosed() {}, tourMoved() {} });

/** Draws tips and tours into one window's page, and takes them away. */
export class Renderer {
  /**
   * `hooks`: record(name, target, properties) for what the user does with the drawings; seen(id)
   * once a drawn tip was on the screen for a moment, and sight(id, visible) each time it comes
   * into the user's sight or leaves it (see `watch`);
   * close(id), answer(id, score, comment) and press(action, { tip } or { tour, page }) for a tip's
   * close button, survey and buttons and a tour page's buttons (without them the tip is erased);
   * claim(tour, page) and isClaimed(tour, page) for a tour page's credit (see
   * TourPanel); tourClosed(id, ending, page) after a tour panel goes ("finished", "dismissed", or
   * none when it was left without ending); tourMoved(id, page, scroll) as
   * its reader moves.
   */
  constructor({ window: win, server, hooks = {} }) {
    this.window = win;
    this.document = win.document;
    this.server = server;
    /** @type {Hooks} */
    this.hooks = { ...NO_HOOKS, ...hooks };
    this.rendered = new Map(); // tip id -> { root, extras, place, previousFocus, kept, order, waiting }
    this.drawn = 0; // tips drawn so far: the stage's order among equals
    this.waiting = new Map(); // tip id -> a tip to draw once the part it needs is here
    this.parts = {};
    this.tourPanel = null;
    this.unstyle = [installStyle(win)];
    // What moves a drawing without an event: its anchor or the page around it changing size (an
    // image arriving, a panel opening, a transition). Observed, not polled: the page's root, each
    // tip and each anchor a tip follows; at most one placing a frame.
    this.followed = new Set();
    this.resizes = new win.ResizeObserver(() => {
      if (this.placing) return;
      this.placing = true;
      win.requestAnimationFrame(() => {
        this.placing = false;
        this.placeAll();
      });
    });
    this.resizes.observe(this.document.documentElement);
    this.live = this.document.createElement("div");
    this.live.className = "wm-live";
    this.live.dataset.waymarkUi = "live";
    this.live.setAttribute("role", "status");
    this.document.body.append(this.live);
    const renderer = this;
    const record = (name, target, properties) => this.hooks.record(name, target, properties);
    this.tipView = {
      window: win, document: this.document, server, record,
      close: (id) => (this.hooks.close ? this.hooks.close(id) : this.erase(id, true)),
      answer: (id, score, comment) => (this.hooks.answer ? this.hooks.answer(id, score, comment) : this.erase(id)),
      press: (tip, action) => (this.hooks.press ? this.hooks.press(action, { tip }) : this.erase(tip.id, true)),
      // A survey's ending outlives the engine's end of the tip, until the user leaves it.
      keep: (id) => { const entry = this.rendered.get(id); if (entry) entry.kept = true; },
      // An element whose size a drawing follows (its anchor, itself).
      follow: (element) => {
        if (!this.followed.has(element)) {
          this.followed.add(element);
          this.resizes.observe(element);
        }
      },
      // What a tip that does not take the focus says to screen readers, politely.
      announce: (text) => { this.live.textContent = text; },
      // A tip's buttons come with the controls part; a tip does not wait for it. Answers what
      // stands in their place until it is here (nothing, if it cannot be loaded).
      withControls(make) {
        if (this.controls) return make(this.controls);
        const slot = renderer.document.createElement("div");
        renderer.loadControls().then((controls) => controls && slot.parentNode && slot.replaceWith(make(controls)));
        return slot;
      },
      // Narration is a part of its own, loaded with the catalog beside the first tip: its control
      // joins the words it reads (`into`) when it is here, if they still show.
      listen(into, ...args) {
        renderer.loadNarration().then((module) => {
          if (!module || !into.isConnected) return;
          into.append(module.narrationControl(this, ...args));
          renderer.speak(into);
        });
      },
    };
  }

  /** Draws a tip (again, if it is drawn already). A survey or a hotspot, which is nothing without
   *  them, waits for the controls part, and a spotlight, a pointer, a banner or a modal for the kinds
   *  part, their look (each loaded with the catalog, so rarely waited for); a tip's buttons join it when the part comes. If a part cannot
   *  be loaded, the tip shows its words without it. */
  draw(tip, waited) {
    this.erase(tip.id, true);
    const needs = (tip.survey || tip.renderer === "hotspot") && !this.tipView.controls ? this.loadControls() : KINDS.includes(tip.renderer) && !this.tipView.kinds ? this.loadKinds() : null;
    if (needs && !waited) {
      this.waiting.set(tip.id, tip);
      return needs.then(() => this.waiting.get(tip.id) === tip && this.draw(tip, true));
    }
    const entry = drawTip(this.tipView, tip);
    entry.order = this.drawn++;
    entry.priority = tip.priority ?? 0;
    this.rendered.set(tip.id, entry);
    this.hold(entry);
    this.watch(tip.id, entry);
    this.arrange();
  }

  /** A modal tip holds the page while it shows (kinds.js, which a modal tip waits for). A tip that
   *  does not show keeps no focus. */
  hold(entry) {
    const shows = !entry.paused && !entry.waiting;
    if (entry.root.getAttribute("aria-modal")) this.tipView.kinds?.holdPage(this.document, entry, shows);
    if (!shows && entry.root.contains(this.document.activeElement) && entry.previousFocus?.isConnected) {
      entry.previousFocus.focus({ preventScroll: true });
    }
  }

  /**
   * Asks the stage (stage.js) which of what is drawn shows, from where each is now, and keeps the
   * others waiting, in their place but unseen and untouchable, until the screen is free: the
   * launcher's panels and the open tour (shown, as the user opened them), modal tips and
   * spotlights, the other tips, hotspot markers, and the dock of launcher buttons.
   */
  arrange() {
    const doc = this.document;
    const measure = (element) => {
      if (!element?.isConnected || element.hidden) return null;
      const box = element.getBoundingClientRect();
      return box.width > 0 || box.height > 0 ? box : null;
    };
    const surfaces = [];
    for (const element of doc.querySelectorAll('[data-waymark-ui="checklist"], [data-waymark-ui="help"], [data-waymark-ui="tour"]')) {
      surfaces.push({ id: element, kind: "panel", order: 0, box: measure(element) });
    }
    for (const [tip, entry] of this.rendered) {
      if (entry.paused) continue;
      const marker = entry.root.hidden && entry.extras.find((e) => e.dataset.waymarkUi === "hotspot");
      const modal = entry.root.getAttribute("aria-modal") || entry.root.classList.contains("wm-kind-spotlight");
      surfaces.push({ id: entry, tip, kind: marker ? "marker" : modal ? "modal" : "tip", priority: entry.priority, order: entry.order, box: measure(marker || entry.root) });
    }
    const dock = doc.querySelector('[data-waymark-ui="dock"]');
    if (dock) surfaces.push({ id: dock, kind: "dock", order: 0, box: measure(dock) });
    const shown = arrange(surfaces);
    for (const { id, tip, box } of surfaces) {
      const waiting = Boolean(box) && !shown.has(id);
      if (tip) {
        if (waiting === Boolean(id.waiting)) continue;
        id.waiting = waiting;
        for (const element of [id.root, ...id.extras]) element.classList.toggle("wm-waiting", waiting);
        this.hold(id);
        this.watch(tip, id);
      } else {
        id.classList.toggle("wm-waiting", waiting);
      }
    }
  }

  /** Follows whether the tip (a hotspot: its marker) is in the user's sight: on the screen, at
   *  least half of it, not hidden, paused or waiting, for half a second. Tells hooks.sight(id,
   *  true) as it comes into sight and hooks.sight(id, false) as it leaves (the engine counts display
   *  time only between), and hooks.seen(id) the first time: what the user saw, not what was drawn
   *  under a tour, behind the anchor's absence or off the screen (a pointer carried away by the
   *  swipe that called it waits for the user to come back to it). Called again, it looks again. */
  watch(id, entry) {
    if (entry.look) return entry.look();
    const target = entry.extras.find((e) => e.dataset.waymarkUi === "hotspot") ?? entry.root;
    let timer = null;
    let intersecting = false;
    let inSight = false;
    const report = (visible) => {
      if (visible === inSight) return;
      inSight = visible;
      this.hooks.sight(id, visible);
    };
    const seen = () => {
      clearTimeout(timer);
      timer = null;
      report(true);
      if (entry.seen) return;
      entry.seen = true;
      this.hooks.seen(id);
      this.speak(entry.root);
    };
    entry.look = () => {
      const visible = intersecting && !entry.paused && !entry.waiting && !target.hidden && this.document.visibilityState !== "hidden";
      if (!visible) {
        clearTimeout(timer);
        timer = null;
        report(false);
      } else if (!inSight && timer === null) {
        // Looked at again when it fires: a scroll in that half second may not be observed yet.
        timer = setTimeout(() => {
          timer = null;
          if (mostlyInView(this.window, target)) seen();
        }, 500);
      }
    };
    const observer = new this.window.IntersectionObserver((changes) => {
      intersecting = changes[changes.length - 1].isIntersecting;
      entry.look();
    }, { threshold: 0.5 });
    observer.observe(target);
    // What the user touches or reaches with the keyboard they saw, however quickly.
    for (const element of [entry.root, target]) {
      element.addEventListener("pointerdown", seen);
      element.addEventListener("focusin", seen);
    }
    entry.unwatch = () => {
      entry.unwatch = () => {};
      entry.look = () => {};
      clearTimeout(timer);
      observer.disconnect();
      report(false);
      for (const element of [entry.root, target]) {
        element.removeEventListener("pointerdown", seen);
        element.removeEventListener("focusin", seen);
      }
    };
  }

  /** Looks again at whether each drawn tip is in sight: the page was hidden or shown. */
  lookAgain() {
    for (const entry of this.rendered.values()) entry.look?.();
  }

  /** Takes a tip away, giving the focus back to where it was if the tip had it; a survey's ending
   *  only when `ended` (the user left it). */
  erase(id, ended) {
    this.waiting.delete(id);
    const entry = this.rendered.get(id);
    if (!entry || (entry.kept && !ended)) return;
    this.rendered.delete(id);
    entry.unwatch();
    entry.release?.();
    queueMicrotask(() => this.arrange());
    // Nothing drawn: nothing to follow (anchors of lists come and go).
    if (this.rendered.size === 0) {
      for (const element of this.followed) this.resizes.unobserve(element);
      this.followed.clear();
    }
    const hadFocus = entry.root.contains(this.document.activeElement);
    this.window.speechSynthesis?.cancel?.();
    entry.root.remove();
    for (const extra of entry.extras) extra.remove();
    if (hadFocus && entry.previousFocus?.isConnected) entry.previousFocus.focus({ preventScroll: true });
  }

  /** Hides a drawn tip while its container is hidden or a tour covers the page, or shows it
   *  again: its pointer and spotlight too, and a paused tip keeps no focus. */
  setPaused(id, paused) {
    const entry = this.rendered.get(id);
    if (!entry) return;
    for (const element of [entry.root, ...entry.extras]) element.classList.toggle("wm-paused", paused);
    // A paused modal lets the page go; it holds it again when it comes back.
    entry.paused = paused;
    this.hold(entry);
    this.watch(id, entry);
    if (!paused) entry.place?.();
    this.arrange();
  }

  /** In the listener's mode (narration.js), what the user sees speaks, one at a time: a tip once
   *  seen, a tour page as it opens, an article as it is opened. */
  speak(element) {
    const tip = element.closest("[data-waymark-tip]");
    if (tip && !this.rendered.get(tip.dataset.waymarkTip)?.seen) return;
    this.parts.narration?.then((module) => module?.offer(this.window, element.querySelector(".wm-narrate")));
  }

  isDrawn(id) {
    return this.rendered.has(id);
  }

  /** Moves every drawn tip to where its anchor is now. */
  placeAll() {
    for (const entry of this.rendered.values()) entry.place?.();
    this.arrange();
  }

  /** The tip the user would mean by Esc: the focused one, else the last drawn that shows. */
  topmostTip() {
    const focused = this.document.activeElement?.closest?.("[data-waymark-tip]");
    // Not one the user cannot see: a hotspot not opened, a tip whose anchor is away.
    return focused?.dataset.waymarkTip ?? [...this.rendered].filter(([, entry]) => !entry.root.hidden && !entry.waiting).pop()?.[0];
  }

  /** A part of the SDK, loaded once when first asked for: pages whose catalog does not need it
   *  never download it. Answers undefined when it cannot be loaded (asking again tries again). */
  part(name, load) {
    return (this.parts[name] ??= load().then((module) => {
      // A part's style sheet goes in with it.
      if (module.install) this.unstyle.push(module.install(this.window));
      return module;
    }, (error) => {
      delete this.parts[name];
      console.warn(`waymark: ${name} cannot be loaded: ${error.message}`);
    }));
  }

  loadNarration() {
    return this.part("narration", () => import("./narration.js"));
  }

  loadTours() {
    return this.part("the tour panel", () => import("./tours.js"));
  }

  /** The look of a spotlight, a pointer, a banner and a modal (kinds.js). */
  loadKinds() {
    return this.part("the kinds of tips", () => import("./kinds.js").then((module) => (this.tipView.kinds = module)));
  }

  /** The controls part: buttons, surveys, hotspots, and what a pressed button does. */
  loadControls() {
    return this.part("buttons and surveys", () => import("./controls.js").then((module) => (this.tipView.controls = module)));
  }

  /** Opens a tour at a page (and a reading position), closing (unfinished) any tour that is open.
   *  Until the tour panel is there (tours.js), a stand-in holds the tour's place, so tips pause. */
  openTour(tour, page = 0, scroll = 0) {
    if (!tour?.pages.length) return false;
    this.closeTour();
    const opening = (this.tourPanel = { id: tour.id, remove() {}, pause() {}, resume() {} });
    this.loadTours().then((module) => this.tourPanel === opening && (module ? module.open(this, opening, tour, page, scroll) : this.closeTour()));
    return true;
  }

  /** Closes the open tour, if any, as `ending` says: "finished", "dismissed", or none when the
   *  user did not end it. */
  closeTour(ending) {
    const panel = this.tourPanel;
    if (!panel) return;
    this.tourPanel = null;
    panel.remove();
    this.hooks.tourClosed(panel.id, ending, panel.page ?? 0);
  }

  /** Takes everything away, the style sheet too. */
  stop() {
    for (const id of [...this.rendered.keys()]) this.erase(id, true);
    this.closeTour();
    for (const remove of this.unstyle) remove();
    this.live.remove();
    this.resizes.disconnect();
  }
}
