"""Touch on a phone, in a real Chromium with touch emulation at 360x740: long presses and swipes
from touch input become events (a tap stays the click it makes), and a pointer's swipe travels
across its anchor where the finger should go.

Run by scripts/test; see test_demo_shop.py for what it needs.
"""
import time
import unittest

from test_demo_shop import BrowserTest, own_demo

setUpModule, tearDownModule = own_demo(narration=False)


class TouchTests(BrowserTest):
    def setUp(self):
        super().setUp()
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True})
        self.driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})

    def open_with_log(self, user):
        """Opens the shop and keeps every event the SDK records in window.__events, once touch
        gestures (a part of their own on a touch screen) are followed."""
        self.open_shop(user)
        self.driver.execute_script("""
            const { Waymark } = await import('/sdk/waymark.js');
            await Waymark.client.stopCapture.ready;
            const client = Waymark.client, record = client.record.bind(client);
            window.__events = [];
            client.record = (name, target, properties) => { window.__events.push([name, target ?? null]); return record(name, target, properties); };""")

    def events(self):
        return [tuple(e) for e in self.driver.execute_script("return window.__events.splice(0)")]

    def centre(self, selector):
        return self.driver.execute_script("""
            const e = document.querySelector(arguments[0]);
            e.scrollIntoView({ block: 'center' });
            const r = e.getBoundingClientRect();
            return [r.left + r.width / 2, r.top + r.height / 2];""", selector)

    def touch(self, kind, x, y):
        points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
        self.driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    def swipe(self, x, y, dx, dy, steps=8):
        self.touch("touchStart", x, y)
        for step in range(1, steps + 1):
            self.touch("touchMove", x + dx * step / steps, y + dy * step / steps)
        self.touch("touchEnd", x + dx, y + dy)

    def wait_events(self, expected, what):
        seen = []
        def arrived(_):
            seen.extend(self.events())
            return all(e in seen for e in expected)
        self.wait_for(arrived, what)
        return seen

    def test_a_swipe_is_an_event_named_by_its_direction_on_what_scrolls_that_way(self):
        self.open_with_log("touch-swipe")
        x, y = self.centre("#product-carousel")
        self.swipe(x + 100, y, -200, 0)
        seen = self.wait_events([("swipe-left", "product-carousel")], "a swipe left on the carousel")
        self.assertNotIn("tap", [name for name, _ in seen], "a swipe is no tap")
        self.assertGreater(self.driver.execute_script("return document.getElementById('product-carousel').scrollLeft"), 0,
                           "the carousel scrolled under the finger as usual")
        self.swipe(x - 100, y, 150, 10)
        self.wait_events([("swipe-right", "product-carousel")], "a swipe right on the carousel")
        # Across the page, which no element of it scrolls: named by where it began.
        hx, hy = self.centre("#search-hint")
        self.swipe(hx, hy, 0, -90)
        self.wait_events([("swipe-up", "search-hint")], "a swipe up from the hint")
        # Too short to be a swipe.
        self.swipe(hx, hy, 0, -20)
        time.sleep(0.3)
        self.assertFalse([e for e in self.events() if e[0].startswith("swipe")], "20 px is no swipe")

    def test_a_long_press_is_an_event_and_not_a_tap_and_a_quick_tap_is_a_tap(self):
        self.open_with_log("touch-press")
        x, y = self.centre("#tour-start")
        # A quick tap: the click it makes is the tap.
        self.touch("touchStart", x, y)
        self.touch("touchEnd", x, y)
        seen = self.wait_events([("tap", "tour-start")], "a tap on the tour button")
        self.assertNotIn("long-press", [name for name, _ in seen])
        self.driver.execute_script("document.querySelector('.wm-tour .wm-close')?.click()")
        self.events()
        x, y = self.centre("#search-hint")
        self.touch("touchStart", x, y)
        self.wait_events([("long-press", "search-hint")], "a long press on the hint")
        self.touch("touchEnd", x, y)
        time.sleep(0.3)
        self.assertNotIn(("tap", "search-hint"), self.events(), "releasing a long press is no tap")
        # A finger that moves while pressed is a drag, not a long press.
        self.touch("touchStart", x, y)
        self.touch("touchMove", x, y + 30)
        time.sleep(0.8)
        self.touch("touchEnd", x, y + 30)
        time.sleep(0.3)
        self.assertNotIn("long-press", [name for name, _ in self.events()])

    def test_a_swipe_pointer_travels_across_its_anchor_and_a_small_anchor_keeps_it_inside(self):
        self.open_shop("touch-pointer")
        for anchor, gesture, axis in (("product-carousel", "swipe-left", "x"), ("search-button", "swipe-up", "y")):
            with self.subTest(anchor=anchor):
                path = self.driver.execute_script("""
                    const [anchor, gesture] = arguments;
                    const { Waymark } = await import('/sdk/waymark.js');
                    const renderer = Waymark.client.renderer;
                    for (const id of [...renderer.rendered.keys()]) renderer.erase(id);
                    renderer.draw({ id: 'p', renderer: 'pointer', gesture, anchor, content: { title: 'Swipe', html: '<p>Swipe here.</p>' } });
                    await new Promise((done) => setTimeout(done, 100));
                    const pointer = document.querySelector('.wm-pointer');
                    const animation = pointer.getAnimations()[0];
                    animation.pause();
                    const at = (fraction) => {
                        animation.currentTime = animation.effect.getTiming().duration * fraction;
                        const r = pointer.getBoundingClientRect();
                        return [r.left + r.width / 2, r.top + r.height / 2];
                    };
                    const e = document.querySelector(`[data-waymark-anchor="${anchor}"]`).getBoundingClientRect();
                    const v = visualViewport;
                    const seen = { left: Math.max(e.left, 0), right: Math.min(e.right, v.width), top: Math.max(e.top, 0), bottom: Math.min(e.bottom, v.height) };
                    return { start: at(0), end: at(0.999), seen };""", anchor, gesture)
                seen, start, end = path["seen"], path["start"], path["end"]
                for point in (start, end):
                    self.assertTrue(seen["left"] <= point[0] <= seen["right"] and seen["top"] <= point[1] <= seen["bottom"],
                                    f"the finger stays on what shows of the anchor: {path}")
                if axis == "x":
                    self.assertGreater(start[0] - end[0], (seen["right"] - seen["left"]) / 2,
                                       f"a swipe left travels right to left over most of the anchor: {path}")
                else:
                    self.assertGreater(start[1], end[1], f"a swipe up travels upwards: {path}")


if __name__ == "__main__":
    unittest.main()
