#!/usr/bin/env python3
"""Writes the conformance cases of the Waymark rule language as JSON files.

The expectations below are written by hand: they are the specification. Every SDK (Swift, JavaScript)
runs the JSON files this script writes. Run it after editing: python3 conformance/generate.py

Step notation: E("tap:search", 1.5) is an event at base + 1.5 s (E("buy", 2, {"amount": 500}) one
with properties), T(10) a clock tick at base + 10 s,
C({"app.version": "1.3.0"}, 0) sets context values (None removes one). The expectation string has
one letter per step: T (true) or F (false), the rule's value right after that step.
"""
import json
import os

BASE_SECONDS = 1_767_225_600  # 2026-01-01T00:00:00Z


def stamp(offset):
    millis = round(offset * 1000)
    seconds, fraction = divmod(millis, 1000)
    days, rest = divmod(BASE_SECONDS + seconds, 86400)
    import datetime
    moment = datetime.datetime(1970, 1, 1) + datetime.timedelta(days=days, seconds=rest)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if fraction:
        text += ".%03d" % fraction
    return text + "Z"


def E(event, at, props=None):
    name, _, target = event.partition(":")
    step = {"t": stamp(at), "event": name}
    if target:
        step["target"] = target
    if props is not None:
        step["properties"] = props
    return step


def T(at):
    return {"t": stamp(at)}


def C(values, at):
    return {"t": stamp(at), "context": values}


GROUPS = {}


def case(group, rule, steps, expect, name=None):
    assert len(steps) == len(expect), (rule, steps, expect)
    steps = [dict(step, expect=(letter == "T")) for step, letter in zip(steps, expect)]
    GROUPS.setdefault(group, []).append({"name": name or rule, "rule": rule, "steps": steps})


def error(rule, line, column, code="syntax", name=None):
    GROUPS.setdefault("errors", []).append(
        {"name": name or rule, "rule": rule, "error": {"line": line, "column": column, "code": code}}
    )


# --- Occurrences -------------------------------------------------------------------------------
g = "occurrence"
case(g, "tap", [T(0), E("scroll", 1), E("tap", 2), T(100000)], "FFTT")
case(g, "tap", [E("tap:search", 0)], "T", "an event without target in the rule matches any target")
case(g, "tap:search", [E("tap", 0), E("tap:cart", 1), E("tap:search", 2), E("tap", 3)], "FFTT")
case(g, "tap:search", [E("tap:Search", 0), E("Tap:search", 1)], "FF", "names and targets are case-sensitive")
case(g, "Tap", [E("tap", 0), E("Tap", 1)], "FT")
case(g, "add_to-cart2", [E("add_to-cart2", 0)], "T", "names use letters, digits, _ and -")
case(g, "42", [E("42", 0)], "T", "a name may be all digits")
case(g, "tap:x", [E("tap:xy", 0), E("tap:x", 1)], "FT")
case(g, "screen:home", [E("screen:home", 0), T(999999)], "TT", "an occurrence without window stays true")
case(g, "a-b:c_d", [E("a-b:c_d", 0)], "T")
case(g, "tap", [T(0)], "F", "nothing happened")
case(g, "scroll", [E("tap", 0), E("scrolling", 1), E("scrol", 2)], "FFF")

# --- Windowed occurrences ----------------------------------------------------------------------
g = "window"
case(g, "tap within 5s", [E("tap", 0), T(5), T(5.001)], "TTF", "the window includes its boundary")
case(g, "tap within 5s", [E("tap", 0), E("tap", 4), T(9), T(9.001)], "TTTF", "the latest match counts")
case(g, "tap within 0s", [E("tap", 10), T(10), T(10.001)], "TTF", "a zero window holds for the same millisecond")
case(g, "tap within 1m", [E("tap", 0), T(60), T(60.001)], "TTF")
case(g, "tap within 2h", [E("tap", 0), T(7200), T(7200.001)], "TTF")
case(g, "tap within 1d", [E("tap", 0), T(86400), T(86400.001)], "TTF")
case(g, "tap within 1w", [E("tap", 0), T(604800), T(604800.001)], "TTF")
case(g, "tap within 3650d", [E("tap", 0), T(315360000), T(315360000.001)], "TTF", "the longest window")
case(g, "tap:x within 5s", [E("tap:y", 0), E("tap:x", 1), E("tap:y", 5), T(6.001)], "FTTF")
case(g, "tap within 5s", [T(0), E("tap", 10), T(14), T(16)], "FTTF")
case(g, "tap WITHIN 5s", [E("tap", 0), T(6)], "TF", "within is a case-insensitive keyword")
case(g, "tap within 5s", [E("tap", 0), T(100), E("tap", 101), T(105), T(106.5)], "TFTTF")
case(g, "NOT tap within 5s", [T(0), E("tap", 1), T(6), T(6.001)], "TFFT")
case(g, "tap within 1s", [E("tap", 0.5), T(1.5), T(1.501)], "TTF", "milliseconds count")

# --- Counts ------------------------------------------------------------------------------------
g = "count"
taps = [E("tap", i) for i in range(4)]
case(g, "count(tap) >= 2", [T(0)] + taps, "FFTTT")
case(g, "count(tap) > 2", [T(0)] + taps, "FFFTT")
case(g, "count(tap) == 2", [T(0)] + taps, "FFTFF")
case(g, "count(tap) != 2", [T(0)] + taps, "TTFTT")
case(g, "count(tap) <= 2", [T(0)] + taps, "TTTFF")
case(g, "count(tap) < 2", [T(0)] + taps, "TTFFF")
case(g, "count(tap) >= 0", [T(0), E("tap", 1)], "TT")
case(g, "count(tap) == 0", [T(0), E("tap", 1)], "TF")
case(g, "count(tap) < 0", [T(0), E("tap", 1)], "FF")
case(g, "count(tap) > 0", [T(0), E("tap", 1)], "FT")
case(g, "count(tap:x) >= 2", [E("tap", 0), E("tap:x", 1), E("tap:y", 2), E("tap:x", 3)], "FFFT")
case(g, "count(tap) >= 2", [E("tap:x", 0), E("tap:y", 1)], "FT", "a count without target counts every target")
case(g, "count(tap) >= 10000", [E("tap", 0)], "F", "the largest threshold")
case(g, "COUNT(tap) >= 1", [E("tap", 0)], "T", "count is a case-insensitive keyword")
case(g, "count( tap ) >= 1", [E("tap", 0)], "T", "spaces inside the parentheses")
case(g, "count(tap)>=1", [E("tap", 0)], "T", "no spaces needed around the operator")
case(g, "count(tap) == 3", [E("tap", i) for i in range(5)], "FFTFF")
case(g, "count(tap) >= 3", [E("tap", 0), E("scroll", 1), E("tap", 2), E("tap", 3), T(99999)], "FFFTT")

