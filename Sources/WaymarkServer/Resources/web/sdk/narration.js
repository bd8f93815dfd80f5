// Narration: the play/pause control beside a tip's or tour page's words. A recording, or speech the
// server made, plays in an <audio> element; without one the browser's own voice reads the words
// aloud. Nothing starts by itself: only a tap plays.

import { formatDuration, safeURL, word } from "./content.js";

/**
 * The narration control for `content`. While it speaks, `highlight` (the tip's anchor, or the tour
 * page) carries the class wm-speaking. Starting from the beginning records narration_played, hearing
 * it to the end narration_completed, through `view.record`, with the target, `properties` (a tour's
 * page), the narration's source and the locale of the words it speaks (`contentLocale`; `locale` is
 * the user's, on every event). `view` is { window, document, server, record }.
 */
export function narrationControl(view, content, target, highlight, properties = {}) {
  const doc = view.document;
  const button = doc.createElement("button");
  button.type = "button";
  button.className = "wm-narrate";
  const narration = content.narration;
  const details = { ...properties, contentLocale: content.locale ?? "default" };
  const speaking = (on) => { if (highlight) highlight.classList.toggle("wm-speaking", on); };
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
      speaking(false);
    };
    idle();
    button.addEventListener("click", () => {
      // Played from a click, which every browser allows; a refusal leaves the control as it was.
      if (audio.paused) audio.play().catch(idle);
      else audio.pause();
    });
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
  const synth = view.window.speechSynthesis;
  if (!synth) return doc.createDocumentFragment();
  button.textContent = word(view, "readAloud", "Read aloud");
  button.addEventListener("click", () => {
    if (synth.speaking) return synth.cancel();
    const text = highlight?.querySelector?.(".wm-body")?.textContent ?? "";
    const utterance = new view.window.SpeechSynthesisUtterance(`${content.title}. ${text}`);
    if (content.locale && content.locale !== "default") utterance.lang = content.locale;
    utterance.addEventListener?.("start", () => {
      speaking(true);
      view.record("narration_played", target, { ...details, source: "browser" });
    });
    utterance.addEventListener?.("end", () => {
      speaking(false);
      view.record("narration_completed", target, { ...details, source: "browser" });
    });
    synth.speak(utterance);
  });
  return button;
}
