"""One guide on one small screen, proven by a walk: a seeded random walk through the demo shop
(taps on the page's controls and on the SDK's, scrolls, swipes of the carousel, back, reload,
rotation, Tab, Esc and F6) at 320x568, 360x740 and 412x915, in Hindi and in English, at 100% and
200% text, checking after every step what the SDK promises:

- at most one modal shows (a tour, a modal tip), and nothing else of the SDK's beside it;
- no two things the SDK shows overlap (tips, markers, panels, the tour, the dock's buttons);
- nothing the SDK draws covers the hit point of a page control other than its own anchor: a
  hotspot's marker never; a tip only where no place beside its anchor would leave every control
  clear (checked here by trying them all); the dock and a banner only while they reserve their
  height at the end of the page, so it scrolls past them; the panels, the tour and modal tips,
  which the user opened or which hold the page, may;
- every tip_shown sent was for a tip inside the screen when it was sent;
- the focus went into a tip only when it is modal, or the user moved it there (F6, Tab, a tap);
- no control the SDK draws is under 44x44 CSS px;
- no text of the SDK's overflows its box, and no word of an Indic script is broken across lines.

A failure names its configuration, seed and step, and the steps before it; WAYMARK_WALK_SEED and
WAYMARK_WALK_STEPS (default 200) replay one. Run by scripts/test.
"""
import os
import random

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from test_demo_shop import BrowserTest, own_demo
from test_text import CHECK as TEXT_CHECK

setUpModule, tearDownModule = own_demo(narration=False)

STEPS = int(os.environ.get("WAYMARK_WALK_STEPS", "200"))
SEED = int(os.environ.get("WAYMARK_WALK_SEED", "45"))
CONFIGS = [(locale, width, height, zoom) for width, height in ((320, 568), (360, 740), (412, 915))
           for locale in ("hi-IN", "en") for zoom in (100, 200)]

# Watches what the SDK sends: every tip_shown, with whether its tip was inside the screen then.
WATCH = """
const { Waymark } = await import('/sdk/waymark.js');
const client = Waymark.client;
if (!client || client.__walked) return;
client.__walked = true;
window.__shows = [];
const enqueue = client.enqueue.bind(client);
client.enqueue = (name, target, properties, time) => {
  if (name === 'tip_shown') {
    const entry = client.renderer.rendered.get(target);
    const element = entry && (entry.root.hidden ? entry.extras.find((e) => e.dataset.waymarkUi === 'hotspot') : entry.root);
    const r = element?.getBoundingClientRect();
    const inside = Boolean(r) && r.width > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
    window.__shows.push([target, inside]);
  }
  return enqueue(name, target, properties, time);
};
"""

