// Controls beyond a tip's close button: its buttons (next, dismiss, a tour, a web page, a route of
// the app), a survey's form and the ending it shows once answered, what a pressed button does, and
// a hotspot's marker. A part of its own, which the renderer loads when a catalog has a survey, a
// button or a hotspot (/sdk/VERSION/controls.js): a page whose tips only inform never downloads it.

import { asName, safeURL, word } from "./content.js";
import { installStyle } from "./style.js";

/** The longest start of `text` that is at most `bytes` long in UTF-8, whole code points only. */
export function utf8Prefix(text, bytes) {
  const encoder = new TextEncoder();
  if (encoder.encode(text).length <= bytes) return text;
  let used = 0;
  let end = 0;
  for (const char of text) {
    used += encoder.encode(char).length;
    if (used > bytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}

const STYLE = `
.wm-buttons{display:flex;flex-wrap:wrap;gap:8px;margin-top:8px}
.wm-buttons button{min-height:44px;border-radius:6px;padding:6px 14px;font:inherit;cursor:pointer;border:1px solid currentColor}
.wm-primary{background:var(--wm-accent,#ffbf47);color:var(--wm-surface,#1d2a44);border-color:var(--wm-accent,#ffbf47)!important;font-weight:600!important}
.wm-secondary{background:none;color:inherit}
.wm-tour .wm-primary{background:#1d2a44;color:#fff;border-color:#1d2a44!important}
.wm-buttons button:focus-visible{outline:3px solid var(--wm-focus,#ffbf47);outline-offset:2px}
.wm-survey button{min-height:44px;background:var(--wm-text,#fff);color:var(--wm-surface,#1d2a44);border:0;border-radius:6px;padding:6px 12px;font:inherit;cursor:pointer}
.wm-survey fieldset{border:0;margin:6px 0;padding:0;display:flex;flex-wrap:wrap;gap:4px}
.wm-scale label{position:relative;margin:0}
.wm-scale input{position:absolute;opacity:0;width:1px;height:1px;margin:0}
.wm-scale span{display:inline-block;min-width:44px;padding:11px 4px;text-align:center;border:1px solid currentColor;border-radius:6px;cursor:pointer}
.wm-scale input:checked+span{background:var(--wm-accent,#ffbf47);color:var(--wm-surface,#1d2a44);border-color:var(--wm-accent,#ffbf47)}
.wm-scale input:focus-visible+span{outline:3px solid var(--wm-focus,#ffbf47);outline-offset:2px}
.wm-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.wm-comment{display:block;width:100%;margin:4px 0;font:inherit;border-radius:6px;padding:4px 6px}
.wm-survey button:disabled{opacity:.5;cursor:default}
.wm-hotspot{position:absolute;z-index:2147482999;width:44px;height:44px;padding:0;border:0;background:none;cursor:pointer}
.wm-hotspot::before,.wm-hotspot::after{content:"";position:absolute;left:12px;top:12px;width:20px;height:20px;border-radius:50%;box-sizing:border-box}
.wm-hotspot::before{background:#ffbf47;border:2px solid #1d2a44}
.wm-hotspot::after{animation:wm-pulse 1.6s infinite}
.wm-hotspot[aria-expanded=true]::after{animation:none}
.wm-hotspot:focus-visible{outline:3px solid #ffbf47;outline-offset:-4px;border-radius:50%}
@keyframes wm-pulse{0%{box-shadow:0 0 0 0 rgba(255,191,71,.8)}100%{box-shadow:0 0 0 14px rgba(255,191,71,0)}}
@media (prefers-reduced-motion: reduce){.wm-hotspot::after{animation:none}}
`;

/** Sends a survey's answer as `survey_answered` (the comment cut to the 512 bytes an event
 *  property holds). A survey's default dismissal is that event, which hides it; a survey whose
 *  author chose another dismissal is closed. False for a tip that is no survey, or a score out of
 *  its scale. */
export function answer(client, id, score, comment = "") {
  const tip = (client.catalog?.tips ?? []).find((t) => t.id === id);
  const survey = tip?.survey;
  if (!survey || !Number.isInteger(score) || score < survey.min || score > survey.max) return false;
  const properties = { tip: id, score: String(score) };
  if (tip.variant) properties.variant = tip.variant;
  const text = utf8Prefix(String(comment).trim(), 512);
  if (text) properties.comment = text;
  client.record("survey_answered", id, properties);
  // The engine's end of it: a survey's ending, if it has one, stays until the user leaves it.
  if (client.renderer.isDrawn(id)) client.render(client.engine.close(id, Date.now()));
  return true;
}

/** Adds these controls' style sheet to the page; the function it returns takes it away. */
export function install(win) {
  return installStyle(win, STYLE);
}

/** A tip's or page's buttons, the main one first as the catalog orders them, in a group named
 *  `name` (the tip's or page's title). `press(action)` is what a click does. */
export function buttons(doc, actions, name, press) {
  const group = doc.createElement("div");
  group.className = "wm-buttons";
  group.setAttribute("role", "group");
  group.setAttribute("aria-label", name);
  for (const action of actions) {
    const element = doc.createElement("button");
    element.type = "button";
    element.className = action.style === "primary" ? "wm-primary" : "wm-secondary";
    element.dataset.waymarkAction = action.id;
    element.textContent = action.label;
    element.addEventListener("click", () => press(action));
    group.append(element);
  }
  return group;
}

/** A survey's scores as a radio group (arrow keys move between them), an optional comment, and a
 *  send button that waits for a score. Sending calls `view.answer`; a survey with buttons then
 *  shows its ending in the form's place: thanks, said to screen readers, and the buttons. */
export function surveyForm(view, tip) {
  const doc = view.document;
  const survey = tip.survey;
  const form = doc.createElement("form");
  form.className = "wm-survey";
  const scale = doc.createElement("fieldset");
  scale.className = "wm-scale";
  const legend = doc.createElement("legend");
  legend.className = "wm-hidden";
  legend.textContent = tip.content.title;
  scale.append(legend);
  for (let score = survey.min; score <= survey.max; score += 1) {
    const label = doc.createElement("label");
    const input = doc.createElement("input");
    input.type = "radio";
    input.name = `wm-score-${asName(tip.id)}`;
    input.value = String(score);
    const text = doc.createElement("span");
    text.textContent = String(score);
    label.append(input, text);
    scale.append(label);
  }
  form.append(scale);
  let comment = null;
  if (survey.comment) {
    comment = doc.createElement("textarea");
    comment.className = "wm-comment";
    comment.rows = 2;
    comment.maxLength = 500;
    comment.placeholder = word(view, "comment", "Comment (optional)");
    comment.setAttribute("aria-label", comment.placeholder);
    form.append(comment);
  }
  const send = doc.createElement("button");
  send.type = "submit";
  send.textContent = word(view, "send", "Send");
  send.disabled = true;
  form.append(send);
  form.addEventListener("change", () => { send.disabled = !form.querySelector("input:checked"); });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const chosen = form.querySelector("input:checked");
    if (!chosen) return;
    // The answer ends the survey for the engine; its ending stays until the user leaves it.
    if (tip.actions) view.keep(tip.id);
    view.answer(tip.id, Number(chosen.value), comment?.value ?? "");
    if (!tip.actions) return;
    const thanks = doc.createElement("p");
    thanks.setAttribute("role", "status");
    thanks.textContent = word(view, "thanks", "Thank you!");
    const group = buttons(doc, tip.actions, tip.content.title, (action) => view.press(tip, action));
    form.replaceWith(thanks, group);
    group.querySelector("button").focus();
  });
  return form;
}

