#!/bin/sh
# each-deep.sh — `convert --each` over large inputs: COUNT heap profiles (default 8) of
# SAMPLES samples each (default 100,000), drawn from POOL distinct stacks (default 20,000)
# 10-40 frames deep over ELF (bench/samples.py, seeds 1..COUNT), converted to pprof by
# `--each -j 1`, `--each -j JOBS` (default 2) and `--each` without -j (the default),
# interleaved, RUNS times (default 5); prints the median wall time and CPU time (user +
# system, the workers' included) of each, and -j 1's wall time over each other's.  The
# output files of every run are compared with -j 1's first.
#
#   SYMPROF=build/symprof sh bench/each-deep.sh [-r RUNS] [-j JOBS] [-c COUNT] [-n SAMPLES] [-p POOL] ELF
#
# WORKDIR (default /tmp/symprof-each-deep) keeps the generated profiles between runs.
set -eu
runs=5 jobs=2 count=8 n=100000 pool=20000
while :; do
	case ${1:-} in
	-r) runs=$2; shift 2 ;;
	-j) jobs=$2; shift 2 ;;
	-c) count=$2; shift 2 ;;
	-n) n=$2; shift 2 ;;
	-p) pool=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { sed -n '2,12p' "$0" >&2; exit 2; }
: "${SYMPROF:=./symprof}"
[ -x /usr/bin/time ] || { echo "each-deep.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
elf=$1
here=$(dirname "$0")
work=${WORKDIR:-${TMPDIR:-/tmp}/symprof-each-deep}
mkdir -p "$work"
set --
k=1
while [ "$k" -le "$count" ]; do
	in=$work/$n-pool$pool-seed$k.heap
	[ -s "$in" ] || python3 "$here/samples.py" --pool "$pool" --seed "$k" "$elf" "$n" >"$in"
	set -- "$@" "$in"
	k=$((k + 1))
done
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ways="j1 jN default"
for w in $ways; do : >"$work/$w.times"; done
# one WAY: a run into $work/out-WAY, "wall cpu" appended to $work/WAY.times
one()
{
	case $1 in
	j1) set -- "$1" -j 1 ;;
	jN) set -- "$1" -j "$jobs" ;;
	*) set -- "$1" ;;
	esac
	way=$1
	shift
	rm -rf "$work/out-$way"
	/usr/bin/time -f '%e %U %S' -o "$work/time" "$SYMPROF" convert -q --each "$@" \
		-o "$work/out-$way" $inputs 2>"$work/err" ||
		{ echo "each-deep.sh: --each $* failed:" >&2; cat "$work/err" >&2; exit 1; }
	awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$work/time" >>"$work/$way.times"
}
inputs=$*
echo "$count profiles of $n samples ($pool distinct stacks, $(du -chL "$@" | tail -n 1 | cut -f 1)) over $elf;" \
	"load before: $(uptime | sed 's/.*load average: //')"
r=0
while [ "$r" -lt "$runs" ]; do
	for w in $ways; do
		one "$w"
		[ "$w" = j1 ] || diff -r "$work/out-j1" "$work/out-$w" >/dev/null ||
			{ echo "each-deep.sh: --each ($w) wrote other files than -j 1" >&2; exit 1; }
	done
	r=$((r + 1))
done
echo "load after: $(uptime | sed 's/.*load average: //')"
j1=$(cut -d' ' -f1 "$work/j1.times" | median)
echo "| --each | wall s | CPU s | -j 1 wall / this wall |"
echo "|---|---|---|---|"
for w in $ways; do
	wall=$(cut -d' ' -f1 "$work/$w.times" | median)
	cpu=$(cut -d' ' -f2 "$work/$w.times" | median)
	case $w in j1) name="-j 1" ;; jN) name="-j $jobs" ;; *) name="(no -j)" ;; esac
	echo "| $name | $wall | $cpu | $(awk -v a="$j1" -v b="$wall" 'BEGIN { printf "%.2fx", a / b }') |"
done
