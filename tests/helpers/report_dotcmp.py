#!/usr/bin/env python3
# report_dotcmp.py OURS.dot PPROF.dot — compares two call-graph DOT files
# statement by statement: the same node ids with the same label, font size,
# colours and tooltip, and the same edges with the same label, weight, pen
# width, colour, style and tooltip.  The legend and layout-free details
# (attribute order, quoting, line breaks, continued strings) are ignored.
# Prints the first differences; exit status 1 when there are any.
import re
import sys

STMT = re.compile(r'(N+\d+(?:_\d+)*|legend|"[^"]*")\s*(?:->\s*(N+\d+(?:_\d+)*))?\s*'
                  r'\[((?:[^\]"]|"(?:\\.|[^"\\])*")*)\]', re.S)
ATTR = re.compile(r'(\w+)\s*=\s*("(?:\\.|[^"\\])*"|[^\s,\]]+)')


def parse(text):
    nodes, edges = {}, {}
    # A backslash before a newline continues a quoted string (cgraph wraps long ones).
    text = text.replace("\\\n", "")
    for m in STMT.finditer(text):
        a, b, attrs = m.group(1), m.group(2), m.group(3)
        d = {}
        for am in ATTR.finditer(attrs):
            v = am.group(2)
            d[am.group(1)] = v[1:-1] if v.startswith('"') else v
        if b:
            edges[(a, b)] = d
        elif a.startswith("N"):
            nodes[a] = d
    return nodes, edges


ours = parse(open(sys.argv[1]).read())
theirs = parse(open(sys.argv[2]).read())
bad = []
if not theirs[0]:
    bad.append("no nodes in %s" % sys.argv[2])
if set(ours[0]) != set(theirs[0]):
    bad.append("node ids %s vs %s" % (sorted(ours[0]), sorted(theirs[0])))
for k in theirs[0]:
    for a in ("label", "fontsize", "color", "fillcolor", "tooltip", "shape"):
        if k in ours[0] and ours[0][k].get(a) != theirs[0][k].get(a):
            bad.append("%s %s: %r vs %r" % (k, a, ours[0][k].get(a), theirs[0][k].get(a)))
if set(ours[1]) != set(theirs[1]):
    bad.append("edges only ours %s, only pprof %s" % (sorted(set(ours[1]) - set(theirs[1])),
                                                       sorted(set(theirs[1]) - set(ours[1]))))
for k in theirs[1]:
    for a in ("label", "weight", "penwidth", "color", "style", "tooltip", "minlen"):
        if k in ours[1] and ours[1][k].get(a) != theirs[1][k].get(a):
            bad.append("%s %s: %r vs %r" % (k, a, ours[1][k].get(a), theirs[1][k].get(a)))
for b in bad[:5]:
    print("# " + b)
sys.exit(1 if bad else 0)
