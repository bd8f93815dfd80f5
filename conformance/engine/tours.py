#!/usr/bin/env python3
"""Writes conformance/engine/tours.json: when a tour opens by its trigger (docs/rules.md#tours),
which every SDK (Swift, JavaScript, Java) plays through its tour gate to the same openings.

Each case has tours (id, trigger as text or null, number of pages) and steps; after every step the
player asks the gate which tour opens and writes {"t", "open", "page"} when one does. A step is one
of: an event ({"event", "target"}), context values ({"context"}), the app opening a tour
({"open"}), the user reaching a page ({"reached", "page"}), ending a tour ({"end", "page",
"ending": finished or dismissed}), pressing a page's button ({"press", "page", "kind", "to"}), the
open tour left without ending ({"left": true}), progress from another device ({"merge"}), or the
app starting again from what it kept ({"restart": true}). "progress" is what the gate shares at the
end. The expectations are written by hand: they are the specification.
"""
import json
import os

T0 = "2026-01-01T00:00:%02dZ"


def t(s):
    return T0 % s


CASES = []


def case(name, tours, steps, expect, progress):
    CASES.append({"name": name, "tours": [{"id": i, "trigger": r, "pages": n} for i, r, n in tours],
                  "steps": steps, "expect": expect, "progress": progress})


def E(s, name, target=None):
    step = {"t": t(s), "event": name}
    if target:
        step["target"] = target
    return step


def O(s, tour, page=0):
    return {"t": t(s), "open": tour, "page": page}


case("a tour opens when its trigger holds, at its first page",
     [("welcome", "screen:home", 3)],
     [E(0, "screen", "cart"), E(1, "screen", "home")],
     [O(1, "welcome")], {})
case("a tour without a trigger never opens by itself",
     [("manual", None, 2)],
     [E(0, "screen", "home"), E(1, "tap")],
     [], {})
case("one tour at a time: the second waits until the first ends, then opens",
     [("first", "tap", 2), ("second", "tap", 2)],
     [E(0, "tap"), E(1, "tap"), {"t": t(2), "end": "first", "page": 1, "ending": "finished"}],
     [O(0, "first"), O(2, "second")],
     {"first": {"page": 1, "finished": True}})
case("a finished tour does not open again while its trigger still holds",
     [("welcome", "screen:home", 2)],
     [E(0, "screen", "home"), {"t": t(1), "end": "welcome", "page": 1, "ending": "finished"}, E(2, "screen", "home"), E(3, "tap")],
     [O(0, "welcome")],
     {"welcome": {"page": 1, "finished": True}})
case("a dismissed tour does not open again while its trigger still holds",
     [("welcome", "screen:home", 3)],
     [E(0, "screen", "home"), {"t": t(1), "end": "welcome", "page": 0, "ending": "dismissed"}, E(2, "screen", "home")],
     [O(0, "welcome")],
     {"welcome": {"page": 0, "finished": False, "dismissed": True}})
case("a route button on the last page finishes the tour, and the trigger that still holds does not reopen it",
     [("shop", "screen:home", 3)],
     [E(0, "screen", "home"), {"t": t(1), "press": "shop", "page": 2, "kind": "route", "to": "/"}, E(2, "screen", "home")],
     [O(0, "shop")],
     {"shop": {"page": 2, "finished": True}})
case("a route button before the last page finishes the tour too: the user went where it leads",
     [("shop", "screen:home", 3)],
     [E(0, "screen", "home"), {"t": t(1), "press": "shop", "page": 0, "kind": "route", "to": "/deals"}, E(2, "screen", "home")],
     [O(0, "shop")],
     {"shop": {"page": 0, "finished": True}})
case("a dismiss button dismisses the tour",
     [("shop", "tap", 3)],
     [E(0, "tap"), {"t": t(1), "press": "shop", "page": 1, "kind": "dismiss"}, E(2, "tap")],
     [O(0, "shop")],
     {"shop": {"page": 1, "finished": False, "dismissed": True}})
case("next moves the tour on, and on its last page finishes it",
     [("shop", "tap", 2)],
     [E(0, "tap"), {"t": t(1), "press": "shop", "page": 0, "kind": "next"}, {"t": t(2), "press": "shop", "page": 1, "kind": "next"}, E(3, "tap")],
     [O(0, "shop")],
     {"shop": {"page": 1, "finished": True}})
