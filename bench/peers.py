#!/usr/bin/env python3
"""peers.py — symprof symbolize against addr2line, eu-addr2line and llvm-symbolizer.

    bench/peers.py [--symprof PATH] [--show N] [--max N] [--json FILE] ELF...

For every ELF, a list of addresses (every sized symbol's entry, and bytes inside each,
at most --max per file; an object without sized symbols: every byte of its allocated
code sections) is answered by the four tools, and two things are counted:

  right     the frames of each address, demangled, innermost first: function, file and
            line of every frame (columns, discriminators, the file of a frame without a
            line and the tools' decorations left out; symprof in its LLVM style, whose
            names are the DWARF ones).  symprof is "right where a peer is" when its
            frames equal at least one peer's; where they equal none, the address is
            listed, split by whether the peers agree among themselves (then symprof is
            the odd one out) or not.
  bytes     the text itself: --output-style=GNU against addr2line 2.40 (asked twice, its
            second answers: steady) and LLVM against llvm-symbolizer 14, flag set by flag
            set, address by address (-a separates the answers), and the first
            differences of each set.

Deliberate differences (docs/DESIGN.md, "Where symbolize differs from the tools on
purpose") are counted apart for the files they concern: go_rule, NO_PEER and
deliberate() below.
"""
import argparse
import collections
import json
import re
import shutil
import subprocess
import sys

# GNU flag sets compared byte for byte with addr2line (each with -a, which frames an
# answer), and LLVM ones with llvm-symbolizer (symprof's flags, llvm-symbolizer's).
GNU_SETS = ["-a", "-a -f", "-a -f -i", "-a -f -i -C", "-a -f -i -p -C", "-a -f -s",
            "-a -i -p", "-a -f -i -p -s -C"]
LLVM_SETS = [("-a", "-a"), ("-a -C", "-a -C"), ("-a --no-demangle", "-a --no-demangle"),
             ("-a -p", "-a -p"), ("-a -s", "-a -s"), ("-a --no-inlines", "-a --no-inlines")]


def tool(*names):
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    return None


def run(cmd, addrs):
    r = subprocess.run(cmd, input="".join(a + "\n" for a in addrs), capture_output=True,
                       text=True, errors="replace")
    return r.stdout


def steady(cmd, addrs, pretty=False):
    """addr2line's answers as it gives them the second time it is asked: the
    first look-up in a function without a linkage name names it after the
    symbol holding the address, every later one after the function (bfd's
    dwarf2.c), so the list is asked twice and the second answers kept."""
    b = blocks(run(cmd, addrs + addrs), pretty)
    return b[len(addrs):] if len(b) == 2 * len(addrs) else b


def addresses(elf, limit):
    """Entries and inner bytes of the sized symbols (by nm -S), else every byte of the
    executable sections."""
    out = subprocess.run(["nm", "-S", "--defined-only", elf], capture_output=True,
                         text=True).stdout
    funcs = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwWiu" and int(f[1], 16) > 0:
            funcs.append((int(f[0], 16), int(f[1], 16)))
    addrs = set()
    if funcs:
        per = max(4, limit // max(1, len(funcs)))
        for a, s in sorted(funcs):
            step = max(1, s // per)
            for o in range(0, s, step):
                addrs.add(a + o)
    else:
        hdr = subprocess.run(["readelf", "-SW", elf], capture_output=True, text=True).stdout
        for line in hdr.splitlines():
            m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)"
                         r"\s+\S+\s+(\S*X\S*)", line)
            if m:
                a, s = int(m.group(2), 16), int(m.group(3), 16)
                for o in range(0, s + 1):
                    addrs.add(a + o)
    addrs = sorted(addrs)
    if len(addrs) > limit:
        step = len(addrs) / limit
        addrs = [addrs[int(i * step)] for i in range(limit)]
    return ["0x%x" % a for a in addrs]


ADDR = re.compile(r"^0x[0-9a-f]+:?$")


def blocks(text, pretty=False):
    """The answer of each address: the lines after each address line (-a)."""
    out, cur = [], None
    for line in text.split("\n"):
        head = line.split(":", 1)[0] if pretty else line
        if ADDR.match(head if pretty else line) or (pretty and re.match(r"^0x[0-9a-f]+: ", line)):
            if cur is not None:
                out.append(cur)
            cur = [line]
        elif cur is not None:
            cur.append(line)
    if cur is not None:
        out.append(cur)
    return ["\n".join(b).rstrip("\n") for b in out]


