// Placement: where a tip's anchor is, whether it shows, and where the tip, its spotlight and its
// pointer go beside it.

/** Whether an element is in the page, not inside a [hidden] ancestor, and has a size. */
export function isShown(element) {
  if (!element.isConnected || element.closest("[hidden]")) return false;
  const box = element.getBoundingClientRect();
  return box.width > 0 || box.height > 0;
}

/** An anchor as the catalog names it (docs/web-sdk.md): { name, key } for NAME[KEY], { name,
 *  pick: "visible" } for NAME:visible, { name, pick: N } for NAME:N, { name } for NAME; null for
 *  text that is none of these. */
/** @returns {{name: string, key?: string, pick?: any} | null} */
export function parseAnchor(text) {
  const m = /^([^[\]:\s]+)(?:\[([^\]]+)\]|:(visible|[1-9]\d{0,3}))?$/.exec(text);
  return m && { name: m[1], key: m[2], pick: m[3] && (m[3] === "visible" ? m[3] : Number(m[3])) };
}

/**
 * The element a tip points at, or null: among the elements marked `data-waymark-anchor="NAME"`,
 * the first (else the element whose id is NAME, else the first whose taps are named NAME by
 * `data-waymark`, as a tip proposed from where people get lost names it), the one whose
 * `data-waymark-key` is KEY, the
 * n-th in the page's order, or the highest on the screen of those the user can see. `previous`,
 * the element found the last time, stays the visible one while it still is, so a tip does not hop
 * along a list as it scrolls.
 */
export function findAnchor(doc, anchor, previous) {
  const { name, key, pick } = parseAnchor(anchor) ?? {};
  if (!name) return null;
  const marked = `[data-waymark-anchor="${CSS.escape(name)}"]`;
  if (key) return doc.querySelector(`${marked}[data-waymark-key="${CSS.escape(key)}"]`);
  if (!pick) return doc.querySelector(marked) ?? doc.getElementById(name) ?? doc.querySelector(`[data-waymark="${CSS.escape(name)}"]`);
  const all = doc.querySelectorAll(marked);
  if (pick !== "visible") return all[pick - 1] ?? null;
  const seen = (e) => {
    const box = isShown(e) && clippedBox(e);
    return box && inView(doc.defaultView, box) && box;
  };
  if (previous?.matches(marked) && seen(previous)) return previous;
  // The highest on the screen, whatever the elements' order (a recycled list's is any).
  let found = null;
  let top = Infinity;
  for (const e of all) {
    const box = seen(e);
    if (box && box.top < top) [found, top] = [e, box.top];
  }
  return found;
}

/** Whether the user is typing in `element`: a tip that appears then must not take the focus. */
export const isTyping = (element) => element && (/^(INPUT|TEXTAREA|SELECT)$/.test(element.tagName) || element.isContentEditable);

const GAP = 12; // between a tip and its anchor
const MARGIN = 8; // between a tip and the edge of what the user sees

/** What the user sees of the page, in the coordinates of getBoundingClientRect: the visual
 *  viewport (smaller than the window while the on-screen keyboard is up, or when pinch-zoomed). */
export function visibleArea(win) {
  const v = win.visualViewport;
  return v
    ? { left: v.offsetLeft, top: v.offsetTop, right: v.offsetLeft + v.width, bottom: v.offsetTop + v.height }
    : { left: 0, top: 0, right: win.innerWidth, bottom: win.innerHeight };
}

/** Whether at least half of `element` is inside what the user sees (as an IntersectionObserver
 *  with threshold 0.5 says, measured now). */
export function mostlyInView(win, element) {
  const box = element.getBoundingClientRect();
  const area = visibleArea(win);
  const width = Math.min(box.right, area.right) - Math.max(box.left, area.left);
  const height = Math.min(box.bottom, area.bottom) - Math.max(box.top, area.top);
  return width > 0 && height > 0 && width * height >= 0.5 * box.width * box.height;
}

/** Whether any of `box` is in what the user sees. */
export function inView(win, box) {
  const area = visibleArea(win);
  return box.bottom > area.top && box.top < area.bottom && box.right > area.left && box.left < area.right;
}

