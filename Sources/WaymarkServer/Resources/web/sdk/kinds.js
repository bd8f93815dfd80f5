// The look of the tips that are more than a tooltip: a spotlight's ring round the anchor, a
// pointer's finger on it that shows the gesture to make there (a tap, a double tap, a long press,
// a swipe each way, travelling as far as placement.js sets --wm-x and --wm-y; still for a user who
// asked for less motion), a banner along the bottom of the screen and a modal over a backdrop,
// which holds the page while it shows. A part of its own, loaded with a catalog that has such a
// tip; the tip waits for it.

import { asName } from "./content.js";
import { holdModal } from "./modal.js";
import { isTyping } from "./placement.js";
import { installStyle } from "./style.js";
import { overlay } from "./tips.js";

const STYLE = `
.wm-pointer,.wm-spot{box-sizing:border-box}
.wm-kind-banner{position:fixed;bottom:0;left:0;right:0;max-width:none;border-radius:0;padding:12px max(14px,env(safe-area-inset-right)) max(12px,env(safe-area-inset-bottom)) max(14px,env(safe-area-inset-left))}
.wm-kind-modal{position:fixed;inset:0;margin:auto;width:fit-content;height:fit-content;max-width:min(440px,calc(100vw - 16px));max-height:calc(100vh - 16px)}
.wm-backdrop{position:fixed;inset:0;background:rgba(0,0,0,.45);z-index:2147482999}
.wm-spot{position:absolute;z-index:2147482998;border-radius:8px;box-shadow:0 0 0 9999px rgba(0,0,0,.55);pointer-events:none;transition:all .2s}
.wm-pointer{position:absolute;z-index:2147483001;width:28px;height:28px;border-radius:50%;background:rgba(255,191,71,.9);border:2px solid #fff;pointer-events:none}
.wm-pointer::after{content:"";position:absolute;left:8px;top:11px;width:16px;height:34px;border-radius:8px 8px 5px 5px;background:#fff;border:2px solid #1d2a44;transform:rotate(-20deg);transform-origin:50% 0}
.wm-g-tap{animation:wm-tap 1.2s infinite}.wm-g-double-tap{animation:wm-dtap 1.4s infinite}.wm-g-long-press{animation:wm-long 2s infinite}
.wm-g-swipe-left{animation:wm-left 1.6s infinite}.wm-g-swipe-right{animation:wm-right 1.6s infinite}
.wm-g-swipe-up{animation:wm-up 1.6s infinite}.wm-g-swipe-down{animation:wm-down 1.6s infinite}
@keyframes wm-tap{0%,100%{transform:scale(1)}50%{transform:scale(.6)}}
@keyframes wm-dtap{0%,30%,60%,100%{transform:scale(1)}15%,45%{transform:scale(.6)}}
@keyframes wm-long{0%{transform:scale(1)}60%,90%{transform:scale(1.6);opacity:.6}100%{transform:scale(1)}}
.wm-pointer{--x:var(--wm-x,40px);--y:var(--wm-y,40px);--nx:calc(-1*var(--x));--ny:calc(-1*var(--y))}
@keyframes wm-left{0%{transform:translateX(var(--x));opacity:0}20%{opacity:1}100%{transform:translateX(var(--nx));opacity:0}}
@keyframes wm-right{0%{transform:translateX(var(--nx));opacity:0}20%{opacity:1}100%{transform:translateX(var(--x));opacity:0}}
@keyframes wm-up{0%{transform:translateY(var(--y));opacity:0}20%{opacity:1}100%{transform:translateY(var(--ny));opacity:0}}
@keyframes wm-down{0%{transform:translateY(var(--ny));opacity:0}20%{opacity:1}100%{transform:translateY(var(--y));opacity:0}}
@media (prefers-reduced-motion: reduce){.wm-pointer,.wm-spot{animation:none!important;transition:none!important}}
`;

/** Adds the kinds' style sheet to the page; answers what takes it away. */
export function install(win) {
  return installStyle(win, STYLE);
}

/** A modal tip that shows (not paused, not waiting) holds the page (inert behind it) and takes the
 *  focus (never from someone typing), also when it comes back after waiting; one that does not
 *  lets the page go. */
export function holdPage(doc, entry, shows) {
  if (shows === Boolean(entry.release)) return;
  if (!shows) {
    entry.release = entry.release();
    return;
  }
  entry.release = holdModal(doc, entry.root);
  const active = doc.activeElement;
  if (!entry.root.contains(active) && !isTyping(active)) {
    entry.previousFocus = active;
    entry.root.focus({ preventScroll: true });
  }
}

/**
 * What a tip of `kind` draws besides itself: a modal's backdrop, a spotlight's ring, a pointer's
 * finger making the tip's gesture, a banner's room (fixed at the bottom of the screen, a banner
 * reserves its height at the end of the page, as the dock does, so the page scrolls past it and
 * nothing of the page stays under it). Answers { extras, place(root, box, win) }: `place` sizes
 * the room to the tip and, given the anchor's visible `box`, puts the ring round it and the
 * finger on the middle of it, the swipe travelling most of the way to its edges (--wm-x, --wm-y:
 * how far from the middle; within 8 px of the edge, from 12 to 120).
 */
export function decorate(doc, tip, kind) {
  const extras = [];
  const made = (className, name) => {
    const element = overlay(doc, className, name);
    extras.push(element);
    return element;
  };
  if (kind === "modal") made("wm-backdrop", "backdrop");
  const spot = kind === "spotlight" && made("wm-spot", "spotlight");
  const pointer = kind === "pointer" && made(`wm-pointer wm-g-${asName(tip.gesture) ?? "tap"}`, "pointer");
  const room = kind === "banner" && made("wm-room", "banner-room");
  if (room) room.setAttribute("aria-hidden", "true");
  if (pointer) {
    pointer.setAttribute("aria-hidden", "true");
    pointer.dataset.gesture = tip.gesture ?? "tap";
  }
  const travel = (length) => `${Math.max(12, Math.min(length / 2 - 22, 120))}px`;
  return {
    extras,
    place(root, box, win) {
      if (room) room.style.height = `${root.offsetHeight}px`;
      if (!box) return;
      const [x, y] = [box.left + win.scrollX, box.top + win.scrollY];
      if (spot) Object.assign(spot.style, { left: `${x - 6}px`, top: `${y - 6}px`, width: `${box.width + 12}px`, height: `${box.height + 12}px` });
      if (pointer) {
        Object.assign(pointer.style, { left: `${x + box.width / 2 - 14}px`, top: `${y + box.height / 2 - 14}px` });
        pointer.style.setProperty("--wm-x", travel(box.width));
        pointer.style.setProperty("--wm-y", travel(box.height));
      }
    },
  };
}