def frames_pairs(block, strip):
    """(function, file, line) of every frame of a block of NAME / FILE:LINE pairs."""
    lines = [l for l in block.split("\n")[1:] if l != ""]
    fr = []
    for i in range(0, len(lines) - 1, 2):
        name, loc = strip(lines[i], lines[i + 1])
        m = re.match(r"^(.*):(\d+|\?)$", loc)
        f, ln = (m.group(1), m.group(2)) if m else (loc, "0")
        if f in ("??", "") or ln in ("0", "?"):
            # no line: the file some tools take from the symbol table's STT_FILE
            # and others leave out says nothing of a line
            f, ln = "??", "0"
        fr.append((name, f, ln))
    return tuple(fr)


def strip_gnu(name, loc):
    return name, re.sub(r" \(discriminator \d+\)$", "", loc)


def strip_eu(name, loc):
    name = re.sub(r" inlined (at|from) .*$", "", name)
    loc = re.sub(r":(\d+):\d+$", r":\1", loc)
    return name, loc


def strip_llvm(name, loc):
    return name, re.sub(r":(\d+):(\d+)$", r":\1", loc)


# Rules by which symprof answers otherwise than the tools on purpose (docs/DESIGN.md):
# applied to a peer's answer before it is compared, each with its name; an address
# that equals a peer only so is counted as such.
def go_rule(fr):
    """Go units: names without an ABI wrapper's suffix, relative file names as Go prints
    them (no "./" in front)."""
    return tuple((re.sub(r"\.(abi0|abiinternal)$", "", n), re.sub(r"^\./", "", f), l)
                 for n, f, l in fr)


def is_go(elf):
    hdr = subprocess.run(["readelf", "-SW", elf], capture_output=True, text=True).stdout
    return ".gopclntab" in hdr or ".note.go.buildid" in hdr


# Files where no peer is right, with the rule symprof follows there (the tests that
# check it: tests/cli/symbolize_discarded.sh, tests/cli/symbolize_split_inline.sh).
NO_PEER = [
    (re.compile(r"discarded"), "code the linker discarded hides no live code (llvm-symbolizer's "
     "own test discarded-code-range; llvm-symbolizer 14 predates it)"),
    (re.compile(r"splitinline"), "a split unit in the object itself keeps its inlined calls "
     "(llvm-symbolizer's own test split-dwarf-base-addr)"),
]


def unknown(fr):
    return all(n == "??" and f == "??" for n, f, _ in fr)


def compare_right(elf, addrs, t, show, report):
    cmds = {
        "symprof": ([t["symprof"], "symbolize", "-a", "-f", "-i", "-C", "--output-style=LLVM",
                     "--obj=" + elf], strip_llvm),
        "addr2line": ([t["addr2line"], "-a", "-f", "-i", "-C", "-e", elf], strip_gnu),
        "eu-addr2line": ([t["eu"], "-a", "-f", "-i", "-C", "-e", elf], strip_eu),
        "llvm-symbolizer": ([t["llvm"], "-a", "--obj=" + elf], strip_llvm),
    }
    ans = {}
    for k, (cmd, strip) in cmds.items():
        if not cmd[0]:
            continue
        b = steady(cmd, addrs) if k == "addr2line" else blocks(run(cmd, addrs))
        if len(b) != len(addrs):
            report["notes"].append("%s: %s gave %d answers for %d addresses" %
                                   (elf, k, len(b), len(addrs)))
            continue
        ans[k] = [frames_pairs(x, strip) for x in b]
    if "symprof" not in ans:
        return
    peers = [k for k in ans if k != "symprof"]
    c = report["right"]
    go = is_go(elf)
    no_peer = [why for pat, why in NO_PEER if pat.search(elf)]
    for i, a in enumerate(addrs):
        s = ans["symprof"][i]
        pv = {k: ans[k][i] for k in peers}
        known = {k: v for k, v in pv.items() if not unknown(v)}
        c["addresses"] += 1
        per = report["per_file"].setdefault(elf, collections.Counter())
        per["addresses"] += 1
        if all(v == s for v in pv.values()):
            c["same as every peer"] += 1
        elif any(v == s for v in pv.values()):
            c["same as some peer"] += 1
        elif go and any(go_rule(v) == s for v in pv.values()):
            c["same as a peer but for Go's names"] += 1
            per["same as a peer but for Go's names"] += 1
        elif no_peer:
            c["where no peer is right (a peer test's rule)"] += 1
            per["where no peer is right: " + no_peer[0]] += 1
        elif not known:
            c["named where no peer names"] += 1
            per["named where no peer names"] += 1
        else:
            vals = list(known.values())
            agree = len(vals) > 1 and all(v == vals[0] for v in vals)
            key = "differs from every peer, peers agree" if agree else \
                  "differs from every peer, peers differ"
            c[key] += 1
            per[key] += 1
            lst = report["lists"].setdefault(key, [])
            if len(lst) < show:
                lst.append({"elf": elf, "addr": a, "symprof": s, **pv})


