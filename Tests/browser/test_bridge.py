"""A hybrid app: the web SDK in Chromium as the page of a WebView, joined through the bridge's
message protocol to the Android core (android/src/test/java/dev/waymark/client/BridgeHost.java,
whose loopback HTTP server stands in for the WebView's JavaScript interface), against a real
`waymark demo`. One user, one history, one engine: the core decides, the page draws the tips of its
own container, and what the user does in the page joins the app's events in order.

Run by scripts/test; see test_demo_shop.py for what it needs (and android/make for the JDK's).
"""
import hashlib
import hmac
import json
import os
import shutil
import subprocess
import tempfile
import urllib.request

from selenium.webdriver.common.by import By

from test_demo_shop import ROOT, BrowserTest, chrome, own_demo
import test_demo_shop

set_up_demo, tear_down_demo = own_demo(narration=False)
host = None

USER = "asha"


class Host:
    """BridgeHost: the Android core for USER with the bridge, on a loopback port of its own."""

    def __init__(self, demo):
        subprocess.run([os.path.join(ROOT, "android", "make"), "host"], check=True, stdout=subprocess.DEVNULL)
        self.directory = tempfile.mkdtemp(prefix="waymark-bridge-")
        build = os.path.join(ROOT, "android", ".build")
        classpath = ":".join([os.path.join(build, "classes"), os.path.join(build, "test-classes"), "/usr/share/java/com.android.json.jar"])
        user_hash = hmac.new(demo.facts["identitySecret"].encode(), USER.encode(), hashlib.sha256).hexdigest()
        self.process = subprocess.Popen(
            ["java", "-cp", classpath, "dev.waymark.client.BridgeHost", demo.url, demo.facts["clientKey"], USER, user_hash, self.directory],
            stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line.startswith("listening on "):
            raise RuntimeError(f"BridgeHost did not start: {line!r}")
        self.url = f"http://127.0.0.1:{int(line.split()[-1])}"

    def app(self, what, **query):
        url = f"{self.url}/app/{what}" + ("?" + urllib.parse.urlencode(query) if query else "")
        with urllib.request.urlopen(urllib.request.Request(url, method="POST" if what != "state" else "GET"), timeout=30) as response:
            text = response.read()
            return json.loads(text) if text else None

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)
        shutil.rmtree(self.directory, ignore_errors=True)


def setUpModule():
    global host
    set_up_demo()
    host = Host(test_demo_shop.demo)


def tearDownModule():
    host.stop()
    tear_down_demo()


class BridgeTests(BrowserTest):
    def setUp(self):
        self.driver = chrome(360, 740)
        self.addCleanup(self.driver.quit)
        self.at((360, 740))

    def test_the_page_draws_what_the_core_decides_and_the_core_hears_the_page(self):
        demo = test_demo_shop.demo
        self.driver.get(f"{host.url}/page")
        self.wait_for(lambda d: d.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the page")
        # The welcome banner's container is the app's: its renderer draws it, the page does not.
        self.wait_for(lambda d: "show welcome" in host.app("state")["drawn"], "the app to draw the welcome")
        self.assertEqual(self.driver.find_elements(By.CSS_SELECTOR, '[data-waymark-tip="welcome"]'), [])

        # The app's own step, then a tap in the page: the core's rule (tap:search-hint AND
        # activation) holds, and the page draws its tip, in Hindi, pointing at the search button.
        host.app("record", name="webview_opened")
        self.driver.find_element(By.CSS_SELECTOR, '[data-waymark="search-hint"]').click()
        tip = self.wait_tip("search-tip")
        self.assertIn("कुछ ढूँढ रहे हैं?", tip.text)
        self.assertNotIn("show search-tip", host.app("state")["drawn"])
        self.screenshot("bridge-search-tip-hi-360")
        # A reload (the WebView's page again): the core tells the new page what shows there.
        self.driver.refresh()
        tip = self.wait_tip("search-tip")
        # Closed in the page, closed in the one engine.
        tip.find_element(By.CSS_SELECTOR, ".wm-close").click()
        self.wait_tip("search-tip", shown=False)
        self.wait_for(lambda d: host.app("state")["phases"]["search-tip"] == "finished:closed", "the core to close it")
        # A tip of the page's container whose anchor the page does not have (the product row):
        # reported to the core, once, for the console to show its author.
        self.driver.execute_script("const {Waymark} = await import(arguments[0]); Waymark.screen('home'); Waymark.track('scroll')",
                                   f"{demo.url}/sdk/waymark.js")
        self.wait_for(lambda d: d.find_elements(By.CSS_SELECTOR, '[data-waymark-tip="swipe-hint"]'), "the swipe hint to be drawn")
        host.app("record", name="webview_left")
        self.wait_for(lambda d: host.app("flush") is None and demo.query(
            f"SELECT COUNT(*) FROM events WHERE user = '{USER}' AND name = 'anchor_missing' AND target = 'swipe-hint'") == [("1",)],
            "the missing anchor's report", timeout=20)

        # One history, in order: the app's events and the page's, all the one user's.
        rows = demo.query(f"SELECT name, target FROM events WHERE user = '{USER}' ORDER BY timestamp, id")
        sequence = [f"{name} {target}" if target not in ("", "None") else name for name, target in rows
                    if name.startswith("webview_") or target in ("search-hint", "search-tip")]
        self.assertEqual(sequence, ["webview_opened", "tap search-hint", "tip_shown search-tip", "tip_closed search-tip", "webview_left"])
        missing = demo.query(f"SELECT properties FROM events WHERE user = '{USER}' AND name = 'anchor_missing'")
        self.assertEqual(json.loads(missing[0][0])["anchor"], "product-carousel")
        self.assertEqual(json.loads(missing[0][0])["screen"], "home")
        # Progress is the app's: shared with the user's other devices as theirs.
        progress = json.loads(demo.query(f"SELECT document FROM user_progress WHERE user = '{USER}'")[0][0])
        self.assertEqual(progress["tips"]["search-tip"]["finished"], "closed")
        # The page is no user of its own: it asked the server's API for nothing, and keeps nothing
        asked = self.driver.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
        self.assertEqual([url for url in asked if url.startswith(demo.url) and "/v1/" in url], [])
        # (but the app's listener's mode, which the catalog turns on for Hindi, so the page speaks as the app does).
        self.assertEqual(self.driver.execute_script("return Object.keys(localStorage).filter((k) => k.startsWith('waymark:'))"),
                         ["waymark:listen-default"])
