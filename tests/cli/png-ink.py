#!/usr/bin/env python3
# png-ink.py - exit 0 if the PNG file is not blank: more than 50 distinct byte values in
# its pixels and more than 1/PER of them dark (< 200); used on Chromium's screenshots.
#   png-ink.py FILE.png PER
import sys, zlib

data = open(sys.argv[1], "rb").read()
per = int(sys.argv[2])
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
i, idat = 8, b""
while i < len(data):
    n = int.from_bytes(data[i:i + 4], "big")
    if data[i + 4:i + 8] == b"IDAT":
        idat += data[i + 8:i + 8 + n]
    i += 12 + n
raw = zlib.decompress(idat)
distinct = len(set(raw))
dark = sum(1 for b in raw if b < 200)
assert distinct > 50 and dark > len(raw) // per, (distinct, dark, len(raw))
