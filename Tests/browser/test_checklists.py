"""The demo shop's first-steps checklist in a real Chromium against `waymark demo`, at desktop size
and on a 360x740 phone: a launcher button with the progress, a labelled panel with a progress bar
and items each done by what the user does (announced in a status region), kept across a reload,
shared with the user's other browser, an item's "Show me" opening its tour or tip, and completing
it all sending checklist_completed and granting its credits once. Keyboard only: Tab to the
launcher, Enter to open, Esc to close.

Run by scripts/test; see test_demo_shop.py for what it needs.
"""
import os
import sqlite3

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import test_demo_shop
from test_demo_shop import BrowserTest, chrome, own_demo

setUpModule, tearDownModule = own_demo(narration=False)

LAUNCHER = '[data-waymark-ui="checklist-launcher"]'
PANEL = '[data-waymark-ui="checklist"]'


class ChecklistTests(BrowserTest):
    def launcher(self):
        return self.wait_for(lambda d: self.visible(LAUNCHER), "the checklist's launcher")

    def panel(self):
        return self.wait_for(lambda d: self.visible(PANEL), "the checklist's panel")

    def stored(self, user):
        """The user's checklist events (name, item) and grants (tour, credits)."""
        events = [(name, properties.get("item")) for name, _, properties in self.stored_events(user, "name LIKE 'checklist_%'")]
        with sqlite3.connect(os.path.join(test_demo_shop.demo.directory, "data", "waymark.sqlite")) as database:
            grants = database.execute("SELECT tour, credits FROM grants WHERE user = ?", (user,)).fetchall()
        return events, grants

    def test_a_checklist_shows_progress_keeps_it_and_pays_once_when_complete(self):
        for name, size in [("desktop", None), ("phone", (360, 740))]:
            with self.subTest(size=name):
                self.at(size)
                user = f"steps-{name}"
                self.open_without_welcome(user)
                launcher = self.launcher()
                self.assertEqual(launcher.text, "Get started 0/4")
                self.assertEqual(launcher.get_attribute("aria-expanded"), "false")
                box = self.driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.height, r.right, innerWidth]", launcher)
                self.assertGreaterEqual(box[0], 44)
                self.assertLessEqual(box[1], box[2])
                launcher.click()
                panel = self.panel()
                self.assertEqual(panel.get_attribute("role"), "dialog")
                self.assertEqual(panel.get_attribute("id"), launcher.get_attribute("aria-controls"))
                self.assertIsNotNone(panel.get_attribute("id"))
                self.assertEqual(launcher.get_attribute("aria-expanded"), "true")
                self.assertEqual(panel.find_element(By.CSS_SELECTOR, "progress").get_attribute("aria-label"), "0 of 4 done")
                items = panel.find_elements(By.CSS_SELECTOR, "li .wm-item")
                self.assertEqual([i.get_attribute("textContent") for i in items],
                                 ["Look at a product (to do)", "Search for something (to do)", "Add a product to your cart (to do)",
                                  "Check out (to do)"])
                self.assertEqual([b.get_attribute("aria-label") for b in panel.find_elements(By.CSS_SELECTOR, "li button")],
                                 ["Show me: Look at a product", "Show me: Search for something"])
                self.screenshot(f"checklist-{name}")
                # Doing the first step ticks it, says so, and the launcher counts it.
                self.driver.execute_script("location.hash = '#/product/p2'")
                self.wait_for(lambda d: self.visible(LAUNCHER).text == "Get started 1/4", "the first step done")
                self.wait_for(lambda d: d.execute_script("return document.querySelector(arguments[0])?.textContent",
                                                         f'{PANEL} [role="status"]') == "Done: Look at a product", "the news")
                # Kept across a reload.
                self.driver.refresh()
                self.wait_for(lambda d: d.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the shop")
                self.assertEqual(self.launcher().text, "Get started 1/4")
                # The rest, then the credits, once.
                self.driver.execute_script("location.hash = '#/search'")
                self.driver.execute_script("location.hash = '#/product/p3'")
                self.wait_for(lambda d: self.visible("#add-to-cart"), "the product").click()
                self.driver.execute_script("location.hash = '#/cart'")
                self.wait_for(lambda d: self.visible("#checkout"), "the cart").click()
                # The panel is drawn anew as things change: each look finds its status region again.
                self.wait_for(lambda d: "You earned 10 credits" in (d.execute_script(
                    "return document.querySelector(arguments[0])?.textContent ?? ''", f'{PANEL} [role="status"]')), "the credits")
                self.assertEqual(self.visible(LAUNCHER).text, "Get started 4/4")
                self.screenshot(f"checklist-done-{name}")
                events, grants = self.stored(user)
                self.assertEqual(events, [("checklist_opened", None), ("checklist_item_done", "browse"), ("checklist_item_done", "search"),
                                          ("checklist_item_done", "cart"), ("checklist_item_done", "checkout"),
                                          ("checklist_completed", None)])
                self.assertEqual(grants, [("checklist:first-steps", 10)])
                # Closed once complete, it is put away; the checkout's survey, which waited while the
                # panel was open, then shows and takes the focus, as a modal does.
                self.visible(PANEL).find_element(By.CSS_SELECTOR, ".wm-close").click()
                self.wait_for(lambda d: self.visible(LAUNCHER) is None, "the completed checklist put away")
                self.wait_tip("checkout-survey")
                self.wait_for(lambda d: d.execute_script(
                    "return document.activeElement?.closest('[data-waymark-tip]')?.dataset.waymarkTip") == "checkout-survey",
                    "the focus in the survey that waited")
                self.driver.execute_script("(await import('/sdk/waymark.js')).Waymark.close('checkout-survey')")
                self.wait_tip("checkout-survey", shown=False)
                self.driver.refresh()
                self.wait_for(lambda d: d.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the shop")
                self.assertIsNone(self.visible(LAUNCHER))

    def test_progress_follows_the_user_to_their_other_browser(self):
        self.open_without_welcome("steps-elsewhere")
        self.launcher()
        self.driver.execute_script("location.hash = '#/search'")
        self.wait_for(lambda d: self.visible(LAUNCHER).text == "Get started 1/4", "a step done")
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.client.syncProgress()")
        other = chrome()
        self.addCleanup(other.quit)
        other.get(f"{test_demo_shop.demo.url}/demo/?user=steps-elsewhere")
        from selenium.webdriver.support.ui import WebDriverWait
        WebDriverWait(other, 10).until(
            lambda d: d.execute_script(f"return document.querySelector('{LAUNCHER}')?.textContent") == "Get started 1/4")

    def test_keyboard_only_and_show_me(self):
        self.open_without_welcome("steps-keys")
        self.launcher()
        for _ in range(60):
            if self.driver.switch_to.active_element.get_attribute("data-waymark-ui") == "checklist-launcher":
                break
            self.driver.switch_to.active_element.send_keys(Keys.TAB)
        self.assertEqual(self.driver.switch_to.active_element.get_attribute("data-waymark-ui"), "checklist-launcher")
        self.driver.switch_to.active_element.send_keys(Keys.ENTER)
        panel = self.panel()
        self.wait_for(lambda d: d.switch_to.active_element == panel, "the focus in the panel")
        self.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        self.wait_for(lambda d: self.visible(PANEL) is None, "Esc to close the panel")
        self.assertEqual(self.driver.switch_to.active_element.get_attribute("data-waymark-ui"), "checklist-launcher")
        # "Show me" on the search step draws its tip; on the first step, opens its tour.
        self.driver.switch_to.active_element.send_keys(Keys.ENTER)
        self.panel().find_element(By.CSS_SELECTOR, '[data-waymark-item="search"]').click()
        self.wait_for(lambda d: self.visible(PANEL) is None, "the panel to close")
        self.wait_tip("search-tip")
        self.visible(LAUNCHER).click()
        self.panel().find_element(By.CSS_SELECTOR, '[data-waymark-item="browse"]').click()
        self.wait_for(lambda d: self.visible('[data-waymark-tour="shop-tour"]'), "the item's tour")
