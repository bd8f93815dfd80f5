"""A non-developer's whole path in a real Chromium against a real `waymark demo`, on a desktop
and on a 360×740 touch phone: sign in, choose the element on the demo shop's own page, write the
tip there in English and in Hindi, give it a rule with a recipe, preview it on a phone through the
preview link, publish, see it in the shop, and see its analytics, without typing an anchor name
or a rule.

Run by scripts/test with the other browser tests (see test_demo_shop.py for the set-up).
"""
import os
import re
import unittest
import uuid

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

import test_demo_shop
from test_demo_shop import SCREENSHOTS, BrowserTest, chrome, own_demo

setUpModule, tearDownModule = own_demo(narration=False)


def demo():
    return test_demo_shop.demo


def phone_metrics(driver, width=360, height=740, zoom=100):
    """The driver as a phone `width` CSS pixels wide at `zoom`% text, with touch."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width * 100 // zoom, "height": height * 100 // zoom, "deviceScaleFactor": 2 * zoom // 100, "mobile": True})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})


class BuilderWalkTests(BrowserTest):
    def app_url(self, path=""):
        return f"{demo().url}/console/apps/{demo().facts['appId']}{path}"

    def shot(self, name, driver=None):
        (driver or self.driver).save_screenshot(os.path.join(SCREENSHOTS, f"builder-{self.size}-{name}.png"))

    def sign_in(self):
        self.driver.get(f"{demo().url}/console/")
        self.driver.find_element(By.ID, "email").send_keys(demo().facts["consoleEmail"])
        self.driver.find_element(By.ID, "password").send_keys(demo().facts["consolePassword"])
        self.driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        self.wait_for(lambda _: self.driver.current_url.endswith("/console/apps"), "the apps page")

    def tap(self, element):
        """A finger's tap on a phone (touch events, then the click the browser makes of them); a
        mouse's click on the desktop."""
        if not self.phone:
            return element.click()
        # The middle of its first line's box: a link that wraps has none at its overall middle.
        x, y = self.driver.execute_script("""
            arguments[0].scrollIntoView({ block: 'nearest' });
            const r = arguments[0].getClientRects()[0];
            return [r.left + r.width / 2, r.top + r.height / 2];""", element)
        self.driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        self.driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    def bar_button(self, text):
        return self.driver.find_element(By.XPATH, f"//section[@class='wm-build']//button[normalize-space()='{text}']")

    def walk(self, phone):
        self.phone = phone
        self.size = "360" if phone else "desktop"
        tip = f"cart-help-{self.size}"
        if phone:
            phone_metrics(self.driver)
        # The other walk's tip shows in the same area on the same screen: each walk takes its tip away.
        self.addCleanup(lambda: demo().request("/v1/admin/catalog/publish", body={}, method="POST"))
        self.addCleanup(lambda: demo().request(f"/v1/admin/catalog/draft/tips/{tip}", method="DELETE"))
        self.sign_in()

        # A new tip: its id, and the app's page (remembered after the first time).
        self.driver.get(self.app_url("/new-tip"))
        self.driver.find_element(By.ID, "id").send_keys(tip)
        page = self.driver.find_element(By.ID, "page-url")
        if not page.get_attribute("value"):
            page.send_keys(f"{demo().url}/demo/?user=author")
        self.assertEqual(page.get_attribute("value"), f"{demo().url}/demo/?user=author")
        console = self.driver.current_window_handle
        choose = self.driver.find_element(By.XPATH, "//button[normalize-space()='Choose on the page']")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", choose)
        self.shot("1-tip-form")
        choose.click()
        self.wait_for(lambda _: len(self.driver.window_handles) == 2, "the page in a new tab")
        self.driver.switch_to.window([h for h in self.driver.window_handles if h != console][0])
        if phone:
            phone_metrics(self.driver)

        # The shop with the builder: the token has left the address, and the bar asks for a tap.
        bar = self.wait_for(lambda _: self.driver.find_element(By.CSS_SELECTOR, "section.wm-build"), "the builder's bar")
        self.wait_for(lambda _: "Tap the element" in bar.text, "the bar's question")
        self.assertNotIn("waymark-preview", self.driver.current_url)
        self.assertEqual(self.driver.find_element(By.CSS_SELECTOR, ".wm-preview > button").text, "Preview")
        if not phone:
            # A mouse outlines what a click would choose before it is clicked.
            ActionChains(self.driver).move_to_element(self.driver.find_element(By.ID, "search")).perform()
            hover = self.wait_for(lambda _: self.driver.find_element(By.CSS_SELECTOR, ".wm-build-outline.wm-hover"), "the hover outline")
            self.assertEqual(hover.text, "search-button", "the app's own anchor comes first")
        # Choosing does not follow the link: the shop stays on its home screen.
        self.tap(self.driver.find_element(By.ID, "cart-link"))
        label = self.wait_for(lambda _: self.driver.find_element(By.CSS_SELECTOR, ".wm-build-outline:not(.wm-hover) span"), "the outline")
        self.assertEqual(label.text, "#cart-link")
        self.assertFalse(self.driver.find_element(By.ID, "screen-home").get_attribute("hidden"), "the link was not followed")
        self.assertIn("points to #cart-link", bar.text)
        box = self.driver.execute_script("const b = arguments[0].getBoundingClientRect(); return [b.left, b.right, innerWidth]", label)
        self.assertTrue(box[0] >= 0 and box[1] <= box[2], f"the outline's label stays on the screen: {box}")
        self.shot("2-chosen")
        self.tap(self.bar_button("Write the tip"))

        # Written in place, in English and in Hindi: the SDK draws it at the element as it is typed.
        self.driver.find_element(By.ID, "wm-build-title").send_keys("Your cart")
        self.driver.find_element(By.ID, "wm-build-text").send_keys("What you chose waits here.")
        self.driver.find_element(By.ID, "wm-build-button").send_keys("Got it")
        drawn = self.wait_for(lambda _: self.driver.find_element(By.CSS_SELECTOR, f'[data-waymark-tip="{tip}"]'), "the tip drawn")
        self.wait_for(lambda _: drawn.find_element(By.TAG_NAME, "h2").text == "Your cart", "the typed title on the page")
        self.shot("3-english")
        self.tap(self.bar_button("हिन्दी"))
        self.driver.find_element(By.ID, "wm-build-title").send_keys("आपकी कार्ट")
        self.driver.find_element(By.ID, "wm-build-text").send_keys("आपने जो चुना वह यहाँ है।")
        self.driver.find_element(By.ID, "wm-build-button").send_keys("ठीक है")
        drawn = self.wait_for(lambda _: self.driver.find_element(By.CSS_SELECTOR, f'[data-waymark-tip="{tip}"]'), "the tip drawn")
        self.wait_for(lambda _: drawn.find_element(By.TAG_NAME, "h2").text == "आपकी कार्ट", "the Hindi title on the page")
        self.assertEqual(drawn.get_attribute("lang"), "hi")
        # The SDK's own words are Hindi too, as a Hindi reader would see them.
        self.wait_for(lambda _: "पढ़कर सुनाएँ" in drawn.text, f"the Hindi Read aloud on the sample: {drawn.text!r}")
        self.shot("4-hindi")
        if phone:
            # On a smaller phone, and with the phone's text at 200%, the bar and its buttons stay on the screen.
            for width, height, zoom in ((320, 568, 100), (360, 740, 200)):
                phone_metrics(self.driver, width, height, zoom)
                self.driver.execute_script("dispatchEvent(new Event('resize'))")
                edges = self.driver.execute_script("""
                    const boxes = [...document.querySelectorAll('.wm-build button, .wm-build input, .wm-build textarea')]
                      .map((e) => e.getBoundingClientRect());
                    return [Math.min(...boxes.map((b) => b.left)), Math.max(...boxes.map((b) => b.right)), innerWidth,
                            Math.min(...boxes.map((b) => b.height))];""")
                self.assertTrue(edges[0] >= 0 and edges[1] <= edges[2], f"{width} px at {zoom}%: {edges}")
                self.assertGreaterEqual(edges[3], 44, "every control is at least 44 px tall")
                self.shot(f"4-hindi-{width}-{zoom}")
            phone_metrics(self.driver)
        self.tap(self.bar_button("Save to the draft"))
        self.wait_for(lambda _: "Saved to the draft." in bar.text, "the tip saved")
        self.shot("5-saved")
        saved = demo().request(f"/v1/admin/catalog/draft/tips/{tip}")
        for expected in ("selector: '#cart-link'", "title: Your cart", "title: आपकी कार्ट", "label: Got it", "hi: ठीक है"):
            self.assertIn(expected, saved)

        # Back in the console, the tip's rule from a recipe in words.
        self.tap(self.driver.find_element(By.LINK_TEXT, "Open it in the console"))
        self.wait_for(lambda _: self.driver.current_url.endswith(f"/tips/{tip}"), "the tip in the console")
        self.assertEqual(self.driver.find_element(By.ID, "selector").get_attribute("value"), "#cart-link")
        recipe = self.driver.find_element(By.CSS_SELECTOR, "#trigger ~ details.recipe")
        self.driver.execute_script("arguments[0].open = true; arguments[0].scrollIntoView({block: 'center'})", recipe)
        Select(recipe.find_element(By.NAME, "recipe.trigger.kind")).select_by_visible_text("after the Nth visit to a screen")
        recipe.find_element(By.NAME, "recipe.trigger.subject").send_keys("home")
        number = recipe.find_element(By.NAME, "recipe.trigger.number")
        number.clear()
        number.send_keys("1")
        recipe.find_element(By.CSS_SELECTOR, "button[data-recipe]").click()
        trigger = self.driver.find_element(By.ID, "trigger")
        self.wait_for(lambda _: trigger.get_attribute("value") == "screen:home", "the written rule")
        self.driver.execute_script(
            "const form = document.querySelector('form.tip-form'); form.requestSubmit(form.querySelector('button.primary'))")
        self.wait_for(lambda _: f"saved={tip}" in self.driver.current_url, "the tip saved in the console")

        # The phone: a preview link for the draft (the page is remembered), opened on a phone.
        self.driver.get(self.app_url("/previews"))
        self.assertEqual(self.driver.find_element(By.ID, "url").get_attribute("value"), f"{demo().url}/demo/?user=author")
        self.driver.find_element(By.CSS_SELECTOR, "main form button.primary").click()
        link = self.wait_for(lambda _: self.driver.find_element(By.ID, "preview-link").get_attribute("value"), "the preview link")
        handset = chrome()
        self.addCleanup(handset.quit)
        phone_metrics(handset)
        handset.get(link.replace("user=author", "user=author&locale=hi-IN"))
        shown = self.wait_for(lambda _: handset.find_element(By.CSS_SELECTOR, f'[data-waymark-tip="{tip}"] h2'), "the draft on the phone")
        self.assertEqual(shown.text, "आपकी कार्ट")
        self.assertEqual(handset.find_elements(By.CSS_SELECTOR, "section.wm-build"), [], "a preview is no builder")
        handset.save_screenshot(os.path.join(SCREENSHOTS, f"builder-{self.size}-6-preview-phone-hi.png"))

        # The phone leaves the preview (its tab would keep it for every page of the shop).
        handset.find_element(By.CSS_SELECTOR, ".wm-preview > button").click()
        handset.find_element(By.CSS_SELECTOR, ".wm-preview-more button").click()
        self.wait_for(lambda _: "waymark-preview" not in handset.current_url and not handset.find_elements(By.CSS_SELECTOR, ".wm-preview"),
                      "the phone out of the preview")

        # Published, and in the shop for a new user, in English.
        self.driver.get(self.app_url("/publish"))
        self.driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        self.wait_for(lambda _: re.search(r"Version \d+ is live\.", self.driver.find_element(By.TAG_NAME, "main").text), "the new version")
        user = f"walker-{uuid.uuid4().hex[:8]}"
        handset.get(f"{demo().url}/demo/?user={user}")
        shown = self.wait_for(lambda _: handset.find_element(By.CSS_SELECTOR, f'[data-waymark-tip="{tip}"] h2'), "the tip in the shop")
        self.assertEqual(shown.text, "Your cart")
        self.assertEqual(handset.find_elements(By.CSS_SELECTOR, ".wm-preview"), [], "the app's own guidance, no preview")
        handset.save_screenshot(os.path.join(SCREENSHOTS, f"builder-{self.size}-7-shop.png"))

        # Its analytics count the user who saw it (the SDK sends within seconds).
        def counted(_):
            self.driver.get(self.app_url(f"/analytics/tips/{tip}"))
            table = self.driver.find_element(By.CSS_SELECTOR, "main table")
            heads = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
            cells = [td.text for td in table.find_elements(By.CSS_SELECTOR, "tbody tr:first-child > *")]
            return cells[0] == tip and cells[heads.index("Shown")] == "1"
        self.wait_for(counted, "the tip shown once in its analytics", timeout=30)
        self.shot("8-analytics")

        # Nothing above typed an anchor name or a rule: the form's fields hold what was chosen and written.
        self.assertIn("trigger: screen:home", demo().request(f"/v1/admin/catalog/draft/tips/{tip}"))

    def test_a_tip_is_chosen_and_written_on_the_page_and_published_from_a_desktop(self):
        self.walk(phone=False)

    def test_a_tip_is_chosen_and_written_on_the_page_and_published_from_a_phone(self):
        self.walk(phone=True)


if __name__ == "__main__":
    unittest.main()
