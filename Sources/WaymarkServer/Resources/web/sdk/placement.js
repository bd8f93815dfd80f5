// Placement: where a tip's anchor is, whether it shows, and where the tip, its spotlight and its
// pointer go beside it.

/** Whether an element is in the page, not inside a [hidden] ancestor, and has a size. */
export function isShown(element) {
  if (!element.isConnected || element.closest("[hidden]")) return false;
  const box = element.getBoundingClientRect();
  return box.width > 0 || box.height > 0;
}

/** The element a tip points at: `data-waymark-anchor="NAME"`, else the element whose id is NAME. */
export function findAnchor(doc, anchor) {
  return doc.querySelector(`[data-waymark-anchor="${CSS.escape(anchor)}"]`) ?? doc.getElementById(anchor);
}

/** Whether the user is typing in `element`: a tip that appears then must not take the focus. */
export const isTyping = (element) => element && (/^(INPUT|TEXTAREA|SELECT)$/.test(element.tagName) || element.isContentEditable);

/**
 * Puts `root` 12 px below `anchor` (above it when there is no room below), inside the window's
 * width, and the spotlight and pointer, if any, over it. Coordinates are the document's: the tip
 * scrolls with the page.
 */
export function placeBeside(win, anchor, root, { spot, pointer } = {}) {
  const box = anchor.getBoundingClientRect();
  const x = win.scrollX;
  const y = win.scrollY;
  const below = box.bottom + 12 + root.offsetHeight < win.innerHeight || box.top < root.offsetHeight + 12;
  const left = Math.max(8, Math.min(box.left + x, x + win.innerWidth - root.offsetWidth - 8));
  root.style.left = `${left}px`;
  root.style.top = `${below ? box.bottom + y + 12 : box.top + y - root.offsetHeight - 12}px`;
  if (spot) Object.assign(spot.style, { left: `${box.left + x - 6}px`, top: `${box.top + y - 6}px`, width: `${box.width + 12}px`, height: `${box.height + 12}px` });
  if (pointer) Object.assign(pointer.style, { left: `${box.left + x + box.width / 2 - 14}px`, top: `${box.top + y + box.height / 2 - 14}px` });
}
