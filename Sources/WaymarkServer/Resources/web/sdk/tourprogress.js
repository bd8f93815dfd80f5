// How far the user got in each tour, as their devices share it: { id: { page, finished, dismissed } }.
// Used by the tour part (what the reader does) and the progress part (what their other devices did).

/** Joins `other` into `progress` (the further page, each ending either has); whether it grew. */
export function joinTours(progress, other) {
  let grew = false;
  for (const [id, p] of Object.entries(other)) {
    const a = progress[id] ?? { page: 0, finished: false };
    const b = { page: Math.max(a.page, p.page ?? 0), finished: a.finished || Boolean(p.finished) };
    if (a.dismissed || p.dismissed) b.dismissed = true;
    grew ||= JSON.stringify(a) !== JSON.stringify(b);
    progress[id] = b;
  }
  return grew;
}