g = "count-window"
case(g, "count(tap) >= 2 within 10s", [E("tap", 0), E("tap", 5), T(10), T(10.001), T(15), T(15.001)], "FTTFFF")
case(g, "count(tap) < 2 within 10s", [E("tap", 0), E("tap", 5), T(10), T(10.001)], "TFFT")
case(g, "count(tap) == 2 within 10s", [E("tap", 0), E("tap", 1), E("tap", 2), T(10.001), T(11.001), T(12.001)], "FTFTFF")
case(g, "count(tap) > 1 within 10s", [E("tap", 0), E("tap", 1), E("tap", 2), T(11.001), T(12.001)], "FTTFF")
case(g, "count(tap) != 1 within 10s", [T(0), E("tap", 1), E("tap", 2), T(11.001), T(12.001)], "TFTFT")
case(g, "count(tap) <= 1 within 10s", [E("tap", 0), E("tap", 1), T(10.001)], "TFT")
case(g, "count(tap) >= 3 within 1m", [E("tap", 0), E("tap", 30), E("tap", 61), E("tap", 62), T(90), T(90.001)], "FFFTTF")
case(g, "count(tap) >= 1 within 0s", [E("tap", 1), T(1), T(1.001)], "TTF")
case(g, "count(tap) == 0 within 5s", [T(0), E("tap", 1), T(6), T(6.001)], "TFFT")
case(g, "count(tap:x) >= 2 within 5s", [E("tap:x", 0), E("tap:y", 1), E("tap:x", 5), T(5.001)], "FFTF")
case(g, "count(tap) >= 2 within 5s", [E("tap", 0), E("tap", 0), T(5), T(5.001)], "FTTF", "events in the same millisecond")
case(g, "count(tap) >= 2 within 1d", [E("tap", 0), E("tap", 86400), T(86400.001)], "FTF")
case(g, "count(tap) == 1 within 5s", [E("tap", 0), E("tap", 3), T(5.001), T(8.001)], "TFTF")
case(g, "count(tap) > 0 within 5s", [E("tap", 0), T(3), T(5.5), E("tap", 6), T(11), T(11.001)], "TTFTTF")
case(g, "count(tap) >= 4 within 10s",
     [E("tap", 0), E("tap", 1), E("tap", 2), E("tap", 3), E("tap", 4), T(10.001), T(11.001), T(14)],
     "FFFTTTFF")

# --- Sequences ---------------------------------------------------------------------------------
g = "then"
case(g, "a THEN b", [E("b", 0), E("a", 1), T(2), E("b", 3), T(99999)], "FFFTT")
case(g, "a THEN b", [E("a", 0), E("a", 1), E("b", 2)], "FFT")
case(g, "a THEN b", [E("a", 0)], "F")
case(g, "a then b", [E("a", 0), E("b", 1)], "FT", "THEN is a case-insensitive keyword")
case(g, "a THEN b THEN c", [E("a", 0), E("c", 1), E("b", 2), E("c", 3)], "FFFT")
case(g, "a THEN b THEN c", [E("b", 0), E("c", 1), E("a", 2), E("c", 3), E("b", 4), E("c", 5)], "FFFFFT")
case(g, "tap THEN tap", [E("tap", 0), E("tap", 1)], "FT", "one event counts for one step only")
case(g, "tap THEN tap THEN tap", [E("tap", 0), E("tap", 1), E("tap", 2)], "FFT")
case(g, "tap THEN tap:x", [E("tap:x", 0), E("tap:x", 1)], "FT", "a matching event advances one step at a time")
case(g, "tap:x THEN tap", [E("tap:y", 0), E("tap:x", 1), E("tap:y", 2)], "FFT")
case(g, "a THEN b within 5s", [E("a", 0), E("b", 5)], "FT", "the window includes its boundary")
case(g, "a THEN b within 5s", [E("a", 0), E("b", 5.001)], "FF")
case(g, "a THEN b within 5s", [E("a", 0), E("b", 3), T(100)], "FTT", "once true a sequence stays true")
case(g, "a THEN b within 5s", [E("a", 0), E("a", 4), E("b", 8)], "FFT", "a later start can complete")
case(g, "a THEN b THEN c within 10s", [E("a", 0), E("b", 5), E("c", 12)], "FFF", "the window spans first to last")
case(g, "a THEN b THEN c within 10s", [E("a", 0), E("b", 5), E("a", 6), E("b", 7), E("c", 12)], "FFFFT")
case(g, "a THEN b THEN c within 10s", [E("a", 0), E("a", 3), E("b", 5), E("c", 12)], "FFFT")
case(g, "a THEN b within 0s", [E("a", 1), E("b", 1)], "FT", "same millisecond, later in arrival order")
case(g, "a THEN b within 0s", [E("a", 1), E("b", 1.001)], "FF")
case(g, "a THEN b", [E("a", 0), E("b", 0)], "FT")
case(g, "screen:home THEN tap:search within 30s", [E("screen:home", 0), E("tap:cart", 10), E("tap:search", 30)], "FFT")
case(g, "screen:home THEN tap:search within 30s", [E("screen:cart", 0), E("tap:search", 10)], "FF")
case(g, "a THEN b THEN a", [E("a", 0), E("b", 1), E("a", 2)], "FFT")
case(g, "a THEN b THEN a", [E("a", 0), E("a", 1), E("b", 2)], "FFF")
case(g, "NOT (a THEN b)", [E("a", 0), E("b", 1), T(5)], "TFF")

