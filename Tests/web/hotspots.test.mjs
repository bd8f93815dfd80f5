// Where a hotspot's marker goes, from rectangles alone: beside its anchor, never on it, clear of
// the page's controls, inside the window.
import { test } from "node:test";
import assert from "node:assert/strict";
import { markerPlace } from "../../Sources/WaymarkServer/Resources/web/sdk/controls.js";

const view = { width: 360, height: 740 };
const box = (left, top, width, height) => ({ left, top, width, height, right: left + width, bottom: top + height });
const overlaps = (a, b) => a.left < b.right && b.left < a.left + 44 && a.top < b.bottom && b.top < a.top + 44;

test("to the right of its anchor, centred on it, where there is room", () => {
  assert.deepEqual(markerPlace(box(100, 200, 80, 30), view), { left: 180, top: 193 });
});

test("to the left of an anchor at the window's right edge", () => {
  assert.deepEqual(markerPlace(box(290, 20, 60, 30), view), { left: 246, top: 13 });
});

test("below, when the page's controls take both sides: the cart link beside the search button", () => {
  const search = box(192, 10, 86, 40);
  const cart = box(290, 15, 54, 30);
  const blocked = (square) => [search].some((control) => overlaps(square, control));
  const place = markerPlace(cart, view, blocked);
  assert.deepEqual(place, { left: 295, top: 45 });
  assert.ok(!overlaps(place, cart), "not on its anchor");
});

test("never on its anchor, whatever the anchor's place and size", () => {
  for (let left = 0; left <= 340; left += 20) {
    for (let top = 0; top <= 720; top += 40) {
      for (const [width, height] of [[20, 20], [120, 44], [360, 60]]) {
        const anchor = box(left, top, Math.min(width, 360 - left), Math.min(height, 740 - top));
        const place = markerPlace(anchor, view);
        assert.ok(place.left >= 0 && place.top >= 0 && place.left + 44 <= 360 && place.top + 44 <= 740, "inside the window");
        const roomAround = anchor.left >= 44 || anchor.right <= 316 || anchor.top >= 44 || anchor.bottom <= 696;
        if (roomAround) assert.ok(!overlaps(place, anchor), `beside ${JSON.stringify(anchor)}: ${JSON.stringify(place)}`);
      }
    }
  }
});

test("the first side that fits when every side is blocked", () => {
  assert.deepEqual(markerPlace(box(100, 200, 80, 30), view, () => true), { left: 180, top: 193 });
});
