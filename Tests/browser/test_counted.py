"""What is counted is what was seen: waymark.js sends tip_shown once a tip has been on the screen
for a moment, not when the engine decides to show it, and the engine counts display time only while
the tip is in sight. A tip anchored to an item of a virtualised list that is not drawn waits,
hidden, and is counted only once the user scrolls to the item. Run by scripts/test.
"""
import json
import os
import sqlite3
import time

from selenium.webdriver.common.by import By

import test_demo_shop
from test_demo_shop import BrowserTest, own_demo


def demo():
    return test_demo_shop.demo

setUpModule, tearDownModule = own_demo(narration=False)

# The guidance's own events, as IncomingEvent.guidanceNames lists them (docs/analytics-forwarding.md).
GUIDANCE = {
    "tip_shown", "tip_closed", "tip_dismissed", "tip_action", "hotspot_opened", "survey_answered", "page_viewed",
    "page_read_to_bottom", "tour_action", "video_played", "narration_played", "narration_completed", "checklist_opened",
    "checklist_item_done", "checklist_completed", "help_opened", "help_searched", "article_opened",
}


class CountedTests(BrowserTest):
    def shown(self, user):
        return [target for _, target, _ in self.stored_events(user, "name = 'tip_shown'")]

    def phase(self, tip):
        return self.driver.execute_script(
            "return (await import('/sdk/waymark.js')).Waymark.client.engine.phase(arguments[0])", tip)

    def sight(self, tip):
        """The engine's display time so far for the tip, and whether it runs now."""
        return self.driver.execute_script("""
            const engine = (await import('/sdk/waymark.js')).Waymark.client.engine;
            const state = engine.states[engine.tips.findIndex((t) => t.id === arguments[0])];
            return [state.displayedMillis, state.activeSince !== null];""", tip)

    def test_the_app_hears_each_guidance_event_as_it_is_queued_and_none_of_its_own(self):
        """Waymark.start({ onGuidanceEvent }) hands the app's own analytics each guidance event, a copy
        with the id the server stores it under (docs/analytics-forwarding.md); the user's taps,
        screens and the app's own events stay the app's."""
        self.at((360, 740))
        user = "hook-listener"
        self.open_shop(user)
        self.wait_tip("welcome")
        # The shop started the SDK; it starts again with a hook, going on where it was.
        self.driver.execute_script("""
            const { Waymark } = await import('/sdk/waymark.js');
            window.heard = [];
            await Waymark.start({ ...Waymark.client.options, onGuidanceEvent: (event) => window.heard.push(event) });""")
        self.wait_tip("welcome").find_element(By.CSS_SELECTOR, '[data-waymark-action="later"]').click()
        self.wait_tip("welcome", shown=False)
        self.driver.execute_script("document.body.click()")
        self.driver.execute_script("(await import('/sdk/waymark.js')).Waymark.track('added_to_cart', 'p1')")
        heard = self.wait_for(lambda d: d.execute_script(
            "return window.heard.some((e) => e.name === 'tip_action') && window.heard"), "the welcome's button heard")
        names = {event["name"] for event in heard}
        self.assertIn("tip_action", names)
        self.assertTrue(names <= GUIDANCE, f"only guidance events: {names - GUIDANCE}")
        # Each one as the server stores it: the same id, name, target and properties.
        self.drain_queue(user)
        with sqlite3.connect(os.path.join(demo().directory, "data", "waymark.sqlite")) as database:
            stored = {row[0]: row[1:] for row in database.execute(
                "SELECT id, name, target, properties FROM events WHERE user = ?", (user,))}
        for event in heard:
            name, target, properties = stored[event["id"]]
            self.assertEqual((name, target, json.loads(properties)), (event["name"], event.get("target"), event["properties"]))
        self.assertTrue({"tap", "screen", "activation", "added_to_cart"} & {row[0] for row in stored.values()}, "the app's own events are stored")
        # The copy is the app's: changing it changes nothing that is sent.
        self.assertEqual(self.driver.execute_script("""
            window.heard[0].properties.tip = 'changed';
            return JSON.stringify(localStorage).includes('changed')"""), False)

    def test_a_tip_whose_anchor_is_not_drawn_is_counted_when_the_user_reaches_it(self):
        self.at((360, 740))
        user = "counted-list"
        self.open_without_welcome(user)
        self.driver.execute_script("location.hash = '#/products'")
        self.wait_tip("product-list-tip")
        self.wait_for(lambda d: "product-list-tip" in self.shown(user), "the list's tip, seen, counted")
        # The deal on product p120 shows next in the area, but p120 is far down the list, not drawn.
        self.driver.execute_script("(await import('/sdk/waymark.js')).Waymark.close('product-list-tip')")
        self.wait_for(lambda d: self.phase("deal-tip") == "active", "the deal shown by the engine")
        self.assertEqual(self.driver.execute_script(
            "return document.querySelector('[data-waymark-tip=\"deal-tip\"]')?.hidden"), True, "waiting for its product")
        self.assertNotIn("deal-tip", self.shown(user), "not seen, not counted")
        self.assertEqual(self.sight("deal-tip"), [0, False], "no display time while out of sight")
        # Its anchor is not in the page 5 s later: reported once for this view of the screen.
        missing = lambda: self.stored_events(user, "name = 'anchor_missing'")
        reported = self.wait_for(lambda d: missing(), "the deal's anchor reported missing", timeout=20)
        self.assertEqual([(target, properties["anchor"], properties["screen"]) for _, target, properties in reported],
                         [("deal-tip", "product[p120]", "products")])
        # The user scrolls to it: it shows, and is counted.
        self.driver.execute_script("""
            const list = document.getElementById('product-list');
            list.scrollTop = 119 * 72 - 100;""")
        self.wait_tip("deal-tip")
        self.wait_for(lambda d: "deal-tip" in self.shown(user), "the deal counted once seen")
        self.assertEqual(self.shown(user).count("deal-tip"), 1)
        self.assertEqual(self.sight("deal-tip")[1], True, "display time runs while it is seen")
        # Scrolled away again: its display time stands still until the user comes back.
        self.driver.execute_script("document.getElementById('product-list').scrollTop = 0")
        self.wait_for(lambda d: self.sight("deal-tip")[1] is False, "display time stopped out of sight")
        self.assertGreater(self.sight("deal-tip")[0], 0)
        self.assertEqual(len(missing()), 1, "once per screen view, and found since")


