#!/bin/sh
# test_flamegraph_browser.sh — loads the flame graph in headless Chromium
# with "#zoom=work" and checks the zoom in the dumped DOM (work spans the
# width, its caller main is marked as a parent, the 5% frames are hidden).
# Installs nothing; skips when /usr/bin/chromium is absent.
set -u
prog="${SP_BUILDDIR:-.}/tests/report_sample"
chromium=/usr/bin/chromium
if [ ! -x "$chromium" ]; then
	echo "ok 1 # SKIP $chromium not installed"
	echo "1..1"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$prog" flame >"$tmp/f.svg"
"$chromium" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
	--virtual-time-budget=2000 --dump-dom "file://$tmp/f.svg#zoom=work" \
	>"$tmp/dom.xml" 2>/dev/null
n=0
fail=0
check() {
	n=$((n + 1))
	if grep -q -- "$2" "$tmp/dom.xml"; then echo "ok $n - $1"; else fail=1; echo "not ok $n - $1"; fi
}
check "zoom applied from the URL fragment" 'data-zoom="work"'
check "zoomed frame spans the width" 'data-n="work"[^>]*>.*<rect x="10" [^>]*width="1180"'
check "caller marked as parent" 'class="f parent"[^>]*data-n="main"'
check "frames outside the zoom hidden" 'class="f hide"[^>]*data-n="0x4000'
echo "1..$n"
exit $fail
