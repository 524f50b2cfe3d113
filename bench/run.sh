#!/bin/sh
# run.sh — the symbolization benchmark: symprof symbolize against
# llvm-symbolizer and addr2line on the same address lists.
#
#   bench/run.sh [-r RUNS] [-s "1000 100000 1000000"] [-w WORKDIR]
#                [-t TUS] [-f FUNCS] [ELF...]
#
# Without ELF arguments a C++ program is generated with bench/gen.py (TUS
# translation units of FUNCS functions, default 16 x 1000) and built -O2 -g
# into WORKDIR/src/bench-exe and WORKDIR/src/libbench.so (reused when they
# exist).  For every ELF and size a profile-like address list is written by
# bench/addrs.py, then the three tools run RUNS times each, interleaved
# (symprof, llvm-symbolizer, addr2line, symprof, ...), under /usr/bin/time,
# with output to /dev/null.  The table gives median wall time, addresses per
# second, median peak RSS and symprof's speed-up over each tool; "start-up"
# is one address.  SYMPROF names the symprof binary (default: ./symprof);
# ADDR2LINE_MAX (default 1000000) skips addr2line above that many addresses.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
runs=3 sizes="1000 100000 1000000" work=/tmp/symprof-bench tus=16 funcs=1000
while getopts r:s:w:t:f: o; do
	case $o in
	r) runs=$OPTARG ;;
	s) sizes=$OPTARG ;;
	w) work=$OPTARG ;;
	t) tus=$OPTARG ;;
	f) funcs=$OPTARG ;;
	*) sed -n '2,20p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
: "${SYMPROF:=./symprof}" "${ADDR2LINE_MAX:=1000000}"
[ -x "$SYMPROF" ] || { echo "run.sh: SYMPROF=$SYMPROF is not executable" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
llvm=$(command -v llvm-symbolizer || command -v llvm-symbolizer-14 || true)
mkdir -p "$work"

if [ $# -eq 0 ]; then
	if [ ! -f "$work/src/bench-exe" ] || [ ! -f "$work/src/libbench.so" ]; then
		echo "# generating $tus x $funcs functions in $work/src" >&2
		python3 "$here/gen.py" "$work/src" --tus "$tus" --funcs "$funcs"
		start=$(date +%s)
		make -s -C "$work/src" -j2 >&2
		echo "# built in $(( $(date +%s) - start )) s" >&2
	fi
	set -- "$work/src/bench-exe" "$work/src/libbench.so"
fi

# one measurement of "$@" reading LIST: prints "seconds maxrss_kib" (wall
# time from date +%N around /usr/bin/time, which gives the peak RSS)
measure() {
	list=$1
	shift
	t0=$(date +%s%N)
	if ! /usr/bin/time -f "%M" -o "$work/time" "$@" <"$list" >/dev/null 2>"$work/stderr"; then
		echo "run.sh: failed: $*" >&2
		cat "$work/stderr" >&2
		echo "nan 0"
		return
	fi
	t1=$(date +%s%N)
	echo "$(( (t1 - t0) / 1000 ))e-6 $(tail -1 "$work/time")"
}

results="$work/results"
: >"$results"
for elf in "$@"; do
	dbg=$(readelf -S -W "$elf" | python3 -c 'import sys; print("%.1f" % (sum(int(l.split("]", 1)[1].split()[4], 16) for l in sys.stdin if ".debug_" in l and "]" in l) / 1048576))')
	echo "# $elf: $(nm -S --defined-only "$elf" | awk 'NF == 4 && $3 ~ /[tT]/' | wc -l) sized functions, ${dbg} MiB of .debug_* sections" >&2
	for n in 1 $sizes; do
		case $n in
		1) pool=1 ;;
		1000) pool=500 ;;
		*) pool=$((n / 10 < 50000 ? n / 10 : 50000)) ;;
		esac
		list="$work/addrs.$(basename "$elf").$n"
		uniq=$(python3 "$here/addrs.py" "$elf" "$n" "$pool" 2>&1 >"$list")
		r=1
		while [ $r -le "$runs" ]; do
			echo "$(basename "$elf") $n $uniq symprof $(measure "$list" "$SYMPROF" symbolize --functions --inlines --demangle -e "$elf")" >>"$results"
			[ -n "$llvm" ] && echo "$(basename "$elf") $n $uniq llvm-symbolizer $(measure "$list" "$llvm" --inlines --demangle --obj="$elf")" >>"$results"
			[ "$n" -le "$ADDR2LINE_MAX" ] && echo "$(basename "$elf") $n $uniq addr2line $(measure "$list" addr2line -f -i -C -e "$elf")" >>"$results"
			r=$((r + 1))
		done
	done
done

python3 - "$results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    elf, n, uniq, tool, secs, rss = line.split()
    rows.setdefault((elf, int(n), int(uniq)), {}).setdefault(tool, []).append((float(secs), int(rss)))
print("| ELF | addresses (distinct) | tool | median s | addresses/s | peak RSS MiB | symprof speed-up |")
print("|---|---|---|---|---|---|---|")
for (elf, n, uniq), tools in rows.items():
    med = {t: (statistics.median(s for s, _ in v), statistics.median(r for _, r in v)) for t, v in tools.items()}
    base = med.get("symprof", (float("nan"), 0))[0]
    for t in ("symprof", "llvm-symbolizer", "addr2line"):
        if t not in med:
            continue
        s, r = med[t]
        label = "start-up (1)" if n == 1 else "%d (%d)" % (n, uniq)
        rate = "%.0f" % (n / s) if s > 0 else "-"
        ratio = "-" if t == "symprof" else ("%.1fx" % (s / base) if base > 0 else "-")
        print("| %s | %s | %s | %.3f | %s | %.1f | %s |" % (elf, label, t, s, rate, r / 1024, ratio))
PY
