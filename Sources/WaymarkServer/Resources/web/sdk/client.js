// The client: one app's SDK in a page. It hands the catalog's rules to the engine, what capture
// sees to the engine and the tour triggers, the engine's render commands to the renderer, and the
// user's events to the transport; it keeps what must outlive the page in KeptState.

import { capture, containerShown, currentScreen } from "./capture.js";
import { asName, inLocale } from "./content.js";
import { Engine, Evaluator, triggerRules } from "./engine.js";
import { KINDS, Renderer } from "./renderer.js";
import { ruleFromJSON } from "./rules.js";
import { KeptState, keepListening, pickedLocale, previewToken } from "./storage.js";
import { Transport, eventID } from "./transport.js";
import { formatTime, parseTime } from "./values.js";

/** The SDK in a page: `await Waymark.start({ key, server, user, userHash, context, attributes })`. */
export class WaymarkClient {
  constructor(options) {
    const { server, user, userHash, context = {}, window: win = globalThis.window } = options;
    // A tab opened from a preview link runs the draft: the preview's token stands in for the key
    // (and keeps its own state, apart from the user's).
    const key = previewToken(win) ?? options.key;
    if (!key || !user) throw new TypeError("Waymark.start needs a key and a user");
    this.window = win;
    this.document = win.document;
    this.server = String(server ?? new URL(import.meta.url).origin).replace(/\/+$/, "");
    this.user = String(user);
    // A preview is no user's own: it shares no progress, sends no attributes and earns no credit.
    this.userHash = key === options.key ? userHash : undefined;
    this.context = {
      platform: context.platform ?? "web",
      model: context.model ?? (win.navigator.userAgentData?.mobile || /Mobi/.test(win.navigator.userAgent) ? "mobile-browser" : "desktop-browser"),
      appVersion: context.appVersion,
      // The language the user picked in the dock wins over the app's and the browser's.
      locale: pickedLocale(win) ?? context.locale ?? win.navigator.language,
    };
    this.extraContext = { ...(context.values ?? {}) };
    this.kept = new KeptState(win.localStorage, `waymark:${key.slice(-12)}:${this.user}:`);
    this.transport = new Transport({ window: win, server: this.server, key, kept: this.kept, userHash, flushEvery: options.flushEvery });
    this.options = options;
    this.stopped = false;
    // The tips shown and not yet seen, with the properties their tip_shown will carry.
    this.unseen = new Map();
    // The tips whose anchor was reported missing in this screen view.
    this.missed = new Set();
    // What the user's other devices last said of the checklists, and whether the listener's mode
    // is being set from theirs (identity.js).
    this.sharedLists = undefined;
    this.sharedListening = false;
  }

