// The stage: one arbiter for everything the SDK draws, deciding from measured rectangles which
// surfaces show and which wait, the same way in every SDK that draws (conformance/stage/cases.json).
// A pure function: no browser API here; the renderer measures and applies.

// Who goes first: what the user opened (a panel), then what takes the whole screen (a tour, a
// modal tip, a spotlight), then tips, then hotspot markers, then the dock of launcher buttons.
const RANK = { panel: 0, modal: 1, tip: 2, marker: 3, dock: 4 };

const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/**
 * Which surfaces show: `surfaces` is [{ id, kind, priority, order, box }], kind one of panel,
 * modal, tip, marker, dock; box the surface's rectangle on the screen ({ left, top, right,
 * bottom }), or null while it is away (its anchor gone or off the screen), when it neither shows
 * nor stands in the way. Answers the ids of those that show; the others wait, and show again once
 * the screen is free. Rules, in order of rank, then higher priority, then earlier order:
 * - panels (opened by the user) show;
 * - one modal shows, when no panel is open; while it does, nothing else does;
 * - a tip or marker shows when it overlaps nothing that shows;
 * - the dock shows when no modal does and it overlaps nothing that shows.
 */
export function arrange(surfaces) {
  const sorted = [...surfaces].sort((a, b) => RANK[a.kind] - RANK[b.kind] || (b.priority ?? 0) - (a.priority ?? 0) || a.order - b.order);
  const shown = [];
  let modal = false;
  for (const surface of sorted) {
    if (!surface.box) continue;
    const free = !shown.some((other) => overlaps(surface.box, other.box));
    const show = surface.kind === "panel" || (!modal && (surface.kind === "modal" ? shown.length === 0 : free));
    if (!show) continue;
    shown.push(surface);
    modal ||= surface.kind === "modal";
  }
  return new Set(shown.map((s) => s.id));
}
