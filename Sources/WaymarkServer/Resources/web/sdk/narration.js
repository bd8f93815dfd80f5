// Narration: the play/pause control beside a tip's or tour page's words. A recording, or speech the
// server made, plays in an <audio> element; without one the browser's own voice reads the words
// aloud. Nothing starts by itself until the user asks for it, or the catalog makes it the default
// for their locale (`listen: [hi]`): pressing a Listen control (or the dock's "Listen to tips")
// turns on the listener's mode, kept in this browser (storage.js) and shared with the user's other
// devices, in which every tip, tour page and survey speaks as it appears, one at a time. A part of
// its own (narration.js).

import { safeURL, word } from "./content.js";
import { keepListening, listenChoice, listening } from "./storage.js";
import { installStyle } from "./style.js";

/** Seconds as m:ss, the length a narration button shows. */
export function formatDuration(seconds) {
  const whole = Math.max(0, Math.round(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

export { listening };

// The row a tip's or tour page's Listen control joins (.wm-actions, empty until this part is here).
const STYLE = `
.wm-actions{display:flex;gap:8px;margin-top:8px;flex-wrap:wrap}
.wm-actions button{min-height:44px;background:var(--wm-text,#fff);color:var(--wm-surface,#1d2a44);border:0;border-radius:6px;padding:6px 10px;font:inherit;cursor:pointer}
`;

/** Adds the Listen control's style sheet to the page; answers what takes it away. */
export function install(win) {
  return installStyle(win, STYLE);
}

const waiting = []; // the controls offered to speak, in the order they appeared
let current = null; // the control speaking for the listener's mode

/** The user turns the listener's mode on or off (the page hears a `waymark:listen` event whose
 *  detail is the mode); off stops what it was saying. */
export function setListening(win, on) {
  keepListening(win, { on, at: Date.now() });
  if (on) return;
  stopSpeaking();
}

/** Stops what speaks for the listener's mode and forgets what waited to. */
export function stopSpeaking() {
  waiting.length = 0;
  current?.stop();
  current = null;
}

/**
 * In the listener's mode, speaks `button`'s narration (a control narrationControl made) after
 * what speaks now; once each. Where the browser wants a gesture before it plays sound (a new
 * visit), it plays at the user's next tap or key.
 */
export function offer(win, button) {
  if (!button?.speak || button.spoken || !listening(win) || waiting.includes(button)) return;
  waiting.push(button);
  next(win);
}

function next(win) {
  if (current?.busy()) return;
  current = null;
  for (let button; (button = waiting.shift()); ) {
    if (!button.isConnected || button.spoken) continue;
    current = button;
    button.spoken = true;
    button.speak().catch(() => {
      const again = () => button.speak().catch(() => {});
      for (const type of ["pointerdown", "keydown"]) win.document.addEventListener(type, again, { once: true, capture: true });
    });
    return;
  }
}

/**
 * The narration control for `content`. While it speaks, `highlight` (the tip's anchor, or the tour
 * page) carries the class wm-speaking. Starting from the beginning records narration_played, hearing
 * it to the end narration_completed, through `view.record`, with the target, `properties` (a tour's
 * page), the narration's source and the locale of the words it speaks (`contentLocale`; `locale` is
 * the user's, on every event). `view` is { window, document, server, record }. The button carries
 * speak() (a promise, refused where the browser wants a gesture first), busy() and stop() for the
 * listener's mode.
 */
export function narrationControl(view, content, target, highlight, properties = {}) {
  const doc = view.document;
  const win = view.window;
  const button = doc.createElement("button");
  button.type = "button";
  button.className = "wm-narrate";
  const narration = content.narration;
  const details = { ...properties, contentLocale: content.locale ?? "default" };
  const speaking = (on) => { if (highlight) highlight.classList.toggle("wm-speaking", on); };
  // Pressing it to play is asking to hear tips: the listener's mode turns on.
  const pressed = (play) => () => {
    if (!button.busy()) {
      setListening(win, true);
      if (current !== button) current?.stop();
      current = button;
      button.spoken = true;
    }
    play();
  };
  const ended = () => {
    speaking(false);
    if (current === button) next(win);
  };
  const audioURL = narration?.url ? safeURL(narration.url, view.server) : null;
  if (audioURL) {
    const audio = doc.createElement("audio");
    audio.src = audioURL;
    audio.preload = "none";
    audio.className = "wm-narration";
    const length = Number.isFinite(narration.duration) ? ` ${formatDuration(narration.duration)}` : "";
    // A toggle keeps its name whatever its state (aria-pressed says whether it plays), as
    // WAI-ARIA's pattern asks: the visible text changes, the name a screen reader reads does not.
    button.setAttribute("aria-label", word(view, "playNarration", "Play narration"));
    const idle = () => {
      button.textContent = `▶ ${word(view, "listen", "Listen")}${length}`;
      button.setAttribute("aria-pressed", "false");
      ended();
    };
    idle();
    button.speak = () => audio.play();
    button.busy = () => !audio.paused;
    button.stop = () => audio.pause();
    // Played from a click, which every browser allows; a refusal leaves the control as it was.
    button.addEventListener("click", pressed(() => (audio.paused ? audio.play().catch(idle) : audio.pause())));
    audio.addEventListener("play", () => {
      button.textContent = `❚❚ ${word(view, "pause", "Pause")}`;
      button.setAttribute("aria-pressed", "true");
      speaking(true);
      if (audio.currentTime < 0.5) view.record("narration_played", target, { ...details, source: narration.source ?? "recording" });
    });
    audio.addEventListener("pause", idle);
    audio.addEventListener("ended", () => {
      idle();
      view.record("narration_completed", target, { ...details, source: narration.source ?? "recording" });
    });
    // The audio element sits beside its button: the button's label changes replace its children.
    const control = doc.createDocumentFragment();
    control.append(button, audio);
    return control;
  }
  const synth = win.speechSynthesis;
  if (!synth) return doc.createDocumentFragment();
  button.textContent = word(view, "readAloud", "Read aloud");
  let voice = null;
  button.busy = () => voice !== null;
  button.stop = () => synth.cancel();
  button.speak = () => new Promise((started, refused) => {
    const text = highlight?.querySelector?.(".wm-body")?.textContent ?? "";
    const utterance = (voice = new win.SpeechSynthesisUtterance(`${content.title}. ${text}`));
    if (content.locale && content.locale !== "default") utterance.lang = content.locale;
    utterance.addEventListener?.("start", () => {
      speaking(true);
      started();
      view.record("narration_played", target, { ...details, source: "browser" });
    });
    const done = (completed) => {
      voice = null;
      ended();
      if (completed) view.record("narration_completed", target, { ...details, source: "browser" });
    };
    utterance.addEventListener?.("end", () => done(true));
    utterance.addEventListener?.("error", (event) => {
      done(false);
      if (event.error === "not-allowed") refused();
    });
    synth.speak(utterance);
  });
  button.addEventListener("click", pressed(() => (synth.speaking ? synth.cancel() : button.speak().catch(() => {}))));
  return button;
}

/** The listener's mode changed, by the user or by the catalog's default: what shows speaks (once
 *  seen), or speaking stops. The user's own choice goes to their other devices, unless it came
 *  from them (`shared`). */
export function listeningChanged(client, shared) {
  if (client.stopped) return;
  if (!listening(client.window)) stopSpeaking();
  else for (const entry of client.renderer.rendered.values()) client.renderer.speak(entry.root);
  if (listenChoice(client.window) && !shared) client.progressChanged();
}