case("a url button opens a web page beside the tour, which stays open",
     [("shop", "tap", 2), ("other", "tap", 1)],
     [E(0, "tap"), {"t": t(1), "press": "shop", "page": 0, "kind": "url", "to": "https://example.com/help"}, E(2, "tap")],
     [O(0, "shop")],
     {})
case("a tour button finishes its tour and the tour it leads to is open, so no trigger opens another meanwhile",
     [("shop", "tap", 2), ("delivery", None, 2), ("other", "tap", 1)],
     [E(0, "tap"), {"t": t(1), "press": "shop", "page": 1, "kind": "tour", "to": "delivery"}, E(2, "tap"),
      {"t": t(3), "end": "delivery", "page": 1, "ending": "finished"}],
     [O(0, "shop"), O(3, "other")],
     {"shop": {"page": 1, "finished": True}, "delivery": {"page": 1, "finished": True}})
case("a tour the app opened keeps triggered tours waiting until it ends",
     [("welcome", "tap", 2), ("help", None, 1)],
     [{"t": t(0), "open": "help"}, E(1, "tap"), {"t": t(2), "end": "help", "page": 0, "ending": "dismissed"}],
     [O(2, "welcome")],
     {"help": {"page": 0, "finished": False, "dismissed": True}})
case("a tour left open opens again by its trigger where the user was",
     [("welcome", "tap", 4)],
     [E(0, "tap"), {"t": t(1), "reached": "welcome", "page": 2}, {"t": t(2), "left": True}, E(3, "tap")],
     [O(0, "welcome"), O(2, "welcome", 2), ],
     {"welcome": {"page": 2, "finished": False}})
case("after a restart a tour that was open opens again where the user was",
     [("welcome", "tap", 4)],
     [E(0, "tap"), {"t": t(1), "reached": "welcome", "page": 1}, {"t": t(2), "restart": True}],
     [O(0, "welcome"), O(2, "welcome", 1)],
     {"welcome": {"page": 1, "finished": False}})
case("a tour ended on another device does not open here",
     [("welcome", "tap", 2)],
     [{"t": t(0), "merge": {"welcome": {"page": 0, "finished": False, "dismissed": True}}}, E(1, "tap")],
     [],
     {"welcome": {"page": 0, "finished": False, "dismissed": True}})
case("an open tour that ends on another device is no longer open, and the next due opens",
     [("first", "tap", 2), ("second", "tap", 2)],
     [E(0, "tap"), {"t": t(1), "merge": {"first": {"page": 1, "finished": True}}}],
     [O(0, "first"), O(1, "second")],
     {"first": {"page": 1, "finished": True}})
case("the page reached on another device is where the tour opens, within its pages",
     [("welcome", "tap", 3)],
     [{"t": t(0), "merge": {"welcome": {"page": 7, "finished": False}}}, E(1, "tap")],
     [O(1, "welcome", 2)],
     {"welcome": {"page": 7, "finished": False}})
case("an earlier page changes nothing, and an ending stays",
     [("welcome", "tap", 3)],
     [E(0, "tap"), {"t": t(1), "reached": "welcome", "page": 2}, {"t": t(2), "reached": "welcome", "page": 1},
      {"t": t(3), "end": "welcome", "page": 0, "ending": "dismissed"}, {"t": t(4), "merge": {"welcome": {"page": 0, "finished": True}}}],
     [O(0, "welcome")],
     {"welcome": {"page": 2, "finished": True, "dismissed": True}})
case("catalog order decides among tours whose triggers hold at once",
     [("later", "tap:b", 1), ("sooner", "tap", 1)],
     [E(0, "tap", "b")],
     [O(0, "later")], {})
case("context values open a tour",
     [("upgrade", 'user.plan == "free"', 1)],
     [{"t": t(0), "context": {"user.plan": "pro"}}, E(1, "tap"), {"t": t(2), "context": {"user.plan": "free"}}],
     [O(2, "upgrade")], {})

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tours.json")
with open(out, "w", encoding="utf-8") as f:
    json.dump({"group": "tours", "cases": CASES}, f, indent=1, ensure_ascii=False)
    f.write("\n")
print(f"wrote {len(CASES)} cases to {out}")
