#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""trace_events.py TRACE_DIR PID [COUNT_ONLY_EVENT...]: a recorded trace read with babeltrace2's
Python bindings (python3-bt2), written as JSON Lines on stdout for the trace tests
(trace_load.c).

One line per event of process PID (vpid context) but the COUNT_ONLY_EVENTs, in the muxer's
order (the order `babeltrace2 TRACE_DIR` prints them):
  {"name": "encproxy:task_state", "ts": NS, "fields": [[KEY, KIND, VALUE, LABEL?], ...]}
the fields being the packet context's, the contexts' and the payload's in that order (a later
field of a name hides an earlier one), KIND "i" for an integer, "e" for an enumeration (VALUE
its integer, LABEL its first label), "s" for a string, "o" for anything else (VALUE its text);
ts is ns from the clock's origin. Then one last line: the events by name of PID ("counts") and
of every process ("counts_all"), and what the tracer said it lost ("discarded_events",
"discarded_packets": how many such notices, each counted once).
"""
import json
import sys

import bt2


def field(key, f):
    if isinstance(f, bt2._EnumerationFieldConst):
        labels = f.labels
        return [key, "e", int(f), labels[0] if labels else ""]
    if isinstance(f, bt2._IntegerFieldConst):
        return [key, "i", int(f)]
    if isinstance(f, bt2._StringFieldConst):
        return [key, "s", str(f)]
    return [key, "o", str(f)]


def fields(ev):
    out = []
    for group in (ev.packet.context_field if ev.packet else None, ev.common_context_field,
                  ev.specific_context_field, ev.payload_field):
        if group is not None:
            out.extend(field(k, f) for k, f in group.items())
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: trace_events.py TRACE_DIR PID [COUNT_ONLY_EVENT...]")
    pid = int(sys.argv[2])
    count_only = set(sys.argv[3:])
    counts, counts_all = {}, {}
    lost = {"discarded_events": 0, "discarded_packets": 0}
    write = sys.stdout.write
    for msg in bt2.TraceCollectionMessageIterator(sys.argv[1]):
        kind = type(msg)
        if kind is bt2._EventMessageConst:
            ev = msg.event
            name = ev.name
            counts_all[name] = counts_all.get(name, 0) + 1
            ctx = ev.common_context_field
            if ctx is None or "vpid" not in ctx or int(ctx["vpid"]) != pid:
                continue
            counts[name] = counts.get(name, 0) + 1
            if name not in count_only:
                write(json.dumps({"name": name, "ts": msg.default_clock_snapshot.ns_from_origin,
                                  "fields": fields(ev)}, separators=(",", ":")) + "\n")
        elif kind is bt2._DiscardedEventsMessageConst:
            lost["discarded_events"] += 1
        elif kind is bt2._DiscardedPacketsMessageConst:
            lost["discarded_packets"] += 1
    write(json.dumps(dict(counts=counts, counts_all=counts_all, **lost),
                     separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
