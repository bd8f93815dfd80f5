"""The web SDK and the demo shop in a real Chromium, against a real `waymark demo` server.

Run by scripts/test (which installs chromium, chromium-driver and selenium into .venv):
    .venv/bin/python -m unittest discover -s Tests/browser -v
WAYMARK_BINARY names the waymark executable (default .build/debug/waymark). Screenshots of the main
moments go to .build/screenshots/.
"""
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import time
import unittest
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("WAYMARK_BINARY", os.path.join(ROOT, ".build", "debug", "waymark"))
SCREENSHOTS = os.path.join(ROOT, ".build", "screenshots")


def fresh_postgres_database():
    """A new, empty database in the throwaway cluster scripts/test starts (WAYMARK_TEST_POSTGRES)."""
    admin = os.environ["WAYMARK_TEST_POSTGRES"]
    name = f"waymark_browser_{os.getpid()}_{int(time.time() * 1000)}"
    subprocess.run([psql(), admin, "-qc", f"CREATE DATABASE {name}"], check=True)
    return admin.rsplit("/", 1)[0] + "/" + name


def psql():
    return shutil.which("psql") or sorted(__import__("glob").glob("/usr/lib/postgresql/*/bin/psql"))[-1]


class Demo:
    """A `waymark demo` process on a free loopback port with a fresh data directory (and, with
    database, in that PostgreSQL database); with narration=False it makes no speech, so tips keep
    only their recordings (or the browser's voice)."""

    def __init__(self, narration=True, database=None):
        self.directory = tempfile.mkdtemp(prefix="waymark-browser-")
        self.database = database
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.process = subprocess.Popen(
            [BINARY, "demo", "--port", str(self.port), "--data-dir", os.path.join(self.directory, "data"), "--log-level", "warning",
             "--narration", "on" if narration else "off"] + (["--database", database] if database else []),
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.directory, "demo.err"), "w"))
        facts_path = os.path.join(self.directory, "data", "demo.json")
        for _ in range(300):
            if os.path.exists(facts_path) and os.path.getsize(facts_path) > 0:
                break
            if self.process.poll() is not None:
                raise RuntimeError("waymark demo exited: " + open(os.path.join(self.directory, "demo.err")).read())
            time.sleep(0.1)
        time.sleep(0.2)
        with open(facts_path) as file:
            self.facts = json.load(file)
        self.url = self.facts["server"]

    def request(self, path, key=None, body=None, method=None):
        headers = {"Authorization": f"Bearer {key or self.facts['secretKey']}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.url + path, data=data, headers=headers, method=method)
        with urllib.request.urlopen(request) as response:
            text = response.read()
            return json.loads(text) if response.headers.get_content_type() == "application/json" else text.decode()

    def query(self, sql):
        """The rows of a query against the demo's database, each a tuple of text; `user` names the
        user column on either store."""
        if self.database:
            output = subprocess.run([psql(), self.database, "-AtF", "\t", "-c", sql.replace("user =", "user_id =")],
                                    check=True, capture_output=True, text=True).stdout
            return [tuple(line.split("\t")) for line in output.splitlines()]
        with sqlite3.connect(os.path.join(self.directory, "data", "waymark.sqlite")) as database:
            return [tuple(str(value) for value in row) for row in database.execute(sql)]

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=20)
        shutil.rmtree(self.directory, ignore_errors=True)


def chrome(width=1200, height=900):
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={width},{height}",
                     "--autoplay-policy=no-user-gesture-required", "--mute-audio"):
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_script_timeout(20)
    return driver


def start_demo(narration=True):
    """A demo server for one test module, with the screenshot folder ready."""
    os.makedirs(SCREENSHOTS, exist_ok=True)
    return Demo(narration)


def own_demo(narration=True):
    """setUpModule and tearDownModule for a test module with a demo server of its own, which
    BrowserTest's helpers use."""
    def set_up():
        global demo
        demo = start_demo(narration)

    def tear_down():
        demo.stop()

    return set_up, tear_down


demo = None


def setUpModule():
    global demo
    # Without server speech: these tests see the catalog's own recording and the browser's voice
    # (test_narration.py has the server's).
    demo = start_demo(narration=False)


def tearDownModule():
    demo.stop()


class BrowserTest(unittest.TestCase):
    def setUp(self):
        self.driver = chrome()
        self.addCleanup(self.driver.quit)

    def open_shop(self, user, query=""):
        self.driver.get(f"{demo.url}/demo/?user={user}{query}")
        self.wait_for(lambda d: d.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the shop to start")
        error = self.driver.execute_script("return document.documentElement.dataset.waymarkError")
        self.assertIsNone(error)

    def wait_for(self, condition, what, timeout=10):
        try:
            # Any driver error is asked again: between pages, an element read may be gone (stale) or
            # its node no longer in the document, which is no failure of what is awaited.
            return WebDriverWait(self.driver, timeout, poll_frequency=0.1,
                                 ignored_exceptions=(WebDriverException,)).until(condition)
        except TimeoutException:
            console = "\n".join(entry["message"] for entry in self.driver.get_log("browser"))
            self.fail(f"timed out waiting for {what}; the browser's console:\n{console}")

    def tip(self, tip_id):
        """The tip's element when it is drawn and visible, else None (one query, so never stale)."""
        return self.visible(f'[data-waymark-tip="{tip_id}"]')

    def visible(self, selector):
        return self.driver.execute_script("""
            const e = document.querySelector(arguments[0]);
            if (!e || e.hidden) return null;
            const box = e.getBoundingClientRect(), style = getComputedStyle(e);
            return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none' ? e : null;""",
            selector)

    def wait_tip(self, tip_id, shown=True, timeout=10):
        self.wait_for(lambda d: (self.tip(tip_id) is not None) == shown, f"tip {tip_id} to be {'shown' if shown else 'gone'}", timeout)
        return self.tip(tip_id)

    def screenshot(self, name):
        self.driver.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))

    def at(self, size, reduced_motion=False):
        """The page at a phone's size ((width, height), 360x740 in the tests) or the desktop's (None),
        with or without reduced motion."""
        if size:
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                        {"width": size[0], "height": size[1], "deviceScaleFactor": 2, "mobile": True})
        else:
            self.driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-reduced-motion", "value": "reduce" if reduced_motion else ""}]})

    def open_without_welcome(self, user, query=""):
        """Opens the shop and sets the welcome banner aside with its Not now button: it covers the
        bottom of the screen, where the launchers are."""
        self.open_shop(user, query)
        self.wait_tip("welcome").find_element(By.CSS_SELECTOR, '[data-waymark-action="later"]').click()
        self.wait_tip("welcome", shown=False)

    def drain_queue(self, user):
        """Sends the user's queued events and waits until the server has them all."""
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.flush()")
        self.wait_for(lambda d: d.execute_script(
            "return JSON.parse(localStorage.getItem(Object.keys(localStorage).find(k => k.endsWith(`:${arguments[0]}:queue`))) || '[]')"
            ".length", user) == 0, "the queue to drain")

    def stored_events(self, user, where):
        """The user's stored events matching the SQL condition `where`, in order: (name, target, properties)."""
        self.drain_queue(user)
        with sqlite3.connect(os.path.join(demo.directory, "data", "waymark.sqlite")) as database:
            rows = database.execute(f"SELECT name, target, properties FROM events WHERE user = ? AND ({where}) ORDER BY id", (user,))
            return [(name, target, json.loads(properties)) for name, target, properties in rows]


