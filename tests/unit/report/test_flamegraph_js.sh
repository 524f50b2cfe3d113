#!/bin/sh
# test_flamegraph_js.sh — the flame graph's embedded script, run by node
# against a small stand-in DOM (tests/helpers/flamegraph_dom.js): zoom by click and
# by "#zoom=", reset, hover details, search with the matched share.  Skips
# when node is not installed.
set -u
prog="${SP_BUILDDIR:-.}/tests/helpers/report_sample"
js="${SP_SRCDIR:-.}/tests/helpers/flamegraph_dom.js"
if ! command -v node >/dev/null 2>&1; then
	echo "1..0 # SKIP node not installed"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$prog" flame >"$tmp/f.svg"; then
	echo "not ok 1 - flame graph written"
	echo "1..1"
	exit 1
fi
node "$js" "$tmp/f.svg"
