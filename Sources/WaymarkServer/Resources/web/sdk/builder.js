// The page builder: the app's own page, opened from a tip's form in the console ("Choose on the
// page"), with a bar where the author picks the element the tip points to and writes the tip, in
// each of the catalog's languages, drawn by the SDK's own renderer as they type; "Save to the
// draft" keeps it. The link's token is a builder's: it shows the draft (as a preview does) and may
// save that one tip, for 30 minutes at most. A part of its own (builder.js), loaded only with a
// builder's catalog; the preview mark (previewing.js) comes with it.
//
// What a tip points to is decided by pure functions of the picked element (anchorFor), tested
// under node: the element's data-waymark-anchor (or its nearest marked ancestor's), else the first
// selector of the element's own (id, test id, label, name, link, structure) that matches it alone.

import { currentScreen } from "./capture.js";
import { mark as markPreview } from "./previewing.js";
import { Renderer } from "./renderer.js";
import { installStyle } from "./style.js";

const STYLE = `
.wm-build{position:fixed;z-index:2147483003;left:8px;right:8px;bottom:max(8px,env(safe-area-inset-bottom));margin-left:auto;max-width:440px;max-height:55vh;overflow:auto;box-sizing:border-box;background:#fff;color:#1d2a44;border:2px solid #5b2a86;border-radius:12px;padding:10px 12px;box-shadow:0 4px 20px rgba(0,0,0,.35);font:16px/1.4 system-ui,sans-serif}
.wm-build *{box-sizing:border-box}
.wm-build p{margin:0 0 8px}.wm-build code{font:14px/1.3 ui-monospace,monospace;background:#f1ecf6;padding:1px 4px;border-radius:4px;overflow-wrap:anywhere}
.wm-build label{display:block;font-weight:600;margin:6px 0 2px}
.wm-build input,.wm-build textarea{width:100%;font:inherit;padding:8px;border:1px solid #6b6b80;border-radius:6px;min-height:44px}
.wm-build .wm-row{display:flex;flex-wrap:wrap;gap:8px;margin-top:8px}
.wm-build button{min-height:44px;min-width:44px;font:inherit;font-weight:600;border-radius:22px;padding:0 16px;cursor:pointer;border:2px solid #5b2a86;background:#fff;color:#5b2a86}
.wm-build button.wm-go{background:#5b2a86;color:#fff}
.wm-build button[aria-pressed=true]{background:#f1ecf6}
.wm-build button:disabled{opacity:.5;cursor:default}
.wm-build a{color:#5b2a86;font-weight:600}
.wm-build :focus-visible{outline:3px solid #ffbf47;outline-offset:2px}
.wm-build-outline{position:fixed;z-index:2147483002;pointer-events:none;border:3px solid #5b2a86;box-shadow:0 0 0 2px #fff;border-radius:4px}
.wm-build-outline.wm-hover{border-style:dashed}
.wm-build-outline span{position:absolute;left:-3px;bottom:100%;max-width:80vw;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;background:#5b2a86;color:#fff;font:13px/1.6 ui-monospace,monospace;padding:0 6px;border-radius:4px 4px 0 0}
.wm-build-outline.wm-below span{bottom:auto;top:100%;border-radius:0 0 4px 4px}
.wm-build-outline.wm-end span{left:auto;right:-3px}
.wm-build .wm-foot{position:sticky;bottom:-10px;margin:8px -12px -10px;padding:0 12px 10px;background:#fff;border-top:1px solid #d9d2e3}
@media (max-height:480px){.wm-build{max-height:70vh}.wm-build .wm-foot{position:static}}
`;

/** Adds the builder's style sheet to the page; answers what takes it away. */
export function install(win) {
  return installStyle(win, STYLE);
}

// Attributes that name an element for tests or analytics: stable across releases by intent.
const TEST_IDS = ["data-testid", "data-test-id", "data-test", "data-cy", "data-qa", "data-waymark"];
// What an author means by tapping inside it: the control, not the word in it.
const CONTROLS = new Set(["a", "button", "input", "select", "textarea", "label", "summary", "img"]);

