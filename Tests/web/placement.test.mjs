// Where a tip goes beside its anchor, from rectangles alone (tipPlace): no browser, as Floating UI
// tests computePosition.
import { test } from "node:test";
import assert from "node:assert/strict";
import { tipPlace } from "../../Sources/WaymarkServer/Resources/web/sdk/placement.js";

const area = { left: 0, top: 0, right: 360, bottom: 740 };
const box = (left, top, width, height) => ({ left, top, width, height, right: left + width, bottom: top + height });
const tip = { width: 300, height: 120 };

test("below its anchor, centred on it, 12 px away, when there is room", () => {
  const place = tipPlace(box(130, 100, 100, 40), tip, area);
  assert.deepEqual(place, { side: "below", left: 30, top: 152, maxHeight: null, arrow: { x: 180, y: 152 } });
});

test("above, when below has no room", () => {
  const place = tipPlace(box(130, 650, 100, 40), tip, area);
  assert.equal(place.side, "above");
  assert.equal(place.top + tip.height, 650 - 12);
  assert.deepEqual(place.arrow, { x: 180, y: 638 });
});

test("beside, when neither above nor below has room and a side has", () => {
  const tall = { width: 100, height: 500 };
  const place = tipPlace(box(20, 300, 60, 140), tall, area);
  assert.equal(place.side, "right");
  assert.equal(place.left, 92);
  assert.equal(place.arrow.x, 92, "the arrow on the edge facing the anchor");
});

test("cut to the taller of below and above when nothing has room, never over its anchor", () => {
  const place = tipPlace(box(130, 200, 100, 40), { width: 300, height: 900 }, area);
  assert.equal(place.side, "below");
  assert.equal(place.maxHeight, 740 - 240 - 12 - 8);
  assert.equal(place.top, 252);
});

test("shifted to stay 8 px inside what the user sees, the arrow still on the anchor's middle", () => {
  const place = tipPlace(box(4, 100, 40, 40), tip, area);
  assert.equal(place.left, 8);
  assert.equal(place.arrow.x, 24);
});

test("the arrow stays 14 px from the tip's corners when the anchor's middle is beyond them", () => {
  const place = tipPlace(box(0, 100, 10, 40), tip, area);
  assert.equal(place.arrow.x, place.left + 14);
});

test("never on its anchor and inside the screen across, for anchors everywhere and tips of every size", () => {
  for (let left = 0; left <= 340; left += 17) {
    for (let top = 0; top <= 720; top += 31) {
      for (const size of [{ width: 120, height: 60 }, { width: 300, height: 200 }, { width: 344, height: 700 }]) {
        const anchor = box(left, top, 20, 20);
        const p = tipPlace(anchor, size, area);
        const height = p.maxHeight ?? size.height;
        const covers = p.left < anchor.right && anchor.left < p.left + size.width && p.top < anchor.bottom && anchor.top < p.top + height;
        if (p.side === "below" || p.side === "above") {
          assert.ok(!covers, `covers its anchor at ${left},${top} ${JSON.stringify(p)}`);
          assert.ok(p.left >= 8 && p.left + size.width <= 352, `inside across at ${left},${top}`);
        }
      }
    }
  }
});
