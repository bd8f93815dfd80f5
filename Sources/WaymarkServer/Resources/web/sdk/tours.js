// Tours: a panel (a popover on large screens, full screen on small ones) with a page's video, its
// words, its buttons, narration, progress, back and next; a page read to its end sends page_read_to_bottom and
// claims the page's credit; how the renderer opens it (open). And TourGate, which decides which
// tour opens by its trigger, started on each catalog (run).

import { asName, button, buildContent, safeURL, textDirection, word } from "./content.js";
import { Evaluator, triggerRules } from "./engine.js";
import { holdModal } from "./modal.js";
import { installStyle } from "./style.js";
import { joinTours } from "./tourprogress.js";

// The tour panel's look, installed with the part. Words wrap between words, never inside one
// (a Devanagari word split between its syllables reads as two words). The footer shows where the
// tour is, then Back and Next together: on a narrow screen or in large text the two buttons move
// to a line of their own, at its end, rather than taking a line each.
const STYLE = `
.wm-tour,.wm-tour *{box-sizing:border-box}
.wm-tour{position:fixed;z-index:2147483002;background:#fff;color:#1d2a44;display:flex;flex-direction:column;font:16px/1.5 var(--wm-font,system-ui,sans-serif);box-shadow:0 10px 40px rgba(0,0,0,.35);overflow-wrap:break-word}
.wm-tour.wm-large{right:24px;bottom:24px;width:420px;height:min(640px,80vh);border-radius:12px;box-shadow:0 0 0 100vmax rgba(0,0,0,.45),0 10px 40px rgba(0,0,0,.35)}
.wm-tour.wm-small{inset:0;padding:env(safe-area-inset-top) env(safe-area-inset-right) env(safe-area-inset-bottom) env(safe-area-inset-left)}
.wm-tour header{display:flex;align-items:center;gap:8px;padding:10px 14px;border-bottom:1px solid #ddd}
.wm-tour header h2{flex:1;font-size:18px;margin:0}.wm-tour .wm-close{position:static;color:#1d2a44}
.wm-tour-body{flex:1;overflow:auto;padding:14px}
.wm-tour-body video{width:100%;border-radius:8px;background:#000}
.wm-tour footer{display:flex;flex-wrap:wrap;align-items:center;gap:8px;padding:10px 14px;border-top:1px solid #ddd}
.wm-tour footer .wm-progress{flex:1 1 auto}.wm-tour footer div{display:flex;gap:8px;margin-left:auto}
.wm-tour footer button{min-height:44px;border:1px solid #1d2a44;background:#1d2a44;color:#fff;border-radius:6px;padding:6px 12px;font:inherit;cursor:pointer}
.wm-tour footer button:disabled{opacity:.4;cursor:default}
.wm-tour .wm-actions button{border:1px solid #1d2a44}
.wm-credit{background:#e6f6e6;color:#135e13;border-radius:6px;padding:6px 10px;margin-top:10px}
`;

/** Adds the tour panel's style sheet to the page; answers what takes it away. */
export function install(win) {
  return installStyle(win, STYLE);
}

/** Opens `tour` at `page` (and a reading position) in the renderer, in the place its stand-in
 *  `opening` holds (Renderer.openTour), once the controls are here if its pages have buttons. The
 *  panel's view is the tips' view (window, server, record, the words and the controls part) with
 *  the renderer's tour hooks. */
export function open(renderer, opening, tour, page, scroll) {
  const hooks = renderer.hooks;
  const view = {
    __proto__: renderer.tipView,
    claim: (id, at) => hooks.claim(id, at),
    isClaimed: (id, at) => hooks.isClaimed(id, at),
    closeTour: (ending) => renderer.closeTour(ending),
    moved: (id, at, where) => hooks.tourMoved(id, at, where),
    press: (action, id, at) => hooks.press?.(action, { tour: id, page: at }),
  };
  Promise.resolve(tour.pages.some((p) => p.actions) && renderer.loadControls()).then(() => {
    if (renderer.tourPanel !== opening) return;
    renderer.tourPanel = new TourPanel(view, tour);
    renderer.tourPanel.open(page, scroll);
  });
}

