#!/bin/sh
# cli_perf_jit.sh — end to end: JIT code in a perf.data of two processes, named per
# process.  testdata/perf/jitperf.c places its own functions ROLE_outer -> ROLE_inner at
# the same fixed address in every process; run once as "a" and once as "b" under one
# `perf record -k 1 -e cpu-clock -g`, each writes DIR/perf-PID.map (names map_ROLE_*)
# and DIR/jit-PID.dump.
#
# What must hold, from how the fixture was written:
#   - with both perf maps, each process's JIT frames carry its own names (a perf map
#     named perf-PID.map belongs to PID): main -> map_a_outer -> map_a_inner in a's
#     samples, map_b_* in b's, never mixed;
#   - with a's map only, b's JIT frames stay unnamed; a map whose file name has no pid
#     names both processes' code (every process's map, as before).
# Skips when perf is missing or cannot record here, and off x86-64.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}/tests/cli_lib.sh"

if [ "$(uname -m)" != x86_64 ]; then
	echo "1..0 # SKIP the JIT fixture generates x86-64 code"
	exit 0
fi
sp_require_perf

${CC:-cc} -O2 -g -fno-omit-frame-pointer -o "$tmp/jitperf" "$SP_SRCDIR/testdata/perf/jitperf.c" \
	2>"$tmp/build.log" || { sed 's/^/# /' "$tmp/build.log"; sp_bail "jitperf does not build"; }
mkdir "$tmp/jit"
perf record -q -k 1 -e cpu-clock -g -o "$tmp/jit.data" -- \
	sh -c "'$tmp/jitperf' '$tmp/jit' a && '$tmp/jitperf' '$tmp/jit' b" >"$tmp/rec.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record of jitperf failed"; }
pid_a= pid_b=
for f in "$tmp"/jit/perf-*.map; do
	p=${f##*/perf-}
	p=${p%.map}
	if grep -q map_a_ "$f"; then pid_a=$p; else pid_b=$p; fi
done
[ -n "$pid_a" ] && [ -n "$pid_b" ] || sp_bail "jitperf did not write two perf maps"
map_a=$tmp/jit/perf-$pid_a.map
map_b=$tmp/jit/perf-$pid_b.map

# count FOLDED STACK-SUFFIX: samples whose stack ends with STACK-SUFFIX.
count()
{
	awk -v want="$2" '{ v = $NF; s = $0; sub(/ [0-9]+$/, "", s); n = length(want)
		if (length(s) >= n && substr(s, length(s) - n + 1) == want) t += v }
		END { print t + 0 }' "$1"
}

sp_run symprof convert -q --sample-index samples --perf-map "$map_a" --perf-map "$map_b" \
	"$tmp/jit.data" -o "$tmp/both.folded"
sp_ok "$rc" "two perf maps: convert exits 0" || sp_show_err
for r in a b; do
	eval "p=\$pid_$r"
	sp_run symprof convert -q --sample-index samples --perf-map "$map_a" --perf-map "$map_b" \
		--tagfocus "pid=$p" "$tmp/jit.data" -o "$tmp/$r.folded"
	n=$(count "$tmp/$r.folded" "main;map_${r}_outer;map_${r}_inner")
	[ "$rc" -eq 0 ] && [ "$n" -gt 100 ]
	sp_ok $? "two perf maps: process $r's samples are main;map_${r}_outer;map_${r}_inner ($n)" ||
		sed 's/^/#   /' "$tmp/$r.folded"
	other=$( [ $r = a ] && echo b || echo a)
	! grep -q "map_${other}_" "$tmp/$r.folded"
	sp_ok $? "two perf maps: no frame of process $r takes process $other's names"
done
n=$(awk '/map_a_/ && /map_b_/' "$tmp/both.folded" | wc -l)
sp_check "two perf maps: no stack mixes a's and b's names" [ "$n" -eq 0 ]

sp_run symprof convert -q --tagfocus "pid=$pid_b" --perf-map "$map_a" "$tmp/jit.data" \
	-o "$tmp/only_a.folded"
! grep -q 'map_[ab]_' "$tmp/only_a.folded" && grep -q 'anon+0x7e5a' "$tmp/only_a.folded"
sp_ok $? "a's perf map only: b's JIT frames stay addresses" || sed 's/^/#   /' "$tmp/only_a.folded"

cp "$map_a" "$tmp/names.map"
sp_run symprof convert -q --sample-index samples --tagfocus "pid=$pid_b" --perf-map "$tmp/names.map" "$tmp/jit.data" \
	-o "$tmp/global.folded"
n=$(count "$tmp/global.folded" "main;map_a_outer;map_a_inner")
sp_check "a map without a pid in its name names every process's code ($n of b's samples)" \
	[ "$n" -gt 100 ]

sp_done