class TipsTests(BrowserTest):
    def test_tips_appear_and_disappear_by_their_rules(self):
        self.open_shop("alice")
        # The welcome banner: trigger `activation`.
        banner = self.wait_tip("welcome")
        self.assertIn("Welcome to the shop", banner.text)
        self.assertEqual(banner.get_attribute("role"), "dialog")
        self.assertIsNone(self.tip("search-tip"), "not before its rule holds")
        # `(tap:search-hint AND activation) OR scroll within 30s`: a scroll shows the search pointer.
        self.driver.execute_script("window.scrollBy(0, 400)")
        self.wait_tip("search-tip")
        pointer = self.driver.find_element(By.CSS_SELECTOR, '[data-waymark-ui="pointer"]')
        self.assertEqual(pointer.get_attribute("data-gesture"), "tap")
        # The pointer sits on its anchor, the search button (centre on centre, in one layout).
        centres = self.driver.execute_script("""
            const centre = (e) => { const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; };
            return [centre(arguments[0]), centre(document.getElementById('search'))];""", pointer)
        self.assertLess(abs(centres[0][0] - centres[1][0]), 1, centres)
        self.assertLess(abs(centres[0][1] - centres[1][1]), 1, centres)
        # Doing what the tip teaches dismisses it; the search screen dismisses the welcome too.
        self.driver.execute_script("window.scrollTo(0, 0)")
        time.sleep(0.3)  # the tip follows its anchor on scroll
        self.screenshot("search-tip")
        # Counted once it has been on the screen for a moment (test_counted.py).
        self.wait_for(lambda d: not d.execute_script(
            "return (await import('/sdk/waymark.js')).Waymark.client.unseen.has('search-tip')"), "the search tip seen")
        self.driver.find_element(By.ID, "search").click()
        self.wait_tip("search-tip", shown=False)
        self.wait_tip("welcome", shown=False)
        # The lifecycle reached the server: tip_shown and tip_dismissed for both.
        names = self.stored_names("alice")
        for expected in ("activation", "screen", "scroll", "tip_shown", "tap", "tip_dismissed"):
            self.assertIn(expected, names)
        # welcome and search-tip shown and dismissed (the freed home area may show the swipe hint too).
        self.assertGreaterEqual(names.count("tip_shown"), 2)
        self.assertEqual(names.count("tip_dismissed"), 2)
        self.assertLess(names.index("activation"), names.index("tip_shown"), "time-ordered ids keep the order")

    def stored_names(self, user):
        """The names of the user's events in the server's database, once the SDK's queue drained."""
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.flush()")
        self.wait_for(lambda d: d.execute_script(
            "return JSON.parse(localStorage.getItem(Object.keys(localStorage).find(k => k.endsWith(':queue'))) || '[]').length") == 0,
            "the queue to drain")
        with sqlite3.connect(os.path.join(demo.directory, "data", "waymark.sqlite")) as database:
            return [row[0] for row in database.execute("SELECT name FROM events WHERE user = ? ORDER BY id", (user,))]

    def test_a_survey_asks_for_a_score_and_sends_the_answer(self):
        self.open_shop("sofia")
        self.driver.execute_script("location.hash = '#/cart'")
        self.wait_for(lambda d: self.visible("#checkout"), "the cart")
        self.driver.find_element(By.ID, "checkout").click()
        survey = self.wait_tip("checkout-survey")
        self.assertIn("How easy was checking out?", survey.text)
        send = survey.find_element(By.CSS_SELECTOR, ".wm-survey button[type=submit]")
        self.assertFalse(send.is_enabled(), "nothing to send before a score")
        radios = survey.find_elements(By.CSS_SELECTOR, ".wm-scale input[type=radio]")
        self.assertEqual([r.get_attribute("value") for r in radios], ["1", "2", "3", "4", "5"])
        survey.find_elements(By.CSS_SELECTOR, ".wm-scale span")[4].click()
        # The scores are one radio group: the arrow keys move the choice.
        self.driver.execute_script("arguments[0].focus()", radios[4])
        ActionChains(self.driver).send_keys(Keys.ARROW_LEFT).perform()
        self.assertEqual(self.driver.execute_script("return document.querySelector('.wm-scale input:checked').value"), "4")
        self.assertTrue(send.is_enabled())
        comment = '<img src=x onerror="window.__xss=7"> é' * 40
        survey.find_element(By.CSS_SELECTOR, "textarea.wm-comment").send_keys(comment)
        self.screenshot("survey")
        send.click()
        # The demo's survey has an ending: thanks, and its buttons (test_actions.py); Done leaves it.
        self.wait_for(lambda d: self.visible('[data-waymark-action="done"]'), "the survey's ending").click()
        self.wait_tip("checkout-survey", shown=False)
        names = self.stored_names("sofia")
        self.assertIn("survey_answered", names)
        with sqlite3.connect(os.path.join(demo.directory, "data", "waymark.sqlite")) as database:
            (properties,) = database.execute(
                "SELECT properties FROM events WHERE user = 'sofia' AND name = 'survey_answered'").fetchone()
            dismissed = database.execute(
                "SELECT COUNT(*) FROM events WHERE user = 'sofia' AND name = 'tip_dismissed' AND target = 'checkout-survey'").fetchone()[0]
        answer = json.loads(properties)
        self.assertEqual((answer["score"], answer["tip"], answer["platform"]), ("4", "checkout-survey", "web"))
        # The textarea keeps 500 characters; the SDK cuts them to the 512 bytes a property holds.
        self.assertLessEqual(len(answer["comment"].encode()), 512)
        self.assertTrue(comment.startswith(answer["comment"]))
        self.assertGreater(len(answer["comment"]), 400)
        self.assertEqual(dismissed, 1, "answering is the survey's dismissal")
        self.assertIsNone(self.driver.execute_script("return window.__xss ?? null"))

    def test_an_apps_own_event_keeps_its_property_types_on_the_way_to_the_server(self):
        self.open_shop("meera")
        self.driver.execute_script(
            "(await import('/sdk/waymark.js')).Waymark.track('purchase', 'order-1',"
            " {amount: 799.5, items: 2, cod: true, sku: '42', note: {a: 1}, ratio: NaN})")
        self.assertIn("purchase", self.stored_names("meera"))
        with sqlite3.connect(os.path.join(demo.directory, "data", "waymark.sqlite")) as database:
            (properties,) = database.execute(
                "SELECT properties FROM events WHERE user = 'meera' AND name = 'purchase'").fetchone()
        stored = json.loads(properties)
        # Text, numbers and flags keep their types; what JSON or rules cannot hold goes as text, as before.
        self.assertEqual(
            {key: stored[key] for key in ("amount", "items", "cod", "sku", "note", "ratio", "platform")},
            {"amount": 799.5, "items": 2, "cod": True, "sku": "42", "note": "[object Object]", "ratio": "NaN", "platform": "web"})

    def test_identify_sets_typed_attributes_for_the_rules_the_server_and_the_users_other_browser(self):
        demo.request("/v1/admin/catalog/draft/tips/plus-offer", method="PUT", body={
            "id": "plus-offer", "container": "offers", "trigger": "activation", "renderer": "banner",
            "targeting": 'user.plan == "plus" AND user.firstOrderAt < 2026-01-01 AND user.appBuild >= v5.2',
            "content": {"title": "Plus members", "body": "Free delivery today."}})
        demo.request("/v1/admin/catalog/draft/tips/cod-note", method="PUT", body={
            "id": "cod-note", "container": "notes", "trigger": "activation AND user.codUser == true", "renderer": "banner",
            "content": {"title": "Cash on delivery", "body": "Keep change ready."}})
        demo.request("/v1/admin/catalog/publish", body={}, method="POST")
        self.open_shop("priya")
        time.sleep(0.5)
        self.assertIsNone(self.tip("plus-offer"))
        self.assertIsNone(self.tip("cod-note"))
        outcome = self.driver.execute_script(
            "return (await import('/sdk/waymark.js')).Waymark.identify('priya', {plan: 'plus', cityTier: 2, codUser: true,"
            " firstOrderAt: new Date('2025-06-01T10:30:00+05:30'), appBuild: {version: '5.10'}, trial: null})")
        self.assertEqual(outcome["outcome"], "granted", outcome)
        # The device's rules read the attribute at once; the server's targeting after the catalog
        # comes again. Three banners want the bottom of the screen: one shows at a time, in the
        # order they came (the welcome first), the others waiting their turn.
        drawn = lambda tip: self.driver.execute_script(f"return Boolean(document.querySelector('[data-waymark-tip=\"{tip}\"]'))")
        self.wait_for(lambda d: drawn("cod-note") and drawn("plus-offer"), "both banners drawn")
        self.assertIsNotNone(self.tip("welcome"))
        self.assertIsNone(self.tip("cod-note"), "waiting for the welcome banner")
        self.driver.execute_script("(await import('/sdk/waymark.js')).Waymark.close('welcome')")
        self.wait_tip("cod-note")
        self.assertIsNone(self.tip("plus-offer"), "waiting for the cash-on-delivery note")
        self.driver.execute_script("(await import('/sdk/waymark.js')).Waymark.close('cod-note')")
        self.wait_tip("plus-offer")
        with sqlite3.connect(os.path.join(demo.directory, "data", "waymark.sqlite")) as database:
            stored = dict((name, (kind, value)) for name, kind, value in database.execute(
                "SELECT name, type, value FROM user_attributes WHERE user = 'priya'"))
        self.assertEqual(stored, {"plan": ("text", "plus"), "cityTier": ("number", "2"), "codUser": ("bool", "true"),
                                  "firstOrderAt": ("time", "2025-06-01T05:00:00Z"), "appBuild": ("version", "5.10")})

        # Another browser (nothing kept) of the same user gets the targeted tip from its first catalog.
        other = chrome()
        self.addCleanup(other.quit)
        other.get(f"{demo.url}/demo/?user=priya")
        WebDriverWait(other, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, '[data-waymark-tip="plus-offer"]'))
        self.assertEqual(other.find_elements(By.CSS_SELECTOR, '[data-waymark-tip="cod-note"]'), [],
                         "attributes set on one device reach another's targeting, not its own rules")

        # Identifying someone else starts the SDK again for them: nothing of priya's carries over.
        user = self.driver.execute_script(
            "const {Waymark} = await import('/sdk/waymark.js'); await Waymark.identify('ravi', {plan: 'plus'}); return Waymark.client.user")
        self.assertEqual(user, "ravi")
        self.wait_tip("plus-offer", shown=False)

    def test_progress_follows_the_user_to_their_other_browser(self):
        # On SQLite (this module's demo) and on PostgreSQL (a demo of its own, in a fresh database).
        stores = [("sqlite", demo)]
        if os.environ.get("WAYMARK_TEST_POSTGRES"):
            on_postgres = Demo(narration=False, database=fresh_postgres_database())
            self.addCleanup(on_postgres.stop)
            stores.append(("postgres", on_postgres))
        for name, server in stores:
            with self.subTest(store=name):
                self.progress_follows_the_user(server)

    def progress_follows_the_user(self, server):
        self.driver.get(f"{server.url}/demo/?user=pia")
        self.wait_for(lambda d: d.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the shop")
        banner = self.wait_tip("welcome")
        banner.find_element(By.CSS_SELECTOR, ".wm-close").click()
        self.wait_tip("welcome", shown=False)
        # The tour read to its second page.
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.startTour('shop-tour', 0)")
        panel = self.wait_for(lambda d: self.visible('[data-waymark-tour="shop-tour"]'), "the tour panel")
        panel.find_element(By.CSS_SELECTOR, ".wm-next").click()

        def stored():
            rows = server.query("SELECT document FROM user_progress WHERE user = 'pia'")
            return json.loads(rows[0][0]) if rows else {}
        # Shared two seconds after the changes, without being asked.
        self.wait_for(lambda d: stored().get("tips", {}).get("welcome", {}).get("finished") == "closed"
                      and stored().get("tours", {}).get("shop-tour") == {"page": 1, "finished": False}, "the server to keep them")
        # Closing the tour dismisses it (it does not open by its trigger again), everywhere.
        self.driver.execute_script("document.querySelector('.wm-tour .wm-close').click()")
        self.wait_for(lambda d: stored()["tours"]["shop-tour"] == {"page": 1, "finished": False, "dismissed": True}, "the dismissed tour")

        # Another browser (nothing kept) of the same user: the closed tip does not stay, and its
        # hiding there is no second close in the analytics.
        other = chrome()
        self.addCleanup(other.quit)
        other.get(f"{server.url}/demo/?user=pia")
        phase = ("const {Waymark} = await import('/sdk/waymark.js'); const c = Waymark.client;"
                 " return [c?.engine?.phase('welcome'), c?.gate?.ended('shop-tour'), c?.tourProgress['shop-tour']?.page]")
        WebDriverWait(other, 10).until(lambda d: d.execute_script(phase) == ["finished:closed", True, 1])
        self.assertEqual(other.find_elements(By.CSS_SELECTOR, '[data-waymark-tip="welcome"]'), [])
        # A tour its trigger opens again opens at the furthest page the user reached anywhere.
        other.execute_script("(await import('/sdk/waymark.js')).Waymark.client.tourProgress['shop-tour'] = {page: 1, finished: false}")
        other.find_element(By.ID, "tour-start").click()
        WebDriverWait(other, 10).until(
            lambda d: "Page 2 of 3" in (d.execute_script("return document.querySelector('[data-waymark-tour]')?.innerText") or ""))
        other.execute_script("return (await import('/sdk/waymark.js')).Waymark.flush()")
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.flush()")
        closes = server.query("SELECT COUNT(*) FROM events WHERE user = 'pia' AND name = 'tip_closed' AND target = 'welcome'")
        self.assertEqual(closes, [("1",)])
        # Someone else still gets the welcome.
        other.get(f"{server.url}/demo/?user=paul")
        WebDriverWait(other, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, '[data-waymark-tip="welcome"]'))

    def test_priority_and_one_tip_per_container(self):
        self.open_shop("bob")
        self.wait_tip("welcome")
        # search-tip (priority 10) and swipe-hint (5) both want the home container after a scroll.
        self.driver.execute_script("window.scrollBy(0, 300)")
        self.wait_tip("search-tip")
        time.sleep(0.5)
        self.assertIsNone(self.tip("swipe-hint"), "one tip per container")
        # Closing the search tip frees the container for the next one.
        self.driver.execute_script("window.scrollTo(0, 0)")
        time.sleep(0.3)  # the tip follows its anchor on scroll
        self.tip("search-tip").find_element(By.CSS_SELECTOR, ".wm-close").click()
        self.wait_tip("search-tip", shown=False)
        swipe = self.wait_tip("swipe-hint")
        self.assertEqual(self.driver.find_element(By.CSS_SELECTOR, '[data-waymark-ui="pointer"]').get_attribute("data-gesture"), "swipe-left")
        self.assertIn("More products", swipe.text)
        self.screenshot("swipe-hint")
        # Swiping the carousel (the app reports pan:product-carousel) dismisses it.
        self.driver.execute_script("document.getElementById('product-carousel').scrollLeft = 200")
        self.wait_tip("swipe-hint", shown=False)
        # A closed tip never comes back, even after a reload.
        self.open_shop("bob")
        self.driver.execute_script("window.scrollBy(0, 300)")
        time.sleep(1)
        self.assertIsNone(self.tip("search-tip"))

    def test_a_tip_waits_for_an_element_that_loads_later(self):
        self.open_shop("carol")
        self.driver.get(f"{demo.url}/demo/?user=carol#/product/p1")
        self.wait_for(lambda d: d.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the shop")
        self.driver.execute_script("location.hash = '#/product/p2'")
        # Two product views: the cart spotlight on "Add to cart".
        self.wait_tip("cart-tip")
        self.assertEqual(len(self.driver.find_elements(By.CSS_SELECTOR, '[data-waymark-ui="spotlight"]')), 1)
        self.screenshot("cart-spotlight")
        self.driver.find_element(By.ID, "add-to-cart").click()
        self.wait_tip("cart-tip", shown=False)
        # The reviews tip is active now, but its anchor is still loading: it waits, then appears.
        self.driver.execute_script("location.hash = '#/product/p3'")
        self.wait_for(lambda d: d.find_elements(By.CSS_SELECTOR, '[data-waymark-tip="reviews-tip"]'), "the reviews tip to be drawn")
        self.assertFalse(self.driver.find_elements(By.ID, "reviews"), "the anchor is not there yet")
        self.assertIsNone(self.tip("reviews-tip"), "drawn but hidden until its anchor exists")
        self.wait_tip("reviews-tip", timeout=5)
        anchor = self.driver.find_element(By.ID, "reviews").rect
        tip = self.tip("reviews-tip").rect
        self.assertGreater(tip["y"], anchor["y"], "placed by its anchor")

    def test_a_user_in_hindi_sees_the_hindi_tip(self):
        self.open_shop("dev", "&locale=hi-IN")
        banner = self.wait_tip("welcome")
        self.assertIn("दुकान में आपका स्वागत है", banner.text)
        self.assertEqual(banner.get_attribute("lang"), "hi")
        self.screenshot("welcome-hindi")
        # A reload draws the showing tip again without counting a second appearance.
        shown = self.stored_names("dev").count("tip_shown")
        self.open_shop("dev", "&locale=hi-IN")
        self.wait_tip("welcome")
        self.assertEqual(self.stored_names("dev").count("tip_shown"), shown)


class PresentationTests(BrowserTest):
    """Narration, right-to-left layout, reduced motion, and tips that follow their anchor."""

    def test_recorded_narration_plays_and_pauses_with_a_visible_control(self):
        self.open_shop("narrator", "&locale=en-US")
        banner = self.wait_tip("welcome")
        button = banner.find_element(By.CSS_SELECTOR, "button.wm-narrate")
        self.assertEqual((button.text, button.get_attribute("aria-label")), ("▶ Listen", "Play narration"))
        audio = lambda: self.driver.execute_script(
            "const a = document.querySelector('[data-waymark-tip=welcome] audio');"
            "return a && { paused: a.paused, time: a.currentTime, src: a.currentSrc, duration: a.duration };")
        self.assertTrue(audio()["paused"], "narration never starts by itself")
        self.assertTrue(audio()["src"].endswith("/demo/media/welcome-en.ogg"), audio())
        button.click()
        self.wait_for(lambda d: not audio()["paused"] and audio()["time"] > 0.3, "the recording to play")
        self.assertGreater(audio()["duration"], 3, "the whole recording was loaded")
        # The toggle keeps its name; aria-pressed says it plays.
        self.assertEqual((button.text, button.get_attribute("aria-label"), button.get_attribute("aria-pressed")),
                         ("❚❚ Pause", "Play narration", "true"))
        button.click()
        # The label follows the audio's pause event, which comes just after the audio pauses.
        self.wait_for(lambda d: audio()["paused"] and button.text == "▶ Listen", "the recording to pause and the button to say so")
        paused_at = audio()["time"]
        time.sleep(0.5)
        self.assertEqual(audio()["time"], paused_at, "paused means paused")

    def test_without_a_recording_the_browsers_voice_reads_the_tip_only_when_asked(self):
        # A Hindi reader who turned the listener's mode (the demo's default for Hindi) off.
        self.open_shop("reader", "&locale=hi-IN")
        self.driver.execute_script("localStorage.setItem('waymark:listen', JSON.stringify({ on: false, at: Date.now() }))")
        self.driver.refresh()
        banner = self.wait_tip("welcome")
        # Record what the SDK asks the browser's voice to say (headless Chromium has no voices).
        self.driver.execute_script("""
            window.__spoken = [];
            speechSynthesis.speak = (u) => window.__spoken.push({ text: u.text, lang: u.lang });""")
        time.sleep(0.5)
        self.assertEqual(self.driver.execute_script("return window.__spoken"), [], "nothing speaks unasked")
        button = banner.find_element(By.CSS_SELECTOR, "button.wm-narrate")
        self.assertEqual(button.text, "पढ़कर सुनाएँ", "the SDK's own words in the reader's language")
        self.assertEqual(banner.find_elements(By.TAG_NAME, "audio"), [])
        button.click()
        spoken = self.driver.execute_script("return window.__spoken")
        self.assertEqual(len(spoken), 1, spoken)
        self.assertEqual(spoken[0]["lang"], "hi")
        self.assertTrue(spoken[0]["text"].startswith("दुकान में आपका स्वागत है."), spoken)
        self.assertIn("एक छोटा टूर", spoken[0]["text"], "the body is read after the title")

    def test_the_reader_picks_the_language_of_the_guidance_in_the_dock(self):
        self.at((360, 740))
        self.open_shop("picker", "&locale=hi-IN")
        self.wait_tip("welcome")
        self.driver.execute_script("(await import('/sdk/waymark.js')).Waymark.close('welcome')")
        # The catalog's languages, each in its own words, the reader's chosen; labelled in it.
        picker = self.wait_for(lambda d: self.visible('[data-waymark-ui="language"] select'), "the dock's language picker")
        options = [(o.get_attribute("value"), o.get_attribute("textContent")) for o in picker.find_elements(By.TAG_NAME, "option")]
        self.assertEqual(options, [("en", "English"), ("hi", "हिन्दी")])
        self.assertEqual((picker.get_attribute("value"), picker.get_attribute("aria-label")), ("hi", "भाषा"))
        self.screenshot("language-picker-hi")
        Select(picker).select_by_value("en")
        # The guidance comes in English: the dock's words, and a tip drawn now.
        self.wait_for(lambda d: (self.visible('[data-waymark-ui="help-button"]').text or "").endswith("Help"), "the dock in English")
        self.driver.execute_script("""
            const { Waymark } = await import('/sdk/waymark.js');
            Waymark.client.renderer.draw(Waymark.client.catalog.tips.find((t) => t.id === 'welcome'));""")
        self.assertIn("Welcome to the shop", self.wait_tip("welcome").text)
        self.screenshot("language-picker-en")
        # Kept for the next visit, whatever the page asks for (hi-IN here).
        self.driver.refresh()
        picker = self.wait_for(lambda d: self.visible('[data-waymark-ui="language"] select'), "the picker again")
        self.assertEqual((picker.get_attribute("value"), picker.get_attribute("aria-label")), ("en", "Language"))
        self.assertEqual(self.driver.execute_script(
            "return (await import('/sdk/waymark.js')).Waymark.client.context.locale"), "en")

    def test_a_right_to_left_locale_lays_the_tip_out_from_the_right(self):
        self.open_shop("urdu", "&locale=ur-PK")
        banner = self.wait_tip("welcome")
        self.assertEqual((banner.get_attribute("dir"), banner.get_attribute("lang")), ("rtl", "ur"))
        self.assertIn("دکان میں خوش آمدید", banner.text)
        layout = self.driver.execute_script("""
            const tip = arguments[0], box = (e) => e.getBoundingClientRect();
            const title = tip.querySelector('h2');
            return { tip: box(tip).toJSON(), close: box(tip.querySelector('.wm-close')).toJSON(),
                     titleDirection: getComputedStyle(title).direction, titleAlign: getComputedStyle(title).textAlign };""", banner)
        self.assertEqual(layout["titleDirection"], "rtl")
        self.assertLess(layout["close"]["x"] - layout["tip"]["x"], 40, f"the close button sits at the left edge: {layout}")
        self.screenshot("welcome-urdu")
        # The same tip in a left-to-right locale keeps its close button at the right.
        self.open_shop("english", "&locale=en-GB")
        banner = self.wait_tip("welcome")
        self.assertEqual(banner.get_attribute("dir"), "ltr")
        close_x = self.driver.execute_script("const t = arguments[0]; return t.querySelector('.wm-close').getBoundingClientRect().right - t.getBoundingClientRect().right", banner)
        self.assertGreater(close_x, -40)

    def test_reduced_motion_stops_the_pointer_animation(self):
        animation = lambda: self.driver.execute_script(
            "const p = document.querySelector('[data-waymark-ui=pointer]'); return p && getComputedStyle(p).animationName;")
        self.open_shop("moving")
        self.driver.execute_script("window.scrollBy(0, 400)")
        self.wait_tip("search-tip")
        self.assertEqual(animation(), "wm-tap")
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
        self.assertEqual(animation(), "none")
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})

    def test_a_pointer_follows_its_anchor_when_the_window_is_resized(self):
        self.open_shop("resizer")
        self.driver.execute_script("window.scrollBy(0, 400)")
        self.wait_tip("search-tip")
        self.driver.execute_script("window.scrollTo(0, 0)")
        offsets = lambda: self.driver.execute_script("""
            const r = (e) => e.getBoundingClientRect();
            const p = r(document.querySelector('[data-waymark-ui=pointer]')), a = r(document.getElementById('search'));
            const t = r(document.querySelector('[data-waymark-tip="search-tip"]'));
            return { anchorX: a.x, dx: p.x + p.width / 2 - (a.x + a.width / 2), dy: p.y + p.height / 2 - (a.y + a.height / 2),
                     gap: t.top - a.bottom, tipRight: t.right, width: innerWidth };""")
        self.wait_for(lambda d: abs(offsets()["dx"]) < 1 and abs(offsets()["dy"]) < 1, "the pointer on its anchor")
        before = offsets()
        self.driver.set_window_size(700, 900)
        self.wait_for(lambda d: offsets()["width"] < before["width"], "the window to shrink")
        self.wait_for(lambda d: abs(offsets()["dx"]) < 1 and abs(offsets()["dy"]) < 1, "the pointer to follow its anchor")
        after = offsets()
        self.assertLess(after["anchorX"], before["anchorX"] - 100, "the anchor moved with the layout")
        self.assertAlmostEqual(after["gap"], 12, delta=1, msg="the tooltip stays just below its anchor")
        self.assertLessEqual(after["tipRight"], after["width"] - 7, "and inside the window")


