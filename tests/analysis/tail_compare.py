# SPDX-License-Identifier: MIT
# tail_compare.py FULL.json TAIL.json NAME: the tail-first watchdog's JSON against --full's.
# Identical but for how much was read: input.read, and the counts of the events read
# (input.events, unknown_events, duplicate_events: docs/json-schema.md, input.read). Prints
# every difference and exits 1 on any; prints "read" (the tail read's input.read) otherwise.
import json
import sys

full = json.load(open(sys.argv[1]))
tail = json.load(open(sys.argv[2]))
name = sys.argv[3]
read = tail["input"].get("read")
if full["input"].get("read", {}).get("whole") is not True:
    print(f"{name}: --full did not read the whole trace: {full['input'].get('read')}")
    sys.exit(1)
for d in (full, tail):
    for k in ("read", "events", "unknown_events", "duplicate_events"):
        d["input"].pop(k, None)
diffs = []


def diff(a, b, path):
    if type(a) is not type(b):
        diffs.append(f"{path}: {str(a)[:120]} | {str(b)[:120]}")
    elif isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            diff(a.get(k), b.get(k), f"{path}.{k}")
    elif isinstance(a, list):
        if len(a) != len(b):
            diffs.append(f"{path}: {len(a)} items | {len(b)}")
        else:
            for i, (x, y) in enumerate(zip(a, b)):
                diff(x, y, f"{path}[{i}]")
    elif a != b:
        diffs.append(f"{path}: {a} | {b}")


diff(full, tail, "")
if diffs:
    print(f"{name}: the tail-first verdict differs from the full read's (full | tail), "
          f"tail read {read}:")
    for d in diffs[:20]:
        print("   ", d)
    sys.exit(1)
print(f"{name}: same verdict; read {read}")
