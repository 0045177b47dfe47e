#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""recmem.py [--every SEC] [--out FILE] -- CMD...: run CMD and sample, every SEC (default
0.1), the memory of the recording: every process descended from CMD and every process that
shares a mount namespace with one of them other than ours (the session and consumer daemons
a `proxyscope run` starts daemonize out of its process tree, but they stay in its namespace,
tests/private_lttng.sh's or its own). For each process, /proc/PID/smaps_rollup's Pss (its
share of every page it maps: a page mapped by the traced process and the consumer daemon
counts half in each, so the sum over processes counts it once) and Pss_Shmem (the same for
shared memory only: LTTng-UST's ring buffers are shared memory mapped by the consumer daemon
and the traced process, so this is the buffers' pages). Prints at the end, on stderr:
  recmem peak_rec_mb=N peak_pss_mb=N peak_shmem_mb=N peak_sessiond_mb=N peak_consumerd_mb=N
         peak_cmd_mb=N
each the largest over the samples of a sum in one sample: rec is the recording's memory (the
session and consumer daemons' Pss and the traced processes' Pss_Shmem: their share of the
buffers, not the workload's own memory), pss everything, shmem the shared memory of all, then
each kind of process alone. Exits with CMD's status."""
import os
import subprocess
import sys
import time

ROLLUP_KEYS = ("Pss:", "Pss_Shmem:")


def rollup(pid):
    out = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                k = line.split()[0] if line.strip() else ""
                if k in ROLLUP_KEYS:
                    out[k] = int(line.split()[1])
    except OSError:
        return None
    return out


def procs():
    """pid -> (ppid, mnt ns, comm) of every readable process."""
    res = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                st = f.read()
            comm = st[st.index("(") + 1:st.rindex(")")]
            ppid = int(st[st.rindex(")") + 2:].split()[1])
            ns = os.readlink(f"/proc/{d}/ns/mnt")
        except (OSError, ValueError):
            continue
        res[int(d)] = (ppid, ns, comm)
    return res


def main():
    args = sys.argv[1:]
    every, out = 0.1, None
    while args and args[0] != "--":
        if args[0] == "--every":
            every = float(args[1])
            args = args[2:]
        elif args[0] == "--out":
            out = args[1]
            args = args[2:]
        else:
            sys.exit(f"usage: {sys.argv[0]} [--every SEC] [--out FILE] -- CMD...")
    cmd = args[1:]
    own_ns = os.readlink("/proc/self/ns/mnt")
    child = subprocess.Popen(cmd)
    keys = ("rec", "pss", "shmem", "sessiond", "consumerd", "cmd")
    peak = dict.fromkeys(keys, 0)
    while child.poll() is None:
        ps = procs()
        tree, frontier = set(), {child.pid}
        while frontier:
            tree |= frontier
            frontier = {p for p, (pp, _, _) in ps.items() if pp in frontier} - tree
        nss = {ps[p][1] for p in tree if p in ps} - {own_ns}
        mine = {p for p, (_, ns, _) in ps.items() if p in tree or ns in nss}
        tot = dict.fromkeys(keys, 0)
        for p in mine:
            r = rollup(p)
            if not r:
                continue
            comm = ps[p][2]
            tot["pss"] += r.get("Pss:", 0)
            tot["shmem"] += r.get("Pss_Shmem:", 0)
            if comm == "lttng-sessiond":
                tot["sessiond"] += r.get("Pss:", 0)
                tot["rec"] += r.get("Pss:", 0)
            elif comm == "lttng-consumerd":
                tot["consumerd"] += r.get("Pss:", 0)
                tot["rec"] += r.get("Pss:", 0)
            elif comm not in ("sh", "time", "unshare", "sleep", "lttng-runas"):
                tot["cmd"] += r.get("Pss:", 0)
                tot["rec"] += r.get("Pss_Shmem:", 0)
            else:
                tot["rec"] += r.get("Pss:", 0) if comm == "lttng-runas" else 0
        for k, v in tot.items():
            peak[k] = max(peak[k], v)
        time.sleep(every)
    line = "recmem " + " ".join(f"peak_{k}_mb={v / 1024:.1f}" for k, v in peak.items())
    print(line, file=sys.stderr)
    if out:
        with open(out, "w") as f:
            f.write(line + "\n")
    sys.exit(child.returncode)


main()
