"""The console in a real Chromium, against a real `waymark demo`: sign-in, CSRF, the rule field's
live check, a tip written in the console, published, shown by the SDK in the demo shop, and
rolled back; hostile text typed into the fields runs nowhere.

Run by scripts/test with the other browser tests (see test_demo_shop.py for the set-up).
"""
import collections
import datetime
import json
import os
import re
import subprocess
import tempfile
import time
import unittest
import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
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


def restore_draft(document):
    """Puts the draft back as `document` (YAML), as the other tests of this server expect it."""
    import urllib.request
    request = urllib.request.Request(demo.url + "/v1/admin/catalog/draft", data=document.encode(), method="PUT",
                                     headers={"Authorization": f"Bearer {demo.facts['secretKey']}"})
    urllib.request.urlopen(request).read()


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
        # Pressed in the page's own script: a field's open suggestions (the areas and anchors the app
        # has) would take a click, and a click was once lost while a busy server answered the live check.
        self.driver.execute_script(
            "const form = document.querySelector('form.tip-form'); form.requestSubmit(form.querySelector('button.primary'))")

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
        # A forged form: the same fields without the session's token, submitted in the same script
        # (a click on the button was once lost while the server was busy).
        self.driver.execute_script(
            "const form = document.querySelector('form.tip-form');"
            "form.querySelector('input[name=csrf]').remove(); form.requestSubmit();")
        self.wait_for(lambda: "security token" in self.driver.find_element(By.TAG_NAME, "body").text, "the refusal", timeout=30)
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

    def test_a_recipe_in_words_writes_the_rule_into_the_field_on_a_phone(self):
        self.driver.quit()
        self.driver = chrome(360, 740)
        self.addCleanup(self.driver.quit)
        self.sign_in()
        self.driver.get(self.app_url("/new-tip"))
        recipe = self.driver.find_element(By.CSS_SELECTOR, "#trigger ~ details.recipe")
        recipe.find_element(By.TAG_NAME, "summary").click()
        Select(recipe.find_element(By.NAME, "recipe.trigger.kind")).select_by_visible_text("after the Nth visit to a screen")
        recipe.find_element(By.NAME, "recipe.trigger.subject").send_keys("product")
        recipe.find_element(By.NAME, "recipe.trigger.number").send_keys("3")
        button = recipe.find_element(By.CSS_SELECTOR, "button[data-recipe]")
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        button.click()
        trigger = self.driver.find_element(By.ID, "trigger")
        self.wait_for(lambda: trigger.get_attribute("value") == "count(screen:product) >= 3", "the written rule")
        self.wait_for(lambda: "The rule reads." in self.driver.find_element(By.ID, "trigger-check").text, "the check of the rule")
        self.assertTrue(self.driver.current_url.endswith("/new-tip"), "written by the script, without leaving the page")
        self.driver.execute_script("document.getElementById('trigger').scrollIntoView({block: 'start'})")
        self.screenshot("console-recipe-phone")
        # A name a rule cannot hold is refused in words, and the field keeps its rule.
        subject = recipe.find_element(By.NAME, "recipe.trigger.subject")
        subject.clear()
        subject.send_keys("product page")
        button.click()
        self.wait_for(lambda: "not the screen's name" in recipe.text, "the refusal")
        self.assertEqual(trigger.get_attribute("value"), "count(screen:product) >= 3")
        # Enter in a field saves the tip; it does not write a recipe.
        for name, value in {"id": "third-visit", "container": "products", "title": "Still looking?"}.items():
            self.driver.find_element(By.ID, name).send_keys(value)
        self.driver.find_element(By.ID, "title").send_keys(Keys.ENTER)
        self.wait_for(lambda: "saved=third-visit" in self.driver.current_url, "the tip saved")
        # The other tests of this server publish their own tips: this one leaves the draft.
        demo.request("/v1/admin/catalog/draft/tips/third-visit", method="DELETE")

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
        self.assertEqual(tip.find_element(By.CSS_SELECTOR, "button.wm-close").get_attribute("aria-label"), "बंद करें",
                         "the SDK's own words in the client's language")
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

    def test_a_draft_is_previewed_on_a_phone_by_its_code_and_counted_nowhere(self):
        # A tip in the draft only, for nobody: no user of the live app could see it.
        tip = {"id": "preview-only", "container": "console-area", "renderer": "modal", "trigger": "activation",
               "targeting": 'user.id == "nobody"', "rollout": 0, "policy": {"maxDisplayCount": 1},
               "content": {"title": "Only in the preview", "body": "Seen before it is published.",
                           "locales": {"hi": {"title": "सिर्फ़ पूर्वावलोकन में", "body": "छपने से पहले दिखता है।"}}}}
        demo.request("/v1/admin/catalog/draft/tips/preview-only", body=tip, method="PUT")
        self.addCleanup(lambda: demo.request("/v1/admin/catalog/draft/tips/preview-only", method="DELETE"))
        self.sign_in()
        self.driver.get(self.app_url("/previews"))
        field = self.driver.find_element(By.ID, "url")
        field.clear()
        field.send_keys(f"{demo.url}/demo/?user=carla")
        self.driver.find_element(By.CSS_SELECTOR, "main form button.primary").click()
        link = self.wait_for(lambda: self.driver.find_element(By.ID, "preview-link").get_attribute("value"), "the preview link")
        self.assertRegex(link, r"/demo/\?user=carla&waymark-preview=wm_preview_[0-9a-f]{48}$")
        # The code on the screen reads back as the link, as a phone's camera reads it.
        code = self.driver.find_element(By.CSS_SELECTOR, "figure.qr svg")
        with tempfile.NamedTemporaryFile(suffix=".png") as image:
            image.write(code.screenshot_as_png)
            image.flush()
            read = subprocess.run(["zbarimg", "--quiet", "--raw", image.name], capture_output=True, text=True, check=True).stdout
        self.assertEqual(read.strip(), link)
        self.screenshot("console-preview-link")
        console = self.driver.current_window_handle

        # The phone: the draft's tip shows to a user its targeting leaves out, under the mark.
        phone = chrome(360, 740)
        self.addCleanup(phone.quit)
        phone.get(link)
        self.wait_for(lambda: phone.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the shop")
        mark = self.wait_for(lambda: phone.find_element(By.CSS_SELECTOR, ".wm-preview > button"), "the preview mark")
        self.assertEqual(mark.text, "Preview")
        self.assertEqual(phone.current_url, f"{demo.url}/demo/?user=carla", "the token leaves the address; the tab keeps it")
        shown = self.wait_for(lambda: phone.find_element(By.CSS_SELECTOR, '[data-waymark-tip="preview-only"] h2'), "the draft's tip")
        self.assertEqual(shown.text, "Only in the preview")
        # A preview is no user's own: it shares no progress, which the server would refuse it.
        self.assertEqual([e["message"] for e in phone.get_log("browser") if "/v1/progress" in e["message"] or " 403" in e["message"]], [])
        box = phone.execute_script("const b = arguments[0].getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]", mark)
        self.assertTrue(box[0] >= 0 and box[2] <= 180 and box[3] <= 740 and box[3] - box[1] >= 44, f"a small pill, 44 px tall: {box}")
        phone.save_screenshot(os.path.join(SCREENSHOTS, "preview-phone-en-360-closed.png"))
        # Pressed, it says until when and offers to leave.
        mark.click()
        more = phone.find_element(By.CSS_SELECTOR, ".wm-preview-more")
        self.assertRegex(more.text, r"Open until \d{1,2}:\d\d")
        self.assertEqual(mark.get_attribute("aria-expanded"), "true")
        self.assertEqual(more.get_attribute("role"), "status")
        phone.save_screenshot(os.path.join(SCREENSHOTS, "preview-phone-en-360.png"))
        # What the phone does is listed in the console (it sends every few seconds), and nowhere else.
        preview_id = self.driver.find_element(By.CSS_SELECTOR, "tr[data-preview]").get_attribute("data-preview")
        self.driver.get(self.app_url(f"/previews/{preview_id}"))
        self.wait_for(lambda: "tip_shown preview-only" in self.driver.find_element(By.TAG_NAME, "main").text or self.driver.refresh(),
                      "the phone's tip_shown", timeout=20)
        self.assertEqual(demo.query("SELECT count(*) FROM events WHERE target = 'preview-only'"), [("0",)])
        self.assertNotIn("preview-only", [t["id"] for t in demo.request("/v1/catalog?user=carla", key=demo.facts["clientKey"])["tips"]])
        # Another page of the same tab stays in the preview; Hindi at 320 px and at 200% text.
        for width, height, zoom in ((320, 568, 100), (360, 740, 200)):
            phone.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width * 100 // zoom, "height": height * 100 // zoom, "deviceScaleFactor": 2 * zoom // 100, "mobile": True})
            phone.get(f"{demo.url}/demo/?user=carla&locale=hi-IN")
            mark = self.wait_for(lambda: phone.find_element(By.CSS_SELECTOR, ".wm-preview > button"), "the mark on another page")
            self.wait_for(lambda: mark.text == "पूर्वावलोकन", "the mark in Hindi")
            mark.click()
            self.assertRegex(phone.find_element(By.CSS_SELECTOR, ".wm-preview-more").text, r"तक खुला")
            phone.save_screenshot(os.path.join(SCREENSHOTS, f"preview-phone-hi-{width}-{zoom}.png"))
        phone.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

        # Ended in the console: the phone says so, and goes back to the app's own guidance.
        self.driver.get(self.app_url("/previews"))
        self.driver.find_element(By.XPATH, f"//button[normalize-space()='End {preview_id} now']").click()
        self.wait_for(lambda: "has ended" in self.driver.find_element(By.TAG_NAME, "main").text, "the preview ended")
        phone.get(f"{demo.url}/demo/?user=carla")
        self.wait_for(lambda: phone.find_element(By.CSS_SELECTOR, ".wm-preview-more").text.startswith("Preview ended"), "the ended mark")
        self.assertEqual(phone.find_elements(By.CSS_SELECTOR, '[data-waymark-tip="preview-only"]'), [])
        phone.save_screenshot(os.path.join(SCREENSHOTS, "preview-phone-ended.png"))
        phone.find_element(By.CSS_SELECTOR, ".wm-preview-more button").click()
        self.wait_for(lambda: phone.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the shop again")
        self.assertNotIn("waymark-preview", phone.current_url)
        time.sleep(0.5)
        self.assertEqual(phone.find_elements(By.CSS_SELECTOR, ".wm-preview"), [])
        self.driver.switch_to.window(console)

    def test_a_paired_phones_screen_offers_its_elements_to_pick_on_a_phone(self):
        self.sign_in()
        self.driver.get(self.app_url("/previews"))
        field = self.driver.find_element(By.ID, "url")
        field.clear()
        field.send_keys("myshop://home")
        self.driver.find_element(By.CSS_SELECTOR, "main form button.primary").click()
        link = self.wait_for(lambda: self.driver.find_element(By.ID, "preview-link").get_attribute("value"), "the preview link")
        token = link.split("waymark-preview=")[1]
        # The "app": the demo shop on a 360 px phone, pictured with where its marked elements are.
        phone = chrome(360, 740)
        self.addCleanup(phone.quit)
        phone.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 360, "height": 740, "deviceScaleFactor": 1, "mobile": True})
        phone.get(f"{demo.url}/demo/?user=capturer")
        self.wait_for(lambda: phone.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the shop")
        frames = phone.execute_script("""
            const frames = (attribute) => [...document.querySelectorAll(`[${attribute}]`)].map((e) => {
              const b = e.getBoundingClientRect();
              return { name: e.getAttribute(attribute), x: b.x, y: b.y, width: b.width, height: b.height };
            }).filter((f) => f.width > 0 && f.height > 0 && f.y < innerHeight && f.y + f.height > 0 && f.x < innerWidth);
            return { anchors: frames('data-waymark-anchor'), areas: frames('data-waymark-container') };""")
        self.assertTrue(frames["anchors"], "the shop's first screen has anchors")
        picture = phone.get_screenshot_as_base64()
        answer = demo.request("/v1/captures", key=token, body={
            "platform": "android", "screen": "home", "width": 360, "height": 740, "image": picture,
            "anchors": frames["anchors"], "areas": frames["areas"]})
        self.assertTrue(answer["id"].startswith("cap_"))
        # The author, on a phone too, picks an element on the picture.
        self.driver.quit()
        self.driver = chrome(360, 740)
        self.addCleanup(self.driver.quit)
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 360, "height": 740, "deviceScaleFactor": 2, "mobile": True})
        self.sign_in()
        self.driver.get(self.app_url("/captures"))
        capture = self.driver.find_element(By.CSS_SELECTOR, f'[data-capture="{answer["id"]}"] svg.capture')
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'start'})", capture)
        self.screenshot("console-captured-screen-phone")
        name = frames["anchors"][0]["name"]
        box = capture.find_element(By.CSS_SELECTOR, f'a[data-anchor="{name}"]')
        self.assertGreaterEqual(box.rect["width"], 1)
        self.driver.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", box)
        self.wait_for(lambda: "/new-tip?anchor=" in self.driver.current_url, "the tip form")
        self.assertEqual(self.driver.find_element(By.ID, "anchor").get_attribute("value"), name)

    def test_the_apps_look_is_authored_with_a_live_sample_and_drawn_on_the_phone(self):
        # The other tests of this server read the draft: this one puts it back as it was.
        draft = demo.request("/v1/admin/catalog/draft")
        self.addCleanup(restore_draft, draft)
        self.driver.quit()
        self.driver = chrome(360, 740)
        self.addCleanup(self.driver.quit)
        self.sign_in()
        self.driver.get(self.app_url("/theme"))
        # Faint text is said as one types, and refused in words on saving.
        for name, value in {"surface": "#ffffff", "text": "#aaaaaa", "accent": "#0b5cad", "focus": "#b35c00", "radius": "4", "spacing": "16"}.items():
            field = self.driver.find_element(By.ID, name)
            field.clear()
            field.send_keys(value)
        status = self.driver.find_element(By.ID, "theme-contrast")
        self.wait_for(lambda: "Text: 2.32:1 — too faint, needs 4.5:1." in status.text, "the live contrast")
        sample = self.driver.find_element(By.CSS_SELECTOR, ".wm-sample")
        self.assertEqual(self.driver.execute_script("return getComputedStyle(arguments[0]).backgroundColor", sample), "rgb(255, 255, 255)")
        self.driver.execute_script("document.querySelector('[data-theme-form]').requestSubmit()")
        self.wait_for(lambda: "The look was not saved" in self.driver.find_element(By.TAG_NAME, "main").text, "the refusal")
        self.assertIn("text #aaaaaa on the surface #ffffff has a contrast of 2.32:1", self.driver.find_element(By.CSS_SELECTOR, "[role=alert]").text)
        text = self.driver.find_element(By.ID, "text")
        text.clear()
        text.send_keys("#1f2933")
        self.wait_for(lambda: "too faint" not in self.driver.find_element(By.ID, "theme-contrast").text, "a legible look")
        self.screenshot("console-theme-phone")
        self.driver.execute_script("document.querySelector('[data-theme-form]').requestSubmit()")
        self.wait_for(lambda: "saved=1" in self.driver.current_url, "the look saved")
        # On the phone, through a preview: the tips wear the app's look, in Hindi and English.
        preview = demo.request("/v1/admin/previews", body={"url": f"{demo.url}/demo/?user=looker"})
        phone = chrome(360, 740)
        self.addCleanup(phone.quit)
        for locale in ("en-IN", "hi-IN"):
            phone.get(preview["link"].replace("?user=looker", f"?user=looker-{locale}&locale={locale}"))
            tip = self.wait_for(lambda: phone.find_element(By.CSS_SELECTOR, ".wm-tip:not([hidden])"), "a tip")
            self.wait_for(lambda: phone.execute_script("return getComputedStyle(arguments[0]).backgroundColor", tip) == "rgb(255, 255, 255)",
                          "the tip in the app's surface")
            look = phone.execute_script("const s = getComputedStyle(arguments[0]); return [s.color, s.borderTopLeftRadius, s.paddingTop]", tip)
            # A banner spans the screen's bottom edge: square, with the safe area's padding.
            banner = "wm-kind-banner" in tip.get_attribute("class")
            self.assertEqual(look, ["rgb(31, 41, 51)", "0px" if banner else "4px", "12px" if banner else "16px"])
            phone.save_screenshot(os.path.join(SCREENSHOTS, f"theme-phone-{locale}.png"))
        demo.request(f"/v1/admin/previews/{preview['id']}/end", body={})

    def test_a_checklist_and_an_article_are_previewed_as_the_launcher_draws_them(self):
        self.sign_in()
        self.driver.get(self.app_url("/checklists/first-steps/preview?locale=hi-IN"))
        panel = self.wait_for(lambda: self.driver.find_element(By.CSS_SELECTOR, '[data-waymark-ui="checklist"]'), "the checklist's panel")
        self.assertIn("शुरुआत करें", panel.text)
        self.assertEqual(len(panel.find_elements(By.CSS_SELECTOR, "li")), 4)
        self.assertIn("दिखाएँ", [b.text for b in panel.find_elements(By.CSS_SELECTOR, "li button")], "Show me, in Hindi")
        self.driver.get(self.app_url("/articles/cash-on-delivery/preview"))
        article = self.wait_for(lambda: self.driver.find_element(By.CSS_SELECTOR, '[data-waymark-article="cash-on-delivery"]'), "the article")
        self.assertEqual(article.get_attribute("open"), "true")
        self.assertIn("Keep change ready", article.text)

    def test_a_tour_page_edited_in_its_form_is_previewed_with_the_devices_video(self):
        self.sign_in()
        self.driver.get(self.app_url())
        self.driver.find_element(By.LINK_TEXT, "shop-tour").click()
        title = self.wait_for(lambda: self.driver.find_element(By.NAME, "page.0.title"), "the tour form")
        self.assertEqual(title.get_attribute("value"), "Browse")
        self.assertEqual(Select(self.driver.find_element(By.NAME, "page.0.media")).first_selected_option.text, "browse-video")
        title.clear()
        title.send_keys(HOSTILE_TITLE)
        self.driver.find_element(By.CSS_SELECTOR, "form.tour-form button[type=submit]").click()
        self.wait_for(lambda: "/tours/" not in self.driver.current_url, "the save")
        # An iPad gets the iPad recording of the first page, in the SDK's own tour panel.
        self.driver.get(self.app_url("/tours/shop-tour/preview?platform=ios&model=iPad13,1&appVersion=1.4&page=0"))
        panel = self.wait_for(lambda: self.visible_selector('[data-waymark-tour="shop-tour"]'), "the tour panel")
        self.assertEqual(panel.find_element(By.TAG_NAME, "h2").text, HOSTILE_TITLE)
        self.assertIn("browse-ipad.mp4", panel.find_element(By.TAG_NAME, "video").get_attribute("src"))
        self.assertEqual(panel.find_element(By.CSS_SELECTOR, ".wm-progress").text, "Page 1 of 3")
        panel.find_element(By.CSS_SELECTOR, "button.wm-next").click()
        # In Hindi, the panel's own words are Hindi.
        self.driver.get(self.app_url("/tours/shop-tour/preview?platform=android&appVersion=1.4&locale=hi-IN&page=1"))
        hindi = self.wait_for(lambda: self.visible_selector('[data-waymark-tour="shop-tour"]'), "the Hindi tour panel")
        self.assertEqual((hindi.find_element(By.CSS_SELECTOR, ".wm-progress").text, hindi.find_element(By.CSS_SELECTOR, "button.wm-next").text),
                         ("पेज 2 / 3", "आगे"))
        self.driver.get(self.app_url("/tours/shop-tour/preview?platform=ios&model=iPad13,1&appVersion=1.4&page=0"))
        panel = self.wait_for(lambda: self.visible_selector('[data-waymark-tour="shop-tour"]'), "the tour panel again")
        panel.find_element(By.CSS_SELECTOR, "button.wm-next").click()
        self.wait_for(lambda: panel.find_element(By.TAG_NAME, "h2").text == "Search", "the next page")
        self.assert_nothing_ran()
        violations = [e["message"] for e in self.driver.get_log("browser") if "Content Security Policy" in e["message"]]
        self.assertEqual(violations, [])
        self.screenshot("console-tour-preview")

    # Analytics

    def test_an_owner_adds_a_member_who_signs_in_with_the_password_shown_once_and_makes_and_revokes_a_key(self):
        self.sign_in()
        self.driver.get(self.app_url())
        self.driver.find_element(By.LINK_TEXT, "Members and keys").click()
        self.wait_for(lambda: self.driver.current_url.endswith("/members"), "the members page")
        email = f"x'onmouseover=window.__xss=5'{uuid.uuid4().hex[:6]}@example.com"
        self.driver.find_element(By.ID, "email").send_keys(email)
        Select(self.driver.find_element(By.ID, "role")).select_by_value("viewer")
        self.driver.find_element(By.ID, "email").submit()
        password = self.wait_for(lambda: self.driver.find_element(By.ID, "secret").text, "the new member's password")
        self.assertIn(email.lower(), self.driver.find_element(By.TAG_NAME, "table").text)
        self.assert_nothing_ran()

        Select(self.driver.find_element(By.ID, "kind")).select_by_value("client")
        self.driver.find_element(By.ID, "kind").submit()
        key = self.wait_for(lambda: self.driver.find_element(By.ID, "secret").text, "the new key")
        self.assertTrue(key.startswith("wm_pk_"))
        fetch_status = """return fetch('/v1/catalog?platform=web', {cache: 'no-store', headers: {Authorization: 'Bearer ' + arguments[0]}}).then(r => r.status)"""
        self.assertEqual(self.driver.execute_script(fetch_status, key), 200)
        key_id = re.search(r"New client key (key_[0-9a-f]+)", self.driver.find_element(By.CSS_SELECTOR, ".notice").text).group(1)
        self.driver.find_element(By.CSS_SELECTOR, f"tr[data-key={key_id}] button.danger").click()
        self.wait_for(lambda: f"Key {key_id} is revoked" in self.driver.find_element(By.TAG_NAME, "body").text, "the revocation")
        self.assertEqual(self.driver.execute_script(fetch_status, key), 401)
        self.assertNotIn(key, self.driver.page_source, "a key is shown once")

        # The new member signs in with the password they were given, and sees the app as a viewer.
        self.driver.find_element(By.CSS_SELECTOR, ".signout button").click()
        self.wait_for(lambda: self.driver.current_url.endswith("/console/login"), "the login page")
        self.driver.find_element(By.ID, "email").send_keys(email)
        self.driver.find_element(By.ID, "password").send_keys(password)
        self.driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        self.wait_for(lambda: self.driver.current_url.endswith("/console/apps"), "the apps page")
        self.driver.get(self.app_url())
        self.assertIn("viewer", self.driver.find_element(By.CSS_SELECTOR, "header").text)
        self.assertEqual(self.driver.find_elements(By.LINK_TEXT, "Members and keys"), [])
        self.assert_nothing_ran()

    def test_analytics_pages_fit_a_phone_in_large_text(self):
        # A 360 px and a 320 px phone at 200% text: 180 and 160 CSS px wide. The page never scrolls
        # sideways (a wide table scrolls in its own box), a table's caption stays in view, and the
        # period's dates show whole.
        self.sign_in()
        for width, path in [(w, p) for w in (180, 160) for p in ("/analytics", "/analytics/tips/search-tip", "/segments")]:
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                        {"width": width, "height": 370, "deviceScaleFactor": 2, "mobile": True})
            self.driver.get(self.app_url(path))
            measured = self.driver.execute_script("""
                const root = document.documentElement;
                const captions = [...document.querySelectorAll('.scroll caption')].map((c) =>
                    [c.textContent, c.getBoundingClientRect().right, c.closest('.scroll').getBoundingClientRect().right]);
                // A date's digits as the phone draws them, and the picker's button beside them (24 px).
                const dates = [...document.querySelectorAll('form.period input[type=date]')].map((i) => {
                    const style = getComputedStyle(i), pen = document.createElement('canvas').getContext('2d');
                    pen.font = style.font;
                    const digits = pen.measureText(i.value.replace(/(\\d+)-(\\d+)-(\\d+)/, '$2/$3/$1')).width;
                    return digits + 24 <= i.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
                });
                return { page: root.scrollWidth, screen: root.clientWidth, captions, dates };""")
            self.assertLessEqual(measured["page"], measured["screen"], f"{path} at {width} px scrolls sideways")
            for text, right, box in measured["captions"]:
                self.assertLessEqual(right, box + 0.5, f"{path} at {width} px: the caption {text!r} runs past its box")
            self.assertEqual(measured["dates"], [True, True], f"{path} at {width} px: a date cut short")
        self.screenshot("console-segments-large-text")

    def seeded_events(self):
        with open(os.path.join(demo.facts["dataDir"], "sample-events.jsonl")) as file:
            return [json.loads(line) for line in file if line.strip()]

    def seeded_period(self):
        today = datetime.datetime.now(datetime.timezone.utc).date()
        return (today - datetime.timedelta(days=14)).isoformat(), (today - datetime.timedelta(days=1)).isoformat()

    def table(self, caption):
        """The rows of a figures table as {first cell: [cells...]}."""
        return self.driver.execute_script("""
            const table = [...document.querySelectorAll("table.figures")].find((t) => t.dataset.table === arguments[0]);
            if (!table) return null;
            const rows = {};
            for (const row of table.tBodies[0].rows) rows[row.dataset.key] = [...row.cells].map((c) => c.textContent.trim());
            return rows;""", caption)

    def test_the_analytics_pages_show_the_numbers_of_the_seeded_events(self):
        events = self.seeded_events()
        self.assertGreater(len(events), 1000)
        first, last = self.seeded_period()
        self.assertTrue(all(first <= e["timestamp"][:10] <= last for e in events))
        self.sign_in()
        self.driver.get(self.app_url(f"/analytics?from={first}&to={last}"))
        self.wait_for(lambda: self.table("Engagement by platform"), "the engagement table")

        # Engagement by platform, counted here from the file the demo seeded.
        users, sessions, counts = collections.defaultdict(set), collections.Counter(), collections.Counter()
        for event in events:
            platform = event["properties"]["platform"]
            users[platform].add(event["user"])
            counts[platform] += 1
            if event["name"] == "activation":
                sessions[platform] += 1
        shown = self.table("Engagement by platform")
        self.assertEqual(set(shown), set(users))
        for platform in users:
            self.assertEqual(shown[platform][1:4], [str(len(users[platform])), str(sessions[platform]), str(counts[platform])], platform)
            self.assertEqual(shown[platform][5], f"{counts[platform] / len(users[platform]):.2f}")

        # Tips: shown, acted on and closed are distinct users per tip.
        per_tip = collections.defaultdict(lambda: collections.defaultdict(set))
        for event in events:
            if event["name"] in ("tip_shown", "tip_dismissed", "tip_closed"):
                per_tip[event["target"]][event["name"]].add(event["user"])
        tips = self.table("Tips")
        self.assertGreaterEqual(len(per_tip), 3)
        for tip, names in per_tip.items():
            expected = [str(len(names["tip_shown"])), str(len(names["tip_dismissed"])), str(len(names["tip_closed"]))]
            self.assertEqual(tips[tip][2:5], expected, tip)

        # The tour's funnel: users who viewed and read each page.
        viewed, read = collections.defaultdict(set), collections.defaultdict(set)
        for event in events:
            if event["name"] == "page_viewed":
                viewed[event["properties"]["page"]].add(event["user"])
            if event["name"] == "page_read_to_bottom":
                read[event["properties"]["page"]].add(event["user"])
        tour = self.table("Tour shop-tour")
        for page in ("browse", "search", "checkout"):
            self.assertEqual([tour[page][1], tour[page][3]], [str(len(viewed[page])), str(len(read[page]))], page)

        # Satisfaction: the survey's answers and mean score.
        scores = [int(e["properties"]["score"]) for e in events if e["name"] == "survey_answered"]
        self.assertGreater(len(scores), 10)
        surveys = self.table("Surveys")
        self.assertEqual(surveys["checkout-survey"][1:4], ["CSAT", str(len(scores)), f"{sum(scores) / len(scores):.2f}"])
        satisfied = sum(1 for s in scores if s >= 4)
        self.assertEqual(surveys["checkout-survey"][4], f"{100 * satisfied / len(scores):.1f}%")

        # Charts are SVG drawn by the server, with a point per platform and day.
        points = self.driver.execute_script("return document.querySelectorAll('figure.chart svg circle.dot').length")
        self.assertEqual(points, 2 * 14 * len(users))

        # The CSV export has the very same rows.
        csv = self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch(arguments[0]).then((r) => r.text()).then(done, (e) => done(String(e)));""",
            self.app_url(f"/analytics/export/engagement.csv?from={first}&to={last}"))
        lines = csv.strip().split("\r\n")
        self.assertEqual(lines[0], "Platform,Active users,Sessions,Events,Sessions per user,Events per user,Relative engagement")
        for line in lines[1:]:
            cells = line.split(",")
            self.assertEqual(cells, shown[cells[0]])

        # One tip by platform and version, and the debugger for one seeded user.
        tip, names = max(per_tip.items(), key=lambda item: len(item[1]["tip_shown"]))
        user = sorted(names["tip_shown"])[0]
        self.driver.find_element(By.LINK_TEXT, tip).click()
        self.wait_for(lambda: self.table("By platform and app version"), "the tip's breakdown")
        self.driver.find_element(By.ID, "user").send_keys(user)
        self.driver.find_element(By.CSS_SELECTOR, "#user ~ button").click()
        explanation = self.wait_for(lambda: self.driver.find_element(By.CSS_SELECTOR, "#trace pre.explanation").text, "the explanation")
        self.assertTrue(explanation.startswith(f"tip {tip}: "), explanation)
        self.assertIn("trigger:", explanation)
        self.screenshot("console-analytics")

    def test_hostile_event_values_are_shown_as_text_in_analytics(self):
        hostile = '<img src=x onerror="window.__xss=5">'
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        batch = [{"id": str(uuid.uuid4()), "user": "mallory", "name": name, "target": "search-tip", "timestamp": now,
                  "properties": {"platform": hostile, "appVersion": "=cmd|' /C calc'!A0", "variant": hostile}}
                 for name in ("activation", "tip_shown")]
        result = demo.request("/v1/events", key=demo.facts["clientKey"], body={"events": batch})
        self.assertEqual([r["status"] for r in result["results"]], ["accepted", "accepted"])
        self.sign_in()
        self.driver.get(self.app_url("/analytics?days=1"))
        engagement = self.wait_for(lambda: self.table("Engagement by platform"), "the engagement table")
        self.assertIn(hostile, engagement)
        self.driver.get(self.app_url("/analytics/tips/search-tip?days=1"))
        breakdown = self.wait_for(lambda: self.table("By platform and app version"), "the breakdown")
        self.assertEqual(breakdown[hostile][1], "=cmd|' /C calc'!A0")
        self.assert_nothing_ran()
        # A spreadsheet opening the export does not run the version as a formula.
        csv = self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch(arguments[0]).then((r) => r.text()).then(done, (e) => done(String(e)));""",
            self.app_url("/analytics/export/platforms.csv?days=1&tip=search-tip"))
        self.assertIn(",'=cmd|' /C calc'!A0,", csv)

    def visible_selector(self, selector):
        return self.driver.execute_script("""
            const e = document.querySelector(arguments[0]);
            if (!e || e.hidden) return null;
            const box = e.getBoundingClientRect();
            return box.width > 0 && box.height > 0 ? e : null;""", selector)

    def visible_tip(self, tip_id):
        return self.visible_selector(f'[data-waymark-tip="{tip_id}"]')

    def screenshot(self, name):
        self.driver.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))


if __name__ == "__main__":
    unittest.main()