/** The part of `element` its scrolled or clipping ancestors let through, or null when they hide
 *  all of it (an anchor scrolled out of its list). The window's own scrolling is not counted. */
export function clippedBox(element) {
  const box = element.getBoundingClientRect();
  let { left, top, right, bottom } = box;
  for (let parent = element.parentElement; parent && parent !== element.ownerDocument.body; parent = parent.parentElement) {
    const style = parent.ownerDocument.defaultView.getComputedStyle(parent);
    // overflow does not apply to inline elements, whose clientWidth is 0.
    if (style.display === "inline" || style.overflowX === "visible" && style.overflowY === "visible") continue;
    // Inside its borders and scroll bars: where its content shows.
    const clip = parent.getBoundingClientRect();
    const x = clip.left + parent.clientLeft;
    const y = clip.top + parent.clientTop;
    left = Math.max(left, x);
    top = Math.max(top, y);
    right = Math.min(right, x + parent.clientWidth);
    bottom = Math.min(bottom, y + parent.clientHeight);
  }
  return right - left < 1 || bottom - top < 1 ? null : { left, top, right, bottom, width: right - left, height: bottom - top };
}

/** Until when a scroll is the SDK's own (bringing an anchor into view), not the user's. */
export const ownScroll = { until: 0 };

/** Scrolls `anchor` into the middle of the view if the user cannot see it: smoothly, or at once
 *  when the user asks for reduced motion. Its scrolled ancestors move too. */
export function revealAnchor(win, anchor) {
  const box = anchor.getBoundingClientRect();
  const area = visibleArea(win);
  if (box.top >= area.top && box.bottom <= area.bottom && box.left >= area.left && box.right <= area.right) return;
  const still = win.matchMedia?.("(prefers-reduced-motion: reduce)").matches;
  ownScroll.until = Date.now() + 1000;
  anchor.scrollIntoView({ block: "center", inline: "nearest", behavior: still ? "instant" : "smooth" });
}

const clamp = (value, low, high) => Math.max(low, Math.min(value, high));

/**
 * Where a tip goes beside its anchor, from rectangles alone (as Floating UI's computePosition):
 * `box` the anchor's visible part, `size` the tip's { width, height }, `area` what the user sees,
 * `avoid` the page's other controls (their boxes). On the first side where it fits whole and
 * covers the middle of no control: below, above, right, left, each centred on the anchor, else
 * slid along that side as far as its arrow still reaches the anchor; where every such place
 * covers some, the one that covers fewest, in that order. Where it fits whole on no side, on the
 * taller of below and above, its height cut to the room there (`maxHeight`; it scrolls inside), so
 * it never covers its anchor. It stays inside the area. `arrow` is where the middle of the arrow
 * on the edge facing the anchor goes: in line with the anchor's middle, at least 14 px from the
 * tip's corners. Answers { side, left, top, maxHeight, arrow: { x, y }, covers } in the
 * coordinates given, `covers` the number of controls it covers.
 */
export function tipPlace(box, { width, height }, area, avoid = []) {
  const room = {
    below: area.bottom - box.bottom - GAP - MARGIN,
    above: box.top - area.top - GAP - MARGIN,
    right: area.right - box.right - GAP - MARGIN,
    left: box.left - area.left - GAP - MARGIN,
  };
  const fitsBeside = height <= area.bottom - area.top - 2 * MARGIN;
  const whole = [...["below", "above"].filter((s) => room[s] >= height), ...["right", "left"].filter((s) => room[s] >= width && fitsBeside)];
  const sides = whole.length ? whole : [room.below >= room.above ? "below" : "above"];
  let best = null;
  for (const side of sides) {
    for (const place of along(box, { width, height }, area, side, room, avoid)) {
      place.covers = avoid.filter((control) => covers(place, control)).length;
      if (!best || place.covers < best.covers) best = place;
      if (best.covers === 0) return finish(best, box);
    }
  }
  return finish(best, box);
}

/** The places on one side of the anchor: centred on it, then slid each way as far as the arrow
 *  still reaches it (14 px from the tip's corners), then just clear of each control's middle on
 *  either hand, inside the area: wherever a place covers the fewest controls, one of these does.
 *  @returns {Iterable<Place>} */