# --- Boolean operators -------------------------------------------------------------------------
g = "boolean"
case(g, "true", [T(0)], "T")
case(g, "false", [T(0)], "F")
case(g, "TRUE", [T(0)], "T", "constants are case-insensitive")
case(g, "False", [T(0)], "F")
case(g, "NOT false", [T(0)], "T")
case(g, "NOT NOT tap", [T(0), E("tap", 1)], "FT")
case(g, "not tap", [T(0), E("tap", 1)], "TF", "NOT is a case-insensitive keyword")
case(g, "tap AND scroll", [E("tap", 0), E("scroll", 1)], "FT")
case(g, "tap and scroll", [E("scroll", 0), E("tap", 1)], "FT")
case(g, "tap OR scroll", [T(0), E("scroll", 1)], "FT")
case(g, "tap or scroll", [T(0), E("tap", 1)], "FT")
case(g, "(tap:search AND activation) OR scroll", [E("tap:search", 0), E("activation", 1)], "FT")
case(g, "(tap:search AND activation) OR scroll", [E("scroll", 0)], "T")
case(g, "(tap:search AND activation) OR scroll", [E("activation", 0), E("tap", 1)], "FF")
case(g, "a OR b AND c", [E("b", 0), E("c", 1)], "FT", "AND binds tighter than OR")
case(g, "a OR b AND c", [E("a", 0)], "T")
case(g, "(a OR b) AND c", [E("a", 0), E("c", 1)], "FT")
case(g, "NOT a AND b", [E("b", 0), E("a", 1)], "TF", "NOT binds tighter than AND")
case(g, "NOT (a AND b)", [T(0), E("a", 1), E("b", 2)], "TTF")
case(g, "NOT a OR b", [T(0), E("a", 1), E("b", 2)], "TFT")
case(g, "a AND b AND c", [E("a", 0), E("b", 1), E("c", 2)], "FFT")
case(g, "a OR b OR c", [T(0), E("c", 1)], "FT")
case(g, "a AND (b OR c) AND NOT d", [E("a", 0), E("c", 1), E("d", 2)], "FTF")
case(g, "((((tap))))", [E("tap", 0)], "T")
case(g, "tap AND true", [E("tap", 0)], "T")
case(g, "tap OR false", [T(0), E("tap", 1)], "FT")
case(g, "tap AND NOT tap", [T(0), E("tap", 1)], "FF")
case(g, "tap OR NOT tap", [T(0), E("tap", 1)], "TT")
case(g, "  tap\n  AND\tscroll  ", [E("tap", 0), E("scroll", 1)], "FT", "spaces, tabs and newlines separate tokens")
case(g, "(tap)AND(scroll)", [E("tap", 0), E("scroll", 1)], "FT", "parentheses separate tokens")
case(g, "NOT(tap)", [T(0), E("tap", 1)], "TF")
case(g, "count(a) >= 1 AND b within 5s", [E("a", 0), E("b", 1), T(6.001)], "FTF")
case(g, "a AND a", [E("a", 0)], "T", "the same term twice")
case(g, "NOT a OR NOT a", [T(0), E("a", 1)], "TF")
case(g, "(a OR b) AND (a OR c)", [E("b", 0), E("c", 1), E("a", 2)], "FTT")
case(g, "a AND NOT (b OR c within 5s)", [E("a", 0), E("c", 1), T(6), T(6.001)], "TFFT")

# --- Comparisons -------------------------------------------------------------------------------
g = "compare"
num = lambda v: C({"user.age": v}, 0)
for rule, values in [
    ("user.age >= 18", {17: "F", 18: "T", 19: "T", 18.5: "T"}),
    ("user.age > 18", {17: "F", 18: "F", 19: "T", 18.5: "T"}),
    ("user.age == 18", {17: "F", 18: "T", 18.0: "T", 18.5: "F"}),
    ("user.age != 18", {17: "T", 18: "F", 19: "T"}),
    ("user.age <= 18", {17: "T", 18: "T", 19: "F"}),
    ("user.age < 18", {17: "T", 18: "F", 19: "F", -5: "T"}),
    ("user.age == 18.5", {18.5: "T", 18: "F"}),
    ("user.age > -1.5", {-1: "T", -2: "F", -1.5: "F"}),
    ("user.age == 0", {0: "T", -0.0: "T", 1: "F"}),
]:
    for value, expect in values.items():
        case(g, rule, [C({"user.age": value}, 0)], expect, f"{rule} with {value}")
case(g, "user.age >= 18", [T(0)], "F", "a missing value makes a comparison false")
case(g, "user.age != 18", [T(0)], "F", "a missing value makes != false too")
case(g, "user.age == 18", [C({"user.age": "18"}, 0)], "F", "a string is not a number")
case(g, "user.age != 18", [C({"user.age": "18"}, 0)], "F", "another type makes != false too")
case(g, "user.age == 18", [C({"user.age": True}, 0)], "F")
case(g, "user.age >= 18", [C({"user.age": 20}, 0), C({"user.age": None}, 1)], "TF", "null removes a value")
case(g, "user.age >= 18", [C({"user.age": 10}, 0), C({"user.age": 30}, 1), C({"user.age": 12}, 2)], "FTF")

strings = [
    ('user.plan == "pro"', "pro", "T"), ('user.plan == "pro"', "Pro", "F"), ('user.plan != "pro"', "free", "T"),
    ('user.plan != "pro"', "pro", "F"), ('user.plan < "b"', "a", "T"), ('user.plan < "b"', "b", "F"),
    ('user.plan < "b"', "B", "T"), ('user.plan > "a"', "B", "F"), ('user.plan >= "ab"', "ab", "T"),
    ('user.plan > "ab"', "abc", "T"), ('user.plan < "ab"', "a", "T"), ('user.plan <= "ab"', "ab", "T"),
    ('user.plan == ""', "", "T"), ('user.plan > ""', "a", "T"), ('user.plan == "a\\"b"', 'a"b', "T"),
    ('user.plan == "a\\\\b"', "a\\b", "T"), ('user.plan == "héllo"', "héllo", "T"),
    ('user.plan < "é"', "z", "T"), ('user.plan > "Z"', "a", "T"), ('user.plan == "10"', "10", "T"),
    ('user.plan == "AND"', "AND", "T"), ('user.plan == "a b"', "a b", "T"),
]
for rule, value, expect in strings:
    case(g, rule, [C({"user.plan": value}, 0)], expect, f"{rule} with {json.dumps(value)}")
