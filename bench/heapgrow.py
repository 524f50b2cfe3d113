#!/usr/bin/env python3
"""heapgrow.py — a larger heap dump made from a real one, for bench/batch.sh -b.

    bench/heapgrow.py IN OUT [--samples N] [--seed S]

OUT is IN (a gperftools heap dump, text) with N more samples (default 1000)
before its MAPPED_LIBRARIES section: each a stack 10 to 40 frames deep whose
frames are addresses drawn uniformly from the executable mappings of IN
that are not the heap profiler's own (the program, libstdc++, libc, libm,
libgcc_s...), with 1 to 16 objects of 16 to 4096 bytes.  The header's
totals count them.  The loads are IN's, so the same files resolve them,
but nearly every address is new: converting OUT resolves about N * 25
addresses where IN has a few dozen.  The same arguments give the same file.
"""
import argparse
import random
import re


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    with open(a.inp) as f:
        lines = f.read().split("\n")
    at = lines.index("MAPPED_LIBRARIES:")
    head, samples, maps = lines[0], lines[1:at], lines[at:]
    m = re.match(r"heap profile:\s*(\d+):\s*(\d+) \[\s*(\d+):\s*(\d+)\] @ (.*)", head)
    if not m:
        raise SystemExit("heapgrow.py: %s: line 1 is not a heap profile header" % a.inp)
    tot = [int(x) for x in m.groups()[:4]]
    ranges = []
    for ln in maps[1:]:
        f = ln.split()
        if len(f) >= 6 and f[1] == "r-xp" and "tcmalloc" not in f[5] \
                and "unwind" not in f[5] and not f[5].startswith("["):
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            ranges.append((lo, hi))
    if not ranges:
        raise SystemExit("heapgrow.py: %s: no executable mapping" % a.inp)
    rnd = random.Random(a.seed)
    weights = [hi - lo for lo, hi in ranges]
    more = []
    for _ in range(a.samples):
        n = rnd.randint(1, 16)
        b = n * rnd.randint(16, 4096)
        frames = []
        for lo, hi in rnd.choices(ranges, weights, k=rnd.randint(10, 40)):
            frames.append("0x%x" % rnd.randrange(lo, hi))
        more.append("%6d: %8d [%6d: %8d] @ %s" % (n, b, n, b, " ".join(frames)))
        tot = [tot[0] + n, tot[1] + b, tot[2] + n, tot[3] + b]
    head = "heap profile: %6d: %8d [%6d: %8d] @ %s" % (tot[0], tot[1], tot[2], tot[3],
                                                       m.group(5))
    with open(a.out, "w") as f:
        f.write("\n".join([head] + samples + more + maps))


if __name__ == "__main__":
    main()
