// Previews: a tip or a tour drawn exactly as the SDK draws it, with no engine, storage, events or
// credit claims. The console shows drafts this way.

import { Renderer } from "./renderer.js";

/** Draws one tip, as delivered by the server; closing or answering it only takes it away.
 *  Answers the Renderer, whose stop() takes the preview away. */
export function previewTip(tip, { window: win = globalThis.window, server } = {}) {
  const renderer = new Renderer({ window: win, server });
  renderer.draw(tip);
  return renderer;
}

/** Opens one tour at a page, as delivered by the server. Answers the Renderer. */
export function previewTour(tour, page = 0, { window: win = globalThis.window, server } = {}) {
  const renderer = new Renderer({ window: win, server });
  renderer.openTour(tour, page);
  return renderer;
}
