#!/usr/bin/env python3
# annotate_check.py ASPECT ARGS... — checks `symprof convert --format disasm` and
# `--format list` output of one function against independent tools: objdump -d (the
# instructions), addr2line -a -i -f (each instruction's inline chain) and the counts the
# test placed on the instructions.  Prints what differs and exits 1 when a check fails.
#
#   insns OBJDUMP DISASM             every instruction of the function, in order, with the
#                                    address and text objdump prints (blanks collapsed)
#   targets OBJDUMP DISASM           '>' marks exactly the instructions a jump of the
#                                    function lands on
#   counts COUNTS DISASM             each instruction's flat is the count placed on it
#                                    (COUNTS: "ADDR N" lines) and the header's flat their sum
#   chains ADDR2LINE DISASM          each instruction's chain is addr2line's, innermost first
#                                    (file base names, lines, function names)
#   lines COUNTS ADDR2LINE LIST      list: each line's flat is the sum of the counts whose
#                                    outermost frame is on that line; each depth-1 row the sum
#                                    of those whose next frame is that callee's line; the
#                                    lines' flat values sum to the header's
#   sums LIST|DISASM                 the per-line (list) or per-instruction (disasm) flat
#                                    values sum to the header's flat; prints that flat
import re
import sys


def fail(msg):
    sys.stderr.write("annotate_check: %s\n" % msg)
    sys.exit(1)


def norm(t):
    return re.sub(r"\s+", " ", t).strip()


def num(s):
    return 0 if s == "." else int(s)


def objdump(path):
    out = []
    for line in open(path):
        m = re.match(r"^\s*([0-9a-f]+):\t(.*)$", line.rstrip("\n"))
        if m:
            out.append((int(m.group(1), 16), norm(m.group(2))))
    return out


DIS = re.compile(r"^\s*(\S+)\s+(\S+) ([> ])\s+([0-9a-f]+):\t(.*?)(?: ; (.*))?$")


def disasm(path):
    head, insns = None, []
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"^\s*(\S+)\s+(\S+) \(flat, cum\)", line)
        if m and head is None:
            head = (num(m.group(1)), num(m.group(2)))
            continue
        m = DIS.match(line)
        if m:
            chain = []
            for fr in (m.group(6) or "").split(" <- "):
                if fr:
                    loc, fn = fr.split(" ", 1)
                    f, l = loc.rsplit(":", 1)
                    chain.append((f, int(l), fn))
            insns.append({"flat": num(m.group(1)), "cum": num(m.group(2)),
                          "target": m.group(3) == ">", "addr": int(m.group(4), 16),
                          "text": norm(m.group(5)), "chain": chain})
    if head is None:
        fail("%s: no ROUTINE header" % path)
    return head, insns


def addr2line(path):
    """addr2line -a -i -f output: {addr: [(file base, line, function), ...] innermost first}"""
    res, cur, fn = {}, None, None
    for line in open(path):
        line = line.rstrip("\n")
        if re.match(r"^0x[0-9a-f]+$", line):
            cur = int(line, 16)
            res[cur] = []
            fn = None
        elif fn is None:
            fn = line
        else:
            f, l = line.rsplit(":", 1)
            l = re.sub(r"\D.*$", "", l)  # " (discriminator 1)"
            res[cur].append((f.rsplit("/", 1)[-1], int(l or 0), fn))
            fn = None
    return res


def counts(path):
    c = {}
    for line in open(path):
        a, n = line.split()
        c[int(a, 16)] = c.get(int(a, 16), 0) + int(n)
    return c


LIST_LINE = re.compile(r"^\s*(\S+)\s+(\S+)\s+(\d+):")
LIST_ROW = re.compile(r"^\s*(\S+)\s+(\S+)\s+((?:\| )+)(\S+):(\d+) (\S+):")


