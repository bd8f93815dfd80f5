"""Where waymark.js puts a tip on a phone's screen, in a real Chromium emulating 320x568, 360x740
and 412x915: beside its anchor on a side where it fits, inside what the user sees, never over the
anchor, with anchors near every edge and inside scrolled lists; an off-screen anchor brought into
view; the tip following its anchor and hiding while its list scrolls it away.

The shop runs as usual; each test replaces the page's content with its own anchors and draws tips
with the running client's renderer, so the client's own following (scroll, resize) moves them.
Run by scripts/test; see test_demo_shop.py for what it needs.
"""
import unittest

from test_demo_shop import BrowserTest, own_demo

SCREENS = [(320, 568), (360, 740), (412, 915)]
setUpModule, tearDownModule = own_demo(narration=False)


class PhoneTest(BrowserTest):
    """The shop on a phone's screen, emptied for a test's own anchors (or at a screen of its
    own), and how a tip sits."""

    def phone(self, width, height, reduced_motion=True, screen=None):
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": height, "deviceScaleFactor": 2, "mobile": True})
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-reduced-motion", "value": "reduce" if reduced_motion else "no-preference"}]})
        self.open_shop(f"placement-{width}", f"#/{screen}" if screen else "")
        self.driver.execute_script("""
            const { Waymark } = await import('/sdk/waymark.js');
            window.__renderer = Waymark.client.renderer;
            for (const id of [...window.__renderer.rendered.keys()]) window.__renderer.erase(id);
            if (!arguments[0]) document.querySelector('main').replaceChildren();""", screen)

    def placed_well(self, anchor='[data-waymark-anchor="row"]', tip="t"):
        """Whether the tip sits 12 px beside the element `anchor` selects, within a pixel, without
        covering it."""
        return self.driver.execute_script("""
            const tip = document.querySelector(`[data-waymark-tip="${arguments[1]}"]`), anchor = document.querySelector(arguments[0]);
            if (tip.hidden || !anchor) return false;
            const t = tip.getBoundingClientRect(), a = anchor.getBoundingClientRect();
            const gap = tip.dataset.side === 'below' ? t.top - a.bottom : a.top - t.bottom;
            return Math.abs(gap - 12) < 1.5;""", anchor, tip)


