#!/usr/bin/env python3
"""Writes conformance/engine/cases.json: scheduling scenarios that every engine (Swift, JavaScript)
must play to the same render commands.

Each case has tips (rules as text, policy durations in seconds), steps in the format of
`waymark simulate` (event, context, container/visible, close, tip/visible, or a clock tick) and the expected
commands. The expectations are what the Swift engine, whose own tests specify its behaviour, prints
for each scenario: run `python3 conformance/engine/generate.py .build/debug/waymark` after changing
either engine, and read the diff.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from generate import C, E, T, stamp  # noqa: E402  the step helpers of the language's cases


def V(at, container, visible):
    return {"t": stamp(at), "container": container, "visible": visible}


def X(at, tip):
    return {"t": stamp(at), "close": tip}


def S(at, tip, visible):
    return {"t": stamp(at), "tip": tip, "visible": visible}


CASES = []


def scenario(name, tips, steps, frequency="immediate"):
    CASES.append({"name": name, "frequency": frequency, "tips": tips, "steps": steps})


# --- Written by hand: one behaviour each ---------------------------------------------------
scenario("a tip shows when its trigger is true and hides when its dismissal is",
         [{"id": "search", "container": "home", "anchor": "search-button", "trigger": "activation", "dismissal": "tap:search"}],
         [E("activation", 0), E("tap:cart", 5), E("tap:search", 9), E("activation", 10)])
scenario("one tip per container, the highest priority first, then catalog order",
         [{"id": "low", "container": "home", "trigger": "tap", "dismissal": "tap:low"},
          {"id": "high", "container": "home", "trigger": "tap", "dismissal": "tap:high", "priority": 5},
          {"id": "same", "container": "home", "trigger": "tap", "priority": 5},
          {"id": "elsewhere", "container": "cart", "trigger": "tap"}],
         [E("tap", 0), E("tap:high", 1), E("tap:same", 2), T(3)])
scenario("a hidden container pauses its tip, which resumes as it was",
         [{"id": "tip", "container": "home", "trigger": "tap", "policy": {"maxDisplayDuration": 30}}],
         [E("tap", 0), V(10, "home", False), T(100), V(200, "home", True), T(219), T(220)])
scenario("the last allowed appearance finishes instead of pausing",
         [{"id": "tip", "container": "home", "trigger": "tap", "policy": {"maxDisplayCount": 2}}],
         [E("tap", 0), V(1, "home", False), V(2, "home", True), V(3, "home", False), V(4, "home", True)])
scenario("display time counts only while a showing tip is in sight",
         [{"id": "tip", "container": "home", "trigger": "tap", "policy": {"maxDisplayDuration": 30}}],
         [E("tap", 0), S(10, "tip", False), T(100), S(200, "tip", True), T(219), T(220)])
scenario("a tip out of sight from the start counts nothing until it is seen",
         [{"id": "tip", "container": "home", "trigger": "tap", "policy": {"maxDisplayDuration": 30}}],
         [E("tap", 0), S(0, "tip", False), T(500), S(600, "tip", True), S(600, "tip", True), T(629), T(630)])
scenario("a resumed tip is in sight again; sight of a waiting or unknown tip changes nothing",
         [{"id": "tip", "container": "home", "trigger": "tap", "policy": {"maxDisplayDuration": 30}},
          {"id": "later", "container": "cart", "trigger": "scroll", "policy": {"maxDisplayDuration": 5}}],
         [S(0, "later", True), S(0, "nothing", False), E("tap", 1), S(6, "tip", False), V(10, "home", False),
          V(20, "home", True), T(44), T(45), S(46, "later", False), E("scroll", 50), T(55)])
scenario("a closed tip never comes back",
         [{"id": "tip", "container": "home", "trigger": "tap"}, {"id": "next", "container": "home", "trigger": "tap"}],
         [E("tap", 0), X(1, "tip"), E("tap", 2)])
scenario("a tour shows its tips in order",
         [{"id": "second", "container": "home", "trigger": "true", "dismissal": "tap:2", "group": "tour", "order": 2},
          {"id": "first", "container": "cart", "trigger": "true", "dismissal": "tap:1", "group": "tour", "order": 1}],
         [T(0), E("tap:1", 1), T(2), E("tap:2", 3)])
scenario("a rule that becomes true between events shows its tip at that moment",
         [{"id": "tip", "container": "home", "trigger": "tap AND NOT scroll within 30s"}],
         [E("scroll", 0), E("tap", 1), T(100)])
for late, label in ((31, "at"), (31.001, "after")):
    scenario(f"a window includes its boundary: the container frees {label} the end",
             [{"id": "first", "container": "home", "trigger": "tap", "dismissal": "tap:done", "priority": 9},
              {"id": "tip", "container": "home", "trigger": "scroll within 30s"}],
             [E("tap", 0), E("scroll", 1), E("tap:done", late)])
scenario("an expiry date finishes a tip at that moment",
         [{"id": "tip", "container": "home", "trigger": "tap", "policy": {"expiresAt": stamp(60)}},
          {"id": "late", "container": "cart", "trigger": "tap", "policy": {"expiresAt": stamp(5)}}],
         [E("tap", 0), T(30), E("tap", 61), T(3600)])
scenario("the display frequency spaces tips out",
         [{"id": "a", "container": "home", "trigger": "tap", "dismissal": "tap:a", "priority": 2},
          {"id": "b", "container": "cart", "trigger": "tap", "priority": 1},
          {"id": "c", "container": "banner", "trigger": "tap"}],
         [E("tap", 0), E("tap:a", 60), T(3600), T(7199), T(7200)], frequency="hourly")
scenario("context comparisons take part in triggers",
         [{"id": "tip", "container": "home", "trigger": "app.version >= v1.3 AND tap", "dismissal": "user.plan == \"pro\""}],
         [C({"app.version": "1.2.9"}, 0), E("tap", 1), C({"app.version": "1.10"}, 2), C({"user.plan": "pro"}, 3)])

# --- Random scenarios, seeded ----------------------------------------------------------------
EVENTS = ["tap:a", "tap:b", "tap", "scroll", "screen:home", "screen:cart"]
RULES = [
    "tap", "tap:a", "tap:b", "scroll", "screen:home", "scroll within 30s", "tap:a within 2m",
    "count(tap) >= 2", "count(scroll) >= 3 within 5m", "count(tap:b) == 1", "count(screen:cart) < 2 within 1m",
    "screen:home THEN scroll", "screen:home THEN tap:a within 1m", "tap THEN tap THEN scroll within 10m",
    "NOT scroll within 1m", "user.plan == \"pro\"", "app.version >= v1.3", "true",
]


def random_rule(rng, depth=0):
    roll = rng.random()
    if depth < 2 and roll < 0.2:
        return f"({random_rule(rng, depth + 1)} AND {random_rule(rng, depth + 1)})"
    if depth < 2 and roll < 0.35:
        return f"({random_rule(rng, depth + 1)} OR {random_rule(rng, depth + 1)})"
    if depth < 2 and roll < 0.42:
        return f"NOT {random_rule(rng, depth + 1)}"
    return rng.choice(RULES)


def random_scenario(rng, number, sight=False):
    tips = []
    for index in range(rng.randint(2, 6)):
        tip = {"id": f"t{index}", "container": rng.choice(["home", "cart", "banner"]), "trigger": random_rule(rng)}
        if rng.random() < 0.6:
            tip["dismissal"] = random_rule(rng)
        if rng.random() < 0.5:
            tip["priority"] = rng.randint(0, 3)
        if rng.random() < 0.25:
            tip["group"] = "g"
            tip["order"] = rng.randint(0, 3) * 10 + index
        if rng.random() < 0.3:
            tip["anchor"] = f"anchor-{index}"
        policy = {}
        if rng.random() < 0.3:
            policy["maxDisplayCount"] = rng.randint(1, 3)
        if rng.random() < 0.3:
            policy["maxDisplayDuration"] = rng.choice([5, 30, 90, 600])
        if rng.random() < 0.15:
            policy["expiresAt"] = stamp(rng.randint(0, 3000))
        if policy:
            tip["policy"] = policy
        tips.append(tip)
    steps = []
    at = 0.0
    for _ in range(rng.randint(10, 40)):
        at += rng.choice([0, 0.001, 1, 5, 20, 45, 61, 200, 1000])
        roll = rng.random()
        if roll < 0.6:
            steps.append(E(rng.choice(EVENTS), at))
        elif roll < 0.72:
            steps.append(V(at, rng.choice(["home", "cart", "banner"]), rng.random() < 0.5))
        elif roll < 0.8:
            steps.append(X(at, rng.choice(tips)["id"]))
        elif sight and roll < 0.85:
            steps.append(S(at, rng.choice(tips)["id"], rng.random() < 0.5))
        elif roll < 0.9:
            path = rng.choice(["user.plan", "app.version"])
            value = rng.choice(["pro", "free", None]) if path == "user.plan" else rng.choice(["1.2", "1.3.0", "2.0", None])
            steps.append(C({path: value}, at))
        else:
            steps.append(T(at))
    frequency = rng.choice(["immediate"] * 4 + ["hourly"])
    scenario(f"random {'in and out of sight ' if sight else ''}{number}", tips, steps, frequency)


rng = random.Random(20261122)
for number in range(1, 201):
    random_scenario(rng, number)
rng = random.Random(20261127)
for number in range(1, 41):
    random_scenario(rng, number, sight=True)


def expectations(waymark, case):
    with tempfile.TemporaryDirectory() as directory:
        catalog = {"frequency": case["frequency"],
                   "tips": [dict(tip, content={"title": tip["id"], "body": tip["id"]}) for tip in case["tips"]]}
        catalog_path = os.path.join(directory, "catalog.json")
        events_path = os.path.join(directory, "events.jsonl")
        with open(catalog_path, "w") as file:
            json.dump(catalog, file)
        with open(events_path, "w") as file:
            file.write("".join(json.dumps(step) + "\n" for step in case["steps"]))
        output = subprocess.run([waymark, "simulate", catalog_path, events_path], check=True, capture_output=True, text=True)
        return [json.loads(line) for line in output.stdout.splitlines()]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: generate.py PATH/TO/waymark")
    for case in CASES:
        case["expect"] = expectations(sys.argv[1], case)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.json")
    with open(path, "w") as file:
        json.dump({"group": "engine", "cases": CASES}, file, indent=1, ensure_ascii=False)
        file.write("\n")
    print(f"{len(CASES)} cases, {sum(len(c['expect']) for c in CASES)} commands -> {path}")
