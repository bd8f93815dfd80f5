// Where a tip goes beside its anchor, from rectangles alone (tipPlace): no browser, as Floating UI
// tests computePosition.
import { test } from "node:test";
import assert from "node:assert/strict";
import { findAnchor, tipPlace } from "../../Sources/WaymarkServer/Resources/web/sdk/placement.js";

const area = { left: 0, top: 0, right: 360, bottom: 740 };
const box = (left, top, width, height) => ({ left, top, width, height, right: left + width, bottom: top + height });
const tip = { width: 300, height: 120 };

test("below its anchor, centred on it, 12 px away, when there is room", () => {
  const place = tipPlace(box(130, 100, 100, 40), tip, area);
  assert.deepEqual(place, { side: "below", left: 30, top: 152, maxHeight: null, arrow: { x: 180, y: 152 }, covers: 0 });
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

// The page's other controls: a tip keeps clear of the middle of each, where a finger lands.
const middleCovered = (p, size, control) => {
  const x = control.left + control.width / 2, y = control.top + control.height / 2;
  return x > p.left && x < p.left + size.width && y > p.top && y < p.top + (p.maxHeight ?? size.height);
};

test("above instead of below when below would cover a control of the page", () => {
  const button = box(150, 380, 60, 44);
  const place = tipPlace(box(130, 300, 100, 40), tip, area, [button]);
  assert.equal(place.side, "above");
  assert.equal(place.covers, 0);
  const free = tipPlace(box(130, 300, 100, 40), tip, area, [box(150, 500, 60, 44)]);
  assert.equal(free.side, "below", "a control elsewhere changes nothing");
});

test("slid along its side, the arrow still on the anchor, when centred it would cover a control", () => {
  // The anchor at the top of a 360 px screen: only below has room; a button under its middle-right.
  const anchor = box(150, 20, 60, 40);
  const narrow = { width: 200, height: 100 };
  const place = tipPlace(anchor, narrow, area, [box(270, 100, 44, 44)]);
  assert.equal(place.side, "below");
  assert.equal(place.covers, 0);
  assert.ok(place.left + narrow.width < 292, "clear of the button's middle");
  assert.ok(place.arrow.x >= anchor.left && place.arrow.x <= anchor.right, "the arrow on the anchor");
});

test("where every place covers some control, the one that covers fewest", () => {
  const anchor = box(150, 20, 60, 40);
  // Centred it would cover all four; slid left, two; slid right, three.
  const crowded = [box(20, 100, 40, 40), box(160, 120, 40, 40), box(300, 100, 40, 40), box(310, 130, 40, 40)];
  const place = tipPlace(anchor, tip, area, crowded);
  assert.equal(place.covers, 2);
  assert.equal(place.left, 8);
  assert.equal(crowded.filter((c) => middleCovered(place, tip, c)).length, 2);
});

test("with controls anywhere, it covers none whenever some place beside the anchor would", () => {
  let seed = 45;
  const random = (n) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  for (let round = 0; round < 3000; round++) {
    const anchor = box(random(320), random(700), 20 + random(60), 20 + random(40));
    const size = [{ width: 200, height: 100 }, { width: 300, height: 160 }][random(2)];
    const controls = Array.from({ length: random(8) }, () => box(random(340), random(720), 44, 44));
    const place = tipPlace(anchor, size, area, controls);
    assert.equal(place.covers, controls.filter((c) => middleCovered(place, size, c)).length, "covers counts what it covers");
    // Every place a tip of this size could take on a side with room, anchor in reach of its arrow.
    let free = false;
    for (let left = 8; left + size.width <= 352 && !free; left += 1) {
      for (const top of [anchor.bottom + 12, anchor.top - 12 - size.height]) {
        const fits = top >= 8 && top + size.height <= 732;
        const reaches = anchor.left + anchor.width / 2 >= left + 14 && anchor.left + anchor.width / 2 <= left + size.width - 14;
        if (fits && reaches && !controls.some((c) => middleCovered({ left, top }, size, c))) free = true;
      }
    }
    if (free) assert.equal(place.covers, 0, `round ${round}: ${JSON.stringify({ anchor, size, controls, place })}`);
  }
});

test("an anchor's name is looked for as data-waymark-anchor, then as an id, then as the name taps carry", () => {
  const named = { "data-waymark-anchor": "marked", id: "by-id", "data-waymark": "tapped" };
  const document = (has) => ({
    querySelector: (selector) => {
      const found = Object.entries(named).find(([attribute]) => has.includes(attribute) && selector === `[${attribute}="search"]`);
      return found ? found[1] : null;
    },
    getElementById: (id) => (has.includes("id") && id === "search" ? named.id : null),
  });
  globalThis.CSS ??= /** @type {any} */ ({ escape: (text) => text });
  assert.equal(findAnchor(document(["data-waymark-anchor", "id", "data-waymark"]), "search"), "marked");
  assert.equal(findAnchor(document(["id", "data-waymark"]), "search"), "by-id");
  // A tip proposed from where people get lost names the tap's target, which data-waymark names.
  assert.equal(findAnchor(document(["data-waymark"]), "search"), "tapped");
  assert.equal(findAnchor(document([]), "search"), null);
});
