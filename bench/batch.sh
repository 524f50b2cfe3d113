#!/bin/sh
# batch.sh — the batch-conversion benchmark: N heap dumps of the fixture program
# (testdata/src/fixture) converted to pprof by one `symprof convert --each` run versus N
# separate `symprof convert` runs; with -J, `--each -j 1` versus `--each -j JOBS`.
#
#   bench/batch.sh [-n DUMPS] [-r RUNS] [-w WORKDIR] [-J [-j JOBS] [-s SAMPLES]]
#
# The fixture is built into WORKDIR/fix and run DUMPS times (default 50) under
# libtcmalloc's heap profiler, each run one real dump (PIE, so every dump has its own
# load addresses).  Both ways are timed RUNS times (default 3), interleaved, and the
# medians of the wall times and their ratio are printed.  The target is a ratio of at
# most 1/10: --each opens the ELF files and reads their debug info once for the batch.
# --each -j $(nproc) is timed too, and its outputs compared with -j 1's.
# -J: --each -j 1, --each -j JOBS (default 2) and --each of the first dump alone (what
# -j cannot share out: start, warm-up, one dump), interleaved; medians of wall and
# user+system CPU seconds, the ratio -j 1 / -j JOBS, and the bound on it that the first
# dump sets, T1 / (F + (T1 - F) / JOBS).  -s SAMPLES: the same over larger dumps too,
# each dump grown by bench/heapgrow.py with SAMPLES samples (WORKDIR/big).  BEFORE names
# another symprof whose --each -j JOBS is timed alongside.  The outputs of every -j are
# compared with -j 1's.
# SYMPROF names the symprof binary (default: ./symprof); `make bench-batch` runs it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
n=50 runs=3 work=/tmp/symprof-bench-batch mode=separate jobs_j=2 samples=
while getopts n:r:w:Jj:s: o; do
	case $o in
	n) n=$OPTARG ;;
	r) runs=$OPTARG ;;
	w) work=$OPTARG ;;
	J) mode=jobs ;;
	j) jobs_j=$OPTARG ;;
	s) samples=$OPTARG ;;
	*) sed -n '2,24p' "$0" >&2; exit 2 ;;
	esac
done
: "${SYMPROF:=./symprof}"
[ -x "$SYMPROF" ] || { echo "batch.sh: SYMPROF=$SYMPROF is not executable" >&2; exit 2; }
mkdir -p "$work/dumps"
"$here/../testdata/src/fixture/build.sh" "$work/fix" >/dev/null
i=1
while [ "$i" -le "$n" ]; do
	d=$work/dumps/dump$i.heap
	if [ ! -s "$d" ]; then
		(cd "$work/fix" && HEAPPROFILE="$work/dumps/run$i" ./fixture) >/dev/null 2>&1
		mv "$work/dumps/run$i.0001.heap" "$d"
		rm -f "$work/dumps/run$i".*.heap
	fi
	i=$((i + 1))
done
set -- "$work"/dumps/dump*.heap
[ "$mode" = jobs ] && exec sh "$here/batch-jobs.sh" "$work" "$runs" "$jobs_j" "$samples" "$@"

now() { date +%s.%N; }
each_run()
{
	rm -rf "$work/out-each" && mkdir "$work/out-each"
	"$SYMPROF" convert -q --each -j 1 -o "$work/out-each" "$@"
}
jobs=$(nproc)
each_jobs()
{
	rm -rf "$work/out-jobs" && mkdir "$work/out-jobs"
	"$SYMPROF" convert -q --each -j "$jobs" -o "$work/out-jobs" "$@"
}
separate_runs()
{
	rm -rf "$work/out-sep" && mkdir "$work/out-sep"
	for f in "$@"; do
		"$SYMPROF" convert -q "$f" -o "$work/out-sep/$(basename "$f").pb.gz"
	done
}
: >"$work/times"
r=1
while [ "$r" -le "$runs" ]; do
	t0=$(now); each_run "$@"; t1=$(now); separate_runs "$@"; t2=$(now); each_jobs "$@"; t3=$(now)
	echo "$t0 $t1 $t2 $t3" |
		awk '{ printf "%.6f %.6f %.6f\n", $2 - $1, $3 - $2, $4 - $3 }' >>"$work/times"
	r=$((r + 1))
done
# Same outputs both ways (the check that the batch does the same work).
for f in "$@"; do
	b=$(basename "$f").pb.gz
	cmp -s "$work/out-each/$b" "$work/out-sep/$b" ||
		{ echo "batch.sh: $b differs between --each and a separate run" >&2; exit 1; }
	cmp -s "$work/out-each/$b" "$work/out-jobs/$b" ||
		{ echo "batch.sh: $b differs between --each -j 1 and -j $jobs" >&2; exit 1; }
done
awk -v n="$#" -v jobs="$jobs" '
	function median(a, k,   i, j, t) {
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}
	{ e[NR] = $1; s[NR] = $2; j[NR] = $3 }
	END {
		me = median(e, NR); ms = median(s, NR); mj = median(j, NR)
		printf "| command | median wall s (of %d) |\n|---|---|\n", NR
		printf "| symprof convert --each -o DIR (%d dumps, one run) | %.3f |\n", n, me
		printf "| symprof convert DUMP -o OUT (%d separate runs) | %.3f |\n", n, ms
		printf "| symprof convert --each -j %d -o DIR (%d dumps) | %.3f |\n", jobs, n, mj
		printf "ratio --each / separate = %.3f (1/%.1f); target <= 0.100: %s\n", me / ms, ms / me, me / ms <= 0.1 ? "met" : "MISSED"
		printf "--each -j 1 / -j %d = %.2fx\n", jobs, me / mj
	}' "$work/times"
