#!/usr/bin/env python3
"""agree.py — symprof symbolize against llvm-symbolizer, address by address.

    bench/agree.py [--symprof PATH] [--llvm PATH] [--show N] ELF ADDRS...

Every distinct address of the ADDRS files (one hex address per line, as
bench/addrs.py writes them) is resolved by `symprof symbolize --json -C`
and by `llvm-symbolizer --output-style=JSON --inlines --demangle`.  For each
address it compares the innermost frame (function, file, line) and the whole
inline chain (function, file, line of every frame, innermost first), prints
the agreement and the first N disagreements of each kind, and exits 1 when
fewer than 99% of the innermost frames agree.

Two kinds of difference are counted apart.  Names that differ only by a
compiler clone suffix (".cold", ".isra.0", ".part.1", ".constprop.0"), and
a non-inlined innermost frame with the same file:line but another name:
both tools name such a frame from the symbol table, and symprof reads the
separate debug file's .symtab (which has the clone symbols and chooses
among aliases at one address the larger, then global over weak), while
llvm-symbolizer reads the symbols of the stripped file it is given.
"""
import argparse
import json
import re
import shutil
import subprocess
import sys

CLONE = re.compile(r"\.(cold|isra|part|constprop|lto_priv)(\.\d+)*")


def run(cmd, addrs):
    out = subprocess.run(cmd, input="".join(a + "\n" for a in addrs), capture_output=True,
                         text=True, check=True).stdout.splitlines()
    if len(out) != len(addrs):
        sys.exit(f"agree.py: {cmd[0]} gave {len(out)} lines for {len(addrs)} addresses")
    return [json.loads(line) for line in out]


def chain_symprof(obj):
    return [(f.get("function", "??"), f.get("file", "??") or "??", f.get("line", 0))
            for f in obj["frames"]]


def chain_llvm(obj):
    if isinstance(obj, list):  # one object per input line; LLVM 14 wraps it
        obj = obj[0]
    return [(s["FunctionName"] or "??", s["FileName"] or "??", s["Line"])
            for s in obj.get("Symbol", [])]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--symprof", default="./symprof")
    ap.add_argument("--llvm", default=shutil.which("llvm-symbolizer") or
                    shutil.which("llvm-symbolizer-14") or "llvm-symbolizer")
    ap.add_argument("--show", type=int, default=5)
    ap.add_argument("elf")
    ap.add_argument("addrs", nargs="+")
    a = ap.parse_args()

    seen = {}
    for path in a.addrs:
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line:
                    seen.setdefault(int(line, 16), None)
    addrs = [hex(x) for x in sorted(seen)]
    mine = run([a.symprof, "symbolize", "--json", "-C", "-e", a.elf], addrs)
    theirs = run([a.llvm, "--output-style=JSON", "--inlines", "--demangle",
                  "--obj=" + a.elf], addrs)

    inner_ok = chain_ok = clone = 0
    bad_inner, bad_chain, name_only = [], [], []
    for addr, m, t in zip(addrs, mine, theirs):
        cm, ct = chain_symprof(m), chain_llvm(t)
        if cm and ct and cm[0] == ct[0]:
            inner_ok += 1
        elif cm and ct and CLONE.sub("", cm[0][0]) == CLONE.sub("", ct[0][0]) and \
                cm[0][1:] == ct[0][1:]:
            clone += 1
        elif cm and ct and cm[0][1:] == ct[0][1:] and len(cm) == 1:
            name_only.append((addr, cm[:1], ct[:1]))
        else:
            bad_inner.append((addr, cm[:1], ct[:1]))
        if cm == ct:
            chain_ok += 1
        else:
            bad_chain.append((addr, cm, ct))

    n = len(addrs)
    print(f"{a.elf}: {n} distinct addresses")
    if not n:
        sys.exit(f"agree.py: no addresses in {' '.join(a.addrs)}")
    print(f"  innermost frame equal: {inner_ok} ({100.0 * inner_ok / n:.2f}%), "
          f"equal but for a clone suffix: {clone}, "
          f"same file:line but another symbol name: {len(name_only)}, "
          f"different: {len(bad_inner)}")
    print(f"  whole inline chain equal: {chain_ok} ({100.0 * chain_ok / n:.2f}%)")
    for title, rows in (("innermost frame differs", bad_inner),
                        ("symbol name differs", name_only),
                        ("inline chain differs", bad_chain)):
        for addr, cm, ct in rows[:a.show]:
            print(f"  {title} at {addr}:\n    symprof: {cm}\n    llvm:    {ct}")
    return 0 if (inner_ok + clone) * 100 >= 99 * n else 1


if __name__ == "__main__":
    sys.exit(main())
