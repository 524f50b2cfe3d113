#!/bin/sh
# jobs.sh — `symprof symbolize -j N` against -j 1 on the same address lists, side by side.
#
#   bench/jobs.sh [-r RUNS] [-j N] [-n ADDRS] [-w WORKDIR] ELF...
#
# For every ELF two lists of ADDRS addresses (default 1 000 000) are written: "uniform",
# drawn with a fixed seed from all of .text (nearly every address distinct, as in
# bench/go.sh), and "zipf", bench/addrs.py's profile-like list (ADDRS/20 distinct, at most
# 50 000, drawn with Zipf weights; not for a binary without symbols).  -j 1 and -j N (default: the number of cores) run RUNS
# times each (default 5), interleaved, output to /dev/null; the table gives the median
# wall and user+system CPU seconds of each and the ratio of the wall times (-j 1 over
# -j N).  Both outputs are compared first: they must be the same bytes.  The load average
# (uptime) is printed before and after.  SYMPROF names the binary (default ./symprof);
# `make bench-jobs BENCH_JOBS_ARGS='-r 7 /path/to/elf'` runs it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
runs=5 jobs=$(nproc) naddr=1000000 work=/tmp/symprof-bench-jobs
while getopts r:j:n:w: o; do
	case $o in
	r) runs=$OPTARG ;;
	j) jobs=$OPTARG ;;
	n) naddr=$OPTARG ;;
	w) work=$OPTARG ;;
	*) sed -n '2,15p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { sed -n '2,15p' "$0" >&2; exit 2; }
: "${SYMPROF:=./symprof}"
[ -x "$SYMPROF" ] || { echo "jobs.sh: SYMPROF=$SYMPROF is not executable" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "jobs.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
mkdir -p "$work"

now() { date +%s.%N; }
# timed FILE LIST ARGS...: one run of symprof symbolize ARGS < LIST; "wall cpu" appended to FILE
timed() {
	f=$1 in=$2
	shift 2
	t0=$(now)
	/usr/bin/time -f '%U %S' -o "$work/cpu" "$SYMPROF" symbolize "$@" <"$in" >/dev/null
	t1=$(now)
	awk -v a="$t0" -v b="$t1" '{ printf "%.4f %.3f\n", b - a, $1 + $2 }' "$work/cpu" >>"$f"
}
median() { sort -n | awk '{ t[NR] = $1 } END { printf "%.4f", (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }'; }

echo "# load average before: $(uptime | sed 's/.*load average: //')"
echo "| ELF | list | -j 1 wall s | -j 1 CPU s | -j $jobs wall s | -j $jobs CPU s | -j 1 / -j $jobs |"
echo "|---|---|---|---|---|---|---|"
for elf in "$@"; do
	name=$(basename "$elf")
	# shellcheck disable=SC2046 # two words
	set -- $(readelf -SW "$elf" | sed -n 's/.* \.text  *PROGBITS  *\([0-9a-f]*\) [0-9a-f]* \([0-9a-f]*\) .*/\1 \2/p')
	[ $# -eq 2 ] || { echo "jobs.sh: $elf has no .text" >&2; exit 1; }
	awk -v s=$((0x$1)) -v n=$((0x$2)) -v c="$naddr" \
		'BEGIN { srand(15); for (i = 0; i < c; i++) printf "0x%x\n", s + int(rand() * n) }' \
		>"$work/$name.uniform"
	pool=$((naddr / 20 < 50000 ? naddr / 20 : 50000))
	lists=uniform
	# addrs.py needs sized function symbols: none in a stripped binary
	python3 "$here/addrs.py" "$elf" "$naddr" "$pool" >"$work/$name.zipf" 2>/dev/null &&
		lists="uniform zipf"
	for list in $lists; do
		l=$work/$name.$list
		"$SYMPROF" symbolize -j 1 -a -e "$elf" <"$l" >"$work/out1"
		"$SYMPROF" symbolize -j "$jobs" -a -e "$elf" <"$l" >"$work/outn"
		cmp -s "$work/out1" "$work/outn" ||
			{ echo "jobs.sh: $name $list: -j $jobs prints other bytes than -j 1" >&2; exit 1; }
		: >"$work/t1"
		: >"$work/tn"
		r=0
		while [ "$r" -lt "$runs" ]; do
			timed "$work/t1" "$l" -j 1 -e "$elf"
			timed "$work/tn" "$l" -j "$jobs" -e "$elf"
			r=$((r + 1))
		done
		w1=$(cut -d' ' -f1 "$work/t1" | median) c1=$(cut -d' ' -f2 "$work/t1" | median)
		wn=$(cut -d' ' -f1 "$work/tn" | median) cn=$(cut -d' ' -f2 "$work/tn" | median)
		echo "| $name | $list ($(sort -u "$l" | wc -l | tr -d ' ') distinct) | $w1 | $c1 | $wn | $cn | $(awk -v a="$w1" -v b="$wn" 'BEGIN { printf "%.2fx", a / b }') |"
	done
done
echo "# load average after: $(uptime | sed 's/.*load average: //')"
