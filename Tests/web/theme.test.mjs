// The app's look: a catalog's theme as the style's custom properties (theme.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { rules, sheet } from "../../Sources/WaymarkServer/Resources/web/sdk/theme.js";

const theme = {
  colors: { surface: "#ffffff", text: "#1f2933", accent: "#0b5cad", focus: "#b35c00" },
  dark: { surface: "#1d2a44", text: "#ffffff", accent: "#9cd3ff", focus: "#ffbf47" },
  font: "Noto Sans, sans-serif", radius: 4, spacing: 16,
};

test("a theme sets every property, and dark mode's colours under the media query", () => {
  assert.equal(rules(":root", theme),
    ":root{--wm-surface:#ffffff;--wm-text:#1f2933;--wm-accent:#0b5cad;--wm-focus:#b35c00;--wm-font:Noto Sans, sans-serif;--wm-radius:4px;--wm-pad:16px 18px;}"
    + "@media (prefers-color-scheme:dark){:root{--wm-surface:#1d2a44;--wm-text:#ffffff;--wm-accent:#9cd3ff;--wm-focus:#ffbf47;}}");
  assert.equal(rules(":root", null), "");
});

test("a tip's own theme applies to that tip only", () => {
  const css = sheet({ theme, tips: [{ id: "warm", theme: { ...theme, dark: undefined, colors: { ...theme.colors, surface: "#fff4e5" } } }, { id: "plain" }] });
  assert.match(css, /\[data-waymark-tip="warm"\]\{--wm-surface:#fff4e5;/);
  assert.doesNotMatch(css, /plain/);
});

test("what is not a colour or a plain font name never reaches the page's CSS", () => {
  const hostile = { colors: { surface: "red;}body{display:none", text: "#fff", accent: "#000000", focus: "#000000" }, font: "x;}*{color:red", radius: "1;", spacing: 2.5 };
  assert.equal(rules(":root", hostile), ":root{}");
});
