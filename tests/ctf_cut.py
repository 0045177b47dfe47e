#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Cut a stream file of a recorded CTF trace mid-packet, as a consumer killed mid-write leaves it.

    python3 ctf_cut.py last DIR   the stream with the most packets (at least two), cut inside
                                  its last packet: the packets before it stay whole and are read
    python3 ctf_cut.py only DIR   the stream with the most bytes, first made a stream of one
                                  packet (its first; the index cut to match), then cut inside
                                  it: nothing of that stream can be read

DIR is searched for LTTng index files (index/NAME.idx beside the stream file NAME). The stream
cut is printed as "PATH PACKETS" (the packets its index lists after the command). Exit 1 when no
stream fits (`last`: none has two packets). Which stream holds the events, and in how many
packets, depends on where the threads ran and how full the buffers got: a test that picks a
stream by the index cuts what it means to cut on every run.
"""
import os
import struct
import sys

HEADER = 16  # magic, major, minor, entry size


def packets(idx):
    """The (offset, size, content size) in bytes of each packet the index file lists."""
    with open(idx, "rb") as f:
        b = f.read()
    if len(b) < HEADER or struct.unpack(">I", b[:4])[0] != 0xC1F1DCC1:
        return [], b, 0
    esz = struct.unpack(">I", b[12:16])[0]
    out = []
    for i in range((len(b) - HEADER) // esz):
        off, bits, content = struct.unpack(">QQQ", b[HEADER + i * esz:HEADER + i * esz + 24])
        out.append((off, bits // 8, content // 8))
    return out, b, esz


def streams(top):
    """Every (stream path, index path, packets) under top."""
    for d, _, files in os.walk(top):
        if os.path.basename(d) != "index":
            continue
        for f in sorted(files):
            if f.endswith(".idx"):
                s = os.path.join(os.path.dirname(d), f[:-4])
                if os.path.isfile(s):
                    yield s, os.path.join(d, f), packets(os.path.join(d, f))[0]


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("last", "only"):
        sys.exit(__doc__)
    mode, top = sys.argv[1], sys.argv[2]
    found = list(streams(top))
    if mode == "last":
        found = [f for f in found if len(f[2]) >= 2]
        if not found:
            sys.exit("ctf_cut.py: no stream of %s has two packets" % top)
        s, idx, pk = max(found, key=lambda f: (len(f[2]), os.path.getsize(f[0])))
    else:
        found = [f for f in found if f[2]]
        if not found:
            sys.exit("ctf_cut.py: no stream of %s has a packet" % top)
        s, idx, pk = max(found, key=lambda f: os.path.getsize(f[0]))
        _, b, esz = packets(idx)
        with open(idx, "wb") as f:  # one packet: its first
            f.write(b[:HEADER + esz])
        pk = pk[:1]
        os.truncate(s, pk[0][0] + pk[0][1])
    off, _, content = pk[-1]
    # mid-packet: past its header and some of its events, short of its last event
    os.truncate(s, off + content // 2 + 3)
    print(s, len(pk))


if __name__ == "__main__":
    main()
