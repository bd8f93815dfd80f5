// What a user's identity proof (the userHash their app's backend signs) allows, a part of its own
// that the client loads only for such a user:
// - progress that follows them: what they have seen and done here (each tip's showings, display
//   time and ending, each tour's furthest page and ending, the checklists' steps, the listener's
//   mode) goes to the server (POST /v1/progress), and the join of every device's comes back and
//   is taken in, so a tip closed on the phone stays closed here;
// - their attributes on the server, whose targeting reads them (POST /v1/identify);
// - a tour page's credit, claimed once (POST /v1/rewards/claims).

import { isFinished, newTipState, counting, settleTime } from "./engine.js";
import { keepListening, listenChoice } from "./storage.js";
import { joinTours } from "./tourprogress.js";

// The endings a user's devices share, by strength: of two, what the user did outranks what a
// policy decided. (A tip taken out of a catalog is no ending the user made.)
const ENDINGS = { expired: 1, maxDisplayDuration: 2, maxDisplayCount: 3, dismissed: 4, closed: 5 };

/** What the user has seen and done with each of an engine's tips, by id (tips its catalog lacks
 *  too; a tip showing now with its time so far), to share with their other devices:
 *  `{shown, displayedMillis, finished}`, `finished` a reason. */
export function tipProgress(engine) {
  const out = {};
  for (const [id, state] of Object.entries(engine.tipStates())) {
    const finished = ENDINGS[state.phase.slice(9)] ? state.phase.slice(9) : undefined;
    const displayedMillis = state.displayedMillis + (counting(state) ? engine.evaluator.clock - state.activeSince : 0);
    if (state.displayCount || displayedMillis || finished) {
      out[id] = { shown: state.displayCount, displayedMillis, ...(finished && { finished }) };
    }
  }
  return out;
}

/** Takes the user's progress from their other devices into an engine (the Swift engine's merge)
 *  and answers its render commands: counts rise to the larger, the stronger ending wins, and a tip
 *  finished elsewhere, or there as often or as long as its policy allows, finishes here. Nothing
 *  is taken back, so merging again changes nothing. */
export function mergeTips(engine, progress, time) {
  engine.catchUp(time);
  const now = engine.evaluator.clock;
  for (const id of Object.keys(progress).sort()) {
    const remote = progress[id];
    const i = engine.indexOf(id);
    const state = i >= 0 ? engine.states[i] : (engine.retired[id] ??= newTipState());
    // A showing tip's time so far is part of its total before the larger is taken, so what
    // arrives at one moment comes to the same state in any order.
    settleTime(state, now);
    state.displayCount = Math.max(state.displayCount, remote.shown ?? 0);
    state.displayedMillis = Math.max(state.displayedMillis, remote.displayedMillis ?? 0);
    let reason = ENDINGS[remote.finished] ? remote.finished : null;
    const policy = engine.tips[i]?.policy ?? {};
    if (!reason && i >= 0 && state.phase !== "active" && !isFinished(state)) {
      if (policy.maxDisplayCount != null && state.displayCount >= policy.maxDisplayCount) reason = "maxDisplayCount";
      else if (policy.maxDisplayDuration != null && state.displayedMillis >= Math.trunc(policy.maxDisplayDuration * 1000)) reason = "maxDisplayDuration";
    }
    if (!reason) continue;
    if (!isFinished(state) && i >= 0) engine.finish(i, reason);
    else if ((ENDINGS[state.phase.slice(9)] ?? -1) < ENDINGS[reason]) state.phase = `finished:${reason}`;
  }
  // Counts and times changed anywhere: the engine's next step looks at everything.
  engine.tips.forEach((_, i) => {
    engine.mark(i);
    engine.schedule(i);
  });
  engine.scanAll = true;
  return engine.step();
}

/** Shares the client's progress with the user's other devices and takes in theirs. */
export async function sync(client) {
  const listen = listenChoice(client.window);
  const result = await client.transport.post("/v1/progress", {
    user: client.user, userHash: client.userHash,
    progress: { tips: tipProgress(client.engine), tours: client.tourProgress, checklists: client.lists?.progress(), ...(listen && { listening: listen }) },
  });
  const progress = result?.answer?.progress;
  if (result?.outcome === "refused") console.warn("waymark: progress stays on this page:", result.message);
  if (!progress || client.stopped) return;
  const tours = progress.tours ?? {};
  client.toursChanged(client.gate ? client.gate.merge(tours) : joinTours(client.tourProgress, tours), true);
  client.sharedLists = progress.checklists;
  client.lists?.merge(progress.checklists);
  client.render(mergeTips(client.engine, progress.tips ?? {}, Date.now()), true);
  // The latest choice of the listener's mode among the user's devices.
  const remote = progress.listening;
  if (remote && remote.at > (listenChoice(client.window)?.at ?? -1)) {
    client.sharedListening = true;
    keepListening(client.window, remote);
    client.sharedListening = false;
  }
}

/** Sends the user's attributes to the server, whose targeting reads them, and fetches the catalog
 *  again once it has taken them. */
export async function identify(client, attributes) {
  const wire = {};
  for (const [name, value] of Object.entries(attributes)) wire[name] = value instanceof Date ? { time: value.toISOString() } : value ?? null;
  const result = await client.transport.post("/v1/identify", { user: client.user, userHash: client.userHash, attributes: wire });
  if (result?.outcome === "granted") await client.refresh();
  else console.warn("waymark: the attributes stay on this page:", result?.message ?? "the server cannot be reached");
  return result;
}

/** Claims a tour page's credit once, after sending the events that show it read (the server
 *  checks them). */
export async function claim(client, tour, page) {
  await client.flush();
  const result = await client.transport.post("/v1/rewards/claims", { user: client.user, userHash: client.userHash, tour, page: page.id });
  if (result?.outcome === "granted") {
    client.claimed.add(`${tour}/${page.id}`);
    client.kept.save("claimed", [...client.claimed]);
  }
  return result;
}