/** A name Waymark can write as it is: a catalog name (`cart-link`), 1 to 128 characters. */
export function isName(text) {
  return typeof text === "string" && /^[A-Za-z0-9_.-]{1,128}$/.test(text);
}

/** `text` as a quoted CSS string. */
export function cssString(text) {
  return `"${String(text).replace(/["\\]/g, "\\$&").replace(/\n/g, "\\a ")}"`;
}

/** Whether an id looks written by a person rather than made by a framework (`:r1:`, `ember123`,
 *  `a1b2c3d4e5f6`): only those stay the same in the next release. */
export function isStableID(id) {
  return /^[A-Za-z][\w-]{0,63}$/.test(id) && !/(\d\D*){4}|\d{3}/.test(id) && !/^(ember|react|ng-|mui-|radix-)/i.test(id);
}

const tagOf = (element) => element.tagName.toLowerCase();

/** The element an author means by tapping `element`: the nearest control around it (a link, a
 *  button, a field), else the element itself. */
export function pickedElement(element) {
  for (let e = element; e && e.tagName; e = e.parentElement) {
    if (CONTROLS.has(tagOf(e)) || /^(button|link|tab|menuitem|checkbox|switch)$/.test(e.getAttribute("role") ?? "")) return e;
  }
  return element;
}

/** The selectors an element names itself by, the most stable first: its id, a test id, its
 *  label, its form name, where a link leads, its image's text. */
export function ownSelectors(element) {
  const tag = tagOf(element), list = [];
  if (element.id && isStableID(element.id)) list.push(`#${element.id}`);
  for (const name of TEST_IDS) {
    const value = element.getAttribute(name);
    if (value) list.push(`[${name}=${cssString(value)}]`);
  }
  for (const name of ["aria-label", "name", "title", "alt"]) {
    const value = element.getAttribute(name);
    if (value && value.length <= 80) list.push(`${tag}[${name}=${cssString(value)}]`);
  }
  const href = tag === "a" && element.getAttribute("href");
  if (href && href.length <= 120 && !href.startsWith("javascript:")) list.push(`a[href=${cssString(href)}]`);
  return list;
}

/** A selector by the element's place: from its nearest ancestor that names itself alone (or the
 *  body), each step the element's tag and place among its siblings of that tag. */
export function structuralSelector(element, count) {
  const steps = [];
  for (let e = element; e && e.tagName && tagOf(e) !== "body" && tagOf(e) !== "html"; e = e.parentElement) {
    if (e !== element) {
      const named = ownSelectors(e).find((selector) => count(selector) === 1);
      if (named) return [named, ...steps].join(" > ");
    }
    const siblings = e.parentElement ? [...e.parentElement.children].filter((s) => s.tagName === e.tagName) : [e];
    steps.unshift(siblings.length > 1 ? `${tagOf(e)}:nth-of-type(${siblings.indexOf(e) + 1})` : tagOf(e));
  }
  return ["body", ...steps].join(" > ");
}

/** What a tip picked at `tapped` points to: { element, anchor } for the nearest element marked
 *  data-waymark-anchor with a catalog name, else { element, selector } for the first selector
 *  that matches the picked element alone (`count(selector)` says how many elements match), or
 *  null when none does. */
export function anchorFor(tapped, count) {
  for (let e = tapped; e && e.tagName; e = e.parentElement) {
    const name = e.getAttribute("data-waymark-anchor");
    if (isName(name)) return { element: e, anchor: name };
  }
  const element = pickedElement(tapped);
  const selector = [...ownSelectors(element), structuralSelector(element, count)].find((s) => count(s) === 1);
  return selector ? { element, selector } : null;
}

/** The screen area around `element`: its nearest data-waymark-container, when it has a catalog name. */
export function containerOf(element) {
  for (let e = element; e && e.tagName; e = e.parentElement) {
    const name = e.getAttribute("data-waymark-container");
    if (name) return isName(name) ? name : undefined;
  }
  return undefined;
}

