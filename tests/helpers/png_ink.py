#!/usr/bin/env python3
# png_ink.py FILE.png — prints "WIDTH HEIGHT INK": the image size and how many
# pixels are not white (any channel below 240), decoding the PNG with zlib
# alone: 8-bit greyscale, RGB, grey+alpha or RGBA, not interlaced (what
# pdftoppm and cairo write).  Exit status 1 with a message for anything else.
import struct
import sys
import zlib


def fail(msg):
    sys.stderr.write("png_ink: %s\n" % msg)
    sys.exit(1)


def main():
    data = open(sys.argv[1], "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("not a PNG")
    pos, idat, hdr = 8, [], None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + n
    if hdr is None:
        fail("no IHDR")
    w, h, depth, ctype, _, _, interlace = hdr
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(ctype)
    if depth != 8 or channels is None or interlace:
        fail("unsupported PNG (depth %d, colour type %d, interlace %d)" % (depth, ctype, interlace))
    raw = zlib.decompress(b"".join(idat))
    stride = w * channels
    if len(raw) != h * (stride + 1):
        fail("image data has %d bytes, want %d" % (len(raw), h * (stride + 1)))
    prev = bytearray(stride)
    ink = 0
    colour = 1 if channels < 3 else 3
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xff
            elif f == 2:
                line[i] = (line[i] + b) & 0xff
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xff
            elif f != 0:
                fail("bad filter %d on row %d" % (f, y))
        for x in range(w):
            px = line[x * channels:x * channels + colour]
            if min(px) < 240:
                ink += 1
        prev = line
    print(w, h, ink)


main()
