// Drawing tips: the six renderers (tooltip, spotlight, pointer, banner, modal, hotspot), each a
// labelled dialog with a close button and a narration control (once its part is here), and, from the controls part, a
// survey's form, the tip's buttons or a hotspot's marker.

import { asName, button, buildContent, textDirection, word } from "./content.js";
import { clippedBox, findAnchor, inView, isShown, isTyping, pageControls, parseAnchor, placeBeside, revealAnchor } from "./placement.js";

/**
 * Draws one tip, as delivered by the server, into the page; a modal one takes the focus (unless
 * the user is typing), the others are announced through `view.announce`. `view` is { window, document, server, record, close(id), answer(id, score, comment),
 * press(tip, action), keep(id), listen(into, content, target, highlight), controls, kinds }: what
 * the tip's controls do, where its narration control goes, and the controls part (controls.js) and
 * the kinds part (kinds.js) once loaded. Answers { root, extras, place, previousFocus, anchor }: `place()` moves it
 * to its anchor again (which may now be another element: a recycled row, the next visible card),
 * hiding it while the anchor is gone.
 */
export function drawTip(view, tip) {
  const doc = view.document;
  const kind = tip.renderer ?? "tooltip";
  const root = doc.createElement("div");
  root.className = `wm-tip wm-kind-${asName(kind)}`;
  root.dataset.waymarkUi = "tip";
  root.dataset.waymarkTip = tip.id;
  root.tabIndex = -1;
  const language = (tip.content.locale ?? "").split("-")[0];
  if (language && language !== "default") root.lang = tip.content.locale;
  root.dir = textDirection(tip.content.locale);
  root.setAttribute("role", "dialog");
  if (kind === "modal") root.setAttribute("aria-modal", "true");
  const titleId = `wm-title-${asName(tip.id)}`;
  root.setAttribute("aria-labelledby", titleId);
  const title = doc.createElement("h2");
  title.id = titleId;
  title.textContent = tip.content.title;
  const body = doc.createElement("div");
  body.className = "wm-body";
  body.appendChild(buildContent(tip.content.html, doc));
  const close = button(doc, { text: "×", className: "wm-close", label: word(view, "close", "Close"), onClick: () => view.close(tip.id) });
  const actions = doc.createElement("div");
  actions.className = "wm-actions";
  view.listen(actions, tip.content, tip.id, (tip.anchor && findAnchor(doc, tip.anchor)) || root);
  root.append(close, title, body);
  const controls = view.controls;
  if (tip.survey && controls) root.append(controls.surveyForm(view, tip));
  else if (tip.actions) root.append(view.withControls((c) => c.buttons(doc, tip.actions, tip.content.title, (action) => view.press(tip, action))));
  root.append(actions);
  // What a spotlight, a pointer, a banner or a modal adds (kinds.js, the part such a tip waits for).
  const look = view.kinds?.decorate(doc, tip, kind);
  const extras = look?.extras ?? [];
  const anchored = kind !== "banner" && kind !== "modal" && (tip.anchor || tip.selector);
  // An arrow from the tip's edge to its anchor (the pointer's finger is on the anchor itself).
  const arrow = anchored && kind !== "pointer" ? overlay(doc, "wm-arrow", "arrow") : null;
  if (arrow) extras.push(arrow);
  // A hotspot's tip waits, hidden, for its marker to be tapped.
  const hot = kind === "hotspot" && controls ? controls.hotspot(view, tip, root, () => place()) : null;
  if (hot) extras.push(hot.marker);
  const keyed = Boolean(anchored && parseAnchor(tip.anchor)?.key);
  let revealed = false;
  let anchor = null;
  const place = () => {
    look?.place(root);
    if (!anchored) return;
    // A CSS selector (a web tip's own anchor) points at the first element it matches; one this
    // browser cannot read points at none.
    try {
      anchor = tip.selector ? doc.querySelector(tip.selector) : findAnchor(doc, tip.anchor, anchor);
    } catch {
      anchor = null;
    }
    if (anchor) view.follow(anchor);
    // Waits for an anchor that is not in the page yet, and hides while it is gone or scrolled out
    // of its list. The first time it is there, it is brought into view; but an item of a list
    // (NAME[KEY]) that was not drawn when the tip showed comes by the user's own scrolling.
    const shown = anchor && isShown(anchor);
    if (shown && !revealed) revealAnchor(view.window, anchor);
    revealed ||= shown || keyed;
    // A tip whose anchor is off the screen (on its way in, or scrolled away by the user) is
    // parked, not pinned over whatever is on the screen, until the anchor is there.
    const box = shown && clippedBox(anchor);
    const parked = box && !inView(view.window, box);
    root.hidden = !box || parked || hot?.open === false;
    for (const extra of extras) extra.hidden = !box || parked;
    if (arrow) arrow.hidden = root.hidden;
    // Beside its anchor, clear of the page's other controls where it can be.
    const avoid = box && !root.hidden ? pageControls(view.window, anchor) : [];
    if (box) {
      placeBeside(view.window, box, root, { arrow, avoid });
      look?.place(root, box, view.window);
      hot?.place(box, anchor);
    }
  };
  doc.body.append(...extras, root);
  view.follow(root);
  const previousFocus = doc.activeElement;
  place();
  // Only a modal takes the focus (never from someone typing); the others are announced, and F6
  // reaches them.
  if (kind === "modal" && !isTyping(previousFocus)) root.focus({ preventScroll: true });
  else if (!root.hidden) view.announce(`${tip.content.title}. ${body.textContent}`);
  // `lost`: the tip points at an anchor that is not in the page.
  return { root, extras, place, previousFocus, get anchor() { return anchored ? anchor : null; }, get lost() { return anchored && !anchor; } };
}

/** An element the SDK draws beside a tip (its arrow, a spotlight's ring), named in data-waymark-ui. */
export function overlay(doc, className, name) {
  const element = doc.createElement("div");
  element.className = className;
  element.dataset.waymarkUi = name;
  return element;
}