case(g, 'user.plan == "10"', [C({"user.plan": 10}, 0)], "F", "a number is not a string")
case(g, 'user.plan != "pro"', [C({"user.plan": 1}, 0)], "F")

for rule, value, expect in [
    ("user.beta == true", True, "T"), ("user.beta == true", False, "F"), ("user.beta != true", False, "T"),
    ("user.beta == false", False, "T"), ("user.beta != false", False, "F"), ("user.beta == TRUE", True, "T"),
    ("user.beta == true", "true", "F"), ("user.beta == true", 1, "F"), ("user.beta != true", "yes", "F"),
]:
    case(g, rule, [C({"user.beta": value}, 0)], expect, f"{rule} with {json.dumps(value)}")
case(g, "user.beta == true", [T(0)], "F")

g = "version"
for rule, value, expect in [
    ("app.version >= v1.3", "1.3", "T"), ("app.version >= v1.3", "1.3.0", "T"), ("app.version >= v1.3", "1.2.9", "F"),
    ("app.version >= v1.3", "1.10", "T"), ("app.version > v1.9", "1.10.2", "T"), ("app.version < v1.10", "1.9", "T"),
    ("app.version == v1.3", "1.3.0", "T"), ("app.version == v1.3.0", "1.3", "T"), ("app.version == v1.3", "1.3.1", "F"),
    ("app.version != v1.3", "1.3.0.0", "F"), ("app.version != v1.3", "1.4", "T"), ("app.version <= v2", "2.0.0", "T"),
    ("app.version <= v2", "2.0.1", "F"), ("app.version > v0.9", "1", "T"), ("app.version >= v1.3", "1.3.0-beta", "F"),
    ("app.version >= v1.3", "v1.3", "F"), ("app.version >= v1.3", "", "F"), ("app.version >= v1.3", "1..3", "F"),
    ("app.version >= v1.3", "1.3.", "F"), ("app.version >= v1.3", ".1.3", "F"), ("app.version >= v1.3", 2, "F"),
    ("app.version != v1.3", 2, "F"), ("app.version == v10.0.1", "10.0.1", "T"), ("app.version < v1.2.3", "1.2.2.9", "T"),
    ("app.version >= V1.3", "1.3", "T"), ("app.version == v007", "7", "T"),
]:
    case(g, rule, [C({"app.version": value}, 0)], expect, f"{rule} with {json.dumps(value)}")
case(g, "app.version >= v1.3", [T(0)], "F")
case(g, "app.version >= v1.3", [C({"app.version": "1.2"}, 0), C({"app.version": "1.3"}, 1)], "FT")

g = "in"
for rule, value, expect in [
    ('device.platform in ["ios", "android"]', "ios", "T"), ('device.platform in ["ios", "android"]', "android", "T"),
    ('device.platform in ["ios", "android"]', "web", "F"), ('device.platform in ["ios", "android"]', "IOS", "F"),
    ('device.platform in ["ios"]', "ios", "T"), ('user.age in [1, 2, 3]', 2, "T"), ('user.age in [1, 2, 3]', 4, "F"),
    ('user.age in [1, 2, 3]', "2", "F"), ('user.tag in ["1", 1]', 1, "T"), ('user.tag in ["1", 1]', "1", "T"),
    ('user.tag in [true]', True, "T"), ('user.tag in [true]', False, "F"), ('app.version in [v1.3, v2]', "1.3.0", "T"),
    ('app.version in [v1.3, v2]', "2.0", "T"), ('app.version in [v1.3, v2]', "1.4", "F"),
    ('device.platform IN ["ios"]', "ios", "T"), ('device.platform in [ "ios" , "web" ]', "web", "T"),
]:
    path = rule.split(" ")[0]
    case(g, rule, [C({path: value}, 0)], expect, f"{rule} with {json.dumps(value)}")
case(g, 'device.platform in ["ios"]', [T(0)], "F")
case(g, 'NOT device.platform in ["ios"]', [T(0)], "T", "NOT of a missing value's comparison is true")

g = "context"
case(g, 'user.plan == "pro" AND tap', [C({"user.plan": "pro"}, 0), E("tap", 1), C({"user.plan": "free"}, 2)], "FTF")
case(g, "a.b.c.d == 1", [C({"a.b.c.d": 1}, 0)], "T", "paths have two or more components")
case(g, "user.n > 1 OR user.n < -1", [C({"user.n": 0}, 0), C({"user.n": -2}, 1), C({"user.n": 2}, 2)], "FTT")
case(g, "user.x == 1 AND user.y == 2", [C({"user.x": 1, "user.y": 2}, 0), C({"user.y": None}, 1)], "TF")
case(g, "user.n >= 1", [C({"user.n": 1e15}, 0)], "T")