function along(box, { width, height }, area, side, room, avoid) {
  const across = side === "below" || side === "above";
  const shown = across ? Math.min(height, Math.max(room[side], 0)) : height;
  const [middle, length, low, high] = across
    ? [box.left + box.width / 2, width, area.left + MARGIN, area.right - width - MARGIN]
    : [box.top + box.height / 2, height, area.top + MARGIN, area.bottom - height - MARGIN];
  const starts = [clamp(middle - length / 2, low, high)];
  const [from, to] = [Math.max(low, middle + 14 - length), Math.min(high, middle - 14)];
  if (from <= to) {
    starts.push(from, to);
    for (const control of avoid) {
      const at = across ? control.left + control.width / 2 : control.top + control.height / 2;
      for (const start of [at, at - length]) if (start > from && start < to) starts.push(start);
    }
  }
  return starts.map((start) => ({
    side,
    left: across ? start : side === "right" ? box.right + GAP : box.left - GAP - width,
    top: across ? (side === "below" ? box.bottom + GAP : box.top - GAP - shown) : start,
    width,
    height: shown,
    maxHeight: shown < height ? shown : null,
  }));
}

/** Whether a place covers the middle of a control, where a finger or a click lands. */
function covers(place, control) {
  const x = control.left + control.width / 2;
  const y = control.top + control.height / 2;
  return x > place.left && x < place.left + place.width && y > place.top && y < place.top + place.height;
}

/** @typedef {{side: string, left: number, top: number, width: number, height: number, maxHeight: number, covers?: number}} Place */

/** @param {Place} place */
function finish({ side, left, top, width, height, maxHeight, covers: count }, box) {
  const across = side === "below" || side === "above";
  const arrow = across
    ? { x: clamp(box.left + box.width / 2, left + 14, left + width - 14), y: side === "below" ? top : top + height }
    : { x: side === "right" ? left : left + width, y: clamp(box.top + box.height / 2, top + 14, top + height - 14) };
  return { side, left, top, maxHeight, arrow, covers: count };
}

/**
 * Puts `root` beside `box` (the anchor's visible part) where `tipPlace` says, and the arrow (a
 * 12 px square turned 45°) on the tip's edge (kinds.js puts a spotlight and a pointer on the anchor). The
 * DOM's edge of placement: it measures the tip and writes styles. Coordinates are the document's:
 * the tip scrolls with the page. `avoid`: the page's controls to keep clear of (`pageControls`).
 * Answers the side chosen.
 */
/**
 * @param {Window} win
 * @param {any} box
 * @param {HTMLElement} root
 * @param {{arrow?: HTMLElement, avoid?: any[]}} parts
 */
export function placeBeside(win, box, root, { arrow, avoid } = {}) {
  root.style.maxHeight = "";
  const place = tipPlace(box, { width: root.offsetWidth, height: root.offsetHeight }, visibleArea(win), avoid);
  if (place.maxHeight !== null) root.style.maxHeight = `${place.maxHeight}px`;
  const x = win.scrollX;
  const y = win.scrollY;
  root.style.left = `${place.left + x}px`;
  root.style.top = `${place.top + y}px`;
  root.dataset.side = place.side;
  if (arrow) Object.assign(arrow.style, { left: `${place.arrow.x + x - 6}px`, top: `${place.arrow.y + y - 6}px` });
  return place.side;
}

// What a user taps or tabs to on a page.
const CONTROLS = 'a[href], button, input:not([type="hidden"]), select, textarea, summary, [role="button"], [role="link"], [tabindex]:not([tabindex="-1"])';

/** The boxes of the page's controls on the screen, other than the anchor and what holds or is in
 *  it, and other than the SDK's own: what a tip beside `anchor` keeps clear of. */
export function pageControls(win, anchor) {
  const area = visibleArea(win);
  const boxes = [];
  for (const element of win.document.querySelectorAll(CONTROLS)) {
    if (anchor.contains(element) || element.contains(anchor) || element.closest("[data-waymark-ui]")) continue;
    const box = element.getBoundingClientRect();
    if (box.width > 0 && box.height > 0 && box.bottom > area.top && box.top < area.bottom && box.right > area.left && box.left < area.right) boxes.push(box);
  }
  return boxes;
}
