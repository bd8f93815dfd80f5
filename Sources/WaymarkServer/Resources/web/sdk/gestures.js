// Touch gestures: a long press (half a second without moving) and a swipe (40 px or more, named
// by its main direction, on the nearest element that scrolls that way, else where it began). The
// browser's own scrolling does not stop touch events, so a swipe that pans a list counts. A part
// of its own, which capture.js loads on a touch screen at once.

/**
 * Follows touch input in `win`'s page until the function it answers is called: `record(name,
 * target)` gets "long-press" and "swipe-left", "-right", "-up" or "-down", on the element
 * `named(element)` names; `press.held` is set while the finger that made a long press is down,
 * so the click its release makes is not a tap. Touches on the SDK's own drawings are not the app
 * being used.
 */
export function follow(win, named, record, press) {
  const doc = win.document;
  /** @type {{x: number, y: number, target: any, timer?: any} | null} */
  let touch = null;
  const moved = (point) => [point.clientX - touch.x, point.clientY - touch.y];
  const handlers = {
    touchstart(event) {
      clearTimeout(touch?.timer);
      touch = null;
      press.held = false;
      const { target, touches } = event;
      if (touches.length > 1 || target.closest?.("[data-waymark-ui]")) return;
      touch = { x: touches[0].clientX, y: touches[0].clientY, target };
      touch.timer = setTimeout(() => { press.held = true; record("long-press", named(target)); }, 500);
    },
    touchmove(event) {
      if (touch && Math.hypot(...moved(event.touches[0])) > 10) clearTimeout(touch.timer);
    },
    touchend(event) {
      if (!touch) return;
      clearTimeout(touch.timer);
      const [dx, dy] = moved(event.changedTouches[0]);
      const across = Math.abs(dx) > Math.abs(dy);
      if (!press.held && Math.max(Math.abs(dx), Math.abs(dy)) >= 40) {
        let area = touch.target;
        for (; area && area !== doc.body; area = area.parentElement) {
          const overflow = win.getComputedStyle(area)[across ? "overflowX" : "overflowY"];
          const room = across ? area.scrollWidth - area.clientWidth : area.scrollHeight - area.clientHeight;
          if (room > 0 && /auto|scroll/.test(overflow) && (area.id || area.hasAttribute("data-waymark"))) break;
        }
        record(`swipe-${across ? (dx < 0 ? "left" : "right") : (dy < 0 ? "up" : "down")}`, named(area && area !== doc.body ? area : touch.target));
      }
      touch = null;
    },
    touchcancel() {
      clearTimeout(touch?.timer);
      touch = null;
    },
  };
  const passive = { capture: true, passive: true };
  for (const [type, handler] of Object.entries(handlers)) doc.addEventListener(type, handler, passive);
  return () => {
    clearTimeout(touch?.timer);
    for (const [type, handler] of Object.entries(handlers)) doc.removeEventListener(type, handler, passive);
  };
}