# --- User attributes: times and versions -----------------------------------------------------------
# A user's attributes are context values under user.<name>; besides text, numbers and flags they can
# be times ({"time": ...}) and versions ({"version": ...}), written as the literals they compare with.
g = "attributes"
tm = lambda text: {"time": text}
ver = lambda text: {"version": text}
for rule, value, expect in [
    ("user.firstOrderAt < 2026-01-01", tm("2025-12-31T23:59:59.999Z"), "T"),
    ("user.firstOrderAt < 2026-01-01", tm("2026-01-01T00:00:00Z"), "F"),
    ("user.firstOrderAt <= 2026-01-01", tm("2026-01-01T00:00:00Z"), "T"),
    ("user.firstOrderAt >= 2026-01-01", tm("2026-01-01T00:00:00.001Z"), "T"),
    ("user.firstOrderAt > 2026-01-01", tm("2026-01-01"), "F"),
    ("user.firstOrderAt == 2026-01-01", tm("2026-01-01T05:30:00+05:30"), "T"),
    ("user.firstOrderAt != 2026-01-01", tm("2026-01-02"), "T"),
    ("user.firstOrderAt != 2026-01-01", tm("2026-01-01T00:00:00.000Z"), "F"),
    ("user.firstOrderAt >= 2026-01-15T10:30:00+05:30", tm("2026-01-15T05:00:00Z"), "T"),
    ("user.firstOrderAt >= 2026-01-15T10:30:00+05:30", tm("2026-01-15T04:59:59.999Z"), "F"),
    ("user.firstOrderAt < 2026-01-15T00:00:00-08:00", tm("2026-01-15T07:59:59Z"), "T"),
    ("user.firstOrderAt == 2026-01-15T00:00:00.5Z", tm("2026-01-15T00:00:00.500Z"), "T"),
    ("user.firstOrderAt == 2026-01-15T00:00:00.5Z", tm("2026-01-15T00:00:00.5009Z"), "T"),
    ("user.firstOrderAt == 2026-01-15t00:00:00z", tm("2026-01-15T00:00:00Z"), "T"),
    ("user.firstOrderAt == 2024-02-29", tm("2024-02-29T00:00:00Z"), "T"),
    ("user.firstOrderAt > 1969-12-31T23:59:59Z", tm("1970-01-01T00:00:00Z"), "T"),
    ("user.firstOrderAt < 1970-01-01", tm("1969-07-20T20:17:40Z"), "T"),
    ("user.firstOrderAt >= 0000-01-01", tm("0000-01-01T00:00:00Z"), "T"),
    ("user.firstOrderAt <= 9999-12-31T23:59:59.999Z", tm("9999-12-31T23:59:59.999Z"), "T"),
    ("user.firstOrderAt < 2026-01-01", "2025-01-01", "F"),
    ("user.firstOrderAt != 2026-01-01", "2025-01-01", "F"),
    ("user.firstOrderAt < 2026-01-01", 0, "F"),
    ("user.firstOrderAt == 2026-01-01", True, "F"),
    ('user.firstOrderAt == "2026-01-01"', tm("2026-01-01"), "F"),
    ("user.firstOrderAt in [2026-01-01, 2026-02-01]", tm("2026-02-01T00:00:00Z"), "T"),
    ("user.firstOrderAt in [2026-01-01, 2026-02-01]", tm("2026-01-15"), "F"),
    ("user.appBuild >= v5.2", ver("5.2.1"), "T"),
    ("user.appBuild >= v5.2", ver("5.1.9"), "F"),
    ("user.appBuild >= v5.2", ver("5.2"), "T"),
    ("user.appBuild == v5.2", ver("5.2.0"), "T"),
    ("user.appBuild != v5.2", ver("5.2.0.0"), "F"),
    ("user.appBuild < v5.10", ver("5.9"), "T"),
    ("user.appBuild in [v5, v6]", ver("6.0"), "T"),
    ('user.appBuild == "5.2.1"', ver("5.2.1"), "F"),
    ("user.appBuild == 5.2", ver("5.2"), "F"),
    ("user.appBuild >= 2026-01-01", ver("2026.1.1"), "F"),
    ("user.appBuild >= v5.2", "5.2.1", "T"),
]:
    case(g, rule, [C({rule.split(" ")[0]: value}, 0)], expect, f"{rule} with {json.dumps(value)}")
for rule, expect, why in [
    ("user.firstOrderAt < 2026-01-01", "F", "a user without the attribute"),
    ("user.firstOrderAt != 2026-01-01", "F", "a user without the attribute: != is false too"),
    ("NOT user.firstOrderAt >= 0000-01-01", "T", "NOT over a missing attribute: a first-time buyer"),
    ("user.codUser == true OR tap", "F", "a missing attribute beside an event"),
    ("user.appBuild >= v5.2", "F", "a missing version"),
]:
    case(g, rule, [T(0)], expect, why)
case(g, 'user.codUser == true AND user.cityTier >= 2 AND user.plan == "plus"',
     [C({"user.codUser": True, "user.cityTier": 2}, 0), C({"user.plan": "plus"}, 1), C({"user.cityTier": None}, 2)], "FTF",
     "attributes arrive and leave one by one")
case(g, "user.firstOrderAt < 2026-01-01",
     [C({"user.firstOrderAt": tm("2026-03-01")}, 0), C({"user.firstOrderAt": tm("2025-03-01")}, 1),
      C({"user.firstOrderAt": "2025-03-01"}, 2)], "FTF", "a time replaced by text stops comparing")
case(g, "purchase where at < 2026-01-01", [E("purchase", 0, {"at": "2025-01-01"})], "F",
     "event properties are text, numbers and flags: never times")
case(g, "purchase where amount >= 500 AND user.firstOrderAt >= 2026-01-01",
     [C({"user.firstOrderAt": tm("2026-02-01")}, 0), E("purchase", 1, {"amount": 800})], "FT",
     "a property test and an attribute in one rule")

# --- Event properties ----------------------------------------------------------------------------
g = "properties"
P = lambda props, at=0: E("purchase", at, props)
# Numbers, by every operator; properties are typed: "500" is text, not a number.
for rule, values in [
    ("purchase where amount >= 500", {499: "F", 500: "T", 500.0: "T", 10000: "T", 499.99: "F"}),
    ("purchase where amount > 500", {500: "F", 500.5: "T", 501: "T"}),
    ("purchase where amount <= 500", {500: "T", 501: "F", -3: "T"}),
    ("purchase where amount < 500", {499: "T", 500: "F"}),
    ("purchase where amount == 500", {500: "T", 500.0: "T", 501: "F"}),
    ("purchase where amount != 500", {500: "F", 501: "T"}),
    ("purchase where amount >= 10000.5", {10000.5: "T", 10000: "F"}),
    ("purchase where amount > -1", {0: "T", -1: "F", -0.5: "T"}),
]:
    for value, expect in values.items():
        case(g, rule, [P({"amount": value})], expect, f"{rule} with {json.dumps(value)}")
