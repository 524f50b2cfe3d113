#!/bin/sh
# serve.sh — symprof serve against a process per batch and against a long-running
# llvm-symbolizer, on 1,000-address batches (bench/serve.py), timed side by side.
#
#   bench/serve.sh [-b BATCHES] [-r RUNS] [OBJECT...]
#
# For each OBJECT (default: libc and the symprof executable, whose DWARF is the large
# one), `serve.py serve OBJECT BATCHES` runs (a fresh server: its first batch
# cold, the others warm) against `serve.py cli` (symprof symbolize once per batch) and
# against `serve.py llvm` (one llvm-symbolizer fed every batch), RUNS times each
# (default 5), in turn under /usr/bin/time; it prints the medians and their A/B ratios.  Then each mode once
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
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Runs the commands A and B in turn, RUNS times each, under /usr/bin/time: each one's
# median wall and CPU seconds, and A over B of the medians.
pair() {
	: >"$work/A"
	: >"$work/B"
	i=0
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -f '%e %U %S' -a -o "$work/A" sh -c "$1" >/dev/null 2>&1 || true
		/usr/bin/time -f '%e %U %S' -a -o "$work/B" sh -c "$2" >/dev/null 2>&1 || true
		i=$((i + 1))
	done
	for x in A B; do
		grep -E '^[0-9.]+ [0-9.]+ [0-9.]+$' "$work/$x" >"$work/$x.t"
		eval "${x}w=$(cut -d' ' -f1 "$work/$x.t" | median)"
		eval "${x}c=$(awk '{print $2 + $3}' "$work/$x.t" | median)"
	done
	echo "A $1: median wall $Aw s, CPU $Ac s"
	echo "B $2: median wall $Bw s, CPU $Bc s"
	echo "$Aw $Bw $Ac $Bc" | awk '{printf "A/B wall %.3f, CPU %.3f\n", $1 / $2, $3 / $4}'
}
for obj in "$@"; do
	echo "== $obj ($batches batches of 1000 addresses)"
	pair "python3 $here/serve.py serve $obj $batches" "python3 $here/serve.py cli $obj $batches"
	pair "python3 $here/serve.py serve $obj $batches" "python3 $here/serve.py llvm $obj $batches"
	for m in serve cli llvm; do
		python3 "$here/serve.py" "$m" "$obj" "$batches" 2>/dev/null
	done
	python3 "$here/serve.py" serve "$obj" "$batches" 4 2>/dev/null
done
