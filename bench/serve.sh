#!/bin/sh
# serve.sh — symprof serve against a process per batch and against a long-running
# llvm-symbolizer, on 1,000-address batches (bench/serve.py), timed by farm-bench.
#
#   bench/serve.sh [-b BATCHES] [-r RUNS] [OBJECT...]
#
# For each OBJECT (default: libc and the symprof executable, whose DWARF is the large
# one), farm-bench runs `serve.py serve OBJECT BATCHES` (a fresh server: its first batch
# cold, the others warm) against `serve.py cli` (symprof symbolize once per batch) and
# against `serve.py llvm` (one llvm-symbolizer fed every batch), RUNS times each
# (default 5), interleaved; quote the medians and the A/B ratios.  Then each mode once
# more for its own figures: batches/s, p50 and p99 per batch, the first (cold) batch, and
# serve with 4 clients.  SYMPROF names the symprof binary (default ./symprof).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
batches=50 runs=5
while getopts b:r: o; do
	case $o in
	b) batches=$OPTARG ;;
	r) runs=$OPTARG ;;
	*) sed -n '2,14p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
: "${SYMPROF:=./symprof}"
SYMPROF=$(cd "$(dirname "$SYMPROF")" && pwd)/$(basename "$SYMPROF")
export SYMPROF
work=$(mktemp -d /tmp/symprof-bench-serve.XXXXXX)
trap 'rm -rf "$work"' EXIT
if [ $# -eq 0 ]; then
	exe=$SYMPROF
	[ -x "$(dirname "$SYMPROF")/.libs/symprof" ] && exe=$(dirname "$SYMPROF")/.libs/symprof
	mkdir -p "$work/libc" "$work/exe"
	cp "$(gcc -print-file-name=libc.so.6)" "$work/libc/libc.so.6"
	cp "$exe" "$work/exe/symprof"
	set -- "$work/libc/libc.so.6" "$work/exe/symprof"
fi
for obj in "$@"; do
	echo "== $obj ($batches batches of 1000 addresses)"
	farm-bench -n "$runs" --timeout 600 --vs "python3 $here/serve.py cli $obj $batches" \
		-- python3 "$here/serve.py" serve "$obj" "$batches"
	farm-bench -n "$runs" --timeout 600 --vs "python3 $here/serve.py llvm $obj $batches" \
		-- python3 "$here/serve.py" serve "$obj" "$batches"
	for m in serve cli llvm; do
		python3 "$here/serve.py" "$m" "$obj" "$batches" 2>/dev/null
	done
	python3 "$here/serve.py" serve "$obj" "$batches" 4 2>/dev/null
done
