// The launcher part: a catalog's checklists and its help, loaded with a catalog that has either
// (/sdk/VERSION/launcher.js), and the dock their buttons share. The client hands the guide what it
// hears and the progress it syncs.

import { Checklists } from "./checklists.js";
import { button, inLocale, word } from "./content.js";
import { Help } from "./help.js";
import { keepLocale } from "./storage.js";
import { installStyle } from "./style.js";

// One bar for the launcher and Help buttons, side by side, wrapping onto a second row rather than
// overlapping (at 200% text they no longer fit one). The bar lets taps through between its buttons.
const STYLE = `
.wm-dock{position:fixed;z-index:2147482990;left:0;right:0;bottom:0;display:flex;flex-wrap:wrap;align-items:flex-end;gap:8px;padding:8px max(8px,env(safe-area-inset-right)) max(8px,env(safe-area-inset-bottom)) max(8px,env(safe-area-inset-left));pointer-events:none;transition:transform .2s}
.wm-dock:empty{display:none}.wm-dock>*{pointer-events:auto}
.wm-listen{min-width:44px;min-height:44px;padding:8px 14px;border-radius:22px;border:2px solid #fff;background:#1d2a44;color:#fff;font:600 15px/1.2 system-ui,sans-serif;box-shadow:0 4px 16px rgba(0,0,0,.3);cursor:pointer}
.wm-listen[aria-pressed=true]{background:#ffbf47;color:#1d2a44}
.wm-listen:focus-visible,.wm-language select:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}
.wm-language{display:flex;align-items:center;min-height:44px;padding:0 6px;border-radius:22px;border:2px solid #fff;background:#1d2a44;color:#fff;font:600 15px/1.2 system-ui,sans-serif;box-shadow:0 4px 16px rgba(0,0,0,.3)}
.wm-language{overflow:hidden}.wm-language select{min-height:44px;border:0;background:transparent;color:#fff;font:inherit;cursor:pointer}
.wm-language option{background:#fff;color:#1d2a44}
.wm-dock.wm-slotted{position:static;padding:0}
.wm-dock.wm-away{transform:translateY(calc(100% + 8px))}
@media (prefers-reduced-motion: reduce){.wm-dock{transition:none}}
`;

/**
 * Where the launcher and Help buttons go: inside the element the page marks `data-waymark-dock`
 * (a place in its own layout), else a bar fixed at the bottom of the screen, inside the safe
 * area. A fixed bar reserves its height at the end of the page, so the page scrolls past it and
 * nothing of the page stays under it, and slides away while the user scrolls (a finger or a
 * wheel), coming back when they stop. Its height is `--wm-dock` on the root element, for the panels to open above it.
 */
export class Dock {
  constructor(win) {
    const doc = win.document;
    this.element = doc.createElement("div");
    this.element.className = "wm-dock";
    this.element.dataset.waymarkUi = "dock";
    this.removeStyle = installStyle(win, STYLE);
    const slot = doc.querySelector("[data-waymark-dock]");
    if (slot) {
      this.element.classList.add("wm-slotted");
      slot.append(this.element);
      return;
    }
    const room = (this.room = doc.createElement("div"));
    room.setAttribute("aria-hidden", "true");
    room.dataset.waymarkUi = "dock-room";
    doc.body.append(room, this.element);
    this.observer = new win.ResizeObserver(() => {
      const height = this.element.offsetHeight;
      room.style.height = `${height}px`;
      doc.documentElement.style.setProperty("--wm-dock", `${height}px`);
    });
    this.observer.observe(this.element);
    // The user's own scrolling (a finger, a wheel), not the page's or the SDK's.
    let timer;
    this.onScroll = () => {
      this.element.classList.add("wm-away");
      clearTimeout(timer);
      timer = setTimeout(() => this.element.classList.remove("wm-away"), 700);
    };
    for (const type of ["touchmove", "wheel"]) win.addEventListener(type, this.onScroll, { passive: true });
    this.window = win;
  }

