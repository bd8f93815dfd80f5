// Help: a panel, opened from a button the SDK draws (or any element of the page marked
// data-waymark-help), that lists the help articles for the current screen, the tours and the
// checklists for it (those without screens belong to every screen), and finds any of them by their
// words in the user's language and script. Searches are
// events (help_searched, with what was typed and how many were found), so the console can show
// what people looked for and did not find.

import { buildContent, button, textDirection, word } from "./content.js";
import { installStyle } from "./style.js";

const STYLE = `
.wm-help-button{margin-inline-start:auto;min-width:44px;min-height:44px;padding:8px 14px;border-radius:22px;border:2px solid #fff;background:var(--wm-surface,#1d2a44);color:var(--wm-text,#fff);font:600 15px/1.2 system-ui,sans-serif;box-shadow:0 4px 16px rgba(0,0,0,.3);cursor:pointer}
.wm-help{position:fixed;z-index:2147482991;right:8px;bottom:calc(var(--wm-dock,52px) + 8px);width:min(360px,calc(100vw - 16px));max-height:min(75vh,calc(100vh - var(--wm-dock,52px) - 24px));overflow:auto;background:#fff;color:#1d2a44;border-radius:10px;padding:12px 14px;box-shadow:0 6px 24px rgba(0,0,0,.3);font:15px/1.4 system-ui,sans-serif;box-sizing:border-box;overflow-wrap:break-word}
.wm-help h2{font-size:17px;margin:0 40px 8px 0}.wm-help h3{font-size:14px;margin:12px 0 4px;color:#4a5568}
.wm-help .wm-close{color:#1d2a44}
.wm-help input{width:100%;min-height:44px;font:inherit;padding:6px 10px;border:1px solid #1d2a44;border-radius:6px;box-sizing:border-box}
.wm-help ul{list-style:none;margin:0;padding:0}
.wm-help li{border-top:1px solid #e3e6ec}
.wm-help summary,.wm-help li>button{display:block;width:100%;min-height:44px;padding:10px 0;text-align:start;background:none;border:0;color:inherit;font:inherit;cursor:pointer}
.wm-help-button:focus-visible,.wm-help button:focus-visible,.wm-help summary:focus-visible,.wm-help input:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}
.wm-help details>div{padding:0 0 10px}
.wm-help .wm-narrate{min-width:44px;min-height:44px;margin-top:6px;padding:6px 12px;border:1px solid #1d2a44;border-radius:6px;background:#fff;color:#1d2a44;font:inherit;cursor:pointer}
`;

/** Text as search compares it: compatibility forms composed (a nukta letter and its pieces are one),
 *  lower case, no zero-width joiners or soft hyphens, single spaces. Scripts without case (Devanagari,
 *  Tamil, Bengali...) compare as written. */
export function fold(text) {
  return String(text ?? "").normalize("NFKC").toLowerCase().replace(/[\u200b-\u200d\u00ad]/g, "").replace(/\s+/g, " ").trim();
}

/** Whether every word of `query` (folded) is in `text` (folded). */
export function matches(text, query) {
  return query.split(" ").every((word) => text.includes(word));
}

/** The help panel of one page: `client` is its WaymarkClient, `catalog` the catalog it runs,
 *  `guide` what runs its checklists (their panel opens from here). */
export class Help {
  constructor(client, catalog, guide) {
    this.client = client;
    this.guide = guide;
    const doc = client.document;
    const plain = (html) => new DOMParser().parseFromString(`<body>${html ?? ""}</body>`, "text/html").body.textContent;
    // Each entry: what it is, its title, the text search reads, and what opening it does.
    this.articles = (catalog.articles ?? []).map((article) => ({
      article, title: article.content.title,
      text: fold([article.content.title, plain(article.content.html), ...(article.keywords ?? [])].join(" ")),
    }));
    this.tours = (catalog.tours ?? []).map((tour) => ({ tour, title: tour.pages[0]?.content.title ?? tour.id }))
      .map((entry) => ({ ...entry, text: fold(entry.title) }));
    this.locale = catalog.articles?.[0]?.content.locale;
    this.removeStyle = installStyle(client.window, STYLE);
    // A page that places its own help button marks it; without one the SDK draws its own.
    this.onClick = (event) => {
      if (event.target.closest?.("[data-waymark-help]")) {
        event.preventDefault();
        this.toggle();
      }
    };
    doc.addEventListener("click", this.onClick);
    if (!doc.querySelector("[data-waymark-help]")) {
      this.button = button(doc, { text: `? ${this.word("help", "Help")}`, className: "wm-help-button", onClick: () => this.toggle() });
      this.button.dataset.waymarkUi = "help-button";
      this.button.setAttribute("aria-expanded", "false");
      guide.dock.element.append(this.button);
    }
  }

  /** The SDK's word in the catalog's language (see content.js). */
  word(key, english, values) {
    return word(this.client.renderer.tipView, key, english, values);
  }