  async start() {
    this.renderer = new Renderer({
      window: this.window, server: this.server,
      hooks: {
        record: (name, target, properties) => this.record(name, target, properties),
        // tip_shown says the user saw the tip: sent when it was on the screen for a moment.
        seen: (id) => {
          const shown = this.unseen.get(id);
          this.unseen.delete(id);
          if (shown) this.enqueue("tip_shown", id, shown, Date.now());
        },
        sight: (id, visible) => this.sight(id, visible),
        close: (id) => this.close(id),
        answer: (id, score, comment) => this.answer(id, score, comment),
        press: (action, where) => this.renderer.tipView.controls.press(this, action, where),
        claim: (tour, page) => this.claim(tour, page),
        isClaimed: (tour, page) => this.claimed.has(`${tour}/${page}`),
        // A tour ended ("finished", "dismissed") does not open by its trigger again; one left
        // (another replaced it, the SDK stopped) has not ended.
        tourClosed: (id, ending, page) => {
          if (ending) this.toursChanged(this.gate?.end(id, page, ending));
          else if (this.gate?.open === id) this.gate.open = null;
          this.kept.save("openTour", null);
          this.syncContainers();
        },
        // Where the reader of the open tour is: a reload or a return opens it there again.
        tourMoved: (tour, page, scroll) => {
          this.kept.persist("openTour", () => ({ tour, page, scroll }));
          this.toursChanged(this.gate?.reached(tour, page));
        },
      },
    });
    // The listener's mode turned on or off, here or by the catalog's default: what shows speaks,
    // or stops; a choice the user made goes to their other devices.
    this.window.addEventListener("waymark:listen", (this.onListen = () => {
      const shared = this.sharedListening;
      if (!this.stopped) this.renderer.loadNarration().then((narration) => narration?.listeningChanged(this, shared));
    }));
    this.claimed = new Set(this.kept.load("claimed", []));
    // The furthest page the user reached in each tour and how it ended, here or on their other devices.
    this.tourProgress = this.kept.load("tourProgress", {});
    // The catalog request leaves now. A catalog kept from the last visit runs at once, so its tips
    // need no network; the fresh one replaces it when (and if) the server has a newer one.
    const kept = this.transport.keptCatalog(this.catalogQuery());
    const refreshed = this.refresh();
    if (kept) this.apply(kept);
    else await refreshed;
    this.syncProgress();
    this.stopCapture = capture(this.window, {
      record: (name, target) => this.record(name, target),
      escape: (event) => this.closeTopmost(event),
      // F6 moves the focus into the tip that shows (tips do not take it by themselves), and back.
      reach: (event) => {
        const tip = this.renderer.rendered.get(this.renderer.topmostTip());
        if (!tip) return;
        event.preventDefault();
        if (tip.root.contains(this.document.activeElement)) {
          tip.previousFocus?.focus();
          if (tip.root.contains(this.document.activeElement)) this.document.activeElement.blur();
        } else {
          tip.previousFocus = this.document.activeElement;
          tip.root.focus();
        }
      },
      hide: () => {
        // Out of sight while the page is away: its tips' display time stands still.
        this.renderer.lookAgain();
        this.kept.writePending();
        this.transport.flush({ keepalive: true });
      },
      show: () => {
        this.renderer.lookAgain();
        this.record("activation");
        // A page left open for long picks up a newly published catalog when it comes back.
        if (Date.now() - this.refreshedAt > 60000) this.refresh();
      },
      screenChanged: () => this.guessScreen(),
      fullscreenChanged: () => this.onFullscreen(),
      online: () => this.transport.flush(),
      mutated: () => {
        this.syncContainers();
        this.renderer.placeAll();
      },
      moved: () => this.renderer.placeAll(),
    });
    this.scheduleEngine();
    if (this.options.attributes) this.identify(this.options.attributes);
    this.record("activation");
    this.guessScreen();
    this.transport.schedule(() => this.transport.flush(), 0);
    return this;
  }

  /** Fetches the catalog (If-None-Match), keeps the last good one, and runs from it offline. */
  async refresh() {
    this.refreshedAt = Date.now();
    const { catalog, changed } = await this.transport.catalog(this.catalogQuery());
    if (this.stopped || (!changed && this.engine)) return;
    this.apply(catalog ?? { version: 0, frequency: "immediate", tips: [], tours: [] });
  }

  /** What the catalog is asked for: the device, app version, locale and user. */
  catalogQuery() {
    return Object.fromEntries(Object.entries({ ...this.context, user: this.user }).filter(([, value]) => value));
  }