for rule, props, expect, why in [
    ("purchase where amount >= 500", {"amount": "500"}, "F", "text is not a number"),
    ("purchase where amount != 500", {"amount": "501"}, "F", "another type makes != false too"),
    ("purchase where amount >= 500", {}, "F", "a missing property fails the test"),
    ("purchase where amount != 500", {}, "F", "a missing property makes != false too"),
    ("purchase where amount >= 500", {"amount": True}, "F", "a flag is not a number"),
    ("purchase where amount >= 500", {"price": 900}, "F", "only the named property counts"),
    ('purchase where category == "phones"', {"category": "phones"}, "T", None),
    ('purchase where category == "phones"', {"category": "Phones"}, "F", "names compare by bytes, case included"),
    ('purchase where category != "phones"', {"category": "tv"}, "T", None),
    ('purchase where category != "phones"', {"category": 1}, "F", None),
    ('purchase where category < "b"', {"category": "a"}, "T", None),
    ('purchase where category < "b"', {"category": "B"}, "T", "upper case sorts before lower case"),
    ('purchase where category == "मोबाइल"', {"category": "मोबाइल"}, "T", "any text"),
    ('purchase where currency == "₹"', {"currency": "₹"}, "T", None),
    ('purchase where note == "a \\"b\\""', {"note": 'a "b"'}, "T", "escaped quotes"),
    ('purchase where category == "10"', {"category": 10}, "F", "a number is not text"),
    ("purchase where cod == true", {"cod": True}, "T", None),
    ("purchase where cod == true", {"cod": False}, "F", None),
    ("purchase where cod != true", {"cod": False}, "T", None),
    ("purchase where cod == true", {"cod": "true"}, "F", "text is not a flag"),
    ("purchase where cod == false", {}, "F", "a missing flag is not false"),
    ("purchase where appBuild >= v5.2", {"appBuild": "5.2.1"}, "T", "a version literal reads text as a version"),
    ("purchase where appBuild >= v5.2", {"appBuild": "5.1.9"}, "F", None),
    ("purchase where appBuild == v5.2", {"appBuild": "5.2.0"}, "T", None),
    ("purchase where appBuild >= v5.2", {"appBuild": "5.2-beta"}, "F", "text that is not a version"),
    ("purchase where appBuild >= v5.2", {"appBuild": 6}, "F", "a number is not a version"),
    ('purchase where category in ["mobiles", "tv"]', {"category": "tv"}, "T", None),
    ('purchase where category in ["mobiles", "tv"]', {"category": "mobiles"}, "T", None),
    ('purchase where category in ["mobiles", "tv"]', {"category": "books"}, "F", None),
    ('purchase where category in ["mobiles", "tv"]', {}, "F", None),
    ("purchase where qty in [1, 2, 3]", {"qty": 2}, "T", None),
    ("purchase where qty in [1, 2, 3]", {"qty": "2"}, "F", None),
    ('purchase where code in ["1", 1, true]', {"code": True}, "T", "a list may mix types"),
    ("purchase where appBuild in [v5, v6.1]", {"appBuild": "6.1.0"}, "T", None),
    ('purchase where category IN ["tv"]', {"category": "tv"}, "T", "keywords in any case"),
    ('purchase where amount >= 500 AND category == "phones"', {"amount": 799, "category": "phones"}, "T", None),
    ('purchase where amount >= 500 AND category == "phones"', {"amount": 99, "category": "phones"}, "F", None),
    ('purchase where amount >= 500 AND category == "phones"', {"amount": 799, "category": "tv"}, "F", None),
    ('purchase where amount >= 500 and category == "phones"', {"amount": 799, "category": "phones"}, "T", "and in lower case"),
    ('purchase WHERE amount >= 500 And cod == true', {"amount": 500, "cod": True}, "T", None),
    ("purchase where amount > 100 AND amount < 200", {"amount": 150}, "T", "one property tested twice"),
    ("purchase where amount > 100 AND amount < 200", {"amount": 250}, "F", None),
    ("purchase where a == 1 AND b == 2 AND c == 3", {"a": 1, "b": 2, "c": 3}, "T", None),
    ("purchase where a == 1 AND b == 2 AND c == 3", {"a": 1, "b": 2}, "F", None),
    ("purchase where a-b == 1 AND a_b == 2", {"a-b": 1, "a_b": 2}, "T", "property names are names"),
]:
    case(g, rule, [P(props)], expect, why or f"{rule} with {json.dumps(props, ensure_ascii=False)}")

# Targets, names and what stays true.
case(g, 'tap:buy where category in ["mobiles", "tv"]',
     [E("tap:buy", 0, {"category": "books"}), E("tap:cart", 1, {"category": "tv"}), E("tap:buy", 2, {"category": "tv"}),
      E("tap:buy", 3, {"category": "books"})], "FFTT", "the target and the properties, then true for good")
case(g, 'tap where screen == "home"', [E("tap:x", 0, {"screen": "cart"}), E("tap:y", 1, {"screen": "home"})], "FT",
     "any target")
case(g, "purchase where amount >= 500", [E("refund", 0, {"amount": 900}), P({"amount": 900}, 1)], "FT", "another name does not count")
case(g, "purchase where amount >= 500", [E("purchase", 0)], "F", "an event without properties")
case(g, "purchase", [P({"amount": 1})], "T", "a pattern without conditions takes any properties")
case(g, "purchase where amount >= 500 within 1h", [P({"amount": 900}, 0), P({"amount": 10}, 1800), T(3600), T(3600.001)],
     "TTTF", "a failing event does not renew the window")
case(g, "purchase where amount >= 500 within 1h", [P({"amount": 900}, 0), P({"amount": 600}, 1800), T(3600.001), T(5400.001)],
     "TTTF", "a passing event renews it")

# Counts.
for rule, steps, expect, why in [
    ('count(purchase where amount >= 500 and category == "phones") >= 2',
     [P({"amount": 900, "category": "phones"}), P({"amount": 900, "category": "tv"}, 1), P({"amount": 100, "category": "phones"}, 2),
      P({"amount": 500, "category": "phones"}, 3)], "FFFT", "only matching events count"),
    ('count(purchase where amount >= 500 and category == "phones") >= 2 within 30d',
     [P({"amount": 900, "category": "phones"}), P({"amount": 900, "category": "phones"}, 86400 * 29),
      T(86400 * 30), T(86400 * 30 + 0.001)], "FTTF", "the issue's example, in its window"),
    ("count(purchase where cod == true) == 0", [T(0), P({"cod": False}, 1), P({"cod": True}, 2)], "TTF",
     "no cash-on-delivery purchase yet"),
    ("count(purchase where cod == true) < 2", [P({"cod": True}), P({"cod": True}, 1)], "TF", None),
    ("count(tap:buy where qty > 1) >= 1", [E("tap:buy", 0, {"qty": 1}), E("tap:buy", 1, {"qty": 3})], "FT", None),
    ("count(purchase where amount > 0) >= 3 within 10s",
     [P({"amount": 1}, 0), P({"amount": 0}, 1), P({"amount": 1}, 2), P({"amount": 1}, 3), T(10), T(10.001)], "FFFTTF", None),
    ("count(purchase where amount > 0) >= 2 AND count(purchase) >= 3",
     [P({"amount": 1}, 0), P({"amount": 0}, 1), P({"amount": 2}, 2)], "FFT", "one event, two terms"),
    ("count(purchase where amount > 0) >= 2 within 10s AND purchase where cod == true",
     [P({"amount": 1, "cod": False}, 0), P({"amount": 1}, 1), P({"amount": 0, "cod": True}, 2)], "FFT",
     "a count and an occurrence of one name with their own conditions"),
]:
    case(g, rule, steps, expect, why)

