"""What waymark.js draws, for people who use a screen reader, a keyboard, a finger or large text
(WCAG 2.2 AA), in a real Chromium on a 360x740 phone screen: axe-core (axe-selenium-python) finds
no violation with a tooltip, a spotlight, a tour page or a survey open; Tab stays inside an open
tour or modal survey and the page behind is inert; touch targets are at least 44x44 CSS px; and at
200% zoom no text is cut off.

Each state is drawn by the running client's renderer from the demo catalog's own tips, on the
screen that holds the tip's anchor. Run by scripts/test; see test_demo_shop.py for what it needs.
"""
import unittest

from axe_selenium_python import Axe
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_demo_shop import BrowserTest, own_demo

setUpModule, tearDownModule = own_demo(narration=False)


class AccessibilityTests(BrowserTest):
    def phone(self, width=360, height=740, scale=2):
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": True})
        self.open_shop(f"a11y-{self._testMethodName[5:30]}-{width}")

    def show(self, screen, tip_id):
        """Goes to `screen` and draws the catalog's tip `tip_id` there."""
        self.driver.execute_script("""
            const [screen, id] = arguments;
            const { Waymark } = await import('/sdk/waymark.js');
            const client = Waymark.client;
            for (const drawn of [...client.renderer.rendered.keys()]) client.renderer.erase(drawn);
            location.hash = screen;
            await new Promise((done) => setTimeout(done, 200));
            for (const drawn of [...client.renderer.rendered.keys()]) client.renderer.erase(drawn);
            client.renderer.draw(client.catalog.tips.find((t) => t.id === id));""", screen, tip_id)
        return self.wait_tip(tip_id)

    def erase(self, tip_id):
        """Takes away a tip `show` drew (the engine never showed it, so closing it is not enough)."""
        self.driver.execute_script("(await import('/sdk/waymark.js')).Waymark.client.renderer.erase(arguments[0])", tip_id)

    def open_tour(self, page=0):
        self.driver.execute_script(f"return (await import('/sdk/waymark.js')).Waymark.startTour('shop-tour', {page})")
        return self.wait_for(lambda d: self.visible('[data-waymark-tour="shop-tour"]'), "the tour")

    def axe(self, what):
        axe = Axe(self.driver)
        axe.inject()
        result = axe.run(options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
        self.assertGreater(len(result["passes"]), 10, f"{what}: axe checked the page")
        violations = [(v["id"], [n["target"] for n in v["nodes"]]) for v in result["violations"]]
        self.assertEqual(violations, [], f"{what}: {axe.report(result['violations'])}")

    def show_hotspot(self, opened):
        """Draws the cart's hotspot on the home screen, and opens it with `opened`."""
        self.driver.execute_script("""
            const { Waymark } = await import('/sdk/waymark.js');
            const client = Waymark.client;
            for (const drawn of [...client.renderer.rendered.keys()]) client.renderer.erase(drawn);
            location.hash = '#/';
            await new Promise((done) => setTimeout(done, 200));
            for (const drawn of [...client.renderer.rendered.keys()]) client.renderer.erase(drawn);
            await client.renderer.draw(client.catalog.tips.find((t) => t.id === 'cart-hotspot'));""")
        marker = self.wait_for(lambda d: self.visible('[data-waymark-hotspot="cart-hotspot"]'), "the hotspot's marker")
        if opened:
            marker.click()
            self.wait_tip("cart-hotspot")

    def test_axe_finds_no_violation_with_a_tooltip_a_spotlight_a_tour_page_or_a_survey_open(self):
        self.phone()
        self.show("#/product/p1", "reviews-tip")
        self.axe("a tooltip")
        self.show("#/", "welcome")
        self.axe("a banner with buttons")
        self.show_hotspot(opened=False)
        self.axe("a hotspot's marker")
        self.show_hotspot(opened=True)
        self.axe("an opened hotspot")
        self.erase("cart-hotspot")
        self.driver.execute_script("(await import('/sdk/waymark.js')).Waymark.client.renderer.erase('welcome')")
        self.wait_for(lambda d: self.visible('[data-waymark-ui="help-button"]'), "the help button").click()
        self.wait_for(lambda d: self.visible('[data-waymark-ui="help"]'), "the help panel")
        self.axe("the help panel")
        self.driver.find_element(By.CSS_SELECTOR, '[data-waymark-ui="help"] input[type=search]').send_keys("gift wrap")
        self.axe("a help search that found nothing")
        self.driver.find_element(By.CSS_SELECTOR, '[data-waymark-ui="help"] .wm-close').click()
        self.wait_for(lambda d: self.visible('[data-waymark-ui="checklist-launcher"]'), "the checklist launcher").click()
        self.wait_for(lambda d: self.visible('[data-waymark-ui="checklist"]'), "the checklist panel")
        self.axe("a checklist's panel")
        self.driver.find_element(By.CSS_SELECTOR, '[data-waymark-ui="checklist"] .wm-close').click()
        self.show("#/product/p1", "cart-tip")
        self.axe("a spotlight")
        survey = self.show("#/cart", "checkout-survey")
        self.axe("a survey")
        survey.find_elements(By.CSS_SELECTOR, ".wm-scale span")[4].click()
        survey.find_element(By.CSS_SELECTOR, ".wm-survey button[type=submit]").click()
        self.wait_for(lambda d: self.visible('[data-waymark-action="done"]'), "the survey's ending")
        self.axe("a survey's ending")
        self.erase("checkout-survey")
        self.open_tour()
        self.axe("a tour page")

    def assert_tab_stays_inside(self, selector, what):
        inside = "return document.activeElement.closest(arguments[0]) !== null"
        for key in (Keys.TAB, Keys.SHIFT + Keys.TAB):
            seen = set()
            for _ in range(25):
                self.driver.switch_to.active_element.send_keys(key)
                self.assertTrue(self.driver.execute_script(inside, selector), f"{what}: {key!r} left the modal")
                seen.add(self.driver.execute_script("return document.activeElement.outerHTML.slice(0, 80)"))
            self.assertGreater(len(seen), 2, f"{what}: the focus moves between the modal's controls")

    def test_tab_cycles_inside_an_open_tour_and_a_modal_survey_and_the_page_behind_is_inert(self):
        self.phone()
        self.assertFalse(self.driver.execute_script("return document.querySelector('main').inert"))
        self.open_tour()
        self.assertTrue(self.driver.execute_script("return document.querySelector('main').inert && document.querySelector('header').inert"))
        self.assert_tab_stays_inside("[data-waymark-tour]", "the tour")
        self.driver.execute_script("document.querySelector('.wm-tour .wm-close').click()")
        self.wait_for(lambda d: not d.execute_script("return document.querySelector('main').inert"), "the page to come back")
        survey = self.show("#/cart", "checkout-survey")
        self.assertTrue(self.driver.execute_script("return document.querySelector('main').inert"))
        survey.click()
        self.assert_tab_stays_inside('[data-waymark-tip="checkout-survey"]', "the survey")
        self.erase("checkout-survey")
        self.wait_for(lambda d: not d.execute_script("return document.querySelector('main').inert"), "the page to come back")

    def small_targets(self):
        """The SDK's controls smaller than 44x44 CSS px (a score's label is its target)."""
        return self.driver.execute_script("""
            const small = [];
            for (const e of document.querySelectorAll('[data-waymark-ui] button, [data-waymark-ui] .wm-scale span, button[data-waymark-ui]')) {
                const r = e.getBoundingClientRect();
                if (r.width === 0 && r.height === 0) continue;
                if (r.width < 44 || r.height < 44) small.push(`${e.className || e.textContent} ${r.width}x${r.height}`);
            }
            return small;""")

    def test_every_control_the_sdk_draws_is_at_least_44_by_44(self):
        self.phone()
        self.show("#/product/p1", "reviews-tip")
        self.assertEqual(self.small_targets(), [], "a tooltip")
        self.show("#/", "welcome")
        self.assertEqual(self.small_targets(), [], "a banner with buttons")
        self.show_hotspot(opened=True)
        self.assertEqual(self.small_targets(), [], "a hotspot")
        self.erase("cart-hotspot")
        self.wait_for(lambda d: self.visible('[data-waymark-ui="help-button"]'), "the help button")
        self.assertEqual(self.small_targets(), [], "the help and checklist buttons")
        self.show("#/cart", "checkout-survey")
        self.assertEqual(self.small_targets(), [], "a survey")
        self.erase("checkout-survey")
        self.open_tour(1)
        self.assertEqual(self.small_targets(), [], "a tour page")

    def test_nothing_is_cut_off_at_200_percent_zoom(self):
        # 200% zoom on a 360x740 screen: a layout viewport of 180x370 CSS px.
        self.phone(180, 370, scale=4)
        cut = """
            const e = document.querySelector(arguments[0]);
            const r = e.getBoundingClientRect();
            const out = [];
            if (r.left < -0.5 || r.right > visualViewport.width + 0.5) out.push(`wider than the screen: ${r.left}..${r.right}`);
            if (e.scrollWidth > e.clientWidth + 1) out.push(`text cut sideways: ${e.scrollWidth} > ${e.clientWidth}`);
            const style = getComputedStyle(e);
            if (e.scrollHeight > e.clientHeight + 1 && !/auto|scroll/.test(style.overflowY)) out.push('text cut below');
            return out;"""
        for screen, tip in (("#/product/p1", "reviews-tip"), ("#/cart", "checkout-survey"), ("#/", "welcome")):
            self.show(screen, tip)
            self.assertEqual(self.driver.execute_script(cut, f'[data-waymark-tip="{tip}"]'), [], tip)
        self.erase("welcome")
        self.open_tour(1)
        self.assertEqual(self.driver.execute_script(cut, ".wm-tour-body"), [], "the tour's page")
        footer = self.driver.execute_script(
            "const r = document.querySelector('.wm-tour footer').getBoundingClientRect(); return [r.bottom, visualViewport.height, r.right, visualViewport.width]")
        self.assertLessEqual(footer[0], footer[1] + 0.5, "the tour's buttons are on the screen")
        self.assertLessEqual(footer[2], footer[3] + 0.5, "the tour's buttons are on the screen")


if __name__ == "__main__":
    unittest.main()
