"""What is counted is what was seen: waymark.js sends tip_shown once a tip has been on the screen
for a moment, not when the engine decides to show it. A tip anchored to an item of a virtualised
list that is not drawn waits, hidden, and is counted only once the user scrolls to the item. Run
by scripts/test.
"""
from test_demo_shop import BrowserTest, own_demo

setUpModule, tearDownModule = own_demo(narration=False)


class CountedTests(BrowserTest):
    def shown(self, user):
        return [target for _, target, _ in self.stored_events(user, "name = 'tip_shown'")]

    def phase(self, tip):
        return self.driver.execute_script(
            "return (await import('/sdk/waymark.js')).Waymark.client.engine.phase(arguments[0])", tip)

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
        # The user scrolls to it: it shows, and is counted.
        self.driver.execute_script("""
            const list = document.getElementById('product-list');
            list.scrollTop = 119 * 72 - 100;""")
        self.wait_tip("deal-tip")
        self.wait_for(lambda d: "deal-tip" in self.shown(user), "the deal counted once seen")
        self.assertEqual(self.shown(user).count("deal-tip"), 1)


if __name__ == "__main__":
    import unittest
    unittest.main()