class PlacementTests(PhoneTest):
    def fixed_anchors(self, spots):
        """Adds a fixed button for each name in `spots`, placed by its CSS, as an anchor of that name."""
        self.driver.execute_script("""
            for (const [name, css] of Object.entries(arguments[0])) {
                const b = document.createElement('button');
                b.textContent = name; b.dataset.waymarkAnchor = name;
                b.style.cssText = 'position:fixed;' + css;
                document.querySelector('main').append(b);
            }""", spots)

    def draw(self, anchor, lines=3):
        """Draws a tooltip on `anchor` with `lines` sentences and answers the tip's, the anchor's and
        the visible area's boxes once it is placed."""
        return self.driver.execute_script("""
            const [anchor, lines] = arguments;
            window.__renderer.erase('t');
            window.__renderer.draw({ id: 't', renderer: 'tooltip', anchor, content: { title: 'Find it here',
                html: '<p>' + 'Search for any product by its name or its category. '.repeat(lines) + '</p>' } });
            await new Promise((done) => setTimeout(done, 50));
            return measure(anchor);
            function measure(name) {
                const box = (e) => { const r = e.getBoundingClientRect(); return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
                const tip = document.querySelector('[data-waymark-tip="t"]');
                const v = visualViewport;
                return { tip: tip.hidden ? null : box(tip), side: tip.dataset.side,
                         anchor: box(document.querySelector(`[data-waymark-anchor="${name}"]`)),
                         area: { left: 0, top: 0, right: v.width, bottom: v.height } };
            }""", anchor, lines)

    def assert_placed(self, placed, what):
        tip, anchor, area = placed["tip"], placed["anchor"], placed["area"]
        self.assertIsNotNone(tip, f"{what}: the tip is drawn")
        for edge in ("left", "top"):
            self.assertGreaterEqual(tip[edge], area[edge] - 0.5, f"{what}: inside the screen ({edge}) {placed}")
        for edge in ("right", "bottom"):
            self.assertLessEqual(tip[edge], area[edge] + 0.5, f"{what}: inside the screen ({edge}) {placed}")
        overlap = (min(tip["right"], anchor["right"]) - max(tip["left"], anchor["left"]) > 0.5
                   and min(tip["bottom"], anchor["bottom"]) - max(tip["top"], anchor["top"]) > 0.5)
        self.assertFalse(overlap, f"{what}: the tip covers its anchor {placed}")

    def test_a_tip_follows_its_anchor_through_a_size_change_that_fires_no_event(self):
        # Above the anchor, a box grows by a CSS transition: after its start, nothing the page does
        # fires an event; the tip follows the anchor down by observing sizes, not by polling.
        self.phone(360, 740)
        self.driver.execute_script("""
            const grow = document.createElement('div');
            grow.id = 'grow';
            grow.style.cssText = 'height:10px;transition:height 1s linear';
            const b = document.createElement('button');
            b.textContent = 'Row'; b.dataset.waymarkAnchor = 'row';
            document.querySelector('main').append(grow, b);""")
        self.draw("row", lines=1)
        self.wait_for(lambda d: self.placed_well(), "the tip beside its anchor")
        anchor = "return document.querySelector('[data-waymark-anchor=\"row\"]').getBoundingClientRect().top"
        was = self.driver.execute_script(anchor)
        self.driver.execute_script("document.getElementById('grow').style.height = '210px'")
        self.wait_for(lambda d: d.execute_script(anchor) >= was + 199, "the anchor to move down")
        # 12 px beside the anchor 200 px further down: it followed (above it now, if below it
        # would cover the page's controls).
        self.wait_for(lambda d: self.placed_well(), "the tip to follow it", timeout=5)

    def test_anchors_near_every_edge_get_a_tip_beside_them_inside_the_screen(self):
        spots = {name: "width:60px;height:44px;" + css for name, css in {
            "top-left": "top:8px;left:8px", "top-middle": "top:8px;left:calc(50% - 30px)", "top-right": "top:8px;right:8px",
            "middle-left": "top:calc(50% - 22px);left:8px", "middle-right": "top:calc(50% - 22px);right:8px",
            "bottom-left": "bottom:8px;left:8px", "bottom-middle": "bottom:8px;left:calc(50% - 30px)",
            "bottom-right": "bottom:8px;right:8px",
        }.items()}
        for width, height in SCREENS:
            with self.subTest(screen=f"{width}x{height}"):
                self.phone(width, height)
                self.fixed_anchors(spots)
                sides = set()
                for name in spots:
                    placed = self.draw(name)
                    self.assert_placed(placed, f"{width}x{height} {name}")
                    sides.add(placed["side"])
                self.assertTrue({"below", "above"} <= sides, sides)

    def test_a_tip_too_tall_for_either_side_is_cut_to_the_room_there_and_scrolls(self):
        for width, height in SCREENS:
            with self.subTest(screen=f"{width}x{height}"):
                self.phone(width, height)
                self.fixed_anchors({"middle": "left:20px;right:20px;height:44px;top:calc(50% - 22px)"})
                placed = self.draw("middle", lines=30)
                self.assert_placed(placed, f"{width}x{height}")
                self.assertTrue(self.driver.execute_script(
                    "const t = document.querySelector('[data-waymark-tip=\"t\"]'); return t.scrollHeight > t.clientHeight"),
                    "the rest of the text is a scroll away inside the tip")

    def test_sideways_when_neither_above_nor_below_has_room(self):
        self.phone(412, 915)
        self.fixed_anchors({"tall": "left:8px;width:60px;top:100px;bottom:100px"})
        placed = self.draw("tall", lines=1)
        self.assert_placed(placed, "a tall anchor on the left")
        self.assertEqual(placed["side"], "right")

    def test_an_anchor_in_a_scrolled_list_is_brought_into_view_followed_and_hidden_while_scrolled_away(self):
        for width, height in SCREENS:
            for reduced in (True, False):
                with self.subTest(screen=f"{width}x{height}", reduced_motion=reduced):
                    self.phone(width, height, reduced_motion=reduced)
                    self.driver.execute_script("""
                        const main = document.querySelector('main');
                        main.append(Object.assign(document.createElement('div'), { style: 'height:1500px' }));
                        const list = Object.assign(document.createElement('div'), { id: 'list' });
                        list.style.cssText = 'height:240px;overflow:auto;border:1px solid';
                        for (let i = 0; i < 40; i++) {
                            const row = document.createElement('p');
                            row.textContent = 'Row ' + i; row.style.cssText = 'height:40px;margin:0';
                            if (i === 30) row.dataset.waymarkAnchor = 'row';
                            list.append(row);
                        }
                        main.append(list, Object.assign(document.createElement('div'), { style: 'height:1500px' }));
                        scrollTo(0, 0);""")
                    self.draw("row")
                    # Brought into view (at once under reduced motion, else smoothly), then placed beside it.
                    self.wait_for(lambda d: self.driver.execute_script("""
                        const r = document.querySelector('[data-waymark-anchor="row"]').getBoundingClientRect();
                        return r.top >= 0 && r.bottom <= visualViewport.height;"""), "the row in view")
                    self.wait_for(lambda d: self.placed_well(), "the tip beside the row")
                    # The list scrolls the row away: the tip goes; back, and it follows the row.
                    self.driver.execute_script("document.getElementById('list').scrollTop = 0")
                    self.wait_for(lambda d: self.tip("t") is None, "the tip to hide with its row")
                    self.driver.execute_script("document.getElementById('list').scrollTop = 1000")
                    self.wait_for(lambda d: self.tip("t") is not None, "the tip to come back")
                    self.wait_for(lambda d: self.placed_well(), "the tip beside the row again")
                    # The page scrolls: the tip moves with the row.
                    self.driver.execute_script("scrollBy(0, 60)")
                    self.wait_for(lambda d: self.placed_well(), "the tip to follow the row")

