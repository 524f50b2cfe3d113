#!/bin/sh
# test_report_pprof.sh — our top table and DOT graph against go tool pprof on
# random profiles (tests/helpers/report_pprof_gen.py: inline frames, recursion),
# with several option sets, then on random profiles whose samples carry
# bytes and string labels (nodelets).  The tables must be identical apart
# from the "File:" line; the graphs must have the same nodes, nodelets and
# edges with the same labels, sizes, colours and styles
# (tests/helpers/report_dotcmp.py).  Skips when go
# or python3 is missing.
set -u
src="${SP_SRCDIR:-.}/tests/helpers"
load="${SP_BUILDDIR:-.}/tests/helpers/report_load"
seeds=${REPORT_PPROF_SEEDS:-12}
if ! command -v python3 >/dev/null 2>&1 || ! command -v go >/dev/null 2>&1 ||
	! go tool pprof -h >/dev/null 2>&1; then
	echo "1..0 # SKIP go tool pprof or python3 not available"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0
seed=1
while [ "$seed" -le "$seeds" ]; do
	b="$tmp/p$seed"
	python3 "$src/report_pprof_gen.py" "$seed" "$b"
	for opts in "" -nodecount=3 -lines -files -focus=fn0 -ignore=fn1 -nodefraction=0.05 \
		-unit=s -unit=us; do
		n=$((n + 1))
		"$load" "$b.txt" top $opts | grep -v '^File:' >"$tmp/ours"
		go tool pprof -symbolize=none -top $opts "$b.pb.gz" 2>/dev/null |
			grep -v '^File:' >"$tmp/theirs"
		if cmp -s "$tmp/ours" "$tmp/theirs"; then
			echo "ok $n - top, profile $seed, options '$opts'"
		else
			fail=1
			echo "not ok $n - top, profile $seed, options '$opts'"
			diff "$tmp/ours" "$tmp/theirs" | head -8 | sed 's/^/# /'
		fi
	done
	for opts in "" -nodecount=4 -nodecount=2 -lines -focus=fn0 -nodefraction=0.05; do
		n=$((n + 1))
		"$load" "$b.txt" dot $opts >"$tmp/ours.dot"
		go tool pprof -symbolize=none -dot $opts "$b.pb.gz" 2>/dev/null >"$tmp/theirs.dot"
		if python3 "$src/report_dotcmp.py" "$tmp/ours.dot" "$tmp/theirs.dot" >"$tmp/cmp"; then
			echo "ok $n - dot, profile $seed, options '$opts'"
		else
			fail=1
			echo "not ok $n - dot, profile $seed, options '$opts'"
			cat "$tmp/cmp"
		fi
	done
	seed=$((seed + 1))
done
# Samples with a bytes label and string labels: nodelets and node choice.
seed=1
while [ "$seed" -le "$seeds" ]; do
	b="$tmp/l$seed"
	python3 "$src/report_pprof_gen.py" "$seed" "$b" labels
	for opts in "" -nodecount=4 -lines -unit=ms; do
		n=$((n + 1))
		"$load" "$b.txt" dot $opts >"$tmp/ours.dot"
		go tool pprof -symbolize=none -dot $opts "$b.pb.gz" 2>/dev/null >"$tmp/theirs.dot"
		if python3 "$src/report_dotcmp.py" "$tmp/ours.dot" "$tmp/theirs.dot" >"$tmp/cmp"; then
			echo "ok $n - dot with labels, profile $seed, options '$opts'"
		else
			fail=1
			echo "not ok $n - dot with labels, profile $seed, options '$opts'"
			cat "$tmp/cmp"
		fi
	done
	seed=$((seed + 1))
done
echo "1..$n"
exit $fail
