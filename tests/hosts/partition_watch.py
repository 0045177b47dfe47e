# SPDX-License-Identifier: MIT
# The live side of a partition, timed (test_run_hosts_partition.sh).
#
#   python3 partition_watch.py stamp OUT STALL < lines
#     copies each line of stdin to OUT after the wall-clock time it arrived (CLOCK_REALTIME,
#     the clock LTTng's trace times are on) and a tab; meanwhile measures the machine's own
#     stall (the longest overshoot of a 20 ms sleep) and writes it, in seconds, to STALL.
#   python3 partition_watch.py check STAMPED FAULT_NS THRESHOLD_S STALL_S SILENT_HOST
#     the watch's JSON Lines (run --watch --json's stderr, stamped) against the partition fault
#     recorded at FAULT_NS on the trace clock: prints the latencies and exits 1 on a failed check.
import json, sys, threading, time


def stamp(out, stall_path):
    stall = [0.0]
    done = threading.Event()

    def probe():
        while not done.is_set():
            t = time.monotonic()
            time.sleep(0.02)
            stall[0] = max(stall[0], time.monotonic() - t - 0.02)

    threading.Thread(target=probe, daemon=True).start()
    with open(out, "w") as f:
        for line in sys.stdin:
            f.write("%.6f\t%s" % (time.time(), line))
            f.flush()
    done.set()
    with open(stall_path, "w") as f:
        f.write("%.3f\n" % stall[0])


def check(stamped, fault_ns, threshold_s, stall_s, host):
    notes = []
    for line in open(stamped):
        t, _, text = line.partition("\t")
        if text.startswith("{"):
            notes.append((float(t), json.loads(text)))
    findings = [n for _, n in notes if n["event"] == "finding"]
    first = next(((t, n) for t, n in notes if n["event"] == "finding" and n.get("silent") and
                  n["host"] == host), None)
    fails = []
    if first is None:
        fails.append("no live finding named %s silent" % host)
    else:
        t, n = first
        # the bound: the threshold plus 2 s, plus the machine's own stall (4 times it, as
        # test_field_sigint allows: the tracer's consumer daemon, the relay daemon and the
        # watch each wait their turn for a CPU)
        bound = threshold_s + 2 + 4 * stall_s
        wall = t - fault_ns / 1e9
        trace = (n["time_ns"] - fault_ns) / 1e9
        print("%s named silent %.3f s after the partition (wall clock), the stream's present "
              "%.3f s past it, silent for %.3f s then; bound %.3f s (stall %.3f s)" %
              (host, wall, trace, n["duration_ns"] / 1e9, bound, stall_s))
        print("  " + n["detail"])
        if wall > bound:
            fails.append("named %.3f s after the partition, bound %.3f s" % (wall, bound))
        if not (n["root_cause"] and n["cause"] == "host_unreachable" and n["blocked"] >= 1 and
                " of the other hosts wait" in n["detail"]):
            fails.append("the finding is not a root with the waiting ranks leading to it")
    for n in findings:
        if n["root_cause"] and n["host"] != host:
            fails.append("a rank of %s named a root: %s" % (n["host"], n["detail"]))
        to = n.get("leads_to")
        if to and to["root_cause"] and to["host"] != host:
            fails.append("a finding leads to a root on %s" % to["host"])
    for f in fails:
        print("FAIL: " + f)
    return 1 if fails else 0


if sys.argv[1] == "stamp":
    stamp(sys.argv[2], sys.argv[3])
else:
    sys.exit(check(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]),
                   sys.argv[6]))