class ItemAnchorTests(PhoneTest):
    """Anchors naming one item among many (product[p30], product:visible, item:2), on the demo
    shop's virtualised list of 1,000 products, whose rows are reused as it scrolls, and on a list
    the page draws anew."""

    def product_list(self):
        self.phone(360, 740, screen="products")
        self.wait_for(lambda d: d.execute_script("return document.querySelectorAll('#product-rows .row:not([hidden])').length > 5"),
                      "the list's rows")

    def scroll_list(self, top):
        self.driver.execute_script("document.getElementById('product-list').scrollTop = arguments[0]", top)

    def draw_on(self, anchor):
        self.driver.execute_script("""
            window.__renderer.erase('t');
            window.__renderer.draw({ id: 't', renderer: 'tooltip', anchor: arguments[0], content: { title: 'This one', html: '<p>Look here.</p>' } });""",
            anchor)

    def test_a_tip_on_one_product_follows_it_through_recycled_rows(self):
        self.product_list()
        self.draw_on("product[p30]")
        self.assertIsNone(self.tip("t"), "product 30 is not drawn yet: nothing shows")
        self.assertEqual(self.driver.execute_script("return document.getElementById('product-list').scrollTop"), 0,
                         "a product the list has not drawn is not scrolled to")
        self.scroll_list(29 * 72 - 200)
        self.wait_for(lambda d: self.placed_well('[data-waymark-key="p30"]'), "the tip beside product 30")
        # The row holding product 30 is reused for another product as the list scrolls on.
        self.driver.execute_script("window.__row = document.querySelector('[data-waymark-key=\"p30\"]')")
        self.scroll_list(29 * 72 + 3000)
        self.wait_for(lambda d: self.tip("t") is None, "the tip to hide while product 30 is not drawn")
        self.assertNotEqual(self.driver.execute_script("return window.__row.dataset.waymarkKey"), "p30",
                            "the row that showed product 30 shows another product now")
        self.scroll_list(29 * 72 - 300)
        self.wait_for(lambda d: self.placed_well('[data-waymark-key="p30"]'), "the tip back beside product 30")
        self.scroll_list(29 * 72 - 250)
        self.wait_for(lambda d: self.placed_well('[data-waymark-key="p30"]'), "the tip to follow product 30")

    def test_a_tip_on_the_first_visible_product_stays_on_it_while_it_shows(self):
        self.product_list()
        self.scroll_list(5 * 72)
        self.draw_on("product:visible")
        self.wait_for(lambda d: self.placed_well('[data-waymark-key="p6"]'), "the tip beside the highest product shown")
        # Product 5 comes back above it: the tip stays where it is while product 6 shows.
        self.scroll_list(5 * 72 - 40)
        self.wait_for(lambda d: self.placed_well('[data-waymark-key="p6"]'), "the tip to stay on product 6")
        # Products 6 to 8 are gone; 9 is the highest shown (32 of its 72 px).
        self.scroll_list(8 * 72 + 40)
        self.wait_for(lambda d: self.placed_well('[data-waymark-key="p9"]'), "the tip to move to the highest product shown")

    def test_a_tip_follows_its_item_when_the_page_draws_the_list_anew(self):
        self.phone(360, 740)
        draw_list = """
            const list = document.getElementById('items') ?? document.querySelector('main').appendChild(
                Object.assign(document.createElement('ul'), { id: 'items' }));
            list.replaceChildren(...arguments[0].map((key) => {
                const item = document.createElement('li');
                item.textContent = 'Item ' + key; item.style.cssText = 'height:60px';
                item.dataset.waymarkAnchor = 'item'; item.dataset.waymarkKey = key;
                return item;
            }));"""
        self.driver.execute_script(draw_list, ["a", "b", "c", "d", "e"])
        self.draw_on("item[c]")
        self.wait_for(lambda d: self.placed_well('[data-waymark-key="c"]'), "the tip beside item c")
        before = self.tip("t").rect["y"]
        self.driver.execute_script(draw_list, ["e", "d", "c", "b", "a", "f", "g"][::-1])
        self.wait_for(lambda d: self.placed_well('[data-waymark-key="c"]'), "the tip beside item c, drawn anew elsewhere")
        self.assertNotEqual(self.tip("t").rect["y"], before, "item c moved, and its tip with it")
        self.driver.execute_script(draw_list, ["a", "b", "d"])
        self.wait_for(lambda d: self.tip("t") is None, "the tip to hide while item c is gone")
        self.driver.execute_script(draw_list, ["a", "b", "c", "d"])
        self.wait_for(lambda d: self.placed_well('[data-waymark-key="c"]'), "the tip back with item c")
        self.draw_on("item:2")
        self.wait_for(lambda d: self.placed_well('[data-waymark-key="b"]'), "the tip beside the second item")

    def test_the_demo_catalog_points_at_the_first_product_then_at_the_deal_when_it_is_scrolled_to(self):
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True})
        self.open_shop("item-anchors", "#/products")
        self.wait_tip("product-list-tip")
        self.assertTrue(self.placed_well('[data-waymark-key="p1"]', "product-list-tip"), "beside the first product")
        # Three scrolls (a second apart: the SDK counts at most one a second) and the user has it.
        for top in (300, 600, 900):
            self.scroll_list(top)
            self.driver.execute_script("await new Promise((done) => setTimeout(done, 1100))")
        self.wait_tip("product-list-tip", shown=False)
        self.assertIsNone(self.tip("deal-tip"), "product 120 is not drawn yet")
        self.scroll_list(119 * 72 - 200)
        self.wait_for(lambda d: self.placed_well('[data-waymark-key="p120"]', "deal-tip"), "the deal beside product 120")


if __name__ == "__main__":
    unittest.main()
