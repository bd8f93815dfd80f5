"""Buttons on tips, tour pages and a survey's ending, in a real Chromium against `waymark demo`, at
desktop size and on a 360x740 phone: each is a named button in a labelled group, reached and
pressed with the keyboard; pressing one is a `tip_action` / `tour_action` event the rules read
and the server stores, and does what it says (a tour, a route of the app through its onAction, a
web page in a new tab, the next page, away).

Run by scripts/test; see test_demo_shop.py for what it needs.
"""
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from test_demo_shop import BrowserTest, own_demo

setUpModule, tearDownModule = own_demo(narration=False)

SIZES = [("desktop", None), ("phone", (360, 740))]


class ActionTests(BrowserTest):
    def actions(self, user):
        """The user's stored button presses and the tip endings they led to: (name, target, properties)."""
        return self.stored_events(user, "name IN ('tip_action', 'tour_action', 'tip_closed', 'tip_dismissed')")

    def focus_button(self, container, label):
        """Tabs (from the container's focus) to the button with this text, as a keyboard user would."""
        for _ in range(15):
            active = self.driver.switch_to.active_element
            if active.tag_name == "button" and active.text == label:
                return active
            active.send_keys(Keys.TAB)
        self.fail(f"Tab never reached the button {label!r}; at {self.driver.switch_to.active_element.text!r}")

    def test_a_tips_buttons_are_a_named_group_and_open_a_tour_by_keyboard(self):
        for name, size in SIZES:
            with self.subTest(size=name):
                user = f"buttons-{name}"
                self.at(size)
                self.open_shop(user)
                banner = self.wait_tip("welcome")
                group = banner.find_element(By.CSS_SELECTOR, '[role="group"]')
                self.assertEqual(group.get_attribute("aria-label"), "Welcome to the shop")
                buttons = group.find_elements(By.TAG_NAME, "button")
                self.assertEqual([b.text for b in buttons], ["Take the tour", "Not now"])
                self.assertEqual([b.get_attribute("class") for b in buttons], ["wm-primary", "wm-secondary"])
                # Touch targets of at least 44 px, inside the screen on a phone.
                boxes = self.driver.execute_script(
                    "return [...arguments[0]].map(b => { const r = b.getBoundingClientRect(); return [r.left, r.right, r.height]; })",
                    buttons)
                width = self.driver.execute_script("return innerWidth")
                for left, right, height in boxes:
                    self.assertGreaterEqual(height, 44)
                    self.assertTrue(0 <= left and right <= width, (left, right, width))
                # A tip that is not modal leaves the focus where it is; F6 moves it in.
                self.assertNotEqual(self.driver.switch_to.active_element, banner)
                self.driver.switch_to.active_element.send_keys(Keys.F6)
                self.wait_for(lambda d: d.switch_to.active_element == banner, "F6 to move the focus into the tip")
                self.screenshot(f"tip-buttons-{name}")
                self.focus_button(banner, "Take the tour").send_keys(Keys.ENTER)
                self.wait_tip("welcome", shown=False)
                panel = self.wait_for(lambda d: self.visible('[data-waymark-tour="shop-tour"]'), "the tour the button opens")
                self.assertIn("Page 1 of 3", panel.text)
                pressed = self.actions(user)
                self.assertEqual(pressed[0][:2], ("tip_action", "welcome"))
                self.assertEqual({k: pressed[0][2][k] for k in ("action", "kind", "to", "tip")},
                                 {"action": "tour", "kind": "tour", "to": "shop-tour", "tip": "welcome"})
                # The dismissal reads the press (tip_action:welcome where action == "tour"): the tip is done, not closed.
                self.assertEqual([p[:2] for p in pressed[1:]], [("tip_dismissed", "welcome")])
                self.driver.switch_to.active_element.send_keys(Keys.ESCAPE)

    def test_a_secondary_button_closes_the_tip_and_a_hindi_user_reads_it_in_hindi(self):
        self.open_shop("buttons-hindi", "&locale=hi-IN")
        banner = self.wait_tip("welcome")
        self.assertEqual([b.text for b in banner.find_elements(By.CSS_SELECTOR, ".wm-buttons button")], ["टूर शुरू करें", "अभी नहीं"])
        # The SDK's own words too: its close button and narration control.
        self.assertEqual(banner.find_element(By.CSS_SELECTOR, ".wm-close").get_attribute("aria-label"), "बंद करें")
        narrate = banner.find_element(By.CSS_SELECTOR, "button.wm-narrate").text
        self.assertTrue(narrate.startswith("▶ सुनें") or narrate == "पढ़कर सुनाएँ", narrate)
        banner.find_element(By.CSS_SELECTOR, '[data-waymark-action="later"]').click()
        self.wait_tip("welcome", shown=False)
        self.assertIsNone(self.visible('[data-waymark-tour="shop-tour"]'))
        pressed = self.actions("buttons-hindi")
        self.assertEqual([(n, t, p.get("action")) for n, t, p in pressed],
                         [("tip_action", "welcome", "later"), ("tip_closed", "welcome", None)])

    def test_a_route_goes_to_the_apps_on_action_and_without_one_to_the_pages_history(self):
        for name, size in SIZES:
            with self.subTest(size=name):
                self.at(size)
                user = f"route-{name}"
                self.open_shop(user)
                self.driver.execute_script("location.hash = '#/products'")
                # One tip per area: the list's own tip goes first.
                self.wait_tip("product-list-tip")
                self.driver.execute_script("(await import('/sdk/waymark.js')).Waymark.close('product-list-tip')")
                # The deal points at product 120 of a virtualised list: it shows once that row is drawn.
                self.driver.execute_script("document.getElementById('product-list').scrollTop = 119 * 72 - 200")
                deal = self.wait_tip("deal-tip", timeout=15)
                deal.find_element(By.CSS_SELECTOR, '[data-waymark-action="see-deal"]').click()
                # The shop's onAction turns /product/p120 into its hash route.
                self.wait_for(lambda d: d.execute_script("return location.hash") == "#/product/p120", "the shop's route")
                self.wait_for(lambda d: self.visible("#add-to-cart"), "the product screen")
                pressed = [p for p in self.actions(user) if p[0] == "tip_action"]
                self.assertEqual((pressed[0][1], pressed[0][2]["kind"], pressed[0][2]["to"]), ("deal-tip", "route", "/product/p120"))
        # A page without onAction: the SDK adds a history entry and tells the page's router (popstate).
        self.driver.execute_script("""
            const { Waymark } = await import('/sdk/waymark.js');
            Waymark.client.options.onAction = undefined;
            window.__popped = 0;
            addEventListener('popstate', () => { window.__popped += 1; });""")
        self.driver.execute_script("return (await import('/sdk/waymark.js')).Waymark.client.openTour('shop-tour', 2)")
        panel = self.wait_for(lambda d: self.visible('[data-waymark-tour="shop-tour"]'), "the tour's last page")
        start = panel.find_element(By.CSS_SELECTOR, '[data-waymark-action="shop"]')
        self.assertEqual(start.text, "Start shopping")
        start.click()
        self.wait_for(lambda d: self.visible('[data-waymark-tour="shop-tour"]') is None, "the tour to close")
        self.assertEqual(self.driver.execute_script("return [location.pathname, window.__popped]"), ["/products", 1])
        last = self.actions("route-phone")[-1]
        self.assertEqual((last[0], last[1], last[2]["page"], last[2]["action"]), ("tour_action", "shop-tour", "checkout", "shop"))
        # Leaving through "Start shopping" finished the tour: its trigger (tap:tour-start), true
        # from now on, does not open it again.
        opened = self.driver.execute_script("""
            const { Waymark } = await import('/sdk/waymark.js');
            Waymark.track('tap', 'tour-start');
            Waymark.track('scroll');
            return [Boolean(Waymark.client.renderer.tourPanel), Waymark.client.tourProgress['shop-tour']];""")
        self.assertEqual(opened, [False, {"page": 2, "finished": True}])

    def test_a_surveys_ending_says_thanks_to_screen_readers_and_offers_its_buttons(self):
        for name, size in SIZES:
            with self.subTest(size=name):
                self.at(size)
                user = f"ending-{name}"
                self.open_shop(user)
                self.driver.execute_script("location.hash = '#/cart'")
                self.wait_for(lambda d: self.visible("#checkout"), "the cart")
                self.driver.find_element(By.ID, "checkout").click()
                survey = self.wait_tip("checkout-survey")
                self.assertEqual(survey.find_elements(By.CSS_SELECTOR, ".wm-buttons"), [], "no buttons before the answer")
                survey.find_elements(By.CSS_SELECTOR, ".wm-scale span")[3].click()
                survey.find_element(By.CSS_SELECTOR, ".wm-survey button[type=submit]").click()
                status = self.wait_for(lambda d: self.visible('[data-waymark-tip="checkout-survey"] [role="status"]'), "the thanks")
                self.assertEqual(status.text, "Thank you!")
                focused = self.driver.switch_to.active_element
                self.assertEqual(focused.text, "Done", "the focus moves to the ending's first button")
                help_button = survey.find_element(By.CSS_SELECTOR, '[data-waymark-action="delivery-help"]')
                self.assertEqual(help_button.text, "How delivery works")
                self.screenshot(f"survey-ending-{name}")
                # The help page opens in a new tab, and the ending goes.
                tabs = len(self.driver.window_handles)
                help_button.click()
                self.wait_tip("checkout-survey", shown=False)
                self.wait_for(lambda d: len(d.window_handles) == tabs + 1, "the help page's tab")
                pressed = self.actions(user)
                answered = [p for p in pressed if p[0] == "tip_action"]
                self.assertEqual(answered[0][2]["to"], "https://help.example.com/delivery")
                self.assertEqual([p[:2] for p in pressed if p[0] == "tip_dismissed"], [("tip_dismissed", "checkout-survey")])
                # Once left, the survey does not come back.
                self.driver.find_element(By.ID, "checkout").click()
                self.assertIsNone(self.tip("checkout-survey"))

    def test_a_tour_pages_next_button_turns_the_page_and_its_event_is_counted(self):
        self.open_shop("tour-next")
        self.driver.execute_script("""
            const { Waymark } = await import('/sdk/waymark.js');
            const tour = Waymark.client.tours.get('shop-tour');
            tour.pages[0].actions = [{ id: on, label: 'Go on', style: 'primary', kind: 'next' }];
            Waymark.startTour('shop-tour');""".replace("id: on", "id: 'on'"))
        panel = self.wait_for(lambda d: self.visible('[data-waymark-tour="shop-tour"]'), "the tour")
        panel.find_element(By.CSS_SELECTOR, '[data-waymark-action="on"]').click()
        self.wait_for(lambda d: "Page 2 of 3" in panel.text, "the next page")
        pressed = self.actions("tour-next")
        self.assertEqual([(n, t, p["page"], p["kind"]) for n, t, p in pressed], [("tour_action", "shop-tour", "browse", "next")])