/** A new catalog's tours in the client (client.js): the gate decides which opens by its trigger,
 *  from what the triggers have seen (`client.tourRules`) and the user's progress; a tour the reader
 *  left open (a reload, a return) opens again where they were. */
export function run(client, gated) {
  const open = client.gate?.open ?? client.renderer.tourPanel?.id ?? null;
  const gate = (client.gate = new TourGate(gated, client.tourProgress, client.tourRules));
  gate.open = open;
  const at = !client.resumedTour && client.kept.load("openTour", null);
  client.resumedTour = true;
  if (at && client.tours.has(at.tour) && !gate.ended(at.tour)) client.openTour(at.tour, at.page, at.scroll);
  else client.checkTours();
}

/**
 * One open tour. `view` is { window, document, server, record, claim(tour, page), isClaimed(tour,
 * page), closeTour(ending), moved(tour, page, scroll), press(action, tour, page), controls }: `claim` answers a promise of { outcome: "granted", answer },
 * { outcome: "refused", message }, { outcome: "unidentified" } or nothing (the server could not be
 * reached); `closeTour` is what the close and Done buttons do; `moved` hears where the reader
 * is, to come back to after a reload. The panel is in the page once made, and shows a page after
 * `open`.
 */
export class TourPanel {
  constructor(view, tour) {
    this.view = view;
    this.tour = tour;
    this.id = tour.id;
    const doc = view.document;
    const root = doc.createElement("section");
    root.className = "wm-tour";
    root.dataset.waymarkUi = "tour";
    root.dataset.waymarkTour = tour.id;
    root.setAttribute("role", "dialog");
    root.setAttribute("aria-modal", "true");
    root.tabIndex = -1;
    const header = doc.createElement("header");
    this.title = doc.createElement("h2");
    this.title.id = `wm-tour-title-${asName(tour.id)}`;
    root.setAttribute("aria-labelledby", this.title.id);
    header.append(this.title, button(doc, { text: "×", className: "wm-close", label: word(view, "closeTour", "Close the tour"), onClick: () => view.closeTour("dismissed") }));
    this.body = doc.createElement("div");
    this.body.className = "wm-tour-body";
    this.body.tabIndex = 0;
    const footer = doc.createElement("footer");
    this.back = button(doc, { text: word(view, "back", "Back"), className: "wm-back", onClick: () => this.show(this.page - 1) });
    this.progress = doc.createElement("span");
    this.progress.className = "wm-progress";
    this.progress.setAttribute("aria-live", "polite");
    this.next = button(doc, { text: word(view, "next", "Next"), className: "wm-next", onClick: () => this.advance() });
    const moves = doc.createElement("div");
    moves.append(this.back, this.next);
    footer.append(this.progress, moves);
    root.append(header, this.body, footer);
    this.root = root;
    this.previousFocus = doc.activeElement;
    this.body.addEventListener("scroll", () => {
      // Where the reader is, to come back to after full-screen video (which scrolls on its own).
      if (!doc.fullscreenElement && !this.paused) {
        this.scroll = this.body.scrollTop;
        view.moved(this.id, this.page, this.scroll);
      }
      this.checkReadToBottom();
    }, { passive: true });
    const size = () => {
      const large = view.window.innerWidth >= 700;
      root.classList.toggle("wm-large", large);
      root.classList.toggle("wm-small", !large);
    };
    size();
    view.window.addEventListener("resize", size);
    this.stopSizing = () => view.window.removeEventListener("resize", size);
    doc.body.appendChild(root);
    this.release = holdModal(doc, root);
  }

  /** Shows its first page (or `page`, at `scroll`: where a reader left it) and takes the focus. */
  open(page = 0, scroll = 0) {
    this.show(Math.min(page, this.tour.pages.length - 1));
    if (scroll > 0) this.scrollBack(scroll);
    this.root.focus({ preventScroll: true });
  }

