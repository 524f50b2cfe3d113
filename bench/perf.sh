#!/bin/sh
# perf.sh — perf.data conversion against `perf script`: the perf fixture
# (testdata/src/perf: a PIE, a linked and a dlopen()ed library, two threads) run
# in a loop for SECONDS under `perf record -e cpu-clock` three ways: frame
# pointers (-g), the same with zstd-compressed records (-g -z), and
# --call-graph dwarf; the unwind fixture (testdata/src/unwind: built without
# frame pointers, a PIE and a linked library) for ROUNDS rounds under
# --call-graph dwarf at 10 kHz ("unw", about 500 samples a round); and, with
# -m, frame-pointer recordings of the perf fixture grown to about each size
# given in MB ("fpMB").  Then each file converted by
#   symprof convert FILE -o x.folded      (and -o x.pb.gz)
#   perf script -i FILE > /dev/null       (the reference of issue 13)
# interleaved, RUNS times each, with the binaries in place and the kernel
# named from a copy of /proc/kallsyms on both sides.  Prints medians of wall
# and CPU time, peak RSS (/usr/bin/time -f %M) and perf script's wall time over
# symprof's.
#
#   SYMPROF=build/symprof sh bench/perf.sh [-r RUNS] [-s SECONDS] [-F FREQ] \
#       [-D DWARF_SECONDS] [-u ROUNDS] [-S STACK] [-m "MB..."] [-n "NAMES"] [-w WORKDIR]
#
# Defaults: 5 runs, 20 s of -g recording at 4000 Hz, 4 s of dwarf recording at
# 1000 Hz (8 KiB of stack a sample; -D 0 leaves it out), 300 rounds of the
# unwind fixture with STACK = 4096 bytes of stack a sample (-u 0 leaves it
# out), no -m recordings; -n times only the recordings named (fp fpz dwarf
# unw fpMB), work files in /tmp/symprof-perf (the recordings are reused when
# present; delete them to record again).  Needs perf (linux-perf) able to
# record, gcc, GNU time.
set -eu
runs=5 secs=20 freq=4000 dsecs=4 rounds=300 stack=4096 sizes='' only=''
work=${TMPDIR:-/tmp}/symprof-perf
while getopts r:s:F:D:u:S:m:n:w: o; do
	case $o in
	r) runs=$OPTARG ;;
	s) secs=$OPTARG ;;
	F) freq=$OPTARG ;;
	D) dsecs=$OPTARG ;;
	u) rounds=$OPTARG ;;
	S) stack=$OPTARG ;;
	m) sizes=$OPTARG ;;
	n) only=$OPTARG ;;
	w) work=$OPTARG ;;
	*) echo "usage: SYMPROF=... $0 [-r RUNS] [-s SECONDS] [-F FREQ] [-D DWARF_SECONDS]" \
		"[-u ROUNDS] [-S STACK] [-m \"MB...\"] [-n \"NAMES\"] [-w DIR]" >&2
	   exit 2 ;;
	esac
done
sp=${SYMPROF:?set SYMPROF to the symprof binary}
here=$(cd "$(dirname "$0")" && pwd)
unset DEBUGINFOD_URLS # offline on both sides
mkdir -p "$work"
fix=$work/fix
[ -x "$fix/perfbusy" ] || "$here/../testdata/src/perf/build.sh" "$fix" >/dev/null
cp /proc/kallsyms "$work/kallsyms"
loop='while :; do ./perfbusy; done'