def compare_bytes(elf, addrs, t, show, report):
    if t["addr2line"]:
        for fl in GNU_SETS:
            f = fl.split()
            pretty = "-p" in f
            want = steady([t["addr2line"]] + f + ["-e", elf], addrs, pretty)
            got = blocks(run([t["symprof"], "symbolize"] + f + ["-e", elf], addrs), pretty)
            tally(report, "GNU " + fl, elf, addrs, want, got, show)
    if t["llvm"]:
        for ours, theirs in LLVM_SETS:
            pretty = "-p" in ours.split()
            want = blocks(run([t["llvm"]] + theirs.split() + ["--obj=" + elf], addrs), pretty)
            got = blocks(run([t["symprof"], "symbolize", "--output-style=LLVM"] + ours.split() +
                             ["-e", elf], addrs), pretty)
            tally(report, "LLVM " + ours, elf, addrs, want, got, show)


def sections(elf):
    return subprocess.run(["readelf", "-SW", elf], capture_output=True, text=True).stdout


def deliberate(elf, style):
    """Why the bytes of a whole file may differ on purpose (docs/DESIGN.md), or None."""
    for pat, why in NO_PEER:
        if pat.search(elf):
            return "no peer is right"
    if is_go(elf):
        return "Go's names"
    if ".debug_info" not in sections(elf):
        return "symbol table alone: elfutils' rules"
    if style == "GNU":
        info = subprocess.run(["readelf", "--debug-dump=info", elf], capture_output=True,
                              text=True, errors="replace").stdout[:200000]
        if re.search(r"Version:\s+5", info) and re.search(r"DW_AT_producer.*clang", info):
            return "binutils reads no DW_FORM_strx name (clang, DWARF 5)"
    return None


def tally(report, key, elf, addrs, want, got, show):
    c = report["bytes"].setdefault(key, collections.Counter())
    if len(want) != len(got):
        c["answer counts differ"] += 1
        return
    why = deliberate(elf, key.split()[0])
    for i, (w, g) in enumerate(zip(want, got)):
        c["addresses"] += 1
        if w == g:
            c["identical"] += 1
        elif why:
            c["deliberate"] += 1
            report["why"].setdefault(key, collections.Counter())[why] += 1
        else:
            c["different"] += 1
            lst = report["lists"].setdefault(key, [])
            if len(lst) < show:
                lst.append({"elf": elf, "addr": addrs[i], "tool": w, "symprof": g})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--symprof", default="./symprof")
    ap.add_argument("--show", type=int, default=5)
    ap.add_argument("--max", type=int, default=2000)
    ap.add_argument("--json")
    ap.add_argument("--no-bytes", action="store_true")
    ap.add_argument("elf", nargs="+")
    a = ap.parse_args()
    t = {"symprof": a.symprof, "addr2line": tool("addr2line"),
         "eu": tool("eu-addr2line"), "llvm": tool("llvm-symbolizer", "llvm-symbolizer-14")}
    report = {"right": collections.Counter(), "bytes": {}, "lists": {}, "notes": [],
              "per_file": {}, "why": {}}
    for elf in a.elf:
        addrs = addresses(elf, a.max)
        if not addrs:
            report["notes"].append("%s: no addresses" % elf)
            continue
        compare_right(elf, addrs, t, a.show, report)
        if not a.no_bytes:
            compare_bytes(elf, addrs, t, a.show, report)
    r = report["right"]
    print("right (frames: function, file, line; demangled), %d addresses of %d files:" %
          (r["addresses"], len(a.elf)))
    for k in ["same as every peer", "same as some peer", "same as a peer but for Go's names",
              "where no peer is right (a peer test's rule)", "named where no peer names",
              "differs from every peer, peers agree", "differs from every peer, peers differ"]:
        print("  %-44s %7d" % (k, r[k]))
    for elf, pc in report["per_file"].items():
        odd = {k: v for k, v in pc.items() if k != "addresses"}
        if odd:
            print("    %s: %d addresses, %s" % (elf, pc["addresses"],
                                               ", ".join("%s %d" % kv for kv in odd.items())))
    if report["bytes"]:
        print("bytes (per address, the answer's text):")
        for k, c in report["bytes"].items():
            print("  %-30s %7d of %7d identical, %6d other on purpose, %6d other%s" % (
                k, c["identical"], c["addresses"], c["deliberate"], c["different"],
                "" if not c["answer counts differ"] else
                " (%d files not compared)" % c["answer counts differ"]))
            for why, n in sorted(report["why"].get(k, {}).items()):
                print("      on purpose: %-55s %6d" % (why, n))
    for n in report["notes"]:
        print("note: " + n)
    for k, lst in report["lists"].items():
        print("\n== %s (first %d)" % (k, len(lst)))
        for e in lst:
            print(json.dumps(e, ensure_ascii=False))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"right": r, "bytes": report["bytes"], "why": report["why"],
                       "lists": report["lists"]}, f, indent=1)


if __name__ == "__main__":
    main()
