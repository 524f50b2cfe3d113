#!/bin/sh
# unwind-procs.sh — a --call-graph dwarf capture of several processes, unwound on -j
# threads: the fixture testdata/src/unwind/unwfork.c forks CHILDREN children, each
# spinning UNITS units under main -> uwf_child -> uwf_cI -> uwf_deep (0 to DEPTH-1
# times) -> leaf, recorded here with
#   perf record -e cpu-clock -F FREQ --call-graph dwarf -- ./unwfork CHILDREN UNITS DEPTH
# The capture is converted to folded stacks at -j JOBS (A) and at -j 1 (B), in turn
# (A B A B ...), RUNS times each, each run under /usr/bin/time: the medians of CPU, wall
# and peak resident set, and the median of the ratios A/B pair by pair.  With BASE=another
# symprof (the build before), that build at -j 1 (C) is timed in the same turns, A/C too.
# Every run's output must be the same bytes (checked; a difference ends the script).
#
#   SYMPROF=build/symprof [BASE=../main/build/symprof] sh bench/unwind-procs.sh \
#       [-r RUNS] [-j JOBS] [-c CHILDREN] [-u UNITS] [-d DEPTH] [-F FREQ] [-w WORKDIR]
#
# Defaults: 7 runs, -j 2, 4 children of 6000 units (about 1.2 s of CPU each), depth 16,
# 4000 Hz; work files in /tmp/symprof-unwind-procs (the recording is reused when present
# with the same parameters; delete it to record again).  Needs perf (linux-perf) able to
# record with --call-graph dwarf, gcc.
set -eu
runs=7 jobs=2 children=4 units=6000 depth=16 freq=4000
work=${TMPDIR:-/tmp}/symprof-unwind-procs
while getopts r:j:c:u:d:F:w: o; do
	case $o in
	r) runs=$OPTARG ;;
	j) jobs=$OPTARG ;;
	c) children=$OPTARG ;;
	u) units=$OPTARG ;;
	d) depth=$OPTARG ;;
	F) freq=$OPTARG ;;
	w) work=$OPTARG ;;
	*) echo "usage: SYMPROF=... [BASE=...] $0 [-r RUNS] [-j JOBS] [-c N] [-u UNITS] [-d DEPTH] [-F HZ] [-w DIR]" >&2
	   exit 2 ;;
	esac
done
sp=${SYMPROF:?set SYMPROF to the symprof binary}
base=${BASE:-}
here=$(cd "$(dirname "$0")" && pwd)
unset DEBUGINFOD_URLS
mkdir -p "$work"
fix=$work/fix
[ -x "$fix/unwfork" ] || "$here/../testdata/src/unwind/build.sh" "$fix" >/dev/null
data=$work/c$children-u$units-d$depth-F$freq.data
[ -s "$data" ] || (cd "$fix" && perf record -q -e cpu-clock -F "$freq" --call-graph dwarf \
	-o "$data" -- ./unwfork "$children" "$units" "$depth") >"$work/rec.log" 2>&1
samples=$(perf report -i "$data" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
echo "capture: $children children, $(($(wc -c <"$data") >> 20)) MiB, ${samples:-?} samples"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# run TAG PROGRAM JOBS: one conversion; "cpu wall peak_kib" appended to $work/TAG.t
run()
{
	/usr/bin/time -v -o "$work/time.txt" "$2" convert -j "$3" --sample-index samples "$data" \
		-o "$work/$1.folded" 2>"$work/$1.err"
	awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 }
		/Elapsed \(wall clock\)/ { n = split($2, p, ":"); w = 0
			for (i = 1; i <= n; i++) w = w * 60 + p[i] }
		/Maximum resident set size/ { m = $2 }
		END { printf "%.3f %.3f %d\n", u + s, w, m }' "$work/time.txt" >>"$work/$1.t"
	cmp -s "$work/b.folded" "$work/$1.folded" ||
		{ echo "$1: the output differs from -j 1's" >&2; exit 1; }
}
: >"$work/a.t"
: >"$work/b.t"
: >"$work/c.t"
"$sp" convert -j 1 --sample-index samples "$data" -o "$work/b.folded" 2>/dev/null
r=0
while [ $r -lt "$runs" ]; do
	run a "$sp" "$jobs"
	run b "$sp" 1
	[ -z "$base" ] || run c "$base" 1
	r=$((r + 1))
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# the median of column C of FILE
median() { sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'; }
printf '| | median CPU s | median wall s | median peak MiB |\n|---|---|---|---|\n'
for tag in "a:-j $jobs" "b:-j 1" ${base:+"c:base -j 1"}; do
	f=$work/${tag%%:*}.t
	printf '| %s | %s | %s | %d |\n' "${tag#*:}" "$(median "$f" 1)" "$(median "$f" 2)" \
		$(($(median "$f" 3) / 1024))
done
# ratio X Y: the median of the ratios of each pair (run i of X over run i of Y)
ratio()
{
	paste -d' ' "$work/$1.t" "$work/$2.t" | awk '{ printf "%.3f %.3f\n", $1 / $4, $2 / $5 }' >"$work/r.t"
	echo "$3, the median of the ratios of each pair: CPU $(median "$work/r.t" 1), wall $(median "$work/r.t" 2)"
}
ratio a b "-j $jobs / -j 1"
[ -z "$base" ] || ratio a c "-j $jobs / base -j 1"
[ -z "$base" ] || ratio b c "-j 1 / base -j 1"