  /** Runs from `catalog`: its tips go to the engine (which keeps the state of tips it had), its
   *  tours' triggers to their own evaluator. A tip or trigger that does not read is skipped. */
  apply(catalog) {
    this.catalog = catalog;
    // The catalog may make the listener's mode the default for the user's locale (hi, hi-IN).
    keepListening(this.window, { on: (catalog.listen ?? []).some((l) => inLocale(this.context.locale, l)) }, true);
    // The words drawn around the content, in the catalog's language when the server has them.
    this.renderer.tipView.words = catalog.ui;
    // A preview's mark (previewing.js), or a page builder (builder.js, which draws the mark too):
    // a tab is one or the other, so they share a name.
    const p = catalog.preview;
    if (p) this.renderer.part("preview", () => (p.builder ? import("./builder.js") : import("./previewing.js"))).then((m) => m?.mark(this));
    // The app's look (theme.js): the style's custom properties, set from the catalog's theme.
    if (catalog.theme || catalog.tips?.some((t) => t.theme)) this.renderer.part("theme", () => import("./theme.js")).then((m) => m?.apply(this));
    const tips = [];
    for (const tip of catalog.tips ?? []) {
      try {
        tips.push({
          ...tip,
          trigger: ruleFromJSON(tip.trigger),
          dismissal: tip.dismissal ? ruleFromJSON(tip.dismissal) : undefined,
          policy: { ...tip.policy, expiresAt: tip.policy?.expiresAt ? parseTime(tip.policy.expiresAt) : undefined },
        });
      } catch (error) {
        console.warn(`waymark: tip ${tip.id} is skipped: ${error.message}`);
      }
    }
    this.tours = new Map((catalog.tours ?? []).map((tour) => [tour.id, tour]));
    // The tour panel loads now, so a tour opens at once when its trigger holds; narration too,
    // beside the first words it will read.
    if (this.tours.size) this.renderer.loadTours();
    if (tips.length || this.tours.size || catalog.articles) this.renderer.loadNarration();
    if (tips.some((t) => KINDS.includes(t.renderer))) this.renderer.loadKinds();
    // And the controls, so a survey, a hotspot or a tip with buttons shows at once too.
    if ([...tips, ...(catalog.tours ?? []).flatMap((tour) => tour.pages)].some((t) => t.survey || t.actions || t.renderer === "hotspot")) this.renderer.loadControls();
    const gated = [];
    for (const tour of catalog.tours ?? []) {
      try {
        gated.push({ id: tour.id, pages: tour.pages.length, trigger: tour.trigger && ruleFromJSON(tour.trigger) });
      } catch (error) {
        console.warn(`waymark: tour ${tour.id} has a bad trigger: ${error.message}`);
      }
    }
    const now = Date.now();
    if (!this.engine) {
      this.engine = new Engine(tips, { frequency: catalog.frequency, snapshot: this.kept.load("engine", undefined), sightReported: true });
      this.render(this.engine.advance(now));
      // Tips that were showing before the reload are drawn again, not shown (and counted) again.
      for (const command of this.engine.activeTips()) {
        const tip = catalog.tips.find((t) => t.id === command.tip);
        if (tip && !this.renderer.isDrawn(tip.id)) this.renderer.draw(tip);
      }
    } else {
      this.render(this.engine.update(tips, now));
    }
    // Checklists and help run in a part of their own, loaded with a catalog that has either.
    this.lists?.stop();
    this.lists = null;
    if (catalog.checklists || catalog.articles) {
      // The same catalog applied twice waits twice: the later guide replaces the earlier, whose
      // help button and listeners go with it.
      this.renderer.part("the launcher", () => import("./launcher.js")).then((module) => {
        if (!module || this.catalog !== catalog || this.stopped) return;
        this.lists?.stop();
        this.lists = new module.Guide(this, catalog, this.sharedLists);
      });
    }
    // The tours' triggers run here from the start; which tour opens is the tour part's gate's to
    // decide once it is here. A newer catalog keeps what the triggers have seen so far, including
    // since the kept one ran.
    this.tourRules = new Evaluator(triggerRules(gated), this.tourRules?.snapshot() ?? this.kept.load("tours", undefined));
    this.setContextValues({});
    if (!this.tours.size) this.gate = null;
    else this.renderer.loadTours().then((module) => module && this.catalog === catalog && !this.stopped && module.run(this, gated));
  }

  // -- Input --