def listing(path):
    head, lines, rows, cur = None, {}, {}, None
    for line in open(path):
        line = line.rstrip("\n")
        m = re.match(r"^\s*(\S+)\s+(\S+) \(flat, cum\)", line)
        if m and head is None:
            head = (num(m.group(1)), num(m.group(2)))
            continue
        m = LIST_ROW.match(line)
        if m:
            depth = m.group(3).count("|")
            key = (cur, depth, m.group(4), int(m.group(5)), m.group(6))
            rows[key] = (num(m.group(1)), num(m.group(2)))
            continue
        m = LIST_LINE.match(line)
        if m:
            cur = int(m.group(3))
            lines[cur] = (num(m.group(1)), num(m.group(2)))
    if head is None:
        fail("%s: no ROUTINE header" % path)
    return head, lines, rows


def main():
    a = sys.argv[1]
    if a == "insns":
        ref = objdump(sys.argv[2])
        _, ins = disasm(sys.argv[3])
        ours = [(i["addr"], i["text"]) for i in ins]
        if ours != ref:
            for k in range(max(len(ours), len(ref))):
                x = ours[k] if k < len(ours) else None
                y = ref[k] if k < len(ref) else None
                if x != y:
                    fail("instruction %d: symprof %r, objdump %r" % (k, x, y))
        print("%d instructions" % len(ours))
    elif a == "targets":
        ref = objdump(sys.argv[2])
        _, ins = disasm(sys.argv[3])
        lo, hi = ref[0][0], ref[-1][0] + 1
        want = set()
        for _, t in ref:
            m = re.match(r"^j\S* ([0-9a-f]+)\b", t)
            if m and lo <= int(m.group(1), 16) < hi:
                want.add(int(m.group(1), 16))
        got = set(i["addr"] for i in ins if i["target"])
        if got != want or not want:
            fail("targets: symprof %s, objdump's jumps %s" % (sorted(map(hex, got)), sorted(map(hex, want))))
        print("%d targets" % len(got))
    elif a == "counts":
        c = counts(sys.argv[2])
        head, ins = disasm(sys.argv[3])
        for i in ins:
            if i["flat"] != c.get(i["addr"], 0):
                fail("%#x: flat %d, placed %d" % (i["addr"], i["flat"], c.get(i["addr"], 0)))
        if head[0] != sum(c.values()):
            fail("header flat %d, placed %d" % (head[0], sum(c.values())))
    elif a == "chains":
        ref = addr2line(sys.argv[2])
        _, ins = disasm(sys.argv[3])
        n = 0
        for i in ins:
            want = ref.get(i["addr"])
            if want is None:
                continue
            n += 1
            if i["chain"] != want:
                fail("%#x: chain %r, addr2line %r" % (i["addr"], i["chain"], want))
        if not n:
            fail("no instruction compared")
        print("%d chains" % n)
    elif a == "lines":
        c = counts(sys.argv[2])
        ref = addr2line(sys.argv[3])
        head, lines, rows = listing(sys.argv[4])
        want_lines, want_rows = {}, {}
        for addr, n in c.items():
            ch = ref[addr]
            out = ch[-1][1]
            want_lines[out] = want_lines.get(out, 0) + n
            if len(ch) > 1:
                f, l, fn = ch[-2]
                k = (out, 1, f, l, fn)
                want_rows[k] = want_rows.get(k, 0) + n
        got_lines = {k: v[0] for k, v in lines.items() if v[0]}
        if got_lines != want_lines:
            fail("lines: symprof %r, addr2line and the counts %r" % (got_lines, want_lines))
        got_rows = {k: v[0] for k, v in rows.items() if k[1] == 1 and v[0]}
        if got_rows != want_rows or not want_rows:
            fail("inline rows: symprof %r, addr2line and the counts %r" % (got_rows, want_rows))
        if sum(got_lines.values()) != head[0]:
            fail("lines sum to %d, header flat %d" % (sum(got_lines.values()), head[0]))
        print("%d lines, %d inline rows" % (len(got_lines), len(got_rows)))
    elif a == "sums":
        text = open(sys.argv[2]).read()
        if re.search(r"^\s*\S+\s+\S+ [> ]\s+[0-9a-f]+:\t", text, re.M):
            head, ins = disasm(sys.argv[2])
            total = sum(i["flat"] for i in ins)
        else:
            head, lines, _ = listing(sys.argv[2])
            total = sum(v[0] for v in lines.values())
        if total != head[0]:
            fail("values sum to %d, header flat %d" % (total, head[0]))
        print(head[0])
    else:
        fail("unknown aspect %s" % a)


main()