# What breaks a promise now: a list of sentences.
INVARIANTS = """
const [allowFocus] = arguments;
const problems = [];
const shows = (e) => { if (!e || !e.isConnected || e.hidden) return null;
  const s = getComputedStyle(e); if (s.visibility === 'hidden' || s.display === 'none' || +s.opacity === 0) return null;
  const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth ? r : null; };
const name = (e) => e.dataset.waymarkTip ? `tip ${e.dataset.waymarkTip}` : e.dataset.waymarkUi ?? e.className;
const tips = [...document.querySelectorAll('.wm-tip')].filter(shows);
const modals = [...tips.filter((t) => t.getAttribute('aria-modal') === 'true' || t.classList.contains('wm-kind-spotlight')),
                ...[...document.querySelectorAll('[data-waymark-ui="tour"]')].filter(shows)];
if (modals.length > 1) problems.push(`two modals: ${modals.map(name)}`);
const surfaces = [...tips, ...[...document.querySelectorAll('.wm-hotspot, [data-waymark-ui="help"], [data-waymark-ui="checklist"], [data-waymark-ui="tour"], .wm-dock > *')].filter(shows)];
if (modals.length === 1) for (const s of surfaces) if (s !== modals[0] && !(modals[0].dataset.waymarkUi === 'tour' && /checklist|help/.test(s.dataset.waymarkUi ?? ''))) problems.push(`${name(s)} shows beside the modal ${name(modals[0])}`);
for (let i = 0; i < surfaces.length; i++) for (let j = i + 1; j < surfaces.length; j++) {
  const a = surfaces[i].getBoundingClientRect(), b = surfaces[j].getBoundingClientRect();
  // An opened hotspot's tip covers its own marker.
  if ([surfaces[i].dataset.waymarkHotspot, surfaces[j].dataset.waymarkHotspot].includes(surfaces[i].dataset.waymarkTip ?? surfaces[j].dataset.waymarkTip)) continue;
  if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1) problems.push(`${name(surfaces[i])} overlaps ${name(surfaces[j])}`);
}
const controls = [...document.querySelectorAll('main a, main button, main input, header a, header button, footer a')].filter(shows);
const label = (control) => control.id || control.textContent.trim().slice(0, 24);
const room = (ui, bar) => (document.querySelector(`[data-waymark-ui="${ui}"]`)?.offsetHeight ?? 0) >= bar.offsetHeight - 1;
// Whether some place beside the anchor (a side where the tip fits whole, its arrow in reach of the
// anchor's middle, inside the screen) leaves the middle of every other control clear.
const freePlace = (tip, anchor) => {
  const a = anchor.getBoundingClientRect(), w = tip.offsetWidth, h = Math.max(tip.offsetHeight, tip.scrollHeight);
  const others = controls.filter((c) => !c.contains(anchor) && !anchor.contains(c)).map((c) => c.getBoundingClientRect())
    .map((c) => [(c.left + c.right) / 2, (c.top + c.bottom) / 2]);
  const clear = (left, top) => !others.some(([x, y]) => x > left && x < left + w && y > top && y < top + h);
  const cx = (a.left + a.right) / 2, cy = (a.top + a.bottom) / 2;
  for (const top of [a.bottom + 12, a.top - 12 - h]) {
    if (top < 8 || top + h > innerHeight - 8) continue;
    for (let left = 8; left + w <= innerWidth - 8; left += 2) if (cx >= left + 14 && cx <= left + w - 14 && clear(left, top)) return true;
  }
  for (const left of [a.right + 12, a.left - 12 - w]) {
    if (left < 8 || left + w > innerWidth - 8) continue;
    for (let top = 8; top + h <= innerHeight - 8; top += 2) if (cy >= top + 14 && cy <= top + h - 14 && clear(left, top)) return true;
  }
  return false;
};
const { Waymark } = await import('/sdk/waymark.js');
for (const control of controls) {
  const r = control.getBoundingClientRect();
  const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
  if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
  const hit = document.elementFromPoint(x, y);
  const sdk = hit?.closest?.('.wm-tip, .wm-hotspot, .wm-dock, [data-waymark-ui]');
  if (!sdk || control.contains(hit)) continue;
  const ui = sdk.dataset.waymarkUi ?? '';
  // What the user opened, or what holds the page (the rest is inert behind it); an empty room
  // at the end of the page is under a control only where the page's own box clips it.
  if (/^(help|checklist|tour|backdrop|dock-room|banner-room)$/.test(ui) || sdk.getAttribute('aria-modal') === 'true' || sdk.classList.contains('wm-kind-spotlight')) continue;
  if (sdk.classList.contains('wm-hotspot')) { problems.push(`a marker covers ${label(control)}`); continue; }
  if (sdk.closest('.wm-dock')) { if (!room('dock-room', sdk.closest('.wm-dock'))) problems.push(`the dock covers ${label(control)} with no room for it`); continue; }
  if (sdk.classList.contains('wm-kind-banner')) { if (!room('banner-room', sdk)) problems.push(`a banner covers ${label(control)} with no room for it`); continue; }
  const tip = sdk.closest('.wm-tip');
  const anchor = tip && Waymark.client?.renderer.rendered.get(tip.dataset.waymarkTip)?.anchor;
  if (anchor && (anchor.contains(control) || control.contains(anchor))) continue;
  if (!tip || !anchor || freePlace(tip, anchor)) problems.push(`${tip ? name(tip) : ui || sdk.className} covers ${label(control)}`);
}
for (const [tip, inside] of window.__shows ?? []) if (!inside) problems.push(`tip_shown for ${tip} off the screen`);
window.__shows = [];
const focused = document.activeElement?.closest?.('.wm-tip');
if (focused && !allowFocus && focused.getAttribute('aria-modal') !== 'true' && !focused.__reached) problems.push(`the focus went into ${name(focused)}`);
if (focused) focused.__reached = true;
for (const root of [...tips, ...document.querySelectorAll('[data-waymark-ui="tour"], [data-waymark-ui="help"], [data-waymark-ui="checklist"]')]) {
  if (!shows(root)) continue;
  for (const box of [root, ...root.querySelectorAll('h2, p, .wm-actions, footer')]) if (box.scrollWidth > box.clientWidth + 1 && getComputedStyle(box).overflowX !== 'auto') problems.push(`text overflows ${name(root)} (${box.tagName})`);
}
return problems;
"""


