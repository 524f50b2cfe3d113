#!/bin/sh
# test_report_tools.sh — the report outputs checked by other tools: graphviz's
# dot accepts the DOT text, the in-process renders have the right magic, and
# the flame graph is well-formed XML whose frame widths follow the values of
# tests/helpers/report_fixture.h (leaf 60%, helper 80%, main 100%).
set -u
prog="${SP_BUILDDIR:-.}/tests/helpers/report_sample"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; }
check() { desc=$1; shift; if "$@" >/dev/null 2>&1; then ok "$desc"; else notok "$desc"; fi; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }

"$prog" dot >"$tmp/g.dot"
check "DOT written" test -s "$tmp/g.dot"
if command -v dot >/dev/null 2>&1; then
	check "dot -Tsvg accepts the DOT" dot -Tsvg -o "$tmp/g.svg" "$tmp/g.dot"
	check "dot's SVG shows the nodes" grep -q 'helper' "$tmp/g.svg"
	"$prog" dot 2 >"$tmp/g2.dot"
	check "dot -Tsvg accepts the pruned DOT" dot -Tsvg -o "$tmp/g2.svg" "$tmp/g2.dot"
else
	skip "graphviz dot not installed"
	skip "graphviz dot not installed"
	skip "graphviz dot not installed"
fi

magic() { # FILE HEX
	test "$(head -c "$(( ${#2} / 2 ))" "$1" | od -An -tx1 | tr -d ' \n')" = "$2"
}
"$prog" pdf >"$tmp/g.pdf"
check "PDF render starts with %PDF" magic "$tmp/g.pdf" 25504446
"$prog" png >"$tmp/g.png"
check "PNG render starts with the PNG signature" magic "$tmp/g.png" 89504e470d0a1a0a
"$prog" svg >"$tmp/r.svg"
check "SVG render holds an svg element" grep -q '<svg' "$tmp/r.svg"

"$prog" flame >"$tmp/f.svg"
if command -v xmllint >/dev/null 2>&1; then
	check "xmllint: flame graph well-formed" xmllint --noout "$tmp/f.svg"
else
	skip "xmllint not installed"
fi
if command -v python3 >/dev/null 2>&1; then
	cat >"$tmp/check.py" <<'PY'
import sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
root = ET.parse(sys.argv[1]).getroot()
frames = {}
for g in root.iter("{http://www.w3.org/2000/svg}g"):
    if g.get("class") != "f":
        continue
    title = g.find("s:title", ns).text
    rect = g.find("s:rect", ns)
    assert g.find("s:text", ns) is not None
    frames[(g.get("data-n"), int(g.get("data-d")))] = (title, float(rect.get("width")))
all_w = frames[("all", 0)][1]
want = {("main", 1): 1.0, ("work", 2): 0.8, ("helper", 3): 0.8, ("leaf", 4): 0.6,
        ("libfoo.so+0x1000", 2): 0.05, ("ns::f<int>&", 2): 0.05}
for k, share in want.items():
    w = frames[k][1]
    assert abs(w / all_w - share) < 1e-6, (k, w, all_w)
assert frames[("leaf", 4)][0] == "leaf (60000000 nanoseconds, 60.00%)", frames[("leaf", 4)]
assert len(frames) == 7, sorted(frames)
assert root.find("s:script", ns) is not None
PY
	check "flame graph frames, titles and widths (python xml)" python3 "$tmp/check.py" "$tmp/f.svg"
else
	skip "python3 not installed"
fi

echo "1..$n"
exit $fail
