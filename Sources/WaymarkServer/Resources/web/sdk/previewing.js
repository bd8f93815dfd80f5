// A preview of the draft: a page opened from a preview link (?waymark-preview=TOKEN, made in the
// console) runs the app's draft in place of its live catalog, for this tab only (storage.js keeps
// the token for the tab's other pages). This part draws the "Preview" mark that says so, with when
// the preview ends and a button that leaves it; when the server says it ended, the mark says that
// and leaving brings the app's own guidance back. A part of its own (previewing.js), loaded only
// with a preview's catalog.

import { word } from "./content.js";
import { PREVIEW } from "./storage.js";
import { installStyle } from "./style.js";

// A small pill at the top left, where an app's logo usually is, that covers as little of the app
// as it can (a banner or the help launcher at the bottom keep their buttons): pressed, it opens
// downwards to say until when, with the button that leaves.
const STYLE = `
.wm-preview{position:fixed;left:max(8px,env(safe-area-inset-left));top:max(8px,env(safe-area-inset-top));z-index:2147483002;display:flex;flex-direction:column;align-items:flex-start;gap:6px;max-width:calc(100vw - 16px);font:14px/1.3 system-ui,sans-serif}
.wm-preview>button{min-height:44px;min-width:44px;background:#5b2a86;color:#fff;border:2px solid #fff;border-radius:22px;padding:0 14px;font:inherit;font-weight:600;cursor:pointer;box-shadow:0 2px 10px rgba(0,0,0,.3)}
.wm-preview-more{display:flex;flex-wrap:wrap;align-items:center;gap:8px;background:#5b2a86;color:#fff;border-radius:12px;padding:6px 6px 6px 12px;box-shadow:0 2px 10px rgba(0,0,0,.3)}
.wm-preview-more[hidden]{display:none}
.wm-preview-more button{min-height:44px;background:#fff;color:#5b2a86;border:0;border-radius:22px;padding:0 14px;font:inherit;font-weight:600;cursor:pointer}
.wm-preview button:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}
`;

/** Adds the mark's style sheet to the page; answers what takes it away. */
export function install(win) {
  return installStyle(win, STYLE);
}

/** The time of day `iso` names, as the page's language writes hours and minutes. */
export function timeOfDay(iso, locale) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  try {
    return date.toLocaleTimeString(locale, { hour: "numeric", minute: "2-digit" });
  } catch {
    return date.toISOString().slice(11, 16);
  }
}

/** Leaves the preview: the tab forgets its token, the link's parameter leaves the address, and
 *  the page loads again with the app's own guidance. */
export function endPreview(win) {
  try {
    win.sessionStorage.removeItem(PREVIEW);
  } catch {
    /* storage disabled: the token lasted for this page only */
  }
  const url = new URL(win.location.href);
  url.searchParams.delete("waymark-preview");
  win.location.replace(url.href);
}

/** Draws (or redraws) the mark for the catalog's preview ({expires, ended}) and, while it lasts,
 *  asks the server again when it expires, so the mark turns to "ended" by itself. An ended
 *  preview's mark is open, saying so, with the button back to the app. */
export function mark(client) {
  const preview = client.catalog.preview;
  const doc = client.document, win = client.window, view = client.renderer.tipView;
  // The tab keeps the token (storage.js): the address need not show it, nor keep it in history.
  const url = new URL(win.location.href);
  if (url.searchParams.has("waymark-preview")) {
    url.searchParams.delete("waymark-preview");
    win.history.replaceState(win.history.state, "", url.href);
  }
  let root = doc.querySelector(".wm-preview");
  if (!root) {
    root = doc.createElement("div");
    root.className = "wm-preview";
    root.dataset.waymarkUi = "preview";
    const toggle = doc.createElement("button"), more = doc.createElement("div"), leave = doc.createElement("button");
    toggle.type = leave.type = "button";
    toggle.setAttribute("aria-expanded", "false");
    more.className = "wm-preview-more";
    more.setAttribute("role", "status");
    more.hidden = true;
    more.append(doc.createElement("span"), leave);
    root.append(toggle, more);
    toggle.addEventListener("click", () => {
      more.hidden = !more.hidden;
      toggle.setAttribute("aria-expanded", String(!more.hidden));
    });
    leave.addEventListener("click", () => endPreview(win));
    doc.body.append(root);
  }
  const [toggle, more] = root.children;
  toggle.textContent = word(view, "preview", "Preview");
  more.firstChild.textContent = preview.ended
    ? word(view, "previewEnded", "Preview ended")
    : word(view, "previewUntil", "Open until {time}", { time: timeOfDay(preview.expires, client.context.locale) });
  more.lastChild.textContent = preview.ended ? word(view, "previewBack", "Back to the app") : word(view, "previewLeave", "Leave");
  if (preview.ended) {
    more.hidden = false;
    toggle.setAttribute("aria-expanded", "true");
  }
  clearTimeout(client.previewTimer);
  const left = Date.parse(preview.expires) - Date.now();
  if (!preview.ended && left > 0) client.previewTimer = setTimeout(() => client.refresh(), Math.min(left + 1000, 2 ** 31 - 1));
}
