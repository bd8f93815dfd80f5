"""The console in a real Chromium, against a real `waymark demo`: sign-in, CSRF, the rule field's
live check, a tip written in the console, published, shown by the SDK in the demo shop, and
rolled back; hostile text typed into the fields runs nowhere.

Run by scripts/test with the other browser tests (see test_demo_shop.py for the set-up).
"""
import os
import time
import unittest

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from test_demo_shop import SCREENSHOTS, chrome, start_demo

demo = None


def setUpModule():
    global demo
    demo = start_demo()


def tearDownModule():
    demo.stop()


HOSTILE_TITLE = '<img src=x onerror="window.__xss=1">'
HOSTILE_BODY = '<script>window.__xss=2</script> [link](javascript:window.__xss=3) "><svg onload=window.__xss=4>'


class ConsoleTests(unittest.TestCase):
    def setUp(self):
        self.driver = chrome()
        self.addCleanup(self.driver.quit)

    def wait_for(self, condition, what, timeout=10):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                value = condition()
                if value:
                    return value
            except Exception:
                pass
            time.sleep(0.1)
        self.fail(f"timed out waiting for {what}; the page says:\n{self.driver.find_element(By.TAG_NAME, 'body').text[:2000]}")

    def sign_in(self):
        self.driver.get(f"{demo.url}/console/")
        self.wait_for(lambda: self.driver.current_url.endswith("/console/login"), "the login page")
        self.driver.find_element(By.ID, "email").send_keys(demo.facts["consoleEmail"])
        self.driver.find_element(By.ID, "password").send_keys(demo.facts["consolePassword"])
        self.driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        self.wait_for(lambda: self.driver.current_url.endswith("/console/apps"), "the apps page")

    def app_url(self, path=""):
        return f"{demo.url}/console/apps/{demo.facts['appId']}{path}"

    def fill_tip(self, tip_id, trigger, title=HOSTILE_TITLE, body=HOSTILE_BODY, targeting='user.id == "carla"'):
        self.driver.get(self.app_url("/new-tip"))
        fields = {"id": tip_id, "container": "console-area", "trigger": trigger, "title": title, "body": body, "targeting": targeting}
        for name, value in fields.items():
            element = self.driver.find_element(By.ID, name)
            element.clear()
            element.send_keys(value)
        Select(self.driver.find_element(By.ID, "renderer")).select_by_value("modal")
        self.driver.find_element(By.NAME, "locale.0.code").send_keys("hi")
        self.driver.find_element(By.NAME, "locale.0.title").send_keys("नमस्ते " + HOSTILE_TITLE)

    def save(self):
        self.driver.find_element(By.CSS_SELECTOR, "form.tip-form button[type=submit]").click()

    def assert_nothing_ran(self):
        self.assertIsNone(self.driver.execute_script("return window.__xss ?? null"))

    def test_signing_in_gives_a_strict_session_cookie_and_a_form_without_its_token_is_refused(self):
        self.sign_in()
        cookie = self.driver.get_cookie("__Host-waymark-session")
        self.assertIsNotNone(cookie)
        self.assertTrue(cookie["secure"] and cookie["httpOnly"])
        self.assertEqual(cookie["sameSite"], "Strict")
        self.assertEqual(cookie["path"], "/")
        self.assertIsNone(self.driver.execute_script("return document.cookie.includes('waymark-session') ? 'visible' : null"),
                          "scripts cannot read the session")
        self.fill_tip("forged", "activation")
        # A forged form: the same fields without the session's token.
        self.driver.execute_script("document.querySelector('form.tip-form input[name=csrf]').remove()")
        self.save()
        self.wait_for(lambda: "security token" in self.driver.find_element(By.TAG_NAME, "body").text, "the refusal")
        self.assertIn("403", self.driver.title)
        self.driver.get(self.app_url())
        self.assertNotIn("forged", self.driver.find_element(By.TAG_NAME, "table").text, "nothing was saved")

    def test_a_bad_rule_shows_the_parsers_caret_as_one_types_and_on_save(self):
        self.sign_in()
        self.fill_tip("bad-rule", "tap:search AND (scroll")
        check = lambda: self.driver.find_element(By.ID, "trigger-check").text
        self.wait_for(lambda: "^" in check(), "the live check's caret")
        self.assertIn("rule:1:23", check())
        self.assertIn("tap:search AND (scroll", check())
        self.driver.execute_script("document.getElementById('trigger').scrollIntoView({block: 'center'})")
        self.screenshot("console-rule-error")
        # Saving anyway shows the same error in the page, keeps what was typed, saves nothing.
        self.save()
        self.wait_for(lambda: self.driver.find_elements(By.ID, "form-errors"), "the form's errors")
        self.assertIn("^", check())
        self.assertEqual(self.driver.find_element(By.ID, "title").get_attribute("value"), HOSTILE_TITLE)
        self.assert_nothing_ran()
        # Fixing the rule: the check says so.
        trigger = self.driver.find_element(By.ID, "trigger")
        trigger.send_keys(")")
        self.wait_for(lambda: "The rule reads." in check(), "the check to pass")

    def test_a_tip_written_in_the_console_shows_in_the_shop_until_it_is_rolled_back(self):
        self.sign_in()
        self.fill_tip("console-tip", "activation")
        self.save()
        self.wait_for(lambda: self.driver.find_elements(By.CSS_SELECTOR, '[data-tip="console-tip"]'), "the tip in the list")
        row = self.driver.find_element(By.CSS_SELECTOR, '[data-tip="console-tip"]').text
        self.assertIn(HOSTILE_TITLE, row, "the title is shown as text")
        self.assertIn("new, not published", row)
        self.assert_nothing_ran()
        # Publishing shows the difference first.
        self.driver.get(self.app_url("/publish"))
        diff = self.driver.find_element(By.CSS_SELECTOR, "pre.diff").text
        self.assertIn("+ id: console-tip", diff)
        self.screenshot("console-publish")
        self.driver.find_element(By.CSS_SELECTOR, "main form button[type=submit]").click()
        self.wait_for(lambda: "Version 2 is live." in self.driver.find_element(By.TAG_NAME, "main").text, "version 2")
        self.assert_nothing_ran()

        # The shop, as the targeted user: the SDK shows the tip, and runs none of its content.
        console = self.driver.current_window_handle
        self.driver.switch_to.new_window("tab")
        self.driver.get(f"{demo.url}/demo/?user=carla")
        tip = self.wait_for(lambda: self.visible_tip("console-tip"), "the console's tip in the shop")
        self.assertEqual(tip.find_element(By.TAG_NAME, "h2").text, HOSTILE_TITLE)
        for typed in ("<script>", "</script>", "<svg onload="):
            self.assertIn(typed, tip.text, "Markdown shows markup as typed")
        time.sleep(1)
        self.assert_nothing_ran()
        made = self.driver.execute_script("""
            const all = [...arguments[0].querySelectorAll('*')];
            return { elements: [...new Set(all.map(e => e.localName))].sort(),
                     handlers: all.flatMap(e => [...e.attributes].map(a => a.name)).filter(n => n.startsWith('on')),
                     links: all.filter(e => e.href).map(e => e.href) };""", tip)
        self.assertEqual(made["elements"], ["button", "div", "em", "h2", "p"], "only what the SDK builds and Markdown makes")
        self.assertEqual(made["handlers"], [])
        self.assertEqual(made["links"], [])
        self.screenshot("console-tip-in-shop")

        # Roll back to version 1 in one step: the shop no longer has the tip.
        self.driver.switch_to.window(console)
        self.driver.get(self.app_url("/versions"))
        self.driver.find_element(By.XPATH, "//button[normalize-space()='Roll back to 1']").click()
        self.wait_for(lambda: "Version 3 is live." in self.driver.find_element(By.TAG_NAME, "main").text, "version 3")
        self.driver.switch_to.window(self.driver.window_handles[-1])
        self.driver.get(f"{demo.url}/demo/?user=carla")
        self.wait_for(lambda: self.driver.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the shop")
        self.wait_for(lambda: self.visible_tip("console-tip") is None, "the tip to be gone")
        catalog = demo.request("/v1/catalog?user=carla", key=demo.facts["clientKey"])
        self.assertNotIn("console-tip", [t["id"] for t in catalog["tips"]])

        # The audit log shows who did all this, and the payload as text.
        self.driver.switch_to.window(console)
        self.driver.get(self.app_url("/audit"))
        log = self.driver.find_element(By.TAG_NAME, "main").text
        for expected in ("tip.added tip console-tip", "publish version 2", "publish version 3", "user:owner@demo.example"):
            self.assertIn(expected, log)
        self.assert_nothing_ran()

    def test_the_preview_draws_the_tip_with_waymark_js_for_the_chosen_client_under_the_consoles_policy(self):
        self.sign_in()
        self.fill_tip("preview-tip", "activation", title="Find anything", body="Tap **here**.", targeting='device.platform == "ios"')
        self.save()
        self.wait_for(lambda: self.driver.find_elements(By.CSS_SELECTOR, '[data-tip="preview-tip"]'), "the tip in the list")
        # An iPhone in Hindi gets the Hindi title, drawn by the SDK's modal renderer with its styles.
        self.driver.get(self.app_url("/tips/preview-tip/preview?platform=ios&model=iPhone15,2&appVersion=1.4&locale=hi-IN"))
        tip = self.wait_for(lambda: self.visible_tip("preview-tip"), "the preview")
        self.assertEqual(tip.find_element(By.TAG_NAME, "h2").text, "नमस्ते " + HOSTILE_TITLE)
        self.assertEqual(tip.get_attribute("lang"), "hi")
        self.assertEqual(self.driver.execute_script("return getComputedStyle(arguments[0]).position", tip), "fixed",
                         "the SDK's style sheet applies under a policy without 'unsafe-inline'")
        self.assertEqual(tip.get_attribute("role"), "dialog")
        self.assert_nothing_ran()
        violations = [e["message"] for e in self.driver.get_log("browser") if "Content Security Policy" in e["message"]]
        self.assertEqual(violations, [])
        self.screenshot("console-preview")
        # Closing it in the preview only removes it.
        tip.find_element(By.CSS_SELECTOR, "button.wm-close").click()
        self.wait_for(lambda: self.visible_tip("preview-tip") is None, "the preview to close")
        # The web platform is not targeted: the page says so and draws nothing.
        self.driver.get(self.app_url("/tips/preview-tip/preview?platform=web"))
        self.assertIn("does not get the tip", self.driver.find_element(By.ID, "preview-status").text)
        time.sleep(0.5)
        self.assertIsNone(self.visible_tip("preview-tip"))

    def visible_tip(self, tip_id):
        return self.driver.execute_script("""
            const e = document.querySelector(`[data-waymark-tip="${arguments[0]}"]`);
            if (!e || e.hidden) return null;
            const box = e.getBoundingClientRect();
            return box.width > 0 && box.height > 0 ? e : null;""", tip_id)

    def screenshot(self, name):
        self.driver.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))


if __name__ == "__main__":
    unittest.main()