  /** Records an event the app names itself: `Waymark.track("add_to_cart", "sku-42", { amount: 799 })`. */
  record(name, target, properties = {}) {
    const cleanName = asName(name);
    if (!cleanName || this.stopped) return [];
    const cleanTarget = target === undefined || target === null ? undefined : asName(target);
    const now = Date.now();
    this.enqueue(cleanName, cleanTarget, properties, now);
    // Rules test properties as they are typed (`purchase where amount >= 500`): text, finite numbers, flags.
    const typed = Object.fromEntries(Object.entries(properties ?? {}).filter(([, v]) => scalar(v)));
    this.tourRules.record(cleanName, cleanTarget, now, typed);
    this.lists?.record(cleanName, cleanTarget, now, typed);
    const commands = this.engine.record(cleanName, cleanTarget, now, typed);
    this.render(commands);
    this.checkTours();
    return commands;
  }

  /** Sets context values the rules compare (`Waymark.setContext({ "user.plan": "pro" })`). */
  setContextValues(values) {
    Object.assign(this.extraContext, values);
    const all = {
      "device.platform": this.context.platform, "device.model": this.context.model, "app.version": this.context.appVersion,
      "user.locale": this.context.locale, "user.id": this.user, ...this.extraContext,
    };
    const now = Date.now();
    this.contextValues = all;
    this.lists?.setContext(all, now);
    for (const [path, value] of Object.entries(all)) this.tourRules.setContext(path, value ?? null, now);
    this.render(this.engine.setContext(Object.fromEntries(Object.entries(all).map(([k, v]) => [k, v ?? null])), now));
  }

  /** The app says which screen shows: `Waymark.screen("product")`. An app that names its screens
   *  this way turns off the SDK's own guess from path changes, so no view counts twice. */
  screen(name) {
    this.namesScreens = true;
    this.recordScreen(name);
  }

  /** A path change in a single-page app, when the app does not name its screens itself. */
  guessScreen() {
    if (this.namesScreens) return;
    const name = asName(currentScreen(this.window)) ?? "home";
    if (name !== this.lastScreen) this.recordScreen(name);
  }

  recordScreen(name) {
    this.lastScreen = asName(name) ?? "home";
    this.record("screen", this.lastScreen);
    this.syncContainers();
    this.missed = new Set();
    for (const id of this.renderer.rendered.keys()) this.lookForAnchor(id);
    // Once a day a screen, what it shows goes to the console (sightings.js), once it has drawn.
    const screen = this.lastScreen, key = "waymark:screen:" + screen, today = new Date().toDateString();
    if (this.window.localStorage.getItem(key) !== today) setTimeout(() => this.sightings().then((m) => m?.report(this, key, screen, today)), 3000);
  }

  /** What the console learns of the page (sightings.js): its screens, and anchors not found. */
  sightings() {
    return this.renderer.part("sightings", () => import("./sightings.js"));
  }

  /** A shown tip whose anchor is not there 5 s later is reported (sightings.js). */
  lookForAnchor(id) {
    const { missed, lastScreen } = this;
    this.sightings().then((m) => m?.lookForAnchor(this, id, missed, lastScreen));
  }

  /** Tells the engine which of its containers the page shows. One guidance at a time: while a
   *  tour is open or a video plays full screen, none shows, so every tip pauses. */
  syncContainers() {
    if (!this.engine) return;
    const covered = this.fullscreen || Boolean(this.renderer.tourPanel);
    const now = Date.now();
    const commands = [];
    for (const container of this.engine.containers) {
      commands.push(...this.engine.setContainer(container, !covered && containerShown(this.document, container), now));
    }
    this.render(commands);
  }

  // -- Time: the engine's next change, as a timer --
  scheduleEngine() {
    clearTimeout(this.engineTimer);
    const next = this.engine.nextChange();
    if (next === null || this.stopped) return;
    this.engineTimer = setTimeout(() => {
      this.render(this.engine.advance(Date.now()));
      this.scheduleEngine();
    }, Math.min(Math.max(0, next - Date.now()), 2 ** 31 - 1));
  }

