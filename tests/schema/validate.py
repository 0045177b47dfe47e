#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check proxyscope --json documents against docs/schema/*.schema.json (JSON Schema 2020-12).

    validate.py [--schemas DIR] [--mutate] KIND FILE...

KIND is a schema's name (report, stats, stragglers, timeline, watchdog, run, export, hosts, watch). A FILE
holds one document, or for `watch` JSON Lines (the lines that start with "{"; others, such as
the watched program's output, are skipped). Exit 0 when every document is valid, 1 otherwise.

--mutate also checks that the schema is strict: each member of each document, renamed, removed
(unless the schema lets it be absent: `clocks`, `processes`) or given a value of another type
(an array), must make the document invalid; a mutation that still validates is an error, so a
member that changes without its schema fails here.
"""
import argparse
import copy
import glob
import json
import os
import sys

import jsonschema

try:  # jsonschema >= 4.18 resolves $ref through `referencing`; Debian 12's 4.10 has RefResolver
    from referencing import Registry, Resource
except ImportError:
    Registry = Resource = None

OPTIONAL = {"clocks", "processes"}  # members a document may lack (see docs/json-schema.md)


def load_registry(schema_dir):
    resources = []
    for path in sorted(glob.glob(os.path.join(schema_dir, "*.schema.json"))):
        with open(path, encoding="utf-8") as f:
            s = json.load(f)
        jsonschema.Draft202012Validator.check_schema(s)
        resources.append((s["$id"], s))
    if Registry is None:
        return dict(resources)
    return Registry().with_resources((i, Resource.from_contents(c)) for i, c in resources)


def make_validator(schema, registry):
    if Registry is None:
        resolver = jsonschema.RefResolver(schema.get("$id", ""), schema, store=registry)
        return jsonschema.Draft202012Validator(schema, resolver=resolver)
    return jsonschema.Draft202012Validator(schema, registry=registry)


def documents(kind, path):
    with open(path, encoding="utf-8") as f:
        if kind != "watch":
            yield path, json.load(f)
            return
        for n, line in enumerate(f, 1):
            if line.startswith("{"):
                yield f"{path}:{n}", json.loads(line)


def mutations(doc, where=()):
    """(description, mutated copy) for every member of every object in doc."""
    if isinstance(doc, dict):
        for k in doc:
            p = where + (k,)
            yield from (
                (f"{'.'.join(map(str, p))}: {what}", m) for what, m in member_mutations(doc, k))
            for what, sub in mutations(doc[k], p):
                m = dict(doc)
                m[k] = sub
                yield what, m
    elif isinstance(doc, list):
        for i, v in enumerate(doc[:2]):  # two elements are enough to reach every shape
            for what, sub in mutations(v, where + (i,)):
                m = list(doc)
                m[i] = sub
                yield what, m


def member_mutations(obj, k):
    renamed = {(k + "_renamed" if x == k else x): v for x, v in obj.items()}
    yield "renamed", renamed
    if k not in OPTIONAL:
        removed = {x: v for x, v in obj.items() if x != k}
        yield "removed", removed
    if not isinstance(obj[k], list):
        retyped = dict(obj)
        retyped[k] = []
        yield "changed to an array", retyped


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--schemas", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                      "docs", "schema"))
    ap.add_argument("--mutate", action="store_true")
    ap.add_argument("kind")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()

    registry = load_registry(a.schemas)
    with open(os.path.join(a.schemas, f"{a.kind}.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    v = make_validator(schema, registry)
    bad = 0
    seen = 0
    for path in a.files:
        for name, doc in documents(a.kind, path):
            seen += 1
            errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
            for e in errors[:10]:
                print(f"{name}: {'/'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}",
                      file=sys.stderr)
            bad += bool(errors)
            if errors or not a.mutate:
                continue
            tried = loose = 0
            for what, m in mutations(doc):
                tried += 1
                if v.is_valid(m):
                    print(f"{name}: still valid with {what}: the schema is not strict there",
                          file=sys.stderr)
                    loose += 1
            bad += loose
            if not loose:
                print(f"{name}: {tried} mutations, each rejected")
    if not seen:
        print(f"no {a.kind} document in {' '.join(a.files)}", file=sys.stderr)
        return 1
    print(f"{a.kind}: {seen} document(s), {'all valid' if not bad else f'{bad} problem(s)'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