XSS = [
    "<script>window.__xss=1</script>",
    "<img src=x onerror=\"window.__xss=2\">",
    "<a href=\"javascript:window.__xss=3\" id=xss-link>link</a>",
    "<svg onload=\"window.__xss=4\"></svg>",
    "<iframe src=\"javascript:parent.__xss=5\"></iframe>",
    "<p style=\"background:url(javascript:window.__xss=6)\">styled</p>",
    "<math><mtext><table><mglyph><style><img src=x onerror=\"window.__xss=7\">",
    "<noscript><p title=\"</noscript><img src=x onerror=window.__xss=8>\">",
    "<form><button formaction=\"javascript:window.__xss=9\">go</button></form>",
    "<details open ontoggle=\"window.__xss=10\">",
    "<img src=\"x\" onerror=\"window.__xss=11\"/>",
    "<a href=\"&#106;avascript:window.__xss=12\" id=xss-link2>encoded</a>",
    "<body onload=window.__xss=13>",
    "<object data=\"javascript:window.__xss=14\"></object>",
    "<embed src=\"javascript:window.__xss=15\">",
    "<video><source onerror=\"window.__xss=16\"></video>",
    "<input autofocus onfocus=\"window.__xss=17\">",
    "<marquee onstart=\"window.__xss=18\">",
    "<template><img src=x onerror=window.__xss=19></template>",
    "\"><img src=x onerror=window.__xss=20>",
]


