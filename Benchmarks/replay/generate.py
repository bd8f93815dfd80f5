"""Writes the replay benchmark's inputs: a catalog of N tips with mixed rules (plain, count,
windowed, THEN, NOT, comparisons, and event properties), as the engine benchmark makes them, a
catalog of one of those tips, and an events file of M lines, 50 ms apart, over 200 event names (a
quarter with a target, a fifth with properties), with a clock tick and a context line now and then.
Deterministic: the same arguments write the same files. Usage: generate.py DIR TIPS EVENTS"""
import json
import sys

directory, tips, events = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
state = 7


def next_int(bound):
    global state
    state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
    return (state >> 33) % bound


def name():
    return f"e{next_int(200)}"


def event():
    pattern = f"{name()}:t{next_int(4)}" if next_int(4) == 0 else name()
    if next_int(10) == 0:
        pattern += f" where amount >= {100 * next_int(20)}"
    return pattern


def term():
    kind = next_int(8)
    if kind == 0:
        return event()
    if kind == 1:
        return f"count({event()}) >= {2 + next_int(20)}"
    if kind == 2:
        return f"count({event()}) >= {2 + next_int(5)} within {1 + next_int(10)}m"
    if kind == 3:
        return f"{event()} within {10 + next_int(50)}s"
    if kind == 4:
        return f"{event()} THEN {event()} within {1 + next_int(30)}m"
    if kind == 5:
        return f"NOT {event()}"
    if kind == 6:
        return f"app.version >= v1.{next_int(6)}"
    return 'device.platform in ["ios", "android"]'


entries = []
for index in range(tips):
    trigger = f"({term()} AND {term()}) OR {term()}"
    if next_int(2) == 0:
        dismissal = f"count({event()}) >= {50 + next_int(200)}"
    else:
        dismissal = f"{event()} THEN {event()} THEN {event()}"
    entries.append({
        "id": f"tip{index}", "container": f"c{next_int(40)}", "trigger": trigger, "dismissal": dismissal,
        "priority": next_int(5), "content": {"title": f"Tip {index}"},
    })
with open(f"{directory}/catalog.json", "w") as file:
    json.dump({"tips": entries}, file)
with open(f"{directory}/one-tip.json", "w") as file:
    json.dump({"tips": entries[:1]}, file)

start = 1767225600000
with open(f"{directory}/events.jsonl", "w") as file:
    write = file.write
    write('{"t":"2026-01-01T00:00:00Z","context":{"app.version":"1.4.0","device.platform":"ios"}}\n')
    for number in range(events):
        millis = start + 50 * (number + 1)
        seconds, fraction = divmod(millis, 1000)
        minutes, second = divmod(seconds % 86400, 60)
        hour, minute = divmod(minutes, 60)
        day = 1 + (seconds - start // 1000) // 86400
        t = f"2026-01-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}.{fraction:03d}Z"
        kind = next_int(100)
        if kind == 0:
            write(f'{{"t":"{t}"}}\n')
        elif kind == 1:
            write(f'{{"t":"{t}","context":{{"app.version":"1.{next_int(6)}.0"}}}}\n')
        else:
            line = f'{{"t":"{t}","event":"{name()}"'
            if next_int(4) == 0:
                line += f',"target":"t{next_int(4)}"'
            if next_int(5) == 0:
                line += f',"properties":{{"amount":{next_int(2000)},"cod":{"true" if next_int(2) else "false"}}}'
            write(line + "}\n")