/** The side of a marker, in CSS px: a touch target. */
const MARKER = 44;

/**
 * Where a hotspot's marker goes, from rectangles alone: a MARKER-px square beside the anchor's box,
 * never on it, so that a tap meant for the anchor reaches the anchor. The first side, of right,
 * left, below and above (centred on the anchor as far as the window allows), where the square fits in the window (`view`:
 * {width, height}) and `blocked(square)` finds no control of the page; when every side is blocked,
 * the first that fits; when none fits, below, kept inside the window. Answers {left, top}.
 */
/** @param {(square: {left: number, top: number, right: number, bottom: number}) => boolean} [blocked] */
export function markerPlace(anchor, view, blocked = () => false) {
  // Centred on the anchor across the side it is on, as far as the window allows.
  const middle = Math.max(0, Math.min(anchor.top + anchor.height / 2 - MARKER / 2, view.height - MARKER));
  const centre = Math.max(0, Math.min(anchor.left + anchor.width / 2 - MARKER / 2, view.width - MARKER));
  const sides = [
    { left: anchor.right, top: middle },
    { left: anchor.left - MARKER, top: middle },
    { left: centre, top: anchor.bottom },
    { left: centre, top: anchor.top - MARKER },
  ];
  const fits = sides.filter((s) => s.left >= 0 && s.top >= 0 && s.left + MARKER <= view.width && s.top + MARKER <= view.height);
  const square = (s) => ({ left: s.left, top: s.top, right: s.left + MARKER, bottom: s.top + MARKER });
  const chosen = fits.find((s) => !blocked(square(s))) ?? fits[0] ?? sides[2];
  return {
    left: Math.max(0, Math.min(chosen.left, view.width - MARKER)),
    top: Math.max(0, Math.min(chosen.top, view.height - MARKER)),
  };
}