  stop() {
    this.observer?.disconnect();
    for (const type of ["touchmove", "wheel"]) this.window?.removeEventListener(type, this.onScroll);
    this.window?.document.documentElement.style.removeProperty("--wm-dock");
    this.room?.remove();
    this.element.remove();
    this.removeStyle();
  }
}

/** What a page runs of a catalog's checklists (`lists`) and help (`help`), their buttons in one dock
 *  with the listener's toggle: "Listen to tips" (narration.js), pressed while every tip speaks. */
export class Guide {
  constructor(client, catalog, shared) {
    this.dock = new Dock(client.window);
    this.window = client.window;
    const renderer = client.renderer;
    renderer.loadNarration().then((narration) => {
      if (!narration || this.stopped) return;
      const toggle = button(client.document, { text: `🔊 ${word(renderer.tipView, "listenToTips", "Listen to tips")}`, className: "wm-listen", onClick: () => {
        // Turned on, what shows now speaks (the client hears the change).
        narration.setListening(client.window, !narration.listening(client.window));
      } });
      toggle.dataset.waymarkUi = "listen";
      // Pressed while the mode is on, however it was turned on (a tip's Listen too).
      const show = () => toggle.setAttribute("aria-pressed", String(narration.listening(client.window)));
      show();
      client.window.addEventListener("waymark:listen", (this.onListen = () => queueMicrotask(show)));
      this.dock.element.append(toggle);
    });
    this.lists = catalog.checklists ? new Checklists(client, catalog.checklists, shared, this.dock.element) : null;
    this.help = catalog.articles ? new Help(client, catalog, this) : null;
    if (catalog.locales?.length > 1) this.dock.element.append(languagePicker(client, catalog.locales));
  }

  record(name, target, time, props) {
    this.lists?.record(name, target, time, props);
  }

  /** Closes the checklist's and the help's panels (a tour opens, or the other panel). */
  closePanels() {
    if (this.lists?.open) this.lists.toggle(true);
    this.help?.close();
  }

  setContext(values, time) {
    this.lists?.setContext(values, time);
  }

  /** Progress from the user's other devices. */
  merge(progress) {
    this.lists?.merge(progress);
  }

  /** What is shared with the user's other devices. */
  progress() {
    return this.lists?.progress();
  }

  stop() {
    this.stopped = true;
    if (this.onListen) this.window.removeEventListener("waymark:listen", this.onListen);
    this.lists?.stop();
    this.help?.stop();
    this.dock.stop();
  }
}

/** The dock's language picker: the catalog's languages, each in its own words (English, हिन्दी),
 *  the user's current one chosen; picking one asks the client for the guidance in it. */
function languagePicker(client, locales) {
  const doc = client.document;
  const label = doc.createElement("label");
  label.className = "wm-language";
  label.dataset.waymarkUi = "language";
  const select = doc.createElement("select");
  select.setAttribute("aria-label", word(client.renderer.tipView, "language", "Language"));
  for (const locale of locales) {
    const option = doc.createElement("option");
    option.value = locale;
    option.lang = locale;
    try {
      option.textContent = new Intl.DisplayNames([locale], { type: "language" }).of(locale);
    } catch {
      option.textContent = locale;
    }
    option.selected = inLocale(client.context.locale, locale);
    select.append(option);
  }
  select.addEventListener("change", () => setLocale(client, select.value));
  label.append(select);
  return label;
}

/** The user picked the guidance's language: kept in this browser, rules and events see it, and
 *  the catalog comes in it, with what shows drawn again in it. */
export async function setLocale(client, locale) {
  keepLocale(client.window, locale);
  client.context.locale = locale;
  client.setContextValues({});
  await client.refresh();
  for (const id of [...client.renderer.rendered.keys()]) {
    const tip = client.catalog.tips?.find((t) => t.id === id);
    if (tip) client.renderer.draw(tip);
  }
}