class WalkTests(BrowserTest):
    def setup_config(self, locale, width, height, zoom, user):
        self.metrics = (width * 100 // zoom, height * 100 // zoom, 2 * zoom // 100)
        self.apply_metrics()
        self.open_shop(user, f"&locale={locale}")
        self.driver.execute_script(WATCH)

    def apply_metrics(self):
        w, h, scale = self.metrics
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": w, "height": h, "deviceScaleFactor": scale, "mobile": True})

    def step(self, rng):
        """Does one random thing a user does; answers what, and whether it may move the focus into a tip."""
        d = self.driver
        kind = rng.choices(["page", "sdk", "scroll", "swipe", "back", "key", "rotate", "reload"], [30, 25, 18, 6, 6, 10, 3, 2])[0]
        if kind in ("page", "sdk"):
            selector = ("main a, main button, header a, header button, footer a, #product-rows li" if kind == "page"
                        else "[data-waymark-ui] button, [data-waymark-ui] summary, .wm-scale span, .wm-hotspot")
            picked = d.execute_script("""
                const [selector, pick] = arguments;
                const all = [...document.querySelectorAll(selector)].filter((e) => { const r = e.getBoundingClientRect();
                  const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
                  return r.width > 0 && x >= 0 && y >= 0 && x < innerWidth && y < innerHeight && getComputedStyle(e).visibility !== 'hidden'; });
                if (!all.length) return null;
                const e = all[Math.floor(pick * all.length)];
                const r = e.getBoundingClientRect();
                const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
                (hit ?? e).click();
                return `${e.id || e.dataset.waymarkUi || e.className || e.tagName} ${(e.textContent || '').trim().slice(0, 24)}`;""",
                selector, rng.random())
            return f"tap {kind} {picked}", kind == "sdk"
        if kind == "scroll":
            dy = rng.choice([-600, -300, 200, 400, 800])
            d.execute_script("window.scrollBy(0, arguments[0])", dy)
            return f"scroll {dy}", False
        if kind == "swipe":
            d.execute_script("const c = document.getElementById('product-carousel'); if (c) c.scrollBy(160, 0)")
            return "swipe the carousel", False
        if kind == "back":
            # Within the shop: its screens are hash routes (the walk's first page has no earlier one).
            d.execute_script("if (location.hash.length > 1) history.back()")
            return "back", False
        if kind == "key":
            key = rng.choice([Keys.TAB, Keys.ESCAPE, Keys.F6])
            # To whatever has the focus, as a keyboard does (not through an element WebDriver may
            # find not interactable, such as the page's body).
            ActionChains(d).send_keys(key).perform()
            return f"key {key!r}", key in (Keys.TAB, Keys.F6)
        if kind == "rotate":
            w, h, scale = self.metrics
            self.metrics = (h, w, scale)
            self.apply_metrics()
            return "rotate", False
        d.refresh()
        self.wait_for(lambda dr: dr.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the shop again")
        d.execute_script(WATCH)
        return "reload", False

    def test_every_promise_holds_after_every_step(self):
        for index, (locale, width, height, zoom) in enumerate(CONFIGS):
            seed = SEED * 100 + index
            with self.subTest(locale=locale, width=width, zoom=zoom, seed=seed):
                rng = random.Random(seed)
                self.setup_config(locale, width, height, zoom, f"walk-{seed}")
                history = []
                for number in range(1, STEPS + 1):
                    what, focus_allowed = self.step(rng)
                    history.append(f"{number}: {what}")
                    self.wait_for(lambda d: d.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the shop")
                    self.driver.execute_script("await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
                    self.driver.execute_script(WATCH)
                    problems = self.driver.execute_script(INVARIANTS, focus_allowed)
                    text = self.driver.execute_script(TEXT_CHECK)
                    problems += [f"an Indic word broken: {w}" for w in text["broken"]] + [f"a control under 44 px: {c}" for c in text["small"]]
                    if problems:
                        self.screenshot(f"walk-{seed}-{number}")
                        self.fail(f"{locale} {width}x{height} at {zoom}%, seed {seed}, step {number}: {problems}\n"
                                  + "\n".join(history[-8:]))
