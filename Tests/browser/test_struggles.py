"""Where people get lost, in a real Chromium against a real `waymark demo`, whose shoppers are lost
on purpose: the console lists the planted problems, opens one with its proposed tip, and puts that
tip in the draft; on a desktop and on a 360 px phone, with no accessibility violation axe finds.

Run by scripts/test with the other browser tests (see test_demo_shop.py for the set-up).
"""
import os

from axe_selenium_python import Axe
from selenium.webdriver.common.by import By

import test_demo_shop
from test_demo_shop import SCREENSHOTS, BrowserTest, own_demo

setUpModule, tearDownModule = own_demo(narration=False)


def demo():
    return test_demo_shop.demo


class StruggleTests(BrowserTest):
    def sign_in(self):
        self.driver.get(f"{demo().url}/console/")
        self.driver.find_element(By.ID, "email").send_keys(demo().facts["consoleEmail"])
        self.driver.find_element(By.ID, "password").send_keys(demo().facts["consolePassword"])
        self.driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        self.wait_for(lambda d: d.current_url.endswith("/console/apps"), "the apps page")

    def rows(self):
        """The problems' rows by their sign and place."""
        return {(row.find_element(By.CSS_SELECTOR, "td:nth-child(1)").text, row.find_element(By.CSS_SELECTOR, "td:nth-child(2)").text): row
                for row in self.driver.find_elements(By.CSS_SELECTOR, "table.figures tbody tr")}

    def assert_accessible(self, what):
        axe = Axe(self.driver)
        axe.inject()
        result = axe.run(options={"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa"]}})
        self.assertEqual(result["violations"], [], f"{what}: {axe.report(result['violations'])}")

    def test_the_demos_planted_problems_are_listed_and_one_becomes_a_draft_tip(self):
        for size in (None, (360, 740)):
            with self.subTest(size=size):
                self.at(size)
                self.sign_in()
                app = f"{demo().url}/console/apps/{demo().facts['appId']}"
                self.driver.get(f"{app}/struggles")
                rows = self.wait_for(lambda d: self.rows(), "the problems")
                # What the demo's shoppers were made to do, each found where it was planted.
                rage, search = ("Tapped again and again", "checkout on cart"), ("Searched, found nothing", "the help on home")
                for key in (rage, ("Left at once", "reviews, back to product"), search,
                            ("Stopped before the usual next step", "cart, before checkout")):
                    self.assertIn(key, rows)
                self.assertIn("android", rows[rage].text, "the slow checkout is Android's")
                name = "desktop" if size is None else "360"
                self.screenshot(f"struggles-{name}")
                self.assert_accessible("the problems")

                # The Hindi searches that found nothing, as typed.
                rows[search].find_element(By.TAG_NAME, "a").click()
                queries = self.wait_for(lambda d: d.find_element(By.CSS_SELECTOR, 'table[data-table^="What was searched"]'), "the searches")
                self.assertIn("ऑर्डर रद्द करें", queries.text)

                # The slow checkout: its proposed tip, backtested, put in the draft in one press.
                self.driver.get(f"{app}/struggles")
                self.wait_for(lambda d: self.rows(), "the problems")[rage].find_element(By.TAG_NAME, "a").click()
                # The backtest is counted in the background: the page may say so and reload first.
                def backtested(d):
                    section = d.find_element(By.CSS_SELECTOR, "section[aria-labelledby=proposal-heading]")
                    return section if "would have reached" in section.text else None
                proposal = self.wait_for(backtested, "the proposal, backtested", timeout=60)
                self.assertIn("count(tap:checkout) >= 3 within 3s", proposal.text)
                self.assertRegex(proposal.text, r"would have reached \d+ of \d+ active users")
                self.assertIn("इसमें थोड़ा समय लगता है", proposal.text, "the Hindi words to finish")
                self.assertTrue(self.driver.find_elements(By.CSS_SELECTOR, "li.sign"), "example visits with the sign marked")
                self.screenshot(f"struggle-proposal-{name}")
                self.assert_accessible("a problem with its proposal")
                button = proposal.find_element(By.CSS_SELECTOR, "button.primary")
                tip = button.text.rsplit(" ", 1)[-1]
                self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
                button.click()
                self.wait_for(lambda d: d.current_url.endswith(f"/tips/{tip}?proposed=1"), "the proposed tip's form")
                self.assertIn("Waymark proposed this tip", self.driver.find_element(By.TAG_NAME, "main").text)
                self.assertEqual(self.driver.find_element(By.ID, "anchor").get_attribute("value"), "checkout")
                self.assertEqual(self.driver.find_element(By.ID, "trigger").get_attribute("value"), "count(tap:checkout) >= 3 within 3s")
                demo().request(f"/v1/admin/catalog/draft/tips/{tip}", method="DELETE")
                self.driver.delete_all_cookies()