class SightingsTests(BrowserTest):
    def sightings(self):
        with sqlite3.connect(os.path.join(demo().directory, "data", "waymark.sqlite")) as database:
            return database.execute(
                "SELECT screen, kind, name, reports FROM anchor_sightings WHERE screen = 'products' ORDER BY kind, name").fetchall()

    def test_a_screen_reports_the_anchors_and_areas_it_shows_once_a_day(self):
        # Other tests of this server may have reported the screen from their own browsers.
        before = {(kind, name): count for _, kind, name, count in self.sightings()}
        self.open_without_welcome("sightings")
        self.driver.execute_script("location.hash = '#/products'")
        today = self.driver.execute_script("return new Date().toDateString()")
        self.wait_for(lambda d: d.execute_script("return localStorage.getItem('waymark:screen:products')") == today,
                      "the screen reported and marked for today", timeout=20)
        after = {(kind, name): count for _, kind, name, count in self.sightings()}
        self.assertIn(("anchor", "product"), after)
        self.assertIn(("area", "products"), after)
        self.assertEqual({key: count - before.get(key, 0) for key, count in after.items()}, {key: 1 for key in after},
                         "one report from this browser")
        # Back on the screen the same day: nothing more is sent.
        self.driver.execute_script("location.hash = '#/'")
        self.driver.execute_script("location.hash = '#/products'")
        time.sleep(4)
        self.assertEqual({(kind, name): count for _, kind, name, count in self.sightings()}, after, "once a day a screen")
    def test_a_tip_by_css_selector_points_at_the_element_it_matches(self):
        tip = {"id": "search-input-tip", "container": "search-area", "selector": "#screen-search label > input[type=search]",
               "trigger": "screen:search", "content": {"title": "Type what you want"}}
        demo().request("/v1/admin/catalog/draft/tips/search-input-tip", body=tip, method="PUT")
        demo().request("/v1/admin/catalog/publish", body={}, method="POST")
        self.at((360, 740))
        self.open_without_welcome("selector")
        self.driver.execute_script("location.hash = '#/search'")
        shown = self.wait_tip("search-input-tip")
        field = self.driver.find_element(By.ID, "search-box").rect
        box = shown.rect
        # Beside the field it points at: above or below it, overlapping it across.
        self.assertTrue(box["y"] + box["height"] <= field["y"] + 1 or box["y"] >= field["y"] + field["height"] - 1, (box, field))
        self.assertLess(max(box["x"], field["x"]), min(box["x"] + box["width"], field["x"] + field["width"]))
        # The sightings of the screen say the selector matched one element.
        with sqlite3.connect(os.path.join(demo().directory, "data", "waymark.sqlite")) as database:
            matched = lambda: database.execute(
                "SELECT matches FROM anchor_sightings WHERE screen = 'search' AND kind = 'selector'").fetchall()
            self.wait_for(lambda d: matched(), "the selector's matches reported", timeout=20)
            self.assertEqual(matched(), [(1,)])


if __name__ == "__main__":
    import unittest
    unittest.main()