  /** Shows page `index` from its top, and records page_viewed. */
  show(index) {
    const page = this.tour.pages[index];
    if (!page) return;
    const { document: doc, server } = this.view;
    this.page = index;
    this.title.textContent = page.content.title;
    this.body.replaceChildren();
    this.root.dir = textDirection(page.content.locale);
    const details = { tour: this.id, page: page.id };
    const src = page.media?.url ? safeURL(page.media.url, server) : null;
    if (src) {
      const video = doc.createElement("video");
      video.src = src;
      video.controls = true;
      video.playsInline = true;
      video.preload = "metadata";
      video.dataset.media = page.media.id;
      const poster = page.media.thumbnail ? safeURL(page.media.thumbnail, server) : null;
      if (poster) video.poster = poster;
      video.addEventListener("play", () => this.view.record("video_played", page.media.id, details));
      this.body.appendChild(video);
    }
    const content = doc.createElement("div");
    content.className = "wm-page";
    content.appendChild(buildContent(page.content.html, doc));
    this.body.appendChild(content);
    if (page.actions && this.view.controls) {
      this.body.appendChild(this.view.controls.buttons(doc, page.actions, page.content.title, (action) => this.view.press(action, this.tour, page)));
    }
    const actions = doc.createElement("div");
    actions.className = "wm-actions";
    this.view.listen(actions, page.content, page.id, this.body, details);
    this.body.appendChild(actions);
    this.credit = null;
    if (page.reward) {
      this.credit = doc.createElement("p");
      this.credit.className = "wm-credit";
      this.credit.setAttribute("aria-live", "polite");
      this.credit.textContent = this.view.isClaimed(this.id, page.id)
        ? word(this.view, "earnedPage", "You earned {n} credits for this page.", { n: page.reward })
        : word(this.view, "readToEarn", "Read to the end to earn {n} credits.", { n: page.reward });
      this.body.appendChild(this.credit);
    }
    this.body.scrollTop = 0;
    this.scroll = 0;
    this.progress.textContent = word(this.view, "pageOf", "Page {n} of {total}", { n: index + 1, total: this.tour.pages.length });
    this.back.disabled = index === 0;
    this.next.textContent = index + 1 < this.tour.pages.length ? word(this.view, "next", "Next") : word(this.view, "done", "Done");
    this.readSent = false;
    this.view.moved(this.id, index, 0);
    this.view.record("page_viewed", page.id, details);
    this.view.window.requestAnimationFrame(() => this.checkReadToBottom());
    for (const media of this.body.querySelectorAll("img,video")) media.addEventListener("loadedmetadata", () => this.checkReadToBottom(), { once: true });
  }

  /** The next page; after the last, the tour is finished. */
  advance() {
    if (this.page + 1 < this.tour.pages.length) this.show(this.page + 1);
    else this.view.closeTour("finished");
  }

  /** At the bottom (or when the page fits): page_read_to_bottom, and the page's credit, claimed once. */
  checkReadToBottom() {
    if (this.readSent || this.closed || this.paused) return;
    const body = this.body;
    if (body.scrollTop + body.clientHeight < body.scrollHeight - 2) return;
    this.readSent = true;
    const page = this.tour.pages[this.page];
    this.view.record("page_read_to_bottom", page.id, { tour: this.id, page: page.id });
    if (page.reward) this.claim(page);
  }

  /** Claims a page's credit and says what came of it on the page. */
  async claim(page) {
    const credit = this.credit;
    const say = (key, text, n) => { if (credit) credit.textContent = word(this.view, key, text, { n }); };
    const result = await this.view.claim(this.id, page);
    if (result?.outcome === "unidentified") say("signInToEarnReading", "Sign in to earn credits for reading.");
    // In a language the server has words in, the general reason in it; in English, the server's own.
    if (result?.outcome === "refused") say("noCredit", result.message ?? "No credit for this page.");
    if (result?.outcome === "granted") {
      const answer = result.answer;
      say("earnedPage", "You earned {n} credits for this page.", answer.credits ?? answer.grant?.credits ?? page.reward);
      this.root.dispatchEvent(new this.view.window.CustomEvent("waymark:credit", { detail: answer, bubbles: true }));
    }
  }

