"""The help launcher in a real Chromium against `waymark demo`, at desktop size and on a 360x740
phone: the SDK's Help button (or the page's own, marked data-waymark-help) opens a labelled panel
with the search field focused, listing the articles of the current screen first, the tours and
the checklists of that screen or of every screen; a search finds articles by their words in Hindi
as typed in either form of a nukta letter, and another screen's tour; searches are stored with what they found, so the console can list what people did
not find; an article opens in place with its narration; Esc closes and gives the focus back.

Run by scripts/test; see test_demo_shop.py for what it needs.
"""
import json
import time
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

import test_demo_shop
from test_demo_shop import BrowserTest, own_demo

setUpModule, tearDownModule = own_demo(narration=True)

BUTTON = '[data-waymark-ui="help-button"]'
PANEL = '[data-waymark-ui="help"]'


class HelpTests(BrowserTest):
    def stored(self, user):
        return self.stored_events(user, "name IN ('help_opened', 'help_searched', 'article_opened')")

    def article_narration(self, article):
        demo = test_demo_shop.demo
        with urllib.request.urlopen(urllib.request.Request(
                f"{demo.url}/v1/catalog", headers={"Authorization": f"Bearer {demo.facts['clientKey']}"})) as response:
            catalog = json.loads(response.read())
        return next(a for a in catalog.get("articles", []) if a["id"] == article)["content"].get("narration")

    def headings(self):
        return [h.text for h in self.driver.find_elements(By.CSS_SELECTOR, f"{PANEL} h3")]

    def titles(self):
        return self.driver.execute_script(
            "return [...document.querySelectorAll(arguments[0] + ' li')].map((li) => li.querySelector('summary, button').textContent)", PANEL)

    def tours(self):
        return [b.get_attribute("data-waymark-tour") for b in self.driver.find_elements(By.CSS_SELECTOR, f"{PANEL} [data-waymark-tour]")]

    def search(self, text):
        field = self.driver.find_element(By.CSS_SELECTOR, f"{PANEL} input[type=search]")
        field.clear()
        field.send_keys(text)
        field.send_keys(Keys.ENTER)

    def test_the_help_lists_this_screens_articles_first_and_finds_what_is_typed(self):
        # The server speaks the articles in the background, within seconds of starting.
        deadline = time.time() + 60
        while self.article_narration("cash-on-delivery") is None and time.time() < deadline:
            time.sleep(0.3)
        self.assertIsNotNone(self.article_narration("cash-on-delivery"), "the server made no narration for the article within 60 s")
        for name, size in [("desktop", None), ("phone", (360, 740))]:
            with self.subTest(size=name):
                self.at(size)
                user = f"help-{name}"
                self.open_without_welcome(user)
                self.driver.execute_script("location.hash = '#/cart'")
                self.wait_for(lambda d: self.visible("#checkout"), "the cart")
                button = self.wait_for(lambda d: self.visible(BUTTON), "the help button")
                self.assertEqual(button.get_attribute("aria-expanded"), "false")
                box = self.driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.width, r.height]", button)
                self.assertGreaterEqual(min(box), 44)
                button.click()
                panel = self.wait_for(lambda d: self.visible(PANEL), "the help panel")
                self.assertEqual(panel.get_attribute("role"), "dialog")
                self.assertEqual(button.get_attribute("aria-controls"), panel.get_attribute("id"))
                field = self.driver.switch_to.active_element
                self.assertEqual(field.get_attribute("type"), "search")
                self.assertEqual(field.get_attribute("aria-label"), "Search help")
                self.assertEqual(self.headings(), ["On this screen", "Tours", "Checklists", "More help"])
                self.assertEqual(self.titles()[:2], ["When will my order arrive?", "Paying cash on delivery"])
                self.assertEqual(self.tours(), ["shop-tour", "pay-tour"], "the cart's own tour beside the one for every screen")
                self.screenshot(f"help-{name}")
                # A search finds by the words of the text and the keywords, and says how many.
                self.search("refund")
                self.wait_for(lambda d: self.titles() == ["Returning a product"], "the search's result")
                self.assertEqual(self.driver.find_element(By.CSS_SELECTOR, f'{PANEL} [role="status"]').get_attribute("textContent"), "1 found")
                self.search("gift wrap")
                self.wait_for(lambda d: self.titles() == [], "nothing found")
                self.assertIn("Nothing found", panel.text)
                # An article opens in place, with its narration.
                self.search("cash")
                self.wait_for(lambda d: self.titles() == ["Paying cash on delivery"], "the article")
                self.driver.find_element(By.CSS_SELECTOR, f'{PANEL} [data-waymark-article="cash-on-delivery"] summary').click()
                article = self.driver.find_element(By.CSS_SELECTOR, f'{PANEL} [data-waymark-article="cash-on-delivery"]')
                self.assertIn("Keep change ready", article.text)
                self.assertTrue(article.find_elements(By.CSS_SELECTOR, ".wm-narrate"), "read aloud by the server's speech")
                self.driver.switch_to.active_element.send_keys(Keys.ESCAPE)
                self.wait_for(lambda d: self.visible(PANEL) is None, "Esc to close the help")
                self.assertEqual(self.driver.switch_to.active_element.get_attribute("data-waymark-ui"), "help-button")
                events = self.stored(user)
                self.assertEqual([(n, p.get("query"), p.get("results")) for n, t, p in events if n != "article_opened"],
                                 [("help_opened", None, None), ("help_searched", "refund", 1), ("help_searched", "gift wrap", 0),
                                  ("help_searched", "cash", 1)])
                self.assertEqual(events[0][2]["screen"], "cart")
                self.assertIn(("article_opened", "cash-on-delivery"), [(n, t) for n, t, p in events])

    def test_a_hindi_search_finds_a_nukta_letter_typed_either_way(self):
        self.open_without_welcome("help-hindi", "&locale=hi-IN")
        self.wait_for(lambda d: self.visible(BUTTON), "the help button").click()
        self.wait_for(lambda d: self.visible(PANEL), "the help panel")
        self.assertEqual(self.driver.find_element(By.CSS_SELECTOR, PANEL).get_attribute("lang"), "hi")
        # The SDK's own words are Hindi too: the button, the title, the search box and its close button.
        self.assertEqual(self.driver.find_element(By.CSS_SELECTOR, BUTTON).text, "? मदद")
        self.assertEqual(self.driver.find_element(By.CSS_SELECTOR, f"{PANEL} h2").text, "मदद")
        self.assertEqual(self.driver.find_element(By.CSS_SELECTOR, f"{PANEL} input[type=search]").get_attribute("placeholder"), "मदद में खोजें")
        self.assertEqual(self.driver.find_element(By.CSS_SELECTOR, f"{PANEL} .wm-close").get_attribute("aria-label"), "मदद बंद करें")
        # ज़्यादातर with ज़ as one code point (U+095B) and as ज + nukta: both find the two articles.
        for typed in ["\u095b\u094d\u092f\u093e\u0926\u093e\u0924\u0930", "\u091c\u093c\u094d\u092f\u093e\u0926\u093e\u0924\u0930"]:
            self.search(typed)
            self.wait_for(lambda d: sorted(self.titles()) == sorted(["मेरा ऑर्डर कब आएगा?", "उत्पाद वापस करना"]), "the Hindi articles")
        self.search("डिलीवरी")
        self.wait_for(lambda d: "डिलीवरी पर नकद भुगतान" in self.titles(), "a Hindi keyword and title")

    def test_a_screens_tour_is_listed_there_and_found_from_anywhere(self):
        self.at((360, 740))
        self.open_without_welcome("help-screens")
        self.wait_for(lambda d: self.visible(BUTTON), "the help button").click()
        self.wait_for(lambda d: self.visible(PANEL), "the help panel")
        self.assertEqual(self.tours(), ["shop-tour"], "the cart's tour is not listed on the home screen")
        self.search("how to pay")
        self.wait_for(lambda d: self.tours() == ["pay-tour"], "the cart's tour, found by its title")
        self.driver.find_element(By.CSS_SELECTOR, f'{PANEL} [data-waymark-tour="pay-tour"]').click()
        self.wait_for(lambda d: self.visible('[data-waymark-ui="tour"][data-waymark-tour="pay-tour"]'), "the tour the help opened")
        self.assertIsNone(self.visible(PANEL), "the help closes for the tour")

    def test_a_page_may_place_its_own_help_button(self):
        # The page's link is there from the start, as a page's own markup would be. It sits in the
        # header, in view: reaching one below the fold would scroll, and a scroll shows the search
        # tip, which brings its own anchor at the top back into view under the finger.
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            document.addEventListener('DOMContentLoaded', () => {
              const link = document.createElement('a');
              link.href = '#help'; link.id = 'own-help'; link.dataset.waymarkHelp = ''; link.textContent = 'Need help?';
              document.querySelector('header nav').append(link);
            });"""})
        self.driver.get(f"{test_demo_shop.demo.url}/demo/?user=help-own")
        self.wait_for(lambda d: d.execute_script("return document.documentElement.dataset.waymarkReady === 'true'"), "the shop")
        self.wait_tip("welcome").find_element(By.CSS_SELECTOR, '[data-waymark-action="later"]').click()
        self.wait_tip("welcome", shown=False)
        self.wait_for(lambda d: d.execute_script("return Boolean((await import('/sdk/waymark.js')).Waymark.client.lists?.help)"),
                      "the help, which comes with the launcher's part")
        self.assertIsNone(self.visible(BUTTON), "the page's own button replaces the SDK's")
        self.driver.find_element(By.ID, "own-help").click()
        self.wait_for(lambda d: self.visible(PANEL), "the help panel")
        self.driver.find_element(By.CSS_SELECTOR, f'{PANEL} [data-waymark-checklist="first-steps"]').click()
        self.wait_for(lambda d: self.visible('[data-waymark-ui="checklist"]'), "the checklist the help opened")