# record NAME SECONDS PERF-RECORD-OPTIONS...: the fixture in a loop for SECONDS
record()
{
	name=$1 s=$2
	shift 2
	[ -s "$work/$name.data" ] && return 0
	(cd "$fix" && perf record -q -e cpu-clock "$@" -o "$work/$name.data" -- \
		sh -c "end=\$((\$(date +%s) + $s)); while [ \$(date +%s) -lt \$end ]; do ./perfbusy; done") \
		>"$work/$name.rec.log" 2>&1
}
# record_mb MB: the fixture in a loop under -g at 50 kHz until the file has
# about MB megabytes (perf stops on SIGINT and ends its workload)
record_mb()
{
	[ -s "$work/fp$1.data" ] && return 0
	(cd "$fix" && exec perf record -q -e cpu-clock -F 50000 -g -o "$work/fp$1.data" -- \
		sh -c "$loop") >"$work/fp$1.rec.log" 2>&1 &
	rec=$!
	while [ "$(stat -c %s "$work/fp$1.data" 2>/dev/null || echo 0)" -lt $(($1 * 1000000)) ]; do
		kill -0 $rec 2>/dev/null || break
		sleep 0.2
	done
	kill -INT $rec 2>/dev/null || :
	wait $rec || :
}
# record_unw: the unwind fixture for ROUNDS rounds under --call-graph dwarf
record_unw()
{
	ufix=$work/unwfix
	[ -x "$ufix/unwbusy" ] || "$here/../testdata/src/unwind/build.sh" "$ufix" >/dev/null
	[ -s "$work/unw.data" ] ||
		(cd "$ufix" && perf record -q -e cpu-clock -F 10000 --call-graph "dwarf,$stack" \
			-o "$work/unw.data" -- ./unwbusy "$rounds") >"$work/unw.rec.log" 2>&1
}
names="fp fpz"
[ "$dsecs" = 0 ] || names="$names dwarf"
[ "$rounds" = 0 ] || names="$names unw"
for mb in $sizes; do names="$names fp$mb"; done
[ -z "$only" ] || names=$only
for name in $names; do
	case $name in
	fp) record fp "$secs" -F "$freq" -g ;;
	fpz) record fpz "$secs" -F "$freq" -g -z ;;
	dwarf) record dwarf "$dsecs" -F 1000 --call-graph dwarf ;;
	unw) record_unw ;;
	fp*) record_mb "${name#fp}" ;;
	esac
done

ratio() { echo "$1 $2" | awk '{ printf "%.1fx", $1 / ($2 > 0 ? $2 : 0.005) }'; }
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
tm=$work/time.txt

# one timed run: TAG then the command; appends "wall cpu rss_kib" to $work/TAG.t
timed()
{
	tag=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$tm" "$@" >/dev/null 2>"$work/err.txt" ||
		{ cat "$work/err.txt" >&2; exit 1; }
	awk '{ printf "%s %.2f %d\n", $1, $2 + $3, $4 }' "$tm" >>"$work/$tag.t"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| recording | file MiB | samples | command | median wall s | median CPU s | peak RSS MiB | perf script / this (wall) | (CPU) |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for name in $names; do
	data=$work/$name.data
	mib=$(du -m "$data" | cut -f1)
	n=$(perf script -F period -i "$data" 2>/dev/null | grep -c '^ *[0-9][0-9]* *$')
	for t in folded pprof script; do : >"$work/$name.$t.t"; done
	r=0
	while [ $r -lt "$runs" ]; do
		timed "$name.folded" "$sp" convert --kallsyms "$work/kallsyms" "$data" -o "$work/x.folded"
		timed "$name.pprof" "$sp" convert --kallsyms "$work/kallsyms" "$data" -o "$work/x.pb.gz"
		timed "$name.script" perf script --kallsyms "$work/kallsyms" -i "$data"
		r=$((r + 1))
	done
	script_w=$(cut -d' ' -f1 "$work/$name.script.t" | median)
	script_c=$(cut -d' ' -f2 "$work/$name.script.t" | median)
	for t in folded pprof script; do
		w=$(cut -d' ' -f1 "$work/$name.$t.t" | median)
		c=$(cut -d' ' -f2 "$work/$name.$t.t" | median)
		m=$(cut -d' ' -f3 "$work/$name.$t.t" | median)
		case $t in
		folded) cmd='symprof convert -o x.folded' ;;
		pprof) cmd='symprof convert -o x.pb.gz' ;;
		script) cmd='perf script > /dev/null' ;;
		esac
		# shellcheck disable=SC2016 # the backquotes are markdown's
		printf '| %s | %s | %s | `%s` | %s | %s | %s | %s | %s |\n' "$name" "$mib" "$n" "$cmd" \
			"$w" "$c" $((m / 1024)) "$(ratio "$script_w" "$w")" "$(ratio "$script_c" "$c")"
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