  /** Hides the panel while a video plays full screen, remembering where the reader was. */
  pause() {
    this.paused = true;
    this.release();
    this.savedScroll = this.scroll ?? 0;
    this.root.classList.add("wm-paused");
  }

  /** Shows the panel again at the reading position it had when it paused. */
  resume() {
    this.paused = false;
    this.release = holdModal(this.view.document, this.root);
    this.root.classList.remove("wm-paused");
    // The browser scrolls the video back into view as it leaves full screen; put the page back
    // where the reader was, after it has.
    this.scrollBack(this.savedScroll ?? 0);
  }

  /** Puts the page at `position`, again after the next frames and once the media's size is known
   *  (both move the text). */
  scrollBack(position) {
    const restore = () => { this.body.scrollTop = position; };
    const win = this.view.window;
    restore();
    win.requestAnimationFrame(() => { restore(); win.requestAnimationFrame(restore); });
    setTimeout(restore, 100);
    for (const media of this.body.querySelectorAll("img,video")) media.addEventListener("loadedmetadata", restore, { once: true });
  }

  /** Takes the panel out of the page and gives the focus back to where it was. */
  remove() {
    this.closed = true;
    this.stopSizing();
    this.release();
    this.root.remove();
    if (this.previousFocus?.isConnected) this.previousFocus.focus({ preventScroll: true });
  }
}

/**
 * Which tour opens by its trigger, as every SDK decides it (docs/rules.md#tours): one at a time;
 * when none is open, the first in catalog order whose trigger holds and that has not ended, at
 * the furthest page reached. A tour that ended, finished or dismissed, here or on another device,
 * never opens by its trigger again; one left open opens again where the user was.
 * `progress` is { id: { page, finished, dismissed } }, as the user's devices share it
 * (tourprogress.js).
 * tours: `[{id, trigger, pages}]`, the trigger a rule in JSON form (none: the app opens it).
 */
export class TourGate {
  /** `evaluator` evaluates the triggers of the tours that have one, in catalog order
   *  (`triggerRules(tours)`): the client keeps it from the start, so that the events before this
   *  part arrived count. */
  constructor(tours, progress = {}, evaluator = new Evaluator(triggerRules(tours))) {
    this.tours = tours;
    this.triggered = tours.filter((t) => t.trigger);
    this.evaluator = evaluator;
    this.progress = progress;
    this.open = null;
  }

  ended(id) {
    const p = this.progress[id];
    return Boolean(p?.finished || p?.dismissed);
  }

  /** Takes in progress (a join: the further page, each ending either has); whether it grew. An
   *  open tour that ended elsewhere is no longer open. */
  merge(other) {
    const grew = joinTours(this.progress, other);
    if (this.ended(this.open)) this.open = null;
    return grew;
  }

  reached(id, page) {
    return this.merge({ [id]: { page } });
  }

  /** The user ended a tour at `page`: "finished" or "dismissed". */
  end(id, page, ending) {
    if (this.open === id) this.open = null;
    return this.merge({ [id]: { page, [ending]: true } });
  }

  /** A button of `kind` pressed on `page`: next moves on (on the last page it finishes), dismiss
   *  dismisses, route and tour finish (and a tour button's tour is open), url changes nothing. */
  pressed(id, page, kind, to) {
    if (kind === "next") return page + 1 < this.tours.find((t) => t.id === id)?.pages ? this.reached(id, page + 1) : this.end(id, page, "finished");
    const ending = kind === "dismiss" ? "dismissed" : (kind === "route" || kind === "tour") && "finished";
    const grew = Boolean(ending) && this.end(id, page, ending);
    if (kind === "tour" && to) this.open = to;
    return grew;
  }

  /** The tour to open now, marked open: { tour, page }, or null. */
  due() {
    if (this.open) return null;
    const tour = this.triggered.find((t, i) => this.evaluator.value(i) && !this.ended(t.id));
    if (!tour) return null;
    this.open = tour.id;
    return { tour: tour.id, page: Math.min(this.progress[tour.id]?.page ?? 0, Math.max(tour.pages - 1, 0)) };
  }
}