/**
 * Whether a control of the page (a link, a button, a field), other than `anchor` and Waymark's
 * own, is under the square: a 3-by-3 grid of its points, hit-tested.
 */
function pageControlUnder(doc, anchor, square) {
  for (const x of [square.left + 2, (square.left + square.right) / 2, square.right - 2]) {
    for (const y of [square.top + 2, (square.top + square.bottom) / 2, square.bottom - 2]) {
      const hit = doc.elementFromPoint(x, y)?.closest?.("a[href],button,input,select,textarea,label,[role=button],[tabindex]");
      if (hit && !hit.closest("[data-waymark-ui]") && !anchor.contains(hit) && !hit.contains(anchor)) return true;
    }
  }
  return false;
}

/**
 * A hotspot's marker: a pulsing button beside the tip's anchor (see markerPlace), under the tips
 * (an opened tip covers it rather than it the tip's controls), named by the tip's title, that opens the tip (`root`, hidden until then) beside the anchor, focuses it and
 * records `hotspot_opened`. Answers { marker, open, place(box, anchor) }: `place` moves the marker
 * beside the anchor's box (`again` is the tip's own placing, run once it opens).
 */
export function hotspot(view, tip, root, again) {
  const win = view.window;
  const marker = view.document.createElement("button");
  marker.type = "button";
  marker.className = "wm-hotspot";
  marker.dataset.waymarkUi = "hotspot";
  marker.dataset.waymarkHotspot = tip.id;
  marker.setAttribute("aria-label", tip.content.title);
  marker.setAttribute("aria-haspopup", "dialog");
  marker.setAttribute("aria-expanded", "false");
  root.id = `wm-tip-${asName(tip.id)}`;
  marker.setAttribute("aria-controls", root.id);
  const spot = {
    marker,
    open: false,
    place(box, anchor) {
      // Hit-tested without the marker itself in the way.
      marker.style.visibility = "hidden";
      const view = { width: win.innerWidth, height: win.innerHeight };
      const { left, top } = markerPlace(box, view, (square) => pageControlUnder(win.document, anchor, square));
      marker.style.visibility = "";
      Object.assign(marker.style, { left: `${left + win.scrollX}px`, top: `${top + win.scrollY}px` });
    },
  };
  marker.addEventListener("click", () => {
    if (!spot.open) {
      spot.open = true;
      marker.setAttribute("aria-expanded", "true");
      const properties = { tip: tip.id };
      if (tip.variant) properties.variant = tip.variant;
      view.record("hotspot_opened", tip.id, properties);
      again();
    }
    root.focus({ preventScroll: true });
  });
  return spot;
}

/**
 * What a pressed button does, for `client` (the page's WaymarkClient). First the event, which
 * rules see at once: `tip_action` with the tip as target, or `tour_action` with the tour (and the
 * page); its properties name the action, its kind and where it leads. Then the button's work:
 * next and dismiss move the tour or end the tip; a tip closes before it leads elsewhere, and a tour
 * too (finished, or dismissed by dismiss), unless it opens a web page in a new tab. Where it leads goes first to the page's
 * `onAction(request)`, which answers true to say it went there itself; else the SDK opens the tour,
 * the web page (a new tab), or the route, as a single-page app's router hears it: a history entry
 * and a popstate event.
 */
export function press(client, action, { tip, tour, page }) {
  const properties = { action: action.id, kind: action.kind };
  if (action.to) properties.to = utf8Prefix(action.to, 512);
  const panel = client.renderer.tourPanel;
  if (tip) {
    properties.tip = tip.id;
    if (tip.variant) properties.variant = tip.variant;
    client.record("tip_action", tip.id, properties);
    client.close(tip.id);
  } else {
    Object.assign(properties, { tour: tour.id, page: page.id });
    client.record("tour_action", tour.id, properties);
    if (action.kind === "next") return panel?.advance();
    // The button ends the tour as its kind says (docs/rules.md#tours), so a trigger that still
    // holds does not open it again.
    client.toursChanged(client.gate?.pressed(tour.id, tour.pages.indexOf(page), action.kind, action.to));
    if (action.kind !== "url") client.renderer.closeTour();
  }
  if (action.kind === "next" || action.kind === "dismiss") return;
  if (client.options.onAction?.({ ...action, tip: tip?.id, tour: tour?.id, page: page?.id }) === true) return;
  const win = client.window;
  if (action.kind === "tour") client.openTour(action.to);
  if (action.kind === "url") {
    const url = safeURL(action.to, win.location.href);
    if (url) win.open(url, "_blank", "noopener");
  }
  const route = action.kind === "route" && new URL(action.to, win.location.href);
  if (route?.origin === win.location.origin) {
    win.history.pushState(null, "", route.href);
    win.dispatchEvent(new win.PopStateEvent("popstate"));
  }
}
