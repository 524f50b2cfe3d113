#!/bin/sh
# jit.sh — the JIT benchmark: one large ET_REL object placed the way a JIT
# places it, a heap dump whose frames are in it, and the time `symprof
# convert --jit-dir` takes end to end, next to llvm-symbolizer and addr2line
# resolving the same addresses in the object.
#
#   bench/jit.sh [-r RUNS] [-n FUNCS] [-f FRAMES] [-w WORKDIR] [-a SUBSET]
#
# bench/jitgen.py writes FUNCS functions (default 45 000) of C++; g++ -c -g
# -O2 -ffunction-sections makes the object (one code section per function;
# it takes minutes and is reused from WORKDIR once built).  tests/helpers/jitload
# (JITLOAD, default build/tests/helpers/jitload) gives every code section a run-time
# address, 0x100 apart, leaving gcc's empty .text/.data at 0, and writes the
# .elf + .meta pair.  The heap dump has FRAMES frames (default 2 000) at
# random places in random sections.  Each tool runs RUNS times (default 5):
# the table gives the median wall time.  addr2line needs minutes per
# address list on such an object: with -a SUBSET it runs once on one address
# and once on SUBSET addresses, and the time for all of them is extrapolated
# linearly (start-up plus per-address cost); without -a it is not run.
# Every symprof result is checked: the outermost frame of each address must
# be the function of the section holding it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
runs=5 funcs=45000 frames=2000 work=/tmp/symprof-jitbench subset=0
while getopts r:n:f:w:a: o; do
	case $o in
	r) runs=$OPTARG ;;
	n) funcs=$OPTARG ;;
	f) frames=$OPTARG ;;
	w) work=$OPTARG ;;
	a) subset=$OPTARG ;;
	*) sed -n '2,22p' "$0" >&2; exit 2 ;;
	esac
done
SYMPROF=${SYMPROF:-./symprof}
JITLOAD=${JITLOAD:-$(dirname "$SYMPROF")/tests/helpers/jitload}
[ -x "$JITLOAD" ] || { echo "jit.sh: $JITLOAD missing (make check builds it)" >&2; exit 1; }
mkdir -p "$work/jd"
cd "$work"

if [ ! -s big.o ] || [ "$(cat big.n 2>/dev/null)" != "$funcs" ]; then
	echo "generating and compiling $funcs functions (minutes)..." >&2
	python3 "$here/jitgen.py" source "$funcs" big.cpp
	g++ -c -g -O2 -ffunction-sections -o big.o big.cpp
	echo "$funcs" > big.n
fi
"$JITLOAD" big.o jd/big 7f3000000000 100 7f4000000000 > placed.txt
python3 "$here/jitgen.py" heap placed.txt "$frames" jit.heap

# e_shnum, or the real count in parentheses when it is 0 (extended numbering)
nsec=$(readelf -hW big.o | awk -F: '/Number of section headers/ { s = $2; if (s ~ /\(/) { sub(/.*\(/, "", s); sub(/\).*/, "", s); s = s " (extended numbering)" } gsub(/^ +/, "", s); print s }')
ncode=$(grep -c '^\.text\.' placed.txt)
naddr=$(wc -l < jit.heap.addrs)
ndist=$(sort -u jit.heap.addrs | wc -l)
printf 'object: %s MiB, sections %s, code sections placed %s; .meta %s MiB\n' \
	"$(($(stat -c %s jd/big.elf) / 1048576))" "$nsec" "$ncode" \
	"$(($(stat -c %s jd/big.meta) / 1048576))"
printf 'heap dump: %s frames (%s distinct addresses)\n' "$naddr" "$ndist"

# median of the wall times (seconds) of "$@", run $runs times
now() { date +%s.%N; }
median_of() {
	: > times
	i=0
	while [ "$i" -lt "$runs" ]; do
		t0=$(now)
		"$@" > /dev/null 2>&1 < "${stdin:-/dev/null}"
		t1=$(now)
		echo "$t1 - $t0" | bc -l >> times
		i=$((i + 1))
	done
	sort -n times | awk '{ t[NR] = $1 } END { printf "%.3f", (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }'
}

# correctness first
"$SYMPROF" convert -q --jit-dir jd jit.heap -o out.folded
unres=$(tr ';' '\n' < out.folded | grep -c '^0x' || true)
right=$("$SYMPROF" symbolize -a -f -i -e jd/big.elf < jit.heap.addrs | python3 "$here/jitgen.py" check placed.txt jit.heap.addrs)
llvm_lines=$(llvm-symbolizer --obj=jd/big.elf < jit.heap.addrs | awk 'NF && !/^\?\?/ && /:[0-9]+:[0-9]+$/ && !/:0:0$/ { n++ } END { print n + 0 }')

echo
echo "| tool | what | median s ($runs runs) | check |"
echo "|---|---|---|---|"
t=$(median_of "$SYMPROF" convert -q --jit-dir jd jit.heap -o out.folded)
echo "| symprof convert --jit-dir | heap dump -> folded, end to end | $t | $unres frames unresolved |"
t=$(median_of "$SYMPROF" convert -q --jit-dir jd jit.heap -o out.pb.gz)
echo "| symprof convert --jit-dir | heap dump -> pprof, end to end | $t | |"
t=$(stdin=jit.heap.addrs median_of "$SYMPROF" symbolize -f -i -e jd/big.elf)
echo "| symprof symbolize -e OBJ | $naddr addresses | $t | outermost function right: $right |"
t=$(stdin=jit.heap.addrs median_of llvm-symbolizer --obj=jd/big.elf)
echo "| llvm-symbolizer --obj=OBJ | $naddr addresses | $t | frames with a line: $llvm_lines |"
if [ "$subset" -gt 0 ]; then
	head -n 1 jit.heap.addrs > a1
	head -n "$subset" jit.heap.addrs > asub
	t0=$(now); addr2line -f -i -C -e jd/big.elf < a1 > /dev/null; t1=$(now)
	one=$(echo "$t1 - $t0" | bc -l)
	t0=$(now); addr2line -f -i -C -e jd/big.elf < asub > /dev/null; t1=$(now)
	sub=$(echo "$t1 - $t0" | bc -l)
	est=$(echo "$one + ($sub - $one) / ($subset - 1) * ($naddr - 1)" | bc -l)
	printf '| addr2line -e OBJ | 1 address (one run) | %.1f | |\n' "$one"
	printf '| addr2line -e OBJ | %s addresses (one run) | %.1f | |\n' "$subset" "$sub"
	printf '| addr2line -e OBJ | %s addresses, extrapolated | %.0f | |\n' "$naddr" "$est"
fi
