"""Narration the server speaks, played by waymark.js in a real Chromium: a visible control, no
autoplay (even where the browser would allow it) until the user asks for the listener's mode or
the catalog makes it the default for their locale (the demo's `listen: [hi]`), the mode kept and
shared with the user's other devices, the anchored element highlighted while it speaks, and
narration_played / narration_completed stored on the server.

Run by scripts/test; see test_demo_shop.py for what it needs.
"""
import json
import os
import sqlite3
import time
import unittest
import urllib.request

from selenium.webdriver.common.by import By

from test_demo_shop import BrowserTest, start_demo
import test_demo_shop

demo = None


def setUpModule():
    global demo
    demo = start_demo(narration=True)
    # BrowserTest's helpers read the module's demo from test_demo_shop.
    test_demo_shop.demo = demo


def tearDownModule():
    demo.stop()


class NarrationTests(BrowserTest):
    def catalog_narration(self, locale, tip):
        with urllib.request.urlopen(urllib.request.Request(
                f"{demo.url}/v1/catalog?locale={locale}", headers={"Authorization": f"Bearer {demo.facts['clientKey']}"})) as response:
            catalog = json.loads(response.read())
        return next(t for t in catalog["tips"] if t["id"] == tip)["content"].get("narration")

    def events(self, user, names):
        with sqlite3.connect(os.path.join(demo.directory, "data", "waymark.sqlite")) as database:
            rows = database.execute(
                f"SELECT name, target, properties FROM events WHERE user = ? AND name IN ({','.join('?' * len(names))}) ORDER BY id",
                (user, *names)).fetchall()
        return [(name, target, json.loads(properties or "{}")) for name, target, properties in rows]

    def test_a_tip_plays_the_servers_hindi_speech_on_request_and_records_it(self):
        # The server speaks the Hindi welcome in the background, within seconds of the first request.
        deadline = time.time() + 60
        while (narration := self.catalog_narration("hi", "welcome")) is None and time.time() < deadline:
            time.sleep(0.3)
        self.assertIsNotNone(narration, "the server made no Hindi narration within 60 s")
        self.assertEqual(narration["source"], "generated")
        self.assertGreater(narration["duration"], 1)

        # A Hindi reader who turned the listener's mode (the demo's default for Hindi) off.
        self.open_shop("listener", "&locale=hi-IN")
        self.driver.execute_script("localStorage.setItem('waymark:listen', JSON.stringify({ on: false, at: Date.now() }))")
        self.driver.refresh()
        banner = self.wait_tip("welcome")
        button = banner.find_element(By.CSS_SELECTOR, "button.wm-narrate")
        minutes, seconds = divmod(round(narration["duration"]), 60)
        self.assertEqual(button.text, f"▶ सुनें {minutes}:{seconds:02d}")
        audio = lambda: self.driver.execute_script(
            "const a = document.querySelector('[data-waymark-tip=welcome] audio');"
            "return a && { paused: a.paused, time: a.currentTime, src: a.currentSrc || a.src, ended: a.ended,"
            " speaking: !!document.querySelector('[data-waymark-tip=welcome].wm-speaking') };")
        # This Chromium would autoplay (--autoplay-policy=no-user-gesture-required): the SDK does not.
        time.sleep(1)
        self.assertTrue(audio()["paused"], "narration never starts by itself")
        self.assertIn(f"/v1/narration/{demo.facts['appId']}/", audio()["src"])
        self.assertFalse(audio()["speaking"])
        self.assertEqual(self.events("listener", ["narration_played"]), [])

        button.click()
        self.wait_for(lambda d: not audio()["paused"] and audio()["time"] > 0.2, "the narration to play")
        self.assertTrue(audio()["speaking"], "the tip is highlighted while it speaks")
        self.screenshot("narration-speaking")
        self.wait_for(lambda d: audio()["ended"], "the narration to end", timeout=narration["duration"] + 15)
        self.assertFalse(audio()["speaking"], "the highlight ends with the speech")
        self.assertEqual(button.text, f"▶ सुनें {minutes}:{seconds:02d}")

        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.flush()")
        self.wait_for(lambda d: len(self.events("listener", ["narration_played", "narration_completed"])) == 2,
                      "both narration events on the server")
        played, completed = self.events("listener", ["narration_played", "narration_completed"])
        self.assertEqual((played[0], played[1]), ("narration_played", "welcome"))
        self.assertEqual((completed[0], completed[1]), ("narration_completed", "welcome"))
        self.assertEqual((played[2]["contentLocale"], played[2]["source"], played[2]["locale"]), ("hi", "generated", "hi-IN"))

    def test_the_anchored_element_is_highlighted_while_its_tip_speaks(self):
        # The search pointer's tip (an A/B variant for this user) points at the search button.
        deadline = time.time() + 60
        while self.catalog_narration("en&user=anchored", "search-tip") is None and time.time() < deadline:
            time.sleep(0.3)
        self.open_shop("anchored", "&locale=en")
        self.driver.execute_script("window.scrollBy(0, 400)")
        tip = self.wait_tip("search-tip")
        self.driver.execute_script("window.scrollTo(0, 0)")
        tip.find_element(By.CSS_SELECTOR, "button.wm-narrate").click()
        highlighted = "return [...document.querySelectorAll('.wm-speaking')].map(e => e.id || e.dataset.waymarkAnchor || e.className)"
        self.wait_for(lambda d: d.execute_script(highlighted) == ["search"], "the search button to be highlighted")
        self.screenshot("narration-anchor")
        self.driver.execute_script("document.querySelector('[data-waymark-tip=search-tip] audio').pause()")
        self.wait_for(lambda d: d.execute_script(highlighted) == [], "the highlight to go")

    def test_a_listener_hears_every_tip_as_it_appears_once_they_asked_and_on_their_next_visit(self):
        user = "hears"
        deadline = time.time() + 60
        while (self.catalog_narration(f"en&user={user}", "welcome") is None or self.catalog_narration(f"en&user={user}", "search-tip") is None) \
                and time.time() < deadline:
            time.sleep(0.3)
        self.open_shop(user, "&locale=en")
        banner = self.wait_tip("welcome")
        # The dock's toggle (under the banner, which covers the dock while it shows).
        listen = self.wait_for(lambda d: d.find_elements(By.CSS_SELECTOR, '[data-waymark-ui="listen"]'), "the dock's Listen to tips")[0]
        self.assertEqual(listen.get_attribute("textContent"), "🔊 Listen to tips")
        self.assertEqual(listen.get_attribute("aria-pressed"), "false", "nothing speaks before the user asks")
        playing = "return [...document.querySelectorAll('audio.wm-narration')].filter((a) => !a.paused).map((a) => a.closest('[data-waymark-tip]')?.dataset.waymarkTip)"
        # Pressing Listen on one tip plays it, and is asking to hear tips: the mode turns on.
        banner.find_element(By.CSS_SELECTOR, "button.wm-narrate").click()
        self.wait_for(lambda d: d.execute_script(playing) == ["welcome"], "the welcome to speak")
        self.wait_for(lambda d: listen.get_attribute("aria-pressed") == "true", "the mode on")
        self.driver.execute_script("document.querySelector('[data-waymark-tip=welcome] audio').pause()")
        # The next tip speaks by itself as it appears, one at a time.
        self.driver.execute_script("window.scrollBy(0, 400)")
        self.wait_tip("search-tip")
        self.wait_for(lambda d: d.execute_script(playing) == ["search-tip"], "the search tip to speak by itself")
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.flush()")
        self.wait_for(lambda d: [e[1] for e in self.events(user, ["narration_played"])] == ["welcome", "search-tip"],
                      "both narrations played on the server")
        # The next visit keeps the mode: its first tip speaks as it appears.
        self.driver.refresh()
        self.wait_tip("welcome")
        self.wait_for(lambda d: d.execute_script(playing) == ["welcome"], "the welcome to speak on the next visit")
        # Turned off in the dock (free once the banner goes), it stops, and the next tip waits for a tap again.
        self.driver.execute_script("(await import('/sdk/waymark.js')).Waymark.close('welcome')")
        self.wait_for(lambda d: self.visible('[data-waymark-ui="listen"]'), "the toggle").click()
        self.wait_for(lambda d: d.execute_script(playing) == [], "silence")
        self.assertEqual(self.visible('[data-waymark-ui="listen"]').get_attribute("aria-pressed"), "false")
        self.driver.execute_script("""
            const { Waymark } = await import('/sdk/waymark.js');
            Waymark.client.renderer.draw(Waymark.client.catalog.tips.find((t) => t.id === 'welcome'));""")
        self.wait_tip("welcome")
        time.sleep(1.5)  # seen after half a second: it would speak by now
        self.assertEqual(self.driver.execute_script(playing), [])

    def test_hindi_readers_start_in_the_listeners_mode_and_their_choice_follows_them(self):
        user = "hindi-listener"
        deadline = time.time() + 60
        while self.catalog_narration(f"hi&user={user}", "welcome") is None and time.time() < deadline:
            time.sleep(0.3)
        playing = "return [...document.querySelectorAll('audio.wm-narration')].filter((a) => !a.paused).map((a) => a.closest('[data-waymark-tip]')?.dataset.waymarkTip)"
        pressed = "return document.querySelector('[data-waymark-ui=\"listen\"]')?.getAttribute('aria-pressed')"
        # The demo's catalog makes the mode the default for Hindi: the welcome speaks as it appears.
        self.open_shop(user, "&locale=hi-IN")
        self.wait_tip("welcome")
        self.wait_for(lambda d: d.execute_script(pressed) == "true", "the toggle pressed by default")
        self.wait_for(lambda d: d.execute_script(playing) == ["welcome"], "the welcome to speak by itself")
        # The reader turns it off (in the dock, free once the banner goes): it stays off, by their choice.
        self.driver.execute_script("(await import('/sdk/waymark.js')).Waymark.close('welcome')")
        self.wait_for(lambda d: self.visible('[data-waymark-ui="listen"]'), "the toggle").click()
        self.wait_for(lambda d: d.execute_script(pressed) == "false", "the mode off")
        self.assertEqual(self.driver.execute_script(playing), [])
        # Their choice goes with their progress: a new device (nothing kept in its browser) starts
        # with the catalog's default, then takes the later choice the server holds.
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.client.syncProgress()")
        self.driver.execute_script("(await import('/sdk/waymark.js')).Waymark.stop(); localStorage.clear()")
        self.driver.refresh()
        self.wait_for(lambda d: d.execute_script(
            "return (await import('/sdk/waymark.js')).Waymark.client?.catalog !== undefined"), "the SDK on the new device")
        self.wait_for(lambda d: d.execute_script(pressed) == "false", "the reader's own choice from their other device")
        self.assertEqual(json.loads(self.driver.execute_script("return localStorage.getItem('waymark:listen')"))["on"], False)
        # Someone reading in English starts with it off.
        self.open_shop("english-reader", "&locale=en")
        self.wait_tip("welcome")
        self.wait_for(lambda d: d.execute_script(pressed) == "false", "off for English by default")


if __name__ == "__main__":
    unittest.main()