# Sequences: each stage tests its own event.
for rule, steps, expect, why in [
    ('screen:product where id == "p1" THEN tap:buy',
     [E("screen:product", 0, {"id": "p2"}), E("tap:buy", 1), E("screen:product", 2, {"id": "p1"}), E("tap:buy", 3)],
     "FFFT", "the first stage's conditions"),
    ('screen:product THEN tap:buy where qty >= 2',
     [E("screen:product", 0), E("tap:buy", 1, {"qty": 1}), E("tap:buy", 2, {"qty": 2})], "FFT", "the last stage's"),
    ('view where id == "a" THEN view where id == "b"',
     [E("view", 0, {"id": "b"}), E("view", 1, {"id": "a"}), E("view", 2, {"id": "a"}), E("view", 3, {"id": "b"})],
     "FFFT", "one name, two stages told apart by properties"),
    ('view where id == "a" THEN view where id == "b"', [E("view", 0, {"id": "a"}), E("view", 1, {"id": "c"})], "FF", None),
    ('view where n >= 1 THEN view where n >= 1', [E("view", 0, {"n": 1})], "F", "one event never counts for two stages"),
    ('view where n >= 1 THEN view where n >= 1', [E("view", 0, {"n": 1}), E("view", 1, {"n": 2})], "FT", None),
    ('screen:product where id == "p1" THEN tap:buy within 30s',
     [E("screen:product", 0, {"id": "p1"}), E("screen:product", 20, {"id": "p2"}), E("tap:buy", 31)], "FFF",
     "a failing event does not start the window again"),
    ('screen:product where id == "p1" THEN tap:buy within 30s',
     [E("screen:product", 0, {"id": "p1"}), E("screen:product", 20, {"id": "p1"}), E("tap:buy", 31)], "FFT",
     "a passing one does"),
    ('a where x == 1 THEN b where y == 2 THEN c where z == 3',
     [E("a", 0, {"x": 1}), E("b", 1, {"y": 1}), E("c", 2, {"z": 3}), E("b", 3, {"y": 2}), E("c", 4, {"z": 2}), E("c", 5, {"z": 3})],
     "FFFFFT", "a chain of three"),
    ('a where x == 1 THEN b where y == 2 THEN c where z == 3 within 10s',
     [E("a", 0, {"x": 1}), E("b", 1, {"y": 2}), E("c", 11, {"z": 3}), E("a", 12, {"x": 1}), E("b", 13, {"y": 2}), E("c", 14, {"z": 3})],
     "FFFFFT", "a windowed chain of three"),
]:
    case(g, rule, steps, expect, why)

# How where reads among other operators.
for rule, steps, expect, why in [
    ('tap where x == 1 AND scroll', [E("tap", 0, {"x": 1}), E("scroll", 1)], "FT", "AND before an event ends the conditions"),
    ('tap where x == 1 AND scroll', [E("scroll", 0), E("tap", 1, {"x": 2})], "FF", None),
    ('tap where x == 1 AND user.plan == "plus"', [E("tap", 0, {"x": 1}), C({"user.plan": "plus"}, 1)], "FT",
     "AND before a dotted path ends them"),
    ('tap where x == 1 AND NOT scroll', [E("tap", 0, {"x": 1}), E("scroll", 1)], "TF", None),
    ('tap where x == 1 OR scroll', [E("scroll", 0)], "T", None),
    ('tap where x == 1 AND y == 2 OR scroll', [E("tap", 0, {"x": 1}), E("tap", 1, {"x": 1, "y": 2})], "FT", None),
    ('(tap where x == 1) AND count(tap) >= 2', [E("tap", 0, {"x": 1}), E("tap", 1)], "FT", None),
    ('tap where x == 1 AND count(tap) >= 2', [E("tap", 0, {"x": 1}), E("tap", 1)], "FT", "AND before count ends them"),
    ('NOT tap where x == 1', [T(0), E("tap", 1, {"x": 2}), E("tap", 2, {"x": 1})], "TTF", None),
    ('tap:buy where x == 1 THEN tap:pay where y == 2 within 1m AND scroll',
     [E("tap:buy", 0, {"x": 1}), E("tap:pay", 1, {"y": 2}), E("scroll", 2)], "FFT", "a windowed sequence beside AND"),
]:
    case(g, rule, steps, expect, why)

# --- Time --------------------------------------------------------------------------------------
g = "time"
case(g, "tap within 5s", [E("tap", 10), T(5), T(15), T(15.001)], "TTTF", "time never moves backwards")
case(g, "a THEN b within 5s", [E("a", 10), E("b", 2)], "FT", "an event dated earlier counts at the latest time")
case(g, "count(tap) >= 2 within 5s", [E("tap", 10), E("tap", 0), T(15), T(15.001)], "FTTF")
case(g, "tap within 5s", [{"t": "2026-01-01T00:00:00.0009Z", "event": "tap"}, {"t": "2026-01-01T00:00:05.0009Z"},
                          {"t": "2026-01-01T05:30:05.001+05:30"}], "TTF", "finer digits than milliseconds are dropped")
case(g, "tap within 1h", [{"t": "2026-01-01T05:30:00+05:30", "event": "tap"}, {"t": "2026-01-01T01:00:00Z"},
                          {"t": "2026-01-01T01:00:00.001Z"}], "TTF", "time zone offsets")

