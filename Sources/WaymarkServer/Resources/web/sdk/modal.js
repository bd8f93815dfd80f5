// Modals: while a tour or a modal tip is open, the page behind it is inert (screen readers do not
// read it, nothing in it takes the focus or a tap) and Tab and Shift-Tab cycle inside the modal.

const FOCUSABLE = "button,[href],input,select,textarea,video[controls],[tabindex]:not([tabindex='-1'])";

/** Makes `root` modal in `doc`; the function it answers lets the page go again (once: calling it
 *  twice does not free what another modal holds). The SDK's own drawings ([data-waymark-ui]) stay
 *  as they are. */
export function holdModal(doc, root) {
  const quieted = [];
  for (const element of doc.body.children) {
    if (element === root || element.dataset.waymarkUi || element.inert) continue;
    element.inert = true;
    quieted.push(element);
  }
  const cycle = (event) => {
    if (event.key !== "Tab") return;
    const items = [...root.querySelectorAll(FOCUSABLE)].filter((e) => !e.disabled && e.getClientRects().length > 0);
    const active = doc.activeElement;
    const first = items[0];
    const last = items[items.length - 1];
    if (!first) return event.preventDefault();
    if (event.shiftKey ? active === first || active === root : active === last) {
      event.preventDefault();
      (event.shiftKey ? last : first).focus();
    }
  };
  root.addEventListener("keydown", cycle);
  return () => {
    root.removeEventListener("keydown", cycle);
    for (const element of quieted.splice(0)) element.inert = false;
  };
}
