#!/usr/bin/env python3
"""Writes conformance/stage/cases.json: which surfaces the stage shows, from their kinds,
priorities, order and rectangles (docs/web-sdk.md#one-guide-on-one-screen). Every SDK that decides
what to draw plays them. The expectations are written by hand: they are the specification.
"""
import json
import os

CASES = []


def box(left, top, width, height):
    return {"left": left, "top": top, "right": left + width, "bottom": top + height}


def S(id, kind, b, priority=0, order=0):
    return {"id": id, "kind": kind, "priority": priority, "order": order, "box": b}


def case(name, surfaces, shown):
    CASES.append({"name": name, "surfaces": surfaces, "shown": sorted(shown)})


HEADER = box(200, 10, 150, 80)
LOWER = box(10, 400, 200, 100)
DOCK = box(0, 688, 360, 52)
PANEL = box(8, 300, 340, 380)
case("tips that do not overlap both show", [S("a", "tip", HEADER), S("b", "tip", LOWER, order=1)], ["a", "b"])
case("of two tips that overlap, the higher priority shows and the other waits",
     [S("low", "tip", box(10, 100, 200, 100), 0, 0), S("high", "tip", box(100, 150, 200, 100), 5, 1)], ["high"])
case("of two tips of one priority that overlap, the earlier shows",
     [S("later", "tip", box(10, 100, 200, 100), 0, 2), S("earlier", "tip", box(100, 150, 200, 100), 0, 1)], ["earlier"])
case("tips that only touch do not overlap",
     [S("a", "tip", box(0, 0, 100, 100)), S("b", "tip", box(100, 0, 100, 100), order=1)], ["a", "b"])
case("a modal shows alone: tips, markers and the dock wait",
     [S("survey", "modal", box(20, 200, 320, 300), 0, 3), S("a", "tip", HEADER, 9, 0), S("m", "marker", box(300, 600, 44, 44), 0, 1),
      S("dock", "dock", DOCK, 0, 2)], ["survey"])
case("of two modals, the higher priority shows",
     [S("spot", "modal", box(0, 0, 360, 740), 1, 0), S("survey", "modal", box(20, 200, 320, 300), 3, 1)], ["survey"])
case("a modal waits while a panel is open; what the panel leaves free shows",
     [S("checklist", "panel", PANEL), S("survey", "modal", box(20, 200, 320, 300), 9, 1), S("a", "tip", HEADER, 0, 2),
      S("dock", "dock", DOCK, 0, 3)], ["checklist", "a", "dock"])
case("a tip over an open panel waits", [S("help", "panel", PANEL), S("a", "tip", LOWER, 10, 1)], ["help"])
case("two panels both show", [S("help", "panel", box(180, 300, 172, 380)), S("checklist", "panel", box(8, 300, 172, 380), 0, 1)],
     ["help", "checklist"])
case("the dock waits while a tip covers it (a banner at the bottom)",
     [S("banner", "tip", box(0, 600, 360, 140)), S("dock", "dock", DOCK, 0, 1)], ["banner"])
case("the dock shows beside tips that leave it free", [S("a", "tip", HEADER), S("dock", "dock", DOCK, 0, 1)], ["a", "dock"])
case("a tip that is away neither shows nor stands in the way",
     [S("away", "tip", None, 10, 0), S("a", "tip", HEADER, 0, 1), S("dock", "dock", DOCK, 0, 2)], ["a", "dock"])
case("a marker under a tip waits; one elsewhere shows",
     [S("a", "tip", box(200, 10, 150, 200)), S("under", "marker", box(300, 100, 44, 44), 9, 1), S("free", "marker", box(10, 10, 44, 44), 0, 2)],
     ["a", "free"])
case("a marker outranks the dock", [S("m", "marker", box(300, 690, 44, 44)), S("dock", "dock", DOCK, 0, 1)], ["m"])
case("priority does not lift a tip above a modal",
     [S("survey", "modal", box(20, 200, 320, 300), 0, 1), S("urgent", "tip", HEADER, 100, 0)], ["survey"])
case("a modal that is away lets the others show",
     [S("spot", "modal", None, 0, 0), S("a", "tip", HEADER, 0, 1), S("dock", "dock", DOCK, 0, 2)], ["a", "dock"])
case("nothing to show", [], [])

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.json")
with open(out, "w", encoding="utf-8") as f:
    json.dump({"group": "stage", "cases": CASES}, f, indent=1)
    f.write("\n")
print(f"wrote {len(CASES)} cases to {out}")
