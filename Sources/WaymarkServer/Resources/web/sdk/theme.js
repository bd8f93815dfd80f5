// The app's look: the catalog's theme (and a tip's own) as the CSS custom properties the SDK's
// style sheets read (--wm-surface, --wm-text, --wm-accent, --wm-focus, --wm-font, --wm-radius,
// --wm-pad), with dark mode's colours under prefers-color-scheme. A part of its own (theme.js),
// loaded only with a catalog that has a theme; what a theme leaves out keeps Waymark's look,
// which is each property's fallback.

import { installStyle } from "./style.js";

let removeSheet = null; // takes the last catalog's theme away

/** The declarations of one theme's colours. */
const colors = (c) => `--wm-surface:${c.surface};--wm-text:${c.text};--wm-accent:${c.accent};--wm-focus:${c.focus};`;

/** The rules that give `selector` the theme: its colours, font, radius and spacing, and its dark
 *  mode's colours. The server sends colours as #rrggbb and fonts of letters, digits, spaces,
 *  hyphens and commas only; anything else is left out. */
export function rules(selector, theme) {
  if (!theme) return "";
  const safe = (c) => c && [c.surface, c.text, c.accent, c.focus].every((v) => /^#[0-9a-f]{6}$/.test(v));
  let css = selector + "{";
  if (safe(theme.colors)) css += colors(theme.colors);
  if (/^[A-Za-z0-9 ,-]{1,100}$/.test(theme.font ?? "")) css += `--wm-font:${theme.font};`;
  if (Number.isInteger(theme.radius)) css += `--wm-radius:${theme.radius}px;`;
  if (Number.isInteger(theme.spacing)) css += `--wm-pad:${theme.spacing}px ${theme.spacing + 2}px;`;
  css += "}";
  if (safe(theme.dark)) css += `@media (prefers-color-scheme:dark){${selector}{${colors(theme.dark)}}}`;
  return css;
}

/** The whole style of a catalog: its theme on the page's root, each tip's own on the tip. */
export function sheet(catalog) {
  let css = rules(":root", catalog.theme);
  for (const tip of catalog.tips ?? []) {
    if (tip.theme) css += rules(`[data-waymark-tip="${String(tip.id).replace(/["\\]/g, "\\$&")}"]`, tip.theme);
  }
  return css;
}

/** Gives the page the client's catalog's look, in place of the last one's. */
export function apply(client) {
  removeSheet?.();
  removeSheet = installStyle(client.window, sheet(client.catalog));
}
