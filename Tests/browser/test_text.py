"""Text that survives a phone: what waymark.js draws, in Hindi and in English, at 320, 360 and 412
CSS px wide and at 100% and 200% text (a layout viewport half as wide and tall, as the
accessibility tests zoom), breaks no word inside it (a Devanagari word split between its
syllables reads as two words), keeps every control at least 44x44 CSS px, points a tooltip's
arrow at its anchor and shows a tap pointer as a finger. Screenshots of each go to
.build/screenshots/text-*.png. Run by scripts/test, which installs the fonts a phone has
(fonts-noto-core), so Hindi is drawn as on a phone.
"""
from test_demo_shop import BrowserTest, own_demo

setUpModule, tearDownModule = own_demo(narration=False)

# Words of an Indic script in Waymark's drawings (tips, the tour panel, the launcher's panels) that
# the browser laid out on more than one line, and its controls smaller than 44x44. (A Latin word
# longer than its line may break rather than overflow.)
CHECK = """
const roots = [...document.querySelectorAll('.wm-tip:not([hidden]), .wm-tour, .wm-help, .wm-checklist')];
const broken = [];
const small = [];
for (const root of roots) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const match of node.data.matchAll(/[^\\s/]*[\\u0900-\\u0dff][^\\s/]*/g)) {
      const range = document.createRange();
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) broken.push(match[0]);
    }
  }
  for (const control of root.querySelectorAll('button, summary, input, [role=radio], .wm-scale span')) {
    const box = control.getBoundingClientRect();
    // (A visually hidden input, 1 px, is pressed through its label, which is measured instead.)
    if (box.width > 1 && (box.width < 43.5 || box.height < 43.5)) small.push(`${control.textContent.trim() || control.getAttribute('aria-label')} ${Math.round(box.width)}x${Math.round(box.height)}`);
  }
}
return { broken, small };
"""

# Every configuration: language, screen and text size.
EACH = [(locale, width, height, zoom) for locale in ("hi-IN", "en") for width, height in ((320, 568), (360, 740), (412, 915))
        for zoom in (100, 200)]


class TextTests(BrowserTest):
    def phone(self, width, height, zoom, locale, user):
        scale = 2 * zoom // 100
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width * 100 // zoom, "height": height * 100 // zoom, "deviceScaleFactor": scale, "mobile": True})
        self.open_shop(f"{user}-{locale}-{width}-{zoom}", f"&locale={locale}")


    def check(self, what):
        found = self.driver.execute_script(CHECK)
        self.assertEqual(found["broken"], [], f"{what}: words broken across lines")
        self.assertEqual(found["small"], [], f"{what}: controls under 44x44")

    def test_the_tour_breaks_no_word_and_its_controls_stay_44_px(self):
        for locale, width, height, zoom in EACH:
          with self.subTest(locale=locale, width=width, zoom=zoom):
            self.phone(width, height, zoom, locale, "text-tour")
            for page in (0, 2):
                self.driver.execute_script(f"(await import('/sdk/waymark.js')).Waymark.startTour('shop-tour', {page})")
                self.wait_for(lambda d: f"{page + 1} / 3" in (self.panel_text() or "") or f"{page + 1} of 3" in (self.panel_text() or ""), "the page")
                self.check(f"tour page {page + 1}")
            self.screenshot(f"text-tour-{locale}-{width}-{zoom}")

    def panel_text(self):
        return self.driver.execute_script("return document.querySelector('[data-waymark-tour]')?.innerText")

    def test_tips_break_no_word_point_at_their_anchor_and_the_pointer_is_a_finger(self):
        for locale, width, height, zoom in EACH:
          with self.subTest(locale=locale, width=width, zoom=zoom):
            self.phone(width, height, zoom, locale, "text-tips")
            # The welcome banner, then the search pointer over the home screen.
            self.wait_tip("welcome")
            self.check("the welcome banner")
            self.driver.execute_script("""
                const { Waymark } = await import('/sdk/waymark.js');
                const client = Waymark.client;
                for (const id of [...client.renderer.rendered.keys()]) client.renderer.erase(id);
                client.renderer.draw(client.catalog.tips.find((t) => t.id === 'search-tip'));""")
            self.wait_tip("search-tip")
            self.check("the search pointer")
            finger = self.driver.execute_script("""
                const pointer = document.querySelector('.wm-pointer');
                const style = getComputedStyle(pointer, '::after');
                return [style.content, style.height];""")
            self.assertEqual(finger, ['""', "34px"], "the tap pointer draws a finger")
            self.screenshot(f"text-pointer-{locale}-{width}-{zoom}")
            # A tooltip with an arrow to its anchor: the deal on the list of products.
            self.driver.execute_script("""
                const { Waymark } = await import('/sdk/waymark.js');
                const client = Waymark.client;
                for (const id of [...client.renderer.rendered.keys()]) client.renderer.erase(id);
                location.hash = '#/product/p3';
                await new Promise((done) => setTimeout(done, 300));
                client.renderer.draw(client.catalog.tips.find((t) => t.id === 'cart-tip'));""")
            tip = self.wait_tip("cart-tip")
            self.check("the cart spotlight")
            # Measured once the tip's observers have placed it again after its last change of size
            # (its text wrapping as the fonts come): two frames on.
            geometry = self.driver.execute_script("""
                await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
                const tip = document.querySelector('[data-waymark-tip="cart-tip"]').getBoundingClientRect();
                const arrow = document.querySelector('.wm-arrow').getBoundingClientRect();
                const anchor = document.getElementById('add-to-cart').getBoundingClientRect();
                const side = document.querySelector('[data-waymark-tip="cart-tip"]').dataset.side;
                const middle = (arrow.left + arrow.right) / 2;
                return { side, touches: side === 'below' ? Math.abs(arrow.top + arrow.height / 2 - tip.top) : Math.abs(arrow.top + arrow.height / 2 - tip.bottom),
                         inLine: middle >= Math.max(anchor.left, tip.left + 10) - 1 && middle <= Math.min(anchor.right, tip.right - 10) + 1 };""")
            self.assertIn(geometry["side"], ("below", "above"), geometry)
            self.assertLess(geometry["touches"], 1.5, f"the arrow sits on the tip's edge: {geometry}")
            self.assertTrue(geometry["inLine"], f"the arrow points at the anchor: {geometry}")
            self.assertTrue(tip.is_displayed())
            self.screenshot(f"text-tips-{locale}-{width}-{zoom}")


if __name__ == "__main__":
    import unittest
    unittest.main()
