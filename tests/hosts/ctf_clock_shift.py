#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Move the clocks of one CTF trace: add SHIFT_NS nanoseconds to the `offset` of every
`clock { ... }` block of METADATA, in place, as if that host's clock had been SHIFT_NS ahead.

A text metadata is rewritten as text. A packetized one (LTTng's: packets of a 37-byte header -
magic, trace UUID, checksum, content and packet sizes in bits, compression, encryption, checksum
scheme, major, minor - then TSDL text) is unpacked, edited and packed again in packets of the
same capacity, every header's sizes made to fit its new content, the rest of the header kept.
The stream files and their indexes carry raw clock values, which the offset does not change.

usage: ctf_clock_shift.py METADATA SHIFT_NS
"""
import re
import struct
import sys

MAGIC = 0x75D11D57
HEADER = 37


def unpack(data):
    """(text, endian, first header, content capacity) of a packetized metadata."""
    endian = "<" if struct.unpack("<I", data[:4])[0] == MAGIC else ">"
    off, text, header, cap = 0, b"", None, 0
    while off < len(data):
        if struct.unpack(endian + "I", data[off:off + 4])[0] != MAGIC:
            sys.exit("ctf_clock_shift: packet at byte %d has no magic" % off)
        content, size = struct.unpack(endian + "II", data[off + 24:off + 32])
        if header is None:
            header = data[off:off + HEADER]
        cap = max(cap, size // 8 - HEADER)
        text += data[off + HEADER:off + content // 8]
        off += size // 8
    return text, endian, header, cap


def pack(text, endian, header, cap):
    out = b""
    for i in range(0, len(text), cap):
        chunk = text[i:i + cap]
        bits = (HEADER + len(chunk)) * 8
        out += header[:24] + struct.pack(endian + "II", bits, bits) + header[32:] + chunk
    return out


def shift(text, ns):
    """The TSDL text with every clock block's offset moved by @ns (in that clock's cycles)."""
    def one(block):
        body = block.group(0)
        freq = re.search(r"\bfreq\s*=\s*(\d+)", body)
        cycles = ns * (int(freq.group(1)) if freq else 1000000000) // 1000000000
        moved, n = re.subn(r"(\boffset\s*=\s*)(-?\d+)",
                           lambda m: m.group(1) + str(int(m.group(2)) + cycles), body)
        if n == 0:  # no offset: the clock starts at the epoch
            moved = body[:-1] + "\toffset = %d;\n}" % cycles
        return moved

    moved, n = re.subn(r"\bclock\s*\{[^}]*\}", one, text)
    if n == 0:
        sys.exit("ctf_clock_shift: no clock block in the metadata")
    return moved


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    path, ns = sys.argv[1], int(sys.argv[2])
    data = open(path, "rb").read()
    packetized = len(data) >= 4 and MAGIC in (struct.unpack("<I", data[:4])[0],
                                              struct.unpack(">I", data[:4])[0])
    if packetized:
        text, endian, header, cap = unpack(data)
        out = pack(shift(text.decode(), ns).encode(), endian, header, cap)
    else:
        out = shift(data.decode(), ns).encode()
    open(path, "wb").write(out)


if __name__ == "__main__":
    main()