  // -- Events --
  enqueue(name, target, properties, time) {
    const event = { id: eventID(time), user: this.user, name, timestamp: formatTime(time) };
    if (target) event.target = target;
    const props = { platform: this.context.platform, ...properties };
    if (this.context.appVersion) props.appVersion = this.context.appVersion;
    if (this.context.locale) props.locale = this.context.locale;
    // Typed values go as they are; anything else as text, as it always has.
    event.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, scalar(v) ? v : String(v)]));
    this.transport.send(event);
    // The guidance's own events go to the app's analytics too (docs/analytics-forwarding.md), each
    // a copy with the id the server stores it under; the app's own taps and screens do not.
    if (GUIDANCE.test(name)) this.options.onGuidanceEvent?.(structuredClone(event));
  }

  /** Sends the queued events now. */
  flush() {
    return this.transport.flush();
  }

  // -- The engine's render commands, drawn --
  /** `elsewhere`: the commands of progress merged from the user's other devices, whose closes and
   *  dismissals those devices reported. */
  render(commands, elsewhere) {
    if (commands.length > 0) this.kept.persist("engine", () => this.engine.snapshot());
    for (const command of commands) {
      const tip = (this.catalog.tips ?? []).find((t) => t.id === command.tip);
      const properties = { tip: command.tip, container: command.container };
      if (tip?.variant) properties.variant = tip.variant;
      if (command.action === "show") {
        this.unseen.set(command.tip, properties);
        this.progressChanged();
        if (tip) this.renderer.draw(tip);
        this.lookForAnchor(command.tip);
      } else if (command.action === "resume" || command.action === "pause") {
        this.renderer.setPaused(command.tip, command.action === "pause");
      } else {
        this.unseen.delete(command.tip);
        if (!elsewhere) {
          if (command.reason === "closed") this.enqueue("tip_closed", command.tip, properties, command.time);
          if (command.reason === "dismissed") this.enqueue("tip_dismissed", command.tip, properties, command.time);
          this.progressChanged();
        }
        this.renderer.erase(command.tip);
      }
    }
    if (this.engine) this.scheduleEngine();
  }

  // -- Progress that follows the user --
  /** Shares the user's progress with their other devices now, with the identity proof
   *  (identity.js). At start, and two seconds after the
   *  engine shows or finishes a tip or a tour moves on. */
  syncProgress() {
    if (!this.userHash || !this.engine) return Promise.resolve();
    return this.identified().then((module) => module?.sync(this));
  }

  /** Keeps the tours' progress when it `grew` (and shares it, unless it came from elsewhere). */
  toursChanged(grew, elsewhere) {
    if (!grew) return;
    this.kept.save("tourProgress", this.tourProgress);
    if (!elsewhere) this.progressChanged();
  }

  progressChanged() {
    if (this.userHash && !this.sharing) {
      this.sharing = true;
      this.transport.schedule(() => {
        this.sharing = false;
        this.syncProgress();
      }, 2000);
    }
  }

  /** Sends a survey's answer (the controls part's `answer`): false until that part, which comes
   *  with a catalog that has a survey, is here. */
  answer(id, score, comment) {
    return this.renderer.tipView.controls?.answer(this, id, score, comment) ?? false;
  }

  /** A showing tip came into the user's sight or left it (the renderer's `watch`): the engine
   *  counts display time only while it is in sight. What the time then ends is drawn after the
   *  caller, which may be in the middle of drawing. */
  sight(id, visible) {
    if (!this.engine || this.stopped) return;
    const commands = this.engine.setTip(id, visible, Date.now());
    this.kept.persist("engine", () => this.engine.snapshot());
    if (commands.length) queueMicrotask(() => this.render(commands));
  }

  /** The user closed a tip (or left a survey's ending): it never comes back. */
  close(id) {
    this.render(this.engine.close(id, Date.now()));
    this.renderer.erase(id, true);
  }

  /** Esc: closes the open tour, else the focused tip, else the last drawn. */
  closeTopmost(event) {
    const panel = this.renderer.tourPanel;
    if (panel && !panel.paused) {
      event.preventDefault();
      return this.renderer.closeTour("dismissed");
    }
    const id = this.renderer.topmostTip();
    if (id) {
      event.preventDefault();
      this.close(id);
    }
  }

  // -- Tours --
  checkTours() {
    const due = !this.renderer.tourPanel && this.gate?.due();
    if (due) this.openTour(due.tour, due.page);
    this.kept.persist("tours", () => this.tourRules.snapshot());
  }

  /** Opens a tour at a page (`Waymark.startTour("welcome")`), by default where the user left it
   *  (its start if they ended it), where an open one stays; false for a tour the catalog lacks. */
  openTour(id, page, scroll = 0) {
    const tour = this.tours.get(id);
    if (page === undefined && this.renderer.tourPanel?.id === id) return true;
    const at = this.tourProgress[id];
    page ??= at?.finished || at?.dismissed ? 0 : Math.min(at?.page ?? 0, tour?.pages.length - 1);
    const opened = this.renderer.openTour(tour, page, scroll);
    // The tour takes the screen: the launcher's panels close.
    if (opened) this.lists?.closePanels();
    if (opened) {
      if (this.gate) this.gate.open = id;
      this.syncContainers();
    }
    return opened;
  }

  /** Sets the user's attributes, which rules read as user.<name> (null removes one): at once on
   *  this page, and with the user's identity proof on the server, whose targeting reads them; the
   *  catalog is then fetched again (identity.js). A Date is a time, {version: "5.2.1"} a version. */
  async identify(attributes) {
    const local = {};
    for (const [name, value] of Object.entries(attributes)) local["user." + name] = value;
    this.setContextValues(local);
    if (!this.userHash) return { outcome: "unidentified" };
    return (await this.identified())?.identify(this, attributes);
  }

  /** Claims a tour page's credit once (identity.js); a user without an identity proof cannot earn
   *  credits. */
  async claim(tour, page) {
    if (!this.userHash) return { outcome: "unidentified" };
    return (await this.identified())?.claim(this, tour, page);
  }

  /** The part for a user with an identity proof: their progress on their other devices, their
   *  attributes on the server, their tour credits. Loaded only for such a user. */
  identified() {
    return this.renderer.part("what the user's identity proof allows", () => import("./identity.js"));
  }

  /** While a video plays full screen, the tour panel and every tip pause; they come back as they were. */
  onFullscreen() {
    const element = this.document.fullscreenElement;
    const entering = element !== null && element !== undefined;
    if (entering === Boolean(this.fullscreen)) return;
    this.fullscreen = entering;
    if (entering) this.renderer.tourPanel?.pause();
    else this.renderer.tourPanel?.resume();
    this.syncContainers();
  }

  /** Stops listening, sending and drawing; what must be kept is written first. */
  stop() {
    this.stopped = true;
    this.window.removeEventListener("waymark:listen", this.onListen);
    clearTimeout(this.engineTimer);
    this.transport.stop();
    this.stopCapture?.();
    this.kept.writePending();
    this.renderer?.stop();
    this.lists?.stop();
  }
}

/** The names of the guidance's own events, the same list in every SDK (`IncomingEvent.guidanceNames`). */
export const GUIDANCE =
  /^(tip_(shown|closed|dismissed|action)|hotspot_opened|survey_answered|page_(viewed|read_to_bottom)|tour_action|video_played|narration_(played|completed)|checklist_(opened|item_done|completed)|help_(opened|searched)|article_opened)$/;

/** A property value rules test and the server keeps typed: text, a finite number or a flag. */
const scalar = (v) => typeof v === "string" || typeof v === "boolean" || Number.isFinite(v);
