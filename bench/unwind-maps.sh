#!/bin/sh
# unwind-maps.sh — a --call-graph dwarf capture of a process with many mappings: the
# unwind fixture testdata/src/unwind/unwmaps.c maps libunwleaf.so's code N times and
# calls its leaf in every copy (main -> uw_drive -> uw_leaf), recorded here with
#   perf record -e cpu-clock -F 10000 --call-graph dwarf,1024 -- ./unwmaps LIB N N/10
# (N/10 milliseconds: samples grow with the mappings, about two per mapping), for each N
# given (default 2500 and 10000).  Each capture is converted to folded stacks; the
# largest N against the smallest is timed in turn (A B A B ...) with /usr/bin/time -v,
# RUNS times each: the medians of CPU, wall and peak resident set, and the median of the
# ratios pair by pair (the conversion is linear in the mappings when the ratio stays
# near N_big / N_small).  Prints each capture's size, samples, and the share of uw_leaf
# samples whose stack is main;uw_drive;uw_leaf.
#
#   SYMPROF=build/symprof sh bench/unwind-maps.sh [-r RUNS] [-n "N..."] [-w WORKDIR]
#
# Defaults: 5 runs, N = "2500 10000", work files in /tmp/symprof-unwind-maps (the
# recordings are reused when present; delete them to record again).  Needs perf
# (linux-perf) able to record with --call-graph dwarf, gcc.
set -eu
runs=5 ns='2500 10000'
work=${TMPDIR:-/tmp}/symprof-unwind-maps
while getopts r:n:w: o; do
	case $o in
	r) runs=$OPTARG ;;
	n) ns=$OPTARG ;;
	w) work=$OPTARG ;;
	*) echo "usage: SYMPROF=... $0 [-r RUNS] [-n \"N...\"] [-w DIR]" >&2; exit 2 ;;
	esac
done
sp=${SYMPROF:?set SYMPROF to the symprof binary}
here=$(cd "$(dirname "$0")" && pwd)
unset DEBUGINFOD_URLS
mkdir -p "$work"
fix=$work/fix
[ -x "$fix/unwmaps" ] || "$here/../testdata/src/unwind/build.sh" "$fix" >/dev/null

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| mappings | file MiB | samples | in uw_leaf | whole stacks | convert: wall s | peak MiB |\n'
printf '|---|---|---|---|---|---|---|\n'
for n in $ns; do
	data=$work/m$n.data
	[ -s "$data" ] || (cd "$fix" && perf record -q -e cpu-clock -F 10000 \
		--call-graph dwarf,1024 -o "$data" -- ./unwmaps "$fix/libunwleaf.so" "$n" \
		$((n / 10))) >"$work/m$n.rec.log" 2>&1
	/usr/bin/time -f '%e %M' -o "$work/time.txt" "$sp" convert --sample-index samples \
		"$data" -o "$work/m$n.folded" 2>/dev/null
	set -- $(cat "$work/time.txt")
	awk -v n="$n" -v mib="$(du -m "$data" | cut -f1)" -v wall="$1" -v rss="$2" \
		'{ v = $NF; tot += v } / uw_leaf [0-9]+$|;uw_leaf [0-9]+$/ { leaf += v }
		 /^main;uw_drive;uw_leaf [0-9]+$/ { whole += v }
		 END { printf "| %d | %d | %d | %d | %d | %s | %d |\n", n, mib, tot, leaf,
			whole, wall, rss / 1024 }' "$work/m$n.folded"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

small=${ns%% *}
big=${ns##* }
[ "$small" = "$big" ] && exit 0
echo
echo "convert of $big mappings (A) against $small (B), $runs runs each, in turn:"
# /usr/bin/time -v of each run: user + system seconds, wall seconds, peak resident set
: >"$work/a.t"
: >"$work/b.t"
r=0
while [ $r -lt "$runs" ]; do
	for tag in a:$big b:$small; do
		/usr/bin/time -v -o "$work/time.txt" "$sp" convert --sample-index samples \
			"$work/m${tag#*:}.data" -o "$work/x.folded" 2>/dev/null
		awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 }
			/Elapsed \(wall clock\)/ { n = split($2, p, ":"); w = 0
				for (i = 1; i <= n; i++) w = w * 60 + p[i] }
			/Maximum resident set size/ { m = $2 }
			END { printf "%.3f %.3f %d\n", u + s, w, m }' "$work/time.txt" >>"$work/${tag%%:*}.t"
	done
	r=$((r + 1))
done
# the median of column C of FILE
median() { sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'; }
printf '| | median CPU s | median wall s | median peak MiB |\n|---|---|---|---|\n'
for tag in a:$big b:$small; do
	f=$work/${tag%%:*}.t
	printf '| %s mappings | %s | %s | %d |\n' "${tag#*:}" "$(median "$f" 1)" "$(median "$f" 2)" \
		$(($(median "$f" 3) / 1024))
done
# the ratio pair by pair (run i of A over run i of B), then its median
paste -d' ' "$work/a.t" "$work/b.t" | awk '{ printf "%.3f %.3f\n", $1 / $4, $2 / $5 }' >"$work/r.t"
echo "A/B, the median of the ratios of each pair: CPU $(median "$work/r.t" 1), wall $(median "$work/r.t" 2)"