  /** Opens the panel (help_opened, with the screen) or closes it, giving the focus back. */
  toggle() {
    if (this.panel) return this.close();
    // One panel at a time: the checklist's goes when the help opens.
    this.guide.closePanels();
    const client = this.client;
    const doc = client.document;
    this.returnFocus = doc.activeElement;
    client.enqueue("help_opened", undefined, { screen: client.lastScreen ?? "home" }, Date.now());
    const panel = (this.panel = doc.createElement("section"));
    panel.className = "wm-help";
    panel.id = "wm-help";
    panel.dataset.waymarkUi = "help";
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-labelledby", "wm-help-title");
    panel.tabIndex = -1;
    if (this.locale && this.locale !== "default") panel.lang = this.locale;
    panel.dir = textDirection(this.locale);
    panel.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      event.stopPropagation();
      this.close();
    });
    const title = doc.createElement("h2");
    title.id = "wm-help-title";
    title.textContent = this.word("help", "Help");
    const search = (this.search = doc.createElement("input"));
    search.type = "search";
    search.id = "wm-help-search";
    search.placeholder = this.word("searchHelp", "Search help");
    search.setAttribute("aria-label", search.placeholder);
    search.enterKeyHint = "search";
    search.autocomplete = "off";
    const status = (this.status = doc.createElement("p"));
    status.setAttribute("role", "status");
    status.className = "wm-hidden";
    this.results = doc.createElement("div");
    panel.append(button(doc, { text: "×", className: "wm-close", label: this.word("closeHelp", "Close help"), onClick: () => this.close() }), title, search, status,
      this.results);
    search.addEventListener("input", () => {
      this.list();
      clearTimeout(this.typing);
      this.typing = setTimeout(() => this.searched(), 800);
    });
    search.addEventListener("keydown", (event) => { if (event.key === "Enter") this.searched(); });
    doc.body.append(panel);
    this.button?.setAttribute("aria-expanded", "true");
    this.button?.setAttribute("aria-controls", panel.id);
    this.list();
    search.focus({ preventScroll: true });
  }

  close() {
    if (!this.panel) return;
    clearTimeout(this.typing);
    this.searched();
    this.panel.remove();
    this.panel = null;
    this.button?.setAttribute("aria-expanded", "false");
    this.button?.removeAttribute("aria-controls");
    const back = this.returnFocus?.isConnected ? this.returnFocus : this.button;
    back?.focus({ preventScroll: true });
  }

  /** A search the user stopped typing (or pressed Enter on): help_searched, once per query. */
  searched() {
    const query = fold(this.search?.value).slice(0, 100);
    if (!query || query === this.lastQuery) return;
    this.lastQuery = query;
    this.client.enqueue("help_searched", undefined, { query, results: this.found, screen: this.client.lastScreen ?? "home" }, Date.now());
  }

  /** Lists what the panel offers: without a query, the articles for this screen, the tours and
   *  checklists for it, and the other articles; with one, whatever its words find, on any screen. */
  list() {
    const doc = this.client.document;
    const query = fold(this.search.value);
    const screen = this.client.lastScreen;
    const checklists = (this.guide?.lists?.lists ?? []).map(({ list }) => ({ list, title: list.content.title, text: fold(list.content.title) }));
    const sections = [];
    if (query) {
      const found = [...this.articles, ...this.tours, ...checklists].filter((entry) => matches(entry.text, query));
      this.found = found.length;
      sections.push([this.word("results", "Results"), found]);
      this.status.textContent = found.length ? this.word("found", "{n} found", { n: found.length }) : this.word("nothingFound", "Nothing found. Try other words.");
    } else {
      const here = this.articles.filter((entry) => entry.article.screens?.includes(screen));
      const belongs = (screens) => !screens || screens.includes(screen);
      sections.push([this.word("onThisScreen", "On this screen"), here],
        [this.word("tours", "Tours"), this.tours.filter((entry) => belongs(entry.tour.screens))],
        [this.word("checklists", "Checklists"), checklists.filter((entry) => belongs(entry.list.screens))],
        [this.word("moreHelp", "More help"), this.articles.filter((entry) => !here.includes(entry))]);
      this.status.textContent = "";
    }
    this.results.replaceChildren();
    for (const [name, entries] of sections) {
      if (!entries.length) continue;
      const heading = doc.createElement("h3");
      heading.textContent = name;
      const items = doc.createElement("ul");
      items.setAttribute("aria-label", name);
      items.append(...entries.map((entry) => this.item(entry)));
      this.results.append(heading, items);
    }
    if (query && !this.found) {
      const none = doc.createElement("p");
      none.textContent = this.status.textContent;
      this.results.append(none);
    }
  }

  /** One entry: an article opens in place (with its narration); a tour or checklist starts. */
  item(entry) {
    const client = this.client;
    const doc = client.document;
    const row = doc.createElement("li");
    if (entry.article) {
      const article = entry.article;
      const details = doc.createElement("details");
      details.dataset.waymarkArticle = article.id;
      const summary = doc.createElement("summary");
      summary.textContent = entry.title;
      const body = doc.createElement("div");
      body.append(buildContent(article.content.html, doc));
      if (article.content.narration) client.renderer.tipView.listen(body, article.content, article.id, body);
      details.append(summary, body);
      details.addEventListener("toggle", () => {
        if (details.open) client.enqueue("article_opened", article.id, { article: article.id }, Date.now());
      });
      row.append(details);
    } else if (entry.tour) {
      row.append(button(doc, { text: `▶ ${entry.title}`, onClick: () => { this.close(); client.openTour(entry.tour.id); } }));
      row.lastChild.dataset.waymarkTour = entry.tour.id;
    } else {
      row.append(button(doc, { text: `☑ ${entry.title}`, onClick: () => { this.close(); this.guide.lists.show(entry.list.id); } }));
      row.lastChild.dataset.waymarkChecklist = entry.list.id;
    }
    return row;
  }

  stop() {
    this.client.document.removeEventListener("click", this.onClick);
    this.panel?.remove();
    this.button?.remove();
    this.removeStyle();
  }
}