/** Text as the tip's body: paragraphs at blank lines, each escaped, as the server's Markdown
 *  makes plain text (the saved tip is drawn from the server's own rendering). */
export function paragraphs(text) {
  const escape = (s) => s.replace(/[&<>"]/g, (c) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot" }[c]};`);
  return String(text ?? "").split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean).map((p) => `<p>${escape(p)}</p>`).join("");
}

/** The tip as the renderer draws it, from what the bar holds: `pick` ({ anchor } or
 *  { selector }), the words of `locale`, and the tip's kind. */
export function sampleTip(session, pick, locale, words) {
  const tip = { id: session.tip, renderer: session.renderer ?? "tooltip", content: { title: words.title, html: paragraphs(words.text), locale }, actions: [] };
  if (pick?.anchor) tip.anchor = pick.anchor;
  else if (pick?.selector) tip.selector = pick.selector;
  if (words.button) tip.actions = [{ id: "ok", label: words.button, style: "primary", kind: "dismiss" }];
  return tip;
}

/** What `POST /v1/builder/tip` is sent: the pick, its area and screen, and the words written
 *  (a locale without a title is left out). */
export function saveBody(pick, container, screen, content) {
  const body = { screen, content: {} };
  if (pick?.anchor) body.anchor = pick.anchor;
  else if (pick?.selector) body.selector = pick.selector;
  if (container) body.container = container;
  for (const [locale, words] of Object.entries(content)) if (words.title.trim()) body.content[locale] = words;
  return body;
}

/** A locale's name in its own language (हिन्दी for hi); "Default" for the catalog's fallback. */
export function localeName(locale) {
  if (locale === "default") return "Default";
  try {
    const name = new Intl.DisplayNames([locale], { type: "language" }).of(locale);
    return name ? name[0].toLocaleUpperCase(locale) + name.slice(1) : locale;
  } catch {
    return locale;
  }
}

/** Starts the builder for the client's catalog (a builder's preview): the preview mark, then the
 *  bar, once, with the tip as the draft has it. */
export function mark(client) {
  markPreview(client);
  if (client.builder || client.catalog.preview.ended) return;
  client.builder = new Builder(client);
  client.builder.start();
}

class Builder {
  constructor(client) {
    this.client = client;
    this.window = client.window;
    this.document = client.document;
    this.stage = "pick";
    this.browsing = false;
    this.pick = null;
    /** @type {Record<string, HTMLElement>} the outlines drawn, by which ("hover", "pick") */
    this.boxes = {};
    this.locale = "default";
    this.renderer = new Renderer({ window: this.window, server: client.server });
  }

  async start() {
    try {
      const response = await this.window.fetch(`${this.client.server}/v1/builder`, { headers: { Authorization: `Bearer ${this.client.transport.key}` } });
      const answer = await response.json();
      if (!response.ok) throw new Error(answer.error?.message ?? response.statusText);
      this.session = answer;
    } catch (error) {
      this.session = null;
      return this.drawBar(`The builder could not start: ${error.message}`);
    }
    const s = this.session;
    this.content = Object.fromEntries(s.locales.map((l) => [l, { title: "", text: "", button: "", ...s.content[l] }]));
    // The tip's element as the draft has it, when this page shows it.
    const found = s.anchor ? this.document.querySelector(`[data-waymark-anchor=${cssString(s.anchor)}]`) : s.selector ? this.safeQuery(s.selector) : null;
    if (found) this.choose(found);
    this.listen();
    this.drawBar();
  }

  /** Whether a tap on the page picks (else it goes to the app, to reach another screen). */
  get picking() {
    return this.stage === "pick" && !this.browsing;
  }

  safeQuery(selector) {
    try {
      return this.document.querySelector(selector);
    } catch {
      return null;
    }
  }

  count(selector) {
    try {
      return this.document.querySelectorAll(selector).length;
    } catch {
      return 0;
    }
  }

  /** Taps and clicks on the page pick while picking (the app does not see them); the pointer,
   *  with a mouse, outlines what a click would pick. The outline follows scrolling and resizing. */
  listen() {
    const win = this.window;
    const ours = (event) => event.target.closest?.("[data-waymark-ui]");
    const swallow = (event) => {
      if (!this.picking || ours(event)) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      return true;
    };
    win.addEventListener("click", (event) => {
      if (swallow(event)) this.choose(event.target);
    }, true);
    win.addEventListener("submit", swallow, true);
    win.addEventListener("pointermove", (event) => {
      if (!this.picking || event.pointerType !== "mouse" || ours(event)) return this.outline("hover", null);
      this.outline("hover", anchorFor(event.target, (s) => this.count(s))?.element ?? null);
    }, true);
    const place = () => {
      this.outline("hover", this.hovered);
      this.outline("pick", this.pick?.element ?? null);
    };
    win.addEventListener("scroll", place, { capture: true, passive: true });
    win.addEventListener("resize", place);
  }

  /** Draws (or moves) the outline of `element`, labelled with what the tip would point to. */
  outline(which, element) {
    const doc = this.document;
    if (which === "hover") this.hovered = element === this.pick?.element ? null : element;
    const target = which === "hover" ? this.hovered : element;
    let box = this.boxes[which];
    if (!target) return box?.remove();
    if (!box || !box.isConnected) {
      box = this.boxes[which] = doc.createElement("div");
      box.className = `wm-build-outline${which === "hover" ? " wm-hover" : ""}`;
      box.dataset.waymarkUi = "builder";
      box.append(doc.createElement("span"));
      doc.body.append(box);
    }
    const r = target.getBoundingClientRect();
    Object.assign(box.style, { left: `${r.left - 3}px`, top: `${r.top - 3}px`, width: `${r.width + 6}px`, height: `${r.height + 6}px` });
    box.classList.toggle("wm-below", r.top < 24);
    // The label reads from the element's edge nearer the middle, so that it stays on the screen.
    box.classList.toggle("wm-end", r.left + r.width / 2 > this.window.innerWidth / 2);
    const found = which === "pick" ? this.pick : anchorFor(target, (s) => this.count(s));
    box.firstChild.textContent = found ? found.anchor ?? found.selector : "no single match";
  }

  choose(tapped) {
    this.pick = anchorFor(tapped, (s) => this.count(s));
    this.outline("pick", this.pick?.element ?? null);
    this.drawBar();
  }

  /** Draws the tip as written, at the picked element, as the SDK draws it. */
  drawSample() {
    if (!this.pick) return this.renderer.erase(this.session.tip, true);
    const words = this.content[this.locale];
    const fallback = this.content.default;
    // The SDK's own words (Read aloud, Close) in the language being written, as a reader sees them.
    this.renderer.tipView.words = this.session.ui?.[this.locale];
    this.renderer.draw(sampleTip(this.session, this.pick, this.locale, { title: words.title || fallback.title || "…", text: words.text || fallback.text, button: words.button || fallback.button }));
  }

  async save() {
    const body = saveBody(this.pick, this.pick && containerOf(this.pick.element), currentScreen(this.window), this.content);
    this.status = "Saving…";
    this.drawBar();
    const result = await this.client.transport.post("/v1/builder/tip", body);
    if (result?.outcome === "granted") {
      this.session.exists = true;
      this.saved = true;
      this.status = "Saved to the draft.";
    } else {
      this.status = `Not saved: ${result?.message ?? "the server cannot be reached"}`;
    }
    this.drawBar();
  }

  async done() {
    await this.client.transport.post("/v1/builder/end", {});
    this.renderer.stop();
    for (const box of Object.values(this.boxes ?? {})) box.remove();
    this.stage = "done";
    this.bar?.remove();
    this.client.refresh();
  }

  /** The bar: while picking, what is picked and the way on; while writing, the words of each
   *  locale, drawn on the page as they are typed. */
  drawBar(problem) {
    const doc = this.document;
    const el = (tag, props = {}, ...children) => {
      const e = Object.assign(doc.createElement(tag), props);
      e.append(...children);
      return e;
    };
    const button = (text, onClick, go) => {
      const b = el("button", { type: "button", textContent: text, className: go ? "wm-go" : "" });
      b.addEventListener("click", onClick);
      return b;
    };
    const bar = this.bar ?? el("section", { className: "wm-build" });
    bar.dataset.waymarkUi = "builder";
    bar.setAttribute("aria-label", "Waymark builder");
    const focused = doc.activeElement && bar.contains(doc.activeElement) ? doc.activeElement.dataset.waymarkField : null;
    bar.replaceChildren();
    const s = this.session;
    if (problem || !s) {
      bar.append(el("p", { role: "alert", textContent: problem }), button("Leave", () => this.done()));
    } else if (this.stage === "pick") {
      const what = this.browsing
        ? el("p", {}, "Use the app as usual to reach the screen with the element, then choose it.")
        : this.pick
          ? el("p", {}, `The tip ${s.tip} points to `, el("code", { textContent: this.pick.anchor ?? this.pick.selector }), this.pick.anchor ? " (the app's anchor)." : " (a selector that matches it alone).")
          : el("p", {}, `Tap the element the tip ${s.tip} points to. Links and buttons do not work while you choose.`);
      const use = button("Write the tip", () => {
        this.stage = "write";
        this.outline("hover", null);
        this.drawBar();
        this.drawSample();
      }, true);
      use.disabled = !this.pick || this.browsing;
      const browse = button(this.browsing ? "Choose an element" : "Use the page", () => {
        this.browsing = !this.browsing;
        this.outline("hover", null);
        this.drawBar();
      });
      bar.append(what, el("div", { className: "wm-row" }, use, browse, button("Leave", () => this.done())));
    } else {
      const words = this.content[this.locale];
      const save = button("Save to the draft", () => this.save(), true);
      save.disabled = !this.content.default.title.trim() && !s.exists;
      const field = (name, label, multiline) => {
        const input = el(multiline ? "textarea" : "input", { id: `wm-build-${name}`, value: words[name], rows: 2 });
        input.dataset.waymarkField = name;
        input.lang = this.locale === "default" ? "" : this.locale;
        input.addEventListener("input", () => {
          words[name] = input.value;
          this.saved = false;
          save.disabled = !this.content.default.title.trim() && !s.exists;
          this.drawSample();
        });
        return [el("label", { htmlFor: input.id, textContent: label }), input];
      };
      const tabs = el("div", { className: "wm-row", role: "group" });
      tabs.setAttribute("aria-label", "Language");
      for (const locale of s.locales) {
        const tab = button(localeName(locale), () => {
          this.locale = locale;
          this.drawBar();
          this.drawSample();
        });
        tab.lang = locale === "default" ? "" : locale;
        tab.setAttribute("aria-pressed", String(locale === this.locale));
        tabs.append(tab);
      }
      bar.append(
        el("p", {}, "Points to ", el("code", { textContent: this.pick.anchor ?? this.pick.selector }), " ", button("Choose again", () => {
          this.stage = "pick";
          this.status = "";
          this.renderer.erase(s.tip, true);
          this.drawBar();
        })),
        ...(s.locales.length > 1 ? [tabs] : []),
        ...field("title", "Title"),
        ...field("text", "Text", true),
        ...field("button", "Button (optional)"),
      );
      const status = el("p", { role: "status" }, this.status ?? "");
      if (this.saved) status.append(" ", el("a", { href: `${this.client.server}${s.console}`, textContent: "Open it in the console" }), " to give it a rule, or publish it.");
      bar.append(el("div", { className: "wm-foot" }, el("div", { className: "wm-row" }, save, button("Leave", () => this.done())), status));
    }
    if (!this.bar) doc.body.append(bar);
    this.bar = bar;
    if (focused) bar.querySelector(`[data-waymark-field=${focused}]`)?.focus();
  }
}