class SecurityTests(BrowserTest):
    def test_hostile_content_runs_nothing(self):
        # The SDK's own DOM construction, given raw hostile HTML (as if the server's sanitizer failed).
        self.open_shop("mallory")
        result = self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const { buildContent } = await import('/sdk/waymark.js');
            const box = document.createElement('div');
            box.id = 'xss-box';
            for (const payload of arguments[0]) box.appendChild(buildContent(payload));
            document.body.appendChild(box);
            for (const a of box.querySelectorAll('a')) a.click();
            setTimeout(() => done({ xss: window.__xss ?? null, html: box.innerHTML }), 1500);
        """, XSS)
        self.assertIsNone(result["xss"], result["html"])
        for forbidden in ("<script", "onerror", "javascript:", "<iframe", "<svg", "style=", "<object", "<embed", "onload", "<input"):
            self.assertNotIn(forbidden, result["html"].lower())

    def test_hostile_catalog_through_the_server_runs_nothing(self):
        # The same payloads authored into a tip and a tour page, published, and shown by the SDK.
        demo.request("/v1/admin/catalog/draft/tips/hostile", method="PUT", body={
            "id": "hostile", "container": "banner-2", "trigger": "activation", "renderer": "modal",
            "targeting": 'user.id == "mallory2"',
            "content": {"title": "<img src=x onerror=window.__xss=99>", "html": "".join(XSS)}})
        demo.request("/v1/admin/catalog/publish", body={}, method="POST")
        self.open_shop("mallory2")
        tip = self.wait_tip("hostile")
        time.sleep(1)
        self.assertIsNone(self.driver.execute_script("return window.__xss ?? null"))
        self.assertIn("<img src=x onerror=window.__xss=99>", tip.find_element(By.TAG_NAME, "h2").text, "the title is text")
        html = tip.get_attribute("innerHTML").lower()
        for forbidden in ("<script", "onerror=\"", "javascript:", "<iframe"):
            self.assertNotIn(forbidden, html)


class TourTests(BrowserTest):
    def claim_directly(self, user, page="checkout"):
        """The same claim the SDK makes, straight to the server: the ledger's answer for this user."""
        session = json.load(urllib.request.urlopen(f"{demo.url}/demo/session?user={user}"))
        request = urllib.request.Request(
            demo.url + "/v1/rewards/claims", method="POST",
            data=json.dumps({"user": user, "userHash": session["userHash"], "tour": "shop-tour", "page": page}).encode(),
            headers={"Authorization": f"Bearer {demo.facts['clientKey']}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            return json.load(response)

    def panel(self):
        return self.visible('[data-waymark-tour="shop-tour"]')

    def start_tour(self, page, video=False):
        """Opens the demo tour at a page and waits for its panel; with video, also for the size of
        the page's video (known with its metadata; before that, its arrival moves what is below)."""
        self.driver.execute_script(f"return (await import('/sdk/waymark.js')).Waymark.startTour('shop-tour', {page})")
        panel = self.wait_for(lambda d: self.panel(), "the tour panel")
        if video:
            self.wait_for(lambda d: d.execute_script(
                "const v = document.querySelector('.wm-tour video'); return v.readyState >= 1 || v.error !== null"),
                "the video's metadata")
        return panel

    def test_a_tour_with_video_variants_and_one_credit_across_reloads_and_tabs(self):
        self.open_shop("erin", "&model=iPad13,1")
        self.driver.find_element(By.ID, "tour-start").click()
        panel = self.wait_for(lambda d: self.panel(), "the tour panel")
        self.assertEqual(panel.get_attribute("role"), "dialog")
        self.assertIn("Page 1 of 3", panel.text)
        video = panel.find_element(By.TAG_NAME, "video")
        self.assertTrue(video.get_attribute("src").endswith("/demo/media/browse-ipad.mp4"), video.get_attribute("src"))
        # The clip is real and plays.
        self.wait_for(lambda d: d.execute_script("return arguments[0].readyState >= 1 && arguments[0].duration > 2", video), "the video's metadata")
        self.screenshot("tour-page-1")
        panel.find_element(By.CSS_SELECTOR, ".wm-next").click()
        self.assertIn("Page 2 of 3", panel.text)
        panel.find_element(By.CSS_SELECTOR, ".wm-next").click()
        self.assertIn("Page 3 of 3", panel.text)
        # The last page fits without scrolling: read at once, and its credit is claimed.
        self.wait_for(lambda d: "You earned 5 credits" in panel.text, "the credit")
        self.screenshot("tour-credit")
        self.assertEqual(self.claim_directly("erin")["balance"], 5)
        # A reload and a second tab read the page again: the ledger still holds one grant.
        self.driver.refresh()
        self.wait_for(lambda d: d.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the reload")
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.startTour('shop-tour', 2)")
        self.wait_for(lambda d: self.panel() and "You earned 5 credits" in self.panel().text, "the same credit after a reload")
        self.driver.switch_to.new_window("tab")
        self.open_shop("erin")
        self.driver.execute_script("localStorage.clear()")
        self.open_shop("erin")
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.startTour('shop-tour', 2)")
        self.wait_for(lambda d: self.panel() and "You earned 5 credits" in self.panel().text, "the credit in a second tab")
        answer = self.claim_directly("erin")
        self.assertEqual((answer["balance"], answer["created"]), (5, False))

    def test_a_phone_gets_the_phone_video_and_a_long_page_needs_reading_to_the_end(self):
        self.open_shop("frank")
        panel = self.start_tour(0)
        self.assertTrue(panel.find_element(By.TAG_NAME, "video").get_attribute("src").endswith("/demo/media/browse-phone.mp4"))
        # Make the last page long: no credit until the reader reaches its end.
        self.driver.execute_script("""
            const { Waymark } = await import('/sdk/waymark.js');
            const tour = Waymark.client.tours.get('shop-tour');
            tour.pages[2].content.html += '<p>' + 'More to read. '.repeat(400) + '</p>';
            Waymark.startTour('shop-tour', 2);""")
        panel = self.wait_for(lambda d: self.panel(), "the tour panel")
        time.sleep(0.5)
        self.assertIn("Read to the end to earn 5 credits", panel.text)
        self.driver.execute_script("const b = document.querySelector('.wm-tour-body'); b.scrollTop = b.scrollHeight")
        self.wait_for(lambda d: "You earned 5 credits" in self.panel().text, "the credit after scrolling to the end")

    def test_the_tour_footer_leaves_room_to_read_in_large_text(self):
        # A 360 px phone at 200% text: 180 CSS px wide. Where the tour is takes a line, Back and
        # Next share the next one (they once took a line each), and the page keeps most of the height.
        for locale in ("en-US", "hi-IN"):
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                        {"width": 180, "height": 370, "deviceScaleFactor": 2, "mobile": True})
            self.open_shop(f"large-{locale}", f"&locale={locale}")
            self.start_tour(1)
            boxes = self.driver.execute_script("""
                const box = (s) => document.querySelector('.wm-tour ' + s).getBoundingClientRect();
                return [box('footer'), box('.wm-back'), box('.wm-next'), box('.wm-progress'), innerHeight, innerWidth];""")
            footer, back, next_, progress, height, width = boxes
            self.assertEqual(back["top"], next_["top"], f"{locale}: Back and Next on one line")
            self.assertLess(back["right"], next_["left"], f"{locale}: Back before Next")
            self.assertLessEqual(progress["bottom"], back["top"], f"{locale}: where the tour is, above them")
            self.assertLessEqual(next_["right"], width, f"{locale}: nothing past the screen's edge")
            self.assertLess(footer["height"], 0.3 * height, f"{locale}: the footer leaves the page room")
            self.screenshot(f"tour-large-text-{locale}")

    def test_full_screen_video_pauses_the_tour_and_tips_and_brings_them_back(self):
        self.open_shop("gina")
        self.wait_tip("welcome")
        # Until the video's size is known, its arrival grows the page above the reader, and
        # Chromium's scroll anchoring moves scrollTop past 300 (as it should).
        self.start_tour(2, video=True)
        self.driver.execute_script("""
            const body = document.querySelector('.wm-tour-body');
            body.insertAdjacentElement('beforeend', Object.assign(document.createElement('div'), { style: 'height:2000px' }));
            body.scrollTop = 300;
            const button = Object.assign(document.createElement('button'), { id: 'go-full', textContent: 'full screen' });
            button.style.cssText = 'position:fixed;top:0;left:0;z-index:2147483647';
            button.onclick = () => document.querySelector('.wm-tour video').requestFullscreen();
            document.body.appendChild(button);""")
        self.driver.find_element(By.ID, "go-full").click()
        self.wait_for(lambda d: d.execute_script("return document.fullscreenElement !== null"), "full screen")
        self.wait_for(lambda d: self.panel() is None, "the tour panel to pause")
        self.wait_tip("welcome", shown=False)
        self.driver.execute_script("return document.exitFullscreen()")
        self.wait_for(lambda d: self.panel() is not None, "the tour panel to come back")
        self.assertIn("Page 3 of 3", self.panel().text)
        self.assertEqual(self.driver.execute_script("return document.querySelector('.wm-tour-body').scrollTop"), 300)
        # The tour is open again, so the tips wait for it to close.
        self.assertIsNone(self.tip("welcome"))
        self.driver.execute_script("document.querySelector('.wm-tour .wm-close').click()")
        self.wait_tip("welcome")

    def test_a_tour_left_open_comes_back_at_its_page_and_reading_position_after_a_reload(self):
        # A small phone on its side: the tour fills the screen and its page is longer than the screen.
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 568, "height": 320, "deviceScaleFactor": 2, "mobile": True})
        self.open_shop("tess")
        self.start_tour(1, video=True)
        position = self.driver.execute_script("""
            const body = document.querySelector('.wm-tour-body');
            body.scrollTop = Math.min(150, body.scrollHeight - body.clientHeight);
            return body.scrollTop;""")
        self.assertGreater(position, 50, "the page is longer than the screen")
        time.sleep(0.5)  # the position is kept within a fifth of a second; a reload writes it at once too
        self.driver.refresh()
        self.wait_for(lambda d: self.panel(), "the tour to open again")
        self.assertIn("Page 2 of 3", self.panel().text)
        self.wait_for(lambda d: d.execute_script("return document.querySelector('.wm-tour-body').scrollTop") == position,
                      "the reading position")
        # Closed, it stays closed.
        self.driver.execute_script("document.querySelector('.wm-tour .wm-close').click()")
        self.wait_for(lambda d: self.panel() is None, "the tour to close")
        self.driver.refresh()
        self.wait_for(lambda d: d.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the shop")
        time.sleep(0.5)
        self.assertIsNone(self.panel())

    def test_one_guidance_at_a_time_tips_pause_while_a_tour_is_open(self):
        self.open_shop("gus")
        self.wait_tip("welcome")
        self.driver.execute_script("window.scrollBy(0, 400)")
        self.wait_tip("search-tip")
        self.driver.execute_script("window.scrollTo(0, 0)")
        self.start_tour(0)
        # Nothing of a paused tip is drawn over the tour: not the tip, its pointer, nor its focus.
        self.wait_tip("welcome", shown=False)
        self.wait_tip("search-tip", shown=False)
        self.assertIsNone(self.visible('[data-waymark-ui="pointer"]'))
        self.assertIsNone(self.driver.execute_script("return document.activeElement.closest('[data-waymark-tip]')"))
        self.driver.execute_script("document.querySelector('.wm-tour .wm-close').click()")
        self.wait_for(lambda d: self.panel() is None, "the tour to close")
        self.wait_tip("welcome")
        self.wait_tip("search-tip")
        self.assertIsNotNone(self.visible('[data-waymark-ui="pointer"]'))

    def test_a_tip_whose_container_is_hidden_draws_nothing(self):
        self.open_shop("gwen")
        self.wait_tip("welcome")
        self.driver.execute_script("window.scrollBy(0, 400)")
        self.wait_tip("search-tip")
        self.assertIsNotNone(self.visible('[data-waymark-ui="pointer"]'))
        # The product screen hides the home container: the search tip's pointer goes with the tip.
        self.driver.execute_script("location.hash = '#/product/p1'")
        self.wait_tip("search-tip", shown=False)
        self.wait_for(lambda d: self.visible('[data-waymark-ui="pointer"]') is None, "the pointer to go")
        self.driver.execute_script("location.hash = '#/'")
        self.wait_tip("search-tip")
        self.assertIsNotNone(self.visible('[data-waymark-ui="pointer"]'))

    def test_keyboard_only_use_of_a_tooltip_and_a_tour(self):
        self.open_shop("hana")
        banner = self.wait_tip("welcome")
        # The tip does not take the focus: a screen reader hears it (a polite status), F6 moves the
        # focus into it and back; Esc closes it and gives the focus back.
        self.assertNotEqual(self.driver.switch_to.active_element, banner)
        self.wait_for(lambda d: "Welcome to the shop" in d.execute_script(
            "return document.querySelector('[data-waymark-ui=live]').textContent"), "the banner announced")
        self.driver.switch_to.active_element.send_keys(Keys.F6)
        self.wait_for(lambda d: d.switch_to.active_element == banner, "F6 to move the focus into the tip")
        self.driver.switch_to.active_element.send_keys(Keys.F6)
        self.wait_for(lambda d: d.switch_to.active_element != banner, "F6 again to move it back")
        self.driver.switch_to.active_element.send_keys(Keys.F6)
        self.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        self.wait_tip("welcome", shown=False)
        for _ in range(30):
            if self.driver.switch_to.active_element.get_attribute("id") == "tour-start":
                break
            self.driver.switch_to.active_element.send_keys(Keys.TAB)
        self.assertEqual(self.driver.switch_to.active_element.get_attribute("id"), "tour-start")
        self.driver.switch_to.active_element.send_keys(Keys.ENTER)
        panel = self.wait_for(lambda d: self.panel(), "the tour panel")
        self.assertTrue(self.driver.execute_script("return arguments[0].contains(document.activeElement)", panel), "focus in the panel")
        for _ in range(10):
            if "wm-next" in (self.driver.switch_to.active_element.get_attribute("class") or ""):
                break
            self.driver.switch_to.active_element.send_keys(Keys.TAB)
        self.driver.switch_to.active_element.send_keys(Keys.ENTER)
        self.assertIn("Page 2 of 3", panel.text)
        self.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
        self.wait_for(lambda d: self.panel() is None, "Esc to close the tour")
        self.assertEqual(self.driver.switch_to.active_element.get_attribute("id"), "tour-start", "focus back where it was")


class OfflineTests(BrowserTest):
    def test_an_offline_start_uses_the_kept_catalog_and_delivers_queued_events_later(self):
        self.open_shop("ivan")
        self.wait_tip("welcome")
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.flush()")
        # The Waymark API becomes unreachable (the page itself still loads).
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/v1/*"]})
        accepted_before = self.accepted()
        self.open_shop("ivan")
        self.wait_tip("welcome")  # drawn from the kept catalog and engine state
        self.driver.execute_script("window.scrollBy(0, 400)")
        self.wait_tip("search-tip")
        # The queue is written to localStorage within a fifth of a second, coalesced.
        queued = self.wait_for(lambda d: d.execute_script(
            "return JSON.parse(localStorage.getItem(Object.keys(localStorage).find(k => k.endsWith(':queue')))).length"),
            "events queued in localStorage")
        self.assertGreater(queued, 0)
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.flush()")
        self.assertEqual(self.accepted(), accepted_before, "nothing arrives while the server is unreachable")
        # The server is back: the queue drains and every event is stored.
        self.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.flush()")
        self.wait_for(lambda d: d.execute_script(
            "return JSON.parse(localStorage.getItem(Object.keys(localStorage).find(k => k.endsWith(':queue')))).length") == 0,
            "the queue to drain")
        self.assertGreaterEqual(self.accepted() - accepted_before, queued)

    @staticmethod
    def accepted():
        for line in urllib.request.urlopen(demo.url + "/metrics").read().decode().splitlines():
            if line.startswith('waymark_events_total{outcome="accepted"}'):
                return int(float(line.split()[-1]))
        return 0


class RoundTripTests(BrowserTest):
    """What waits for the network: the page holds every catalog request until the test lets it go,
    so what is drawn before that needed no answer from the server."""

    HOLD_THE_CATALOG = """
        const held = [];
        window.__catalogRequests = [];
        window.__releaseCatalog = () => { for (const go of held.splice(0)) go(); };
        const fetch = window.fetch.bind(window);
        window.fetch = (url, options = {}) => {
            if (!String(url).includes('/v1/catalog')) return fetch(url, options);
            window.__catalogRequests.push({ url: String(url), headers: options.headers ?? {} });
            return new Promise((go) => held.push(go)).then(() => fetch(url, options));
        };"""

    def hold_the_catalog(self):
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": self.HOLD_THE_CATALOG})

    def catalog_requests(self):
        return self.driver.execute_script("return window.__catalogRequests")

    def test_a_first_visit_waits_for_the_catalog_and_a_repeat_visit_does_not(self):
        self.hold_the_catalog()
        self.driver.get(f"{demo.url}/demo/?user=rita")
        self.wait_for(lambda d: len(self.catalog_requests() or []) == 1, "the catalog request")
        # Nothing kept yet: nothing to draw until the catalog comes.
        self.assertIsNone(self.tip("welcome"))
        self.assertNotIn("If-None-Match", self.catalog_requests()[0]["headers"])
        self.driver.execute_script("window.__releaseCatalog()")
        self.wait_tip("welcome")
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.flush()")
        # The next visit runs from the kept catalog at once, while it asks whether there is a newer one.
        self.driver.get(f"{demo.url}/demo/?user=rita")
        self.wait_for(lambda d: len(self.catalog_requests() or []) == 1, "the catalog request")
        self.assertIn("If-None-Match", self.catalog_requests()[0]["headers"])
        self.wait_tip("welcome")
        self.driver.execute_script("window.scrollBy(0, 400)")
        self.wait_tip("search-tip")  # a new tip, shown by the engine from the kept catalog
        self.driver.execute_script("window.__releaseCatalog()")
        # The server answers 304: the tips stay as they are, drawn once.
        self.wait_for(lambda d: d.execute_script(
            "return performance.getEntriesByType('resource').some((r) => r.name.includes('/v1/catalog'))"), "the answer")
        self.assertEqual(self.driver.execute_script("return document.querySelectorAll('[data-waymark-tip=\"search-tip\"]').length"), 1)
        self.assertIsNotNone(self.tip("welcome"))

    def test_the_page_names_the_sdk_by_its_version_and_asks_for_no_session(self):
        self.driver.get(f"{demo.url}/demo/?user=sam")
        self.wait_for(lambda d: d.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the shop")
        names = self.driver.execute_script("return performance.getEntriesByType('resource').map((r) => new URL(r.name).pathname)")
        self.assertTrue(any(n.startswith("/sdk/") and n.endswith("/waymark.js") and n != "/sdk/waymark.js" for n in names), names)
        self.assertNotIn("/sdk/waymark.js", names)
        self.assertNotIn("/demo/session", names)


class PartsTests(BrowserTest):
    """The tour panel, the controls (buttons, surveys) and touch gestures are parts of the SDK of
    their own: only a page whose catalog has a tour, or a survey or button, or whose screen takes
    touch, downloads them, from the folder of the SDK's version."""

    def resources(self):
        return self.driver.execute_script("return performance.getEntriesByType('resource').map((r) => new URL(r.name).pathname)")

    def block(self, *patterns):
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": list(patterns)})

    def test_only_a_page_whose_catalog_has_a_tour_downloads_the_tour_panel(self):
        # No catalog reaches the page: it runs with no tour, and leaves the panel where it is. The
        # demo's users have an identity proof, whose part shares their progress at start: no other.
        self.block("*/v1/catalog*")
        self.open_shop("paula")
        self.assertEqual(self.driver.execute_script("return Object.keys((await import('/sdk/waymark.js')).Waymark.client.renderer.parts)"),
                         ["what the user's identity proof allows"])
        self.assertEqual([n for n in self.resources() if n.endswith("/tours.js") or n.endswith("/controls.js")], [])
        # The demo's catalog has a tour: the panel comes as soon as the catalog does, beside the SDK.
        self.block()
        self.open_shop("paula")
        self.wait_for(lambda d: any(n.endswith("/tours.js") for n in self.resources()), "the tour panel's part")
        sdk = [n for n in self.resources() if n.endswith("/waymark.js")]
        self.assertEqual([n for n in self.resources() if n.endswith("/tours.js")], [sdk[0][:-len("waymark.js")] + "tours.js"])
        self.wait_for(lambda d: any(n.endswith("/controls.js") for n in self.resources()), "the controls' part")
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.startTour('shop-tour', 1)")
        self.wait_for(lambda d: self.visible('[data-waymark-tour="shop-tour"]'), "the tour panel")
        self.assertIn("Page 2 of 3", self.visible('[data-waymark-tour="shop-tour"]').text)

    def test_only_a_touch_screen_downloads_the_touch_gestures(self):
        self.open_shop("tara")
        self.assertEqual(self.driver.execute_script("return navigator.maxTouchPoints"), 0)
        self.assertEqual([n for n in self.resources() if n.endswith("/gestures.js")], [])
        # A phone's screen: long presses and swipes are followed, from beside the SDK.
        self.driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        self.open_shop("tara")
        self.driver.execute_script("await (await import('/sdk/waymark.js')).Waymark.client.stopCapture.ready")
        sdk = [n for n in self.resources() if n.endswith("/waymark.js")]
        self.assertEqual([n for n in self.resources() if n.endswith("/gestures.js")], [sdk[0][:-len("waymark.js")] + "gestures.js"])

    def test_a_tour_whose_panel_cannot_be_loaded_leaves_the_tips_as_they_were(self):
        self.block("*/tours.js")
        self.open_shop("quinn")
        self.wait_tip("welcome")
        opened = self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.startTour('shop-tour', 0)")
        self.assertTrue(opened, "the catalog has the tour")
        # Tips pause while the panel loads; when it cannot, they come back and nothing is left open.
        self.wait_tip("welcome")
        self.assertIsNone(self.visible("[data-waymark-tour]"))
        console = "\n".join(entry["message"] for entry in self.driver.get_log("browser"))
        self.assertIn("the tour panel cannot be loaded", console)

    def test_a_tip_whose_buttons_cannot_be_loaded_still_shows_its_words(self):
        self.block("*/controls.js")
        self.open_shop("rosa")
        banner = self.wait_tip("welcome")
        self.assertIn("Welcome to the shop", banner.text)
        self.assertEqual(banner.find_elements(By.CSS_SELECTOR, ".wm-buttons"), [])
        console = "\n".join(entry["message"] for entry in self.driver.get_log("browser"))
        self.assertIn("buttons and surveys cannot be loaded", console)


class ConformanceInTheBrowserTests(BrowserTest):
    def test_the_rule_language_passes_every_conformance_case_in_chromium(self):
        directory = os.path.join(ROOT, "conformance")
        groups = [json.load(open(os.path.join(directory, name))) for name in sorted(os.listdir(directory)) if name.endswith(".json")]
        self.open_shop("conformance")
        result = self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            // The text is parsed by the parser module; the JSON form is read and evaluated by the SDK
            // a page loads, as the server ships rules to it.
            const { Evaluator, ruleFromJSON, parseTime } = await import('/sdk/waymark.js');
            const { parseRule } = await import('/sdk/src/ruletext.js');
            const failures = [];
            let cases = 0;
            for (const group of arguments[0]) for (const c of group.cases) {
                cases += 1;
                try {
                    if (c.error) {
                        try { parseRule(c.rule); failures.push(c.name + ': parsed'); }
                        catch (e) { if (e.line !== c.error.line || e.column !== c.error.column || e.code !== c.error.code) failures.push(c.name + ': ' + e.message); }
                        continue;
                    }
                    const evaluator = new Evaluator([ruleFromJSON(JSON.parse(JSON.stringify(parseRule(c.rule))))]);
                    c.steps.forEach((step, i) => {
                        const t = parseTime(step.t);
                        if (step.event) evaluator.record(step.event, step.target, t, step.properties);
                        else if (step.context) for (const k of Object.keys(step.context).sort()) evaluator.setContext(k, step.context[k], t);
                        else evaluator.advance(t);
                        if (evaluator.value(0) !== step.expect) failures.push(`${group.group}/${c.name}: step ${i + 1}`);
                    });
                } catch (e) { failures.push(c.name + ': ' + e); }
            }
            done({ cases, failures });""", groups)
        self.assertGreater(result["cases"], 300)
        self.assertEqual(result["failures"], [])


if __name__ == "__main__":
    unittest.main()
