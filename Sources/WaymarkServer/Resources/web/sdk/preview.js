// Previews: a tip, a tour, a checklist or a help article drawn exactly as the SDK draws it, with
// no engine, storage, events or credit claims. The console shows drafts this way.

import { Guide } from "./launcher.js";
import { Renderer } from "./renderer.js";

/** Draws one tip, as delivered by the server; closing or answering it only takes it away.
 *  `words`: the SDK's own words in the client's language (a catalog's `ui`), if any. Answers the
 *  Renderer, whose stop() takes the preview away. */
/**
 * @param {any} tip
 * @param {{window?: Window, server?: string, words?: object}} options
 */
export function previewTip(tip, { window: win = globalThis.window, server, words } = {}) {
  const renderer = new Renderer({ window: win, server });
  renderer.tipView.words = words;
  renderer.draw(tip);
  return renderer;
}

/** Opens one tour at a page, as delivered by the server. Answers the Renderer. */
/**
 * @param {any} tour
 * @param {number} [page]
 * @param {{window?: Window, server?: string, words?: object}} options
 */
export function previewTour(tour, page = 0, { window: win = globalThis.window, server, words } = {}) {
  const renderer = new Renderer({ window: win, server });
  renderer.tipView.words = words;
  renderer.openTour(tour, page);
  return renderer;
}

/** A checklist's panel, or the help panel with an article open, as the launcher shows them:
 *  `catalog` holds the one checklist or article ({ checklists: [...] } or { articles: [...] }),
 *  nothing is done, kept or sent. Answers the launcher's Guide, whose stop() takes it away. */
/**
 * @param {any} catalog
 * @param {{window?: Window, server?: string}} options
 */
export function previewLauncher(catalog, { window: win = globalThis.window, server } = {}) {
  const nothing = () => {};
  const client = {
    window: win, document: win.document, server, user: "preview", catalog: { tips: [], tours: [], ...catalog },
    renderer: new Renderer({ window: win, server }),
    kept: { load: (key, fallback) => fallback, save: nothing, persist: nothing },
    enqueue: nothing, record: nothing, progressChanged: nothing, openTour: () => false,
  };
  client.renderer.tipView.words = catalog.ui;
  const guide = new Guide(client, client.catalog);
  if (guide.lists) guide.lists.show(catalog.checklists[0].id);
  if (guide.help) {
    guide.help.toggle();
    guide.help.results.querySelector("details")?.setAttribute("open", "");
  }
  return guide;
}