# --- Parse errors ------------------------------------------------------------------------------
error("(tap AND scroll))", 1, 17)
error("", 1, 1)
error("   ", 1, 4)
error("tap AND", 1, 8)
error("tap AND OR scroll", 1, 9)
error("AND tap", 1, 1)
error("tap scroll", 1, 5)
error("(tap", 1, 5)
error("tap)", 1, 4)
error("()", 1, 2)
error("tap:", 1, 5)
error(":tap", 1, 1)
error("tap:search:x", 1, 11)
error("tap :search", 1, 5)
error("tap THEN", 1, 9)
error("tap THEN THEN", 1, 10, "reservedWord")
error("tap within", 1, 11)
error("tap within 5", 1, 12)
error("tap within 5x", 1, 12)
error("tap within s", 1, 12)
error("tap within 5 s", 1, 12)
error("tap within -5s", 1, 12)
error("tap within 3651d", 1, 12, "outOfRange")
error("tap within 522w", 1, 12, "outOfRange")
error("tap within 87601h", 1, 12, "outOfRange")
error("tap within 5S", 1, 12)
error("count(tap)", 1, 11)
error("count tap >= 1", 1, 7)
error("count() >= 1", 1, 7)
error("count(tap >= 1", 1, 11)
error("count(tap) >= ", 1, 15)
error("count(tap) >= x", 1, 15)
error("count(tap) >= -1", 1, 15)
error("count(tap) >= 1.5", 1, 15)
error("count(tap) >= 10001", 1, 15, "outOfRange")
error("count(tap) = 1", 1, 12)
error("count(tap) => 1", 1, 12)
error("count", 1, 6)
error("user.age", 1, 9)
error("user.age = 18", 1, 10)
error("user.age == ", 1, 13)
error("user.plan == pro", 1, 14)
error('user.plan == "pro', 1, 14)
error('user.plan == "a\\nb"', 1, 16)
error("user.beta < true", 1, 11, "invalidComparison")
error("user.beta >= false", 1, 11, "invalidComparison")
error("user.age == 1.", 1, 13)
error("user.age == 12abc", 1, 13)
error("user.age == --1", 1, 13)
error("app.version >= v", 1, 16)
error("app.version >= v1.", 1, 16)
error("app.version >= v1.2x", 1, 16)
error("user. == 1", 1, 6)
error("user.and == 1", 1, 6, "reservedWord")
error("user..x == 1", 1, 6)
error("device.platform in", 1, 19)
error("device.platform in []", 1, 21)
error('device.platform in ["ios",]', 1, 27)
error('device.platform in ["ios"', 1, 26)
error('device.platform in "ios"', 1, 20)
error("and", 1, 1)
error("within", 1, 1)
error("then", 1, 1)
error("in", 1, 1)
error("tap:and", 1, 5, "reservedWord")
error("tap:count", 1, 5, "reservedWord")
error("NOT", 1, 4)
error("tap AND\nscroll)", 2, 7)
error("tap AND\n\n  ) ", 3, 3)
error("tap $ scroll", 1, 5)
error("tap AND é", 1, 9)
error("true false", 1, 6)
error("tap AND (scroll", 1, 16)
error("(" * 33 + "tap" + ")" * 33, 1, 33, "tooDeep")
error("NOT " * 33 + "tap", 1, 129, "tooDeep")
error("tap OR " * 585 + "tap", 1, 4097, "tooLong")
error("tap where", 1, 10, name="where needs a test")
error("tap where amount", 1, 17, name="a property needs an operator")
error("tap where amount >=", 1, 20, name="and a literal")
error("tap where item.price > 5", 1, 15, name="property names have no dots")
error("tap where and == 1", 1, 11, "reservedWord", "a property cannot be a keyword")
error("tap where x == 1 AND", 1, 21, name="AND needs an operand")
error("tap where x < true", 1, 13, "invalidComparison", "booleans take == and != only")
error("tap where x == yes", 1, 16, name="text needs quotes")
error("count(tap where) >= 1", 1, 16, name="count's event needs its test")
error("where", 1, 1, name="where is a keyword")
error("tap:where", 1, 5, "reservedWord", "also as a target")
error("tap where x in []", 1, 17, name="in needs a literal")
error("tap where x == 1 y == 2", 1, 18, name="tests are joined by AND")


# Time literals: a whole date, or an RFC 3339 date-time with seconds and a zone.
error("user.t < 2026-02-30", 1, 10)
error("user.t < 2025-02-29", 1, 10)
error("user.t < 2026-13-01", 1, 10)
error("user.t < 2026-1-5", 1, 10)
error("user.t < 2026-01-15T25:00:00Z", 1, 10)
error("user.t < 2026-01-15T10:30Z", 1, 10)
error("user.t < 2026-01-15T10:30:00", 1, 10)
error("user.t < 2026-01-15T10:30:00+0530", 1, 10)
error("user.t < 2026-01-15T10:30:00.Z", 1, 10)
error("user.t < 2026-01-15Z", 1, 10)
error("user.t < 2026-01-15T", 1, 10)
error("user.t < 9999-12-31T23:59:59-01:00", 1, 10, name="a time after 9999 once its zone is applied")
error("user.t < 0000-01-01T00:00:00+00:01", 1, 10, name="a time before year 0 once its zone is applied")
error("user.t < 2026-01-15 10:30:00Z", 1, 21, name="a space does not join a date and a time")
error("user.t < 2026-01-15AND", 1, 10)
error("user.t < 12026-01-15", 1, 10)

def deep_ok():
    rule = "(" * 32 + "tap" + ")" * 32
    case("limits", rule, [E("tap", 0)], "T", "32 levels of parentheses are allowed")
    case("limits", "NOT " * 32 + "tap", [E("tap", 0)], "T", "32 NOTs are allowed")
    long_rule = ("tap OR " * 584 + "tap").ljust(4096)
    case("limits", long_rule, [E("tap", 0)], "T", "a rule of exactly 4,096 characters")
    case("limits", "count(tap) >= 10000 within 3650d", [E("tap", 0)], "F", "the largest threshold and window")


deep_ok()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    total = 0
    for group, cases in GROUPS.items():
        path = os.path.join(here, f"{group}.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump({"group": group, "cases": cases}, handle, ensure_ascii=False, indent=1)
            handle.write("\n")
        total += len(cases)
    print(f"{total} cases in {len(GROUPS)} files")


if __name__ == "__main__":
    main()
