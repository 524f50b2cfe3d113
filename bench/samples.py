#!/usr/bin/env python3
"""samples.py — writes a synthetic heap profile (heapprofile text) over an ELF.

    bench/samples.py ELF SAMPLES [--pool P] [--seed S] > out.heap

Addresses are picked inside the ELF's sized text symbols (nm -S) and the
ELF is mapped, as a PIE, at 0x555555554000 with file offset 0.  Stacks are
10-40 frames deep, drawn from a pool of P (default SAMPLES/10) distinct
stacks with Zipf-like weights, so some stacks repeat many times and most few.
Nothing is random at run time: the same arguments give the same file.
"""
import argparse
import random
import sys

from addrs import sized_functions

BASE = 0x555555554000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("elf")
    ap.add_argument("samples", type=int)
    ap.add_argument("--pool", type=int, default=0)
    ap.add_argument("--seed", type=int, default=17)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    syms = [(s, n) for s, n in sized_functions(a.elf, "samples.py") if n > 1]
    limit = max(s + n for s, n in syms)
    frames = [BASE + s + rnd.randrange(1, n) for s, n in
              (rnd.choice(syms) for _ in range(20000))]
    npool = a.pool if a.pool > 0 else max(1, a.samples // 10)
    pool = [[rnd.choice(frames) for _ in range(rnd.randint(10, 40))]
            for _ in range(npool)]
    weights = [1.0 / (r + 1) ** 0.8 for r in range(npool)]
    picks = rnd.choices(range(npool), weights=weights, k=a.samples)
    out = sys.stdout
    tot = a.samples
    out.write("heap profile: %6d: %8d [%6d: %8d] @ heapprofile\n" %
              (tot, tot * 64, tot, tot * 64))
    w = out.write
    for i in picks:
        n = rnd.randint(1, 4)
        w("%6d: %8d [%6d: %8d] @ %s\n" % (n, n * 64, n, n * 64,
          " ".join("0x%x" % x for x in pool[i])))
    w("\nMAPPED_LIBRARIES:\n")
    w("%x-%x r-xp 00000000 08:01 1 %s\n" % (BASE, BASE + ((limit + 0xfff) & ~0xfff), a.elf))


main()
