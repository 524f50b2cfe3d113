#!/bin/sh
# batch-jobs.sh — `bench/batch.sh -J`: `symprof convert --each -j 1` against `-j JOBS`.
#
#   bench/batch-jobs.sh WORKDIR RUNS JOBS SAMPLES DUMP...
#
# Run by batch.sh once the dumps exist (see there).  For the dumps, and when SAMPLES is
# not empty for the same dumps grown by bench/heapgrow.py (WORKDIR/big), each run times,
# one after the other: --each -j 1, --each -j JOBS, --each without -j (the CPUs, workers
# only when worth it), --each of the first dump alone, and BEFORE's --each -j JOBS when
# BEFORE names another symprof.  The load average is
# printed before and after each set.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=$1 runs=$2 jobs=$3 samples=$4
shift 4
: "${SYMPROF:=./symprof}"

# timed FILE BIN ARGS...: one run of BIN convert -q --each ARGS; "wall cpu" appended to
# FILE (seconds; CPU: user + system of the run and of the workers it waited for)
timed()
{
	f=$1
	shift
	python3 -c '
import os, sys, time
t = time.monotonic()
pid = os.fork()
if pid == 0:
    os.dup2(os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
    os.execv(sys.argv[2], [sys.argv[2], "convert", "-q", "--each"] + sys.argv[3:])
_, st, ru = os.wait4(pid, 0)
wall = time.monotonic() - t
print("%.4f %.4f" % (wall, ru.ru_utime + ru.ru_stime))
sys.exit(0 if os.WIFEXITED(st) and os.WEXITSTATUS(st) == 0 else 1)' \
		"$work/stderr" "$@" >>"$f" 2>>"$work/stderr" ||
		{ echo "batch-jobs.sh: $* failed" >&2; cat "$work/stderr" >&2; exit 1; }
}

# one_set NAME DUMP...: the runs over DUMP..., then the table
one_set()
{
	name=$1
	shift
	echo "## $name: $# dumps ($(du -ch "$@" | tail -n 1 | cut -f 1)); $(uptime | sed 's/.*load/load/')"
	for w in j1 jn def first before; do : >"$work/$w.times"; done
	r=1
	while [ "$r" -le "$runs" ]; do
		rm -rf "$work/o1" "$work/on" "$work/od" "$work/of" "$work/ob"
		timed "$work/j1.times" "$SYMPROF" -j 1 -o "$work/o1" "$@"
		timed "$work/jn.times" "$SYMPROF" -j "$jobs" -o "$work/on" "$@"
		timed "$work/def.times" "$SYMPROF" -o "$work/od" "$@"
		timed "$work/first.times" "$SYMPROF" -j 1 -o "$work/of" "$1"
		[ -z "${BEFORE:-}" ] || timed "$work/before.times" "$BEFORE" -j "$jobs" -o "$work/ob" "$@"
		r=$((r + 1))
	done
	diff -r "$work/o1" "$work/on" >/dev/null && diff -r "$work/o1" "$work/od" >/dev/null ||
		{ echo "batch-jobs.sh: $name: the outputs of -j $jobs or without -j differ from -j 1's" >&2; exit 1; }
	[ -z "${BEFORE:-}" ] || diff -r "$work/o1" "$work/ob" >/dev/null ||
		{ echo "batch-jobs.sh: $name: BEFORE's outputs differ from -j 1's" >&2; exit 1; }
	for w in j1 jn def first before; do
		sort -n -k 1,1 "$work/$w.times" | awk '{ w[NR] = $1 } END { if (NR) print (NR % 2 ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2) }'
		sort -n -k 2,2 "$work/$w.times" | awk '{ c[NR] = $2 } END { if (NR) print (NR % 2 ? c[(NR + 1) / 2] : (c[NR / 2] + c[NR / 2 + 1]) / 2) }'
	done | tr '\n' ' ' | awk -v n="$#" -v j="$jobs" -v runs="$runs" -v before="${BEFORE:-}" '{
		printf "| command | median wall s | median CPU s (user+sys) |\n|---|---|---|\n"
		printf "| --each -j 1 (%d dumps) | %.3f | %.3f |\n", n, $1, $2
		printf "| --each -j %d (%d dumps) | %.3f | %.3f |\n", j, n, $3, $4
		printf "| --each without -j | %.3f | %.3f |\n", $5, $6
		printf "| --each, the first dump alone | %.3f | %.3f |\n", $7, $8
		if (before != "") printf "| before: --each -j %d | %.3f | %.3f |\n", j, $9, $10
		printf "medians of %d runs; -j 1 / -j %d = %.2fx wall (CPU %.2fx); ", runs, j, $1 / $3, $4 / $2
		printf "bound set by the first dump T1 / (F + (T1 - F) / %d) = %.2fx\n", j, $1 / ($7 + ($1 - $7) / j)
	}'
	echo "(after: $(uptime | sed 's/.*load/load/'))"
}

one_set "tcmalloc dumps of the fixture" "$@"
[ -n "$samples" ] || exit 0
mkdir -p "$work/big"
k=0
for d in "$@"; do
	k=$((k + 1))
	b=$work/big/$(basename "$d" .heap).s$samples.heap
	[ -s "$b" ] || python3 "$here/heapgrow.py" --samples "$samples" --seed "$k" "$d" "$b"
	set -- "$@" "$b"
done
shift "$k"
one_set "the same dumps grown to $samples more samples each (bench/heapgrow.py)" "$@"
