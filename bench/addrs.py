#!/usr/bin/env python3
"""addrs.py — profile-like address lists for the symbolization benchmark.

    bench/addrs.py ELF COUNT POOL [--seed S] > list

Picks POOL distinct addresses inside the ELF's sized functions (nm -S), at
random offsets, then writes COUNT of them, one "0x..." per line, drawn with
Zipf-like weights (rank^-1.1) so a few hot addresses repeat a lot, as the
leaf frames of a CPU profile do.  Prints the number of distinct addresses
actually written on stderr.
"""
import argparse
import bisect
import random
import subprocess
import sys


def sized_functions(elf, prog):
    """(start, size) of every sized function symbol of ELF (nm -S)."""
    out = subprocess.run(["nm", "-S", "--defined-only", elf], capture_output=True,
                         text=True, check=True).stdout
    funcs = []
    for line in out.splitlines():
        p = line.split()
        if len(p) == 4 and p[2] in "tTwW" and int(p[1], 16) > 0:
            funcs.append((int(p[0], 16), int(p[1], 16)))
    if not funcs:
        sys.exit("%s: %s has no sized functions" % (prog, elf))
    return funcs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("elf")
    ap.add_argument("count", type=int)
    ap.add_argument("pool", type=int)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    funcs = sized_functions(a.elf, "addrs.py")
    pool = set()
    while len(pool) < a.pool:
        start, size = funcs[rnd.randrange(len(funcs))]
        pool.add(start + rnd.randrange(size))
        if len(pool) >= sum(s for _, s in funcs):
            break
    pool = sorted(pool)
    rnd.shuffle(pool)
    cum, total = [], 0.0
    for rank in range(len(pool)):
        total += (rank + 1) ** -1.1
        cum.append(total)
    seen = set()
    w = sys.stdout.write
    for _ in range(a.count):
        i = bisect.bisect_left(cum, rnd.random() * total)
        addr = pool[min(i, len(pool) - 1)]
        seen.add(addr)
        w("0x%x\n" % addr)
    print(len(seen), file=sys.stderr)


if __name__ == "__main__":
    main()
