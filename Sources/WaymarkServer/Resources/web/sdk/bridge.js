// The web SDK inside a hybrid app's WebView (docs/hybrid-apps.md): a part of its own, loaded when
// the app around the page gives it a native bridge. The app's native core (the Java or Swift
// client) is then the one guide: it holds the user, the catalog, the engine, the event queue and
// the progress; this page draws the tips the core tells it to and tells the core what the user
// does here. Nothing is fetched from or sent to the server by the page itself.
//
// Messages are JSON text, one object a message, each with a `type`:
//   page -> core  hello; event {name, target, properties}; container {container, visible};
//                 sight {tip, visible}; close {tip}; press {action, tip}; answer {survey, score,
//                 comment}; context {values}; anchorMissing {tip}
//   core -> page  catalog {catalog, server, listening}; render {commands: [{action, tip, container, anchor,
//                 reason}]}
// The page sends with the bridge's postMessage (Android: the object the app added with
// addJavascriptInterface as `WaymarkNative`; iOS: webkit.messageHandlers.waymark); the core
// answers by calling window.waymarkBridge.receive(text).

import { capture, containerShown, currentScreen } from "./capture.js";
import { asName } from "./content.js";
import { Renderer } from "./renderer.js";
import { keepListening } from "./storage.js";

/** The SDK in a page of a hybrid app: draws what the native core decides. */
export class WebViewClient {
  /** `options.bridge`: what carries the page's messages (anything with postMessage(text)). */
  constructor(options) {
    const win = (this.window = options.window ?? globalThis.window);
    this.document = win.document;
    this.bridge = options.bridge;
    this.options = options;
    this.catalog = { tips: [] };
    // What the core says shows in this page, by tip id: its command, drawn once the catalog is here.
    this.showing = new Map();
    // The containers of the catalog this page has, and whether each showed when last told.
    this.containers = new Map();
    this.stopped = false;
  }

  async start() {
    this.renderer = new Renderer({
      window: this.window, server: this.options.server,
      hooks: {
        record: (name, target, properties) => this.record(name, target, properties),
        seen() {},
        sight: (tip, visible) => this.post({ type: "sight", tip, visible }),
        close: (tip) => this.close(tip),
        answer: (survey, score, comment) => this.answer(survey, score, comment),
        press: (action, { tip }) => tip && this.post({ type: "press", action: action.id, tip: tip.id }),
      },
    });
    this.window.waymarkBridge = { receive: (text) => this.receive(typeof text === "string" ? JSON.parse(text) : text) };
    this.stopCapture = capture(this.window, {
      record: (name, target) => this.record(name, target),
      escape: (event) => {
        const id = this.renderer.topmostTip();
        if (!id) return;
        event.preventDefault();
        this.close(id);
      },
      reach() {},
      hide: () => this.renderer.lookAgain(),
      show: () => this.renderer.lookAgain(),
      screenChanged: () => this.screenChanged(),
      fullscreenChanged: () => this.syncContainers(),
      online() {},
      mutated: () => {
        this.syncContainers();
        this.renderer.placeAll();
      },
      moved: () => this.renderer.placeAll(),
    });
    this.lastScreen = asName(currentScreen(this.window)) ?? "home";
    this.post({ type: "hello", screen: this.lastScreen });
    return this;
  }

  /** What the user did in the page, for the core's engine and queue (in the order it happened). */
  record(name, target, properties = {}) {
    const cleanName = asName(name);
    if (!cleanName || this.stopped) return;
    const event = { type: "event", name: cleanName, properties };
    const cleanTarget = target === undefined || target === null ? undefined : asName(target);
    if (cleanTarget) event.target = cleanTarget;
    this.post(event);
  }

  /** The page names its screen (`Waymark.screen("checkout")`), which turns off the guess from its path. */
  screen(name) {
    this.namesScreens = true;
    this.lastScreen = asName(name) ?? "home";
    this.record("screen", this.lastScreen);
  }

