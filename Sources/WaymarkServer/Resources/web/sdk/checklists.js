// Checklists: first steps for a new user, each done once its rule over what they did holds, shown
// with their progress in a panel the user opens from a launcher button. Done items stay done
// (kept in localStorage and, with the identity proof, shared with the user's other devices);
// completing a checklist sends checklist_completed and claims its credits once. Part of the
// launcher (launcher.js), which the client loads when a catalog has a checklist or help.

import { asName, buildContent, button, textDirection, word } from "./content.js";
import { Evaluator } from "./engine.js";
import { ruleFromJSON } from "./rules.js";
import { installStyle } from "./style.js";

const STYLE = `
.wm-launcher{min-height:44px;max-width:100%;padding:8px 14px;border-radius:22px;border:2px solid #fff;background:var(--wm-surface,#1d2a44);color:var(--wm-text,#fff);font:600 15px/1.2 system-ui,sans-serif;box-shadow:0 4px 16px rgba(0,0,0,.3);cursor:pointer}
.wm-launcher:focus-visible,.wm-checklist button:focus-visible{outline:3px solid var(--wm-focus,#ffbf47);outline-offset:2px}
.wm-checklist{position:fixed;z-index:2147482991;left:8px;bottom:calc(var(--wm-dock,52px) + 8px);width:min(340px,calc(100vw - 16px));max-height:min(70vh,calc(100vh - var(--wm-dock,52px) - 24px));overflow:auto;background:#fff;color:#1d2a44;border-radius:10px;padding:12px 14px;box-shadow:0 6px 24px rgba(0,0,0,.3);font:15px/1.4 system-ui,sans-serif;box-sizing:border-box;overflow-wrap:break-word}
.wm-checklist h2{font-size:17px;margin:0 40px 4px 0}
.wm-checklist .wm-close{color:#1d2a44}
.wm-checklist progress{width:100%;height:10px;accent-color:#2e7d32}
.wm-checklist ol{list-style:none;margin:8px 0 0;padding:0}
.wm-checklist li{display:flex;align-items:center;gap:8px;min-height:44px;border-top:1px solid #e3e6ec}
.wm-checklist li span[aria-hidden]{flex:none;width:24px;height:24px;border-radius:50%;border:2px solid #1d2a44;text-align:center;line-height:20px;font-weight:700}
.wm-checklist li[data-done] span[aria-hidden]{background:#2e7d32;border-color:#2e7d32;color:#fff}
.wm-checklist li[data-done] .wm-item{text-decoration:line-through;color:#4a5568}
.wm-checklist .wm-item{flex:1}
.wm-checklist li button{min-height:44px;padding:4px 10px;border:1px solid #1d2a44;border-radius:6px;background:none;color:#1d2a44;font:inherit;cursor:pointer}
.wm-checklist [role=status]:empty{display:none}
.wm-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

/**
 * The catalog's checklists for one client (`client`, the page's WaymarkClient). Each checklist's
 * trigger and its items' rules run in one evaluator; an item whose rule held is done for good.
 * Call record() and setContext() with what the client sees, merge() with progress from the user's
 * other devices (`shared`: what the last sync brought); progress() is what is shared. The
 * launcher button goes first in `dock` (the guide's dock), else at the end of the page.
 */
export class Checklists {
  constructor(client, checklists, shared, dock = client.document.body) {
    this.client = client;
    this.dock = dock;
    this.lists = [];
    const rules = [];
    for (const list of checklists) {
      try {
        const entry = { list, trigger: rules.length, items: [] };
        rules.push(ruleFromJSON(list.trigger ?? { const: true }));
        for (const item of list.items) {
          entry.items.push(rules.length);
          rules.push(ruleFromJSON(item.done));
        }
        this.lists.push(entry);
      } catch (error) {
        console.warn(`waymark: checklist ${list.id} is skipped: ${error.message}`);
      }
    }
    this.evaluator = new Evaluator(rules, client.kept.load("checklistRules", undefined));
    // Per checklist: { done: [item ids], completed, offered }.
    this.state = client.kept.load("checklists", {});
    this.removeStyle = installStyle(client.window, STYLE);
    this.setContext(client.contextValues ?? {}, Date.now());
    if (shared) this.merge(shared);
    this.draw();
  }

  record(name, target, time, props) {
    this.evaluator.record(name, target, time, props);
    this.check(time);
  }

  setContext(values, time) {
    for (const [path, value] of Object.entries(values)) this.evaluator.setContext(path, value ?? null, time);
    this.check(time);
  }

  /** Latches what the rules now say: checklists offered, items done, checklists completed. */
  check(time) {
    const evaluator = this.evaluator;
    evaluator.advance(time);
    let changed = false;
    for (const { list, trigger, items } of this.lists) {
      const state = (this.state[list.id] ??= { done: [], completed: false });
      if (!state.offered && evaluator.value(trigger)) {
        state.offered = changed = true;
        state.offeredAt = time;
      }
      list.items.forEach((item, index) => {
        if (!state.done.includes(item.id) && evaluator.value(items[index])) {
          state.done.push(item.id);
          changed = true;
          this.client.enqueue("checklist_item_done", list.id, { checklist: list.id, item: item.id }, time);
          this.announce(list, this.word("itemDone", "Done: {title}", { title: item.content.title }));
        }
      });
      if (!state.completed && list.items.every((item) => state.done.includes(item.id))) {
        state.completed = changed = true;
        this.completed(list, time);
      }
    }
    this.client.kept.persist("checklistRules", () => evaluator.snapshot());
    if (changed) this.changed();
  }

  /** Progress from the user's other devices: the union of the items done. Drawn again only
   *  when it brought something new (a panel redrawn under the user's finger loses the tap). */
  merge(progress = {}) {
    let grew = false;
    for (const [id, shared] of Object.entries(progress)) {
      const state = (this.state[id] ??= { done: [], completed: false });
      for (const item of shared.done ?? []) if (!state.done.includes(item)) grew = state.done.push(item);
      // Completed elsewhere: the event and the claim were that device's.
      grew ||= Boolean(shared.completed) && !state.completed;
      state.completed ||= Boolean(shared.completed);
    }
    if (grew) this.changed(true);
  }

  /** What the user's other devices merge: per checklist, the items done and whether it is completed. */
  progress() {
    return Object.fromEntries(Object.entries(this.state).map(([id, s]) => [id, { done: [...s.done], completed: s.completed }]));
  }

  changed(elsewhere) {
    this.client.kept.save("checklists", this.state);
    if (!elsewhere) this.client.progressChanged();
    this.draw();
  }

  /** Every item done: the event (which rules on this page see too), the panel opened with the
   *  news, and the credits claimed once. */
  completed(list, time) {
    // How long it took, from when it was offered here.
    const started = this.state[list.id].offeredAt;
    const properties = { checklist: list.id };
    if (started) properties.seconds = Math.max(0, Math.round((time - started) / 1000));
    Promise.resolve().then(() => this.client.record("checklist_completed", list.id, properties));
    this.open = list.id;
    this.announce(list, this.word("allDone", "All done!"));
    if (list.reward) this.claim(list);
  }

  async claim(list) {
    const client = this.client;
    if (!client.userHash) return this.announce(list, this.word("allDoneSignIn", "All done! Sign in to earn credits."));
    const result = await client.transport.post("/v1/rewards/claims", { user: client.user, userHash: client.userHash, checklist: list.id });
    const credits = result?.answer?.credits;
    this.announce(list, result?.outcome === "granted"
      ? this.word("allDoneEarned", "All done! You earned {n} credits.", { n: credits ?? list.reward })
      : this.word("allDone", "All done!"));
  }

  /** The checklist on show: the first offered and not yet put away (a completed one stays until
   *  its panel is closed). */
  current() {
    const open = this.lists.find(({ list }) => list.id === this.open);
    if (open) return open.list;
    return this.lists.find(({ list }) => {
      const state = this.state[list.id];
      return state?.offered && !state.putAway && (!state.completed || this.open === list.id);
    })?.list;
  }

  /** The SDK's word in the catalog's language (see content.js). */
  word(key, english, values) {
    return word(this.client.renderer.tipView, key, english, values);
  }

  announce(list, text) {
    this.news = { list: list.id, text };
    this.draw();
  }

  /** Draws the launcher and, when open, the panel of the current checklist; nothing without one. */
  draw() {
    const client = this.client;
    const doc = client.document;
    const list = this.current();
    if (!list) return this.erase();
    const state = this.state[list.id];
    const done = list.items.filter((item) => state.done.includes(item.id)).length;
    const panelId = `wm-checklist-${asName(list.id)}`;
    if (!this.launcher) {
      this.launcher = button(doc, { className: "wm-launcher", text: "", onClick: () => this.toggle() });
      this.launcher.dataset.waymarkUi = "checklist-launcher";
      this.dock.prepend(this.launcher);
    }
    this.launcher.dataset.waymarkChecklist = list.id;
    this.launcher.textContent = `${list.content.title} ${done}/${list.items.length}`;
    this.launcher.setAttribute("aria-expanded", String(this.open === list.id));
    // It names the panel it controls while there is one.
    if (this.open === list.id) this.launcher.setAttribute("aria-controls", panelId);
    else this.launcher.removeAttribute("aria-controls");
    this.launcher.lang = list.content.locale === "default" ? "" : list.content.locale;
    if (this.open !== list.id) return this.panel?.remove();
    // One panel at a time: the help goes when the checklist opens.
    if (!this.panel) client.lists?.help?.close();
    const had = this.panel?.contains(doc.activeElement) ? doc.activeElement.dataset.waymarkItem ?? "panel" : null;
    this.panel?.remove();
    const panel = (this.panel = doc.createElement("section"));
    panel.className = "wm-checklist";
    panel.id = panelId;
    panel.dataset.waymarkUi = "checklist";
    panel.dataset.waymarkChecklist = list.id;
    panel.tabIndex = -1;
    panel.dir = textDirection(list.content.locale);
    if (this.launcher.lang) panel.lang = this.launcher.lang;
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-labelledby", `${panelId}-title`);
    panel.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      event.stopPropagation();
      this.toggle(true);
    });
    const title = doc.createElement("h2");
    title.id = `${panelId}-title`;
    title.textContent = list.content.title;
    const body = doc.createElement("div");
    body.append(buildContent(list.content.html, doc));
    const bar = doc.createElement("progress");
    bar.max = list.items.length;
    bar.value = done;
    bar.setAttribute("aria-label", this.word("itemsDone", "{n} of {total} done", { n: done, total: list.items.length }));
    const items = doc.createElement("ol");
    for (const item of list.items) {
      const row = doc.createElement("li");
      const isDone = state.done.includes(item.id);
      if (isDone) row.dataset.done = "";
      const mark = doc.createElement("span");
      mark.setAttribute("aria-hidden", "true");
      mark.textContent = isDone ? "✓" : "";
      const text = doc.createElement("span");
      text.className = "wm-item";
      text.textContent = item.content.title;
      const status = doc.createElement("span");
      status.className = "wm-hidden";
      status.textContent = ` (${isDone ? this.word("itemStateDone", "done") : this.word("itemStateToDo", "to do")})`;
      text.append(status);
      row.append(mark, text);
      if (!isDone && (item.tour || item.tip)) {
        const text = this.word("showMe", "Show me");
        const show = button(doc, { text, label: `${text}: ${item.content.title}`, onClick: () => this.start(list, item) });
        show.dataset.waymarkItem = item.id;
        row.append(show);
      }
      items.append(row);
    }
    const news = doc.createElement("p");
    news.setAttribute("role", "status");
    panel.append(
      button(doc, { text: "×", className: "wm-close", label: this.word("close", "Close"), onClick: () => this.toggle(true) }), title, body, bar, items, news);
    doc.body.append(panel);
    // The news goes into the status region once it is in the page, so screen readers announce it.
    if (this.news?.list === list.id) client.window.requestAnimationFrame(() => { news.textContent = this.news?.text ?? ""; });
    if (had) (panel.querySelector(`[data-waymark-item="${CSS.escape(had)}"]`) ?? panel).focus({ preventScroll: true });
  }

  /** Opens or closes the panel (`close`: closes it) of the current checklist, or of `id`; a
   *  completed checklist closed is put away. */
  toggle(close, id) {
    const list = id ? this.lists.find((entry) => entry.list.id === id)?.list : this.current();
    if (!list) return;
    const opening = !close && this.open !== list.id;
    if (opening) this.client.enqueue("checklist_opened", list.id, { checklist: list.id }, Date.now());
    if (!opening && this.state[list.id].completed) {
      this.state[list.id].putAway = true;
      this.client.kept.save("checklists", this.state);
    }
    this.open = opening ? list.id : null;
    this.news = null;
    this.draw();
    if (opening) this.panel?.focus({ preventScroll: true });
    else this.launcher?.focus({ preventScroll: true });
  }

  /** Opens a checklist's panel (from the help panel): asked for, it is offered. */
  show(id) {
    const state = this.state[id];
    if (!state) return;
    state.offered = true;
    state.putAway = false;
    this.open = null;
    this.toggle(false, id);
  }

  /** An item's "Show me": its tour opens, or its tip is drawn, and the panel closes. */
  start(list, item) {
    const client = this.client;
    this.open = null;
    this.draw();
    if (item.tour) client.openTour(item.tour);
    const tip = item.tip && (client.catalog.tips ?? []).find((t) => t.id === item.tip);
    if (tip) client.renderer.draw(tip);
  }

  erase() {
    this.launcher?.remove();
    this.panel?.remove();
    this.launcher = this.panel = null;
  }

  stop() {
    this.erase();
    this.removeStyle();
  }
}
