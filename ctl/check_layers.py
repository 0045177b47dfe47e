#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Checks the calls of cli/ and ctl/ go one way: no include or call cycle between their modules
(x.c with its x.h is one module), and nothing of ctl/ includes or calls cli/.

    python3 ctl/check_layers.py [BUILD_DIR]      (default build/dev; exit 1 on a finding)

Includes are read from the sources; calls from the objects of BUILD_DIR (`nm`: a module calls
another when one of its undefined symbols is defined by the other).
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, sys.argv[1] if len(sys.argv) > 1 else "build/dev")
DIRS = ["cli", "ctl"]


def sources():
    for d in DIRS:
        for base, _, files in os.walk(os.path.join(ROOT, d)):
            for f in files:
                if f.endswith((".c", ".h")):
                    yield os.path.join(base, f)


def module(path):
    rel = os.path.relpath(path, ROOT)
    return os.path.splitext(rel)[0]


def include_graph():
    by_name = {os.path.basename(p): module(p) for p in sources()}
    g = {}
    for p in sources():
        m = module(p)
        g.setdefault(m, set())
        for inc in re.findall(r'^#include "([^"]+)"', open(p).read(), re.M):
            t = by_name.get(os.path.basename(inc))
            if t and t != m:
                g[m].add(t)
    return g


def call_graph():
    defined, undefined = {}, {}
    for base, _, files in os.walk(BUILD):
        for f in files:
            if not f.endswith(".c.o"):
                continue
            src = None
            for d in DIRS:
                mark = os.sep + d + ".dir" + os.sep
                if mark in base + os.sep or (os.sep + "CMakeFiles" + os.sep in base and
                                             os.path.relpath(base, BUILD).startswith(d)):
                    src = d
            if not src:
                continue
            rel = os.path.relpath(os.path.join(base, f), BUILD).split(os.sep)
            i = next(k for k, s in enumerate(rel) if s.endswith(".dir"))
            m = os.path.join(rel[0], *rel[i + 1:])[: -len(".c.o")]
            out = subprocess.run(["nm", os.path.join(base, f)], capture_output=True,
                                 text=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[0] == "U":
                    undefined.setdefault(m, set()).add(parts[1])
                elif len(parts) == 3 and parts[1] in "TDBR":
                    defined[parts[2]] = m
    g = {}
    for m, syms in undefined.items():
        g.setdefault(m, set())
        for s in syms:
            t = defined.get(s)
            if t and t != m:
                g[m].add(t)
    return g


def cycles(g):
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                out.append(sorted(scc))

    for v in list(g):
        if v not in index:
            visit(v)
    return out


def main():
    bad = 0
    for name, g in (("include", include_graph()), ("call", call_graph())):
        for c in cycles(g):
            print(f"{name} cycle: {' <-> '.join(c)}")
            bad += 1
        for m, ts in g.items():
            for t in ts:
                if m.startswith("ctl") and t.startswith("cli"):
                    print(f"{name} upward: {m} -> {t}")
                    bad += 1
        print(f"{name} graph: {len(g)} modules, {sum(len(t) for t in g.values())} edges")
    return 1 if bad else 0


sys.exit(main())