  /** A single-page app's path changed: a screen, as the core records screens. The page's first
   *  screen is the app's to record, as it opens the WebView. */
  screenChanged() {
    const name = asName(currentScreen(this.window)) ?? "home";
    if (this.namesScreens || name === this.lastScreen) return;
    this.lastScreen = name;
    this.record("screen", name);
  }

  /** Context values for the core's rules (`Waymark.setContext`). */
  setContextValues(values) {
    this.post({ type: "context", values });
  }

  /** The user closed a tip here (or left a survey's ending): it goes at once, and for good. */
  close(tip) {
    this.post({ type: "close", tip });
    this.renderer.erase(tip, true);
  }

  answer(survey, score, comment) {
    this.post({ type: "answer", survey, score, comment });
    return true;
  }

  /** Who the user is, tours and the queue are the core's: the app says them there. */
  identify() {
    return { outcome: "the app's core identifies the user" };
  }

  openTour() {
    return false;
  }

  flush() {}

  post(message) {
    if (!this.stopped) this.bridge.postMessage(JSON.stringify(message));
  }

  /** A message from the core. One that does not read is left, with a warning. */
  receive(message) {
    if (this.stopped) return;
    if (message?.type === "catalog") {
      this.catalog = message.catalog ?? { tips: [] };
      this.renderer.tipView.words = this.catalog.ui;
      // The listener's mode is the app's: what shows in the page speaks as the app's tips do.
      keepListening(this.window, { on: Boolean(message.listening) }, true);
      this.renderer.loadNarration();
      this.containers.clear();
      this.syncContainers();
      this.renderer.server = this.renderer.tipView.server = message.server;
      for (const [id, command] of this.showing) if (!this.renderer.isDrawn(id)) this.show(command);
    } else if (message?.type === "render") {
      for (const command of message.commands ?? []) this.apply(command);
    } else {
      console.warn("waymark: the app's core sent what the page does not know", message);
    }
  }

  /** One render command of the core's, drawn here. */
  apply(command) {
    const id = command.tip;
    if (command.action === "show") {
      this.showing.set(id, command);
      this.show(command);
    } else if (command.action === "hide") {
      this.showing.delete(id);
      this.renderer.erase(id, command.reason === "closed");
    } else {
      this.renderer.setPaused(id, command.action === "pause");
    }
  }

  show(command) {
    const tip = (this.catalog.tips ?? []).find((t) => t.id === command.tip);
    if (!tip) return;
    if (tip.survey || tip.actions || tip.renderer === "hotspot") this.renderer.loadControls();
    this.renderer.draw(tip);
    this.lookForAnchor(tip.id);
  }

  /** A tip drawn here whose anchor the page lacks 5 s later, on the same screen, is told to the
   *  core (which reports it once a screen view): the console shows its author where it points at
   *  nothing. */
  lookForAnchor(id) {
    const screen = this.lastScreen;
    setTimeout(() => {
      const entry = this.renderer.rendered.get(id);
      if (entry?.lost && !entry.paused && screen === this.lastScreen) this.post({ type: "anchorMissing", tip: id });
    }, 5000);
  }

  /** Tells the core which of the catalog's containers this page has and whether each shows: a
   *  container this page has no element for is the app's own (docs/hybrid-apps.md). While a video
   *  plays full screen, none shows. */
  syncContainers() {
    const covered = Boolean(this.document.fullscreenElement);
    for (const container of new Set((this.catalog.tips ?? []).map((t) => t.container))) {
      const had = this.containers.get(container);
      const has = this.document.querySelector(`[data-waymark-container="${CSS.escape(container)}"]`);
      if (!has && had === undefined) continue;
      const visible = Boolean(has) && !covered && containerShown(this.document, container);
      if (visible === had) continue;
      this.containers.set(container, visible);
      this.post({ type: "container", container, visible });
    }
  }

  stop() {
    for (const container of this.containers.keys()) this.post({ type: "container", container, visible: false });
    this.stopped = true;
    this.stopCapture?.();
    this.renderer?.stop();
    if (this.window.waymarkBridge?.receive) delete this.window.waymarkBridge;
  }
}
