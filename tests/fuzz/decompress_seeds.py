#!/usr/bin/env python3
"""decompress_seeds.py OUTDIR — writes the seeds of tests/fuzz/fuzz_decompress.c.

Each seed is the harness's input: one byte choosing the way (0 gzip, 1 xz, 2 zstd
whole; 3 zlib lazily; 4 a zlib or zstd section of a given size; 5 zstd pulled in
chunks), that way's few parameter bytes, then the compressed data: a short text in
each way (two gzip members, two xz streams with padding between, a zstd frame, two
zstd frames pulled in chunks of 64 bytes) and a gzip bomb (1 MiB of zeros in 1 KiB).
Needs the zstd command (package zstd).
"""
import gzip
import lzma
import os
import struct
import subprocess
import sys
import zlib


def zstd(data, level):
    return subprocess.run(["zstd", "-q", "-c", "-%d" % level], input=data,
                          capture_output=True, check=True).stdout


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    text = b"".join(b"line %d of a text that repeats itself a little\n" % i
                    for i in range(200))
    zst = zstd(text, 3)
    seeds = {
        "gzip": b"\x00" + gzip.compress(text, mtime=0) +
                gzip.compress(b"second member\n", mtime=0),
        "xz": b"\x01" + lzma.compress(text) + b"\0\0\0\0" + lzma.compress(b"second stream\n"),
        "zstd": b"\x02" + zst,
        "lazy": b"\x03" + struct.pack("<H", len(text) - 1) + zlib.compress(text),
        "sized-zlib": b"\x04\x00" + struct.pack("<H", len(text)) + zlib.compress(text),
        "sized-zstd": b"\x04\x01" + struct.pack("<H", len(text)) + zst,
        "pulled": b"\x05\x3f" + zst + zstd(b"chunk two\n" * 50, 1),
        "gzip-bomb": b"\x00" + gzip.compress(b"\0" * (1 << 20), mtime=0),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
