#!/bin/sh
# cli_perf_jit.sh — end to end: JIT code in a perf.data of two processes, named per
# process, and the kallsyms check of the same recording.  testdata/src/perf/jitperf.c places its own functions ROLE_outer -> ROLE_inner at
# the same fixed address in every process; run once as "a" and once as "b" under one
# `perf record -k 1 -e cpu-clock -g`, each writes DIR/perf-PID.map (names map_ROLE_*)
# and DIR/jit-PID.dump.
#
# What must hold, from how the fixture was written:
#   - with both perf maps, each process's JIT frames carry its own names (a perf map
#     named perf-PID.map belongs to PID): main -> map_a_outer -> map_a_inner in a's
#     samples, map_b_* in b's, never mixed;
#   - with a's map only, b's JIT frames stay unnamed; a map whose file name has no pid
#     names both processes' code (every process's map, as before);
#   - with both jitdump files (--jitdump), each process's frames are a_outer -> a_inner
#     or b_*, never mixed, at the lines the debug info records give: ROLE.jit:11 for the
#     call in outer, ROLE.jit:21 for the loop in inner;
#   - perf inject --jit is an independent reader: restricted to the JIT functions and
#     main, the stacks perf script prints from the injected file, with their counts, are
#     exactly symprof's from the recording itself;
#   - JIT code freed and compiled again at the same addresses (jitperf DIR r s: r's
#     functions for 0.4 s, then s's at the same addresses for 0.4 s, the second
#     records timed after the first phase): recorded with -k 1 (CLOCK_MONOTONIC, as
#     perf inject --jit requires), each sample is named after the code of its time:
#     main;r_outer;r_inner and main;s_outer;s_inner, each about half of the JIT
#     samples, at r.jit and s.jit lines; perf inject --jit + perf script give the same
#     stacks with the same counts.  Recorded without -k 1 the times cannot be compared:
#     every JIT sample takes the last code (s_*), with a warning and a line in `info`
#     that say why (perf inject --jit refuses such a recording);
#   - --perf-map DIR and --jitdump DIR take the perf-PID.map and jit-PID.dump files of
#     DIR (only names with a pid: other files there would be refused) with the same
#     result as naming each file;
#   - `symbolize --jitdump` names single addresses, and a broken jitdump is an error
#     naming the file and the offset;
#   - a real producer: LLVM's PerfJITEventListener (tests/helpers/mcjit_host --perf-jit, where
#     LLVM and clang are installed) writes the jitdump of testdata/src/jit/mcjit_busy.c; the
#     JIT stacks main -> host_run -> mc_entry -> busy_outer -> busy_inner and their
#     counts are those of perf inject --jit + perf script.  (LLVM 14 writes the line
#     entries of each function 0x40 bytes past its code, so neither perf nor symprof
#     gives these frames a line: an entry outside a function is not used for it.)
#   - --kallsyms is checked against the recording's OSRELEASE (what perf report
#     --header-only calls "os release"): a copy whose FILE.osrelease names another
#     release draws a warning on stderr and a line in `info`; the right release, or
#     /proc/kallsyms of this machine (which recorded the file), draws none; a copy
#     without FILE.osrelease is reported as unchecked by `info` only.
# Skips when perf is missing or cannot record here, and off x86-64.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

if [ "$(uname -m)" != x86_64 ]; then
	echo "1..0 # SKIP the JIT fixture generates x86-64 code"
	exit 0
fi
sp_require_perf

${CC:-cc} -O2 -g -fno-omit-frame-pointer -o "$tmp/jitperf" "$SP_SRCDIR/testdata/src/perf/jitperf.c" \
	2>"$tmp/build.log" || { sed 's/^/# /' "$tmp/build.log"; sp_bail "jitperf does not build"; }
mkdir "$tmp/jit"
perf record -q -k 1 -e cpu-clock -g -o "$tmp/jit.data" -- \
	sh -c "'$tmp/jitperf' '$tmp/jit' a && '$tmp/jitperf' '$tmp/jit' b" >"$tmp/rec.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record of jitperf failed"; }
pid_a='' pid_b=''
for f in "$tmp"/jit/perf-*.map; do
	p=${f##*/perf-}
	p=${p%.map}
	if grep -q map_a_ "$f"; then pid_a=$p; else pid_b=$p; fi
done
if [ -z "$pid_a" ] || [ -z "$pid_b" ]; then sp_bail "jitperf did not write two perf maps"; fi
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
	other=a
	[ $r = b ] || other=b
	! grep -q "map_${other}_" "$tmp/$r.folded"
	sp_ok $? "two perf maps: no frame of process $r takes process $other's names"
done
n=$(awk '/map_a_/ && /map_b_/' "$tmp/both.folded" | wc -l)
sp_check "two perf maps: no stack mixes a's and b's names" [ "$n" -eq 0 ]

sp_run symprof convert -q --addresses --tagfocus "pid=$pid_b" --perf-map "$map_a" "$tmp/jit.data" \
	-o "$tmp/only_a.folded"
! grep -q 'map_[ab]_' "$tmp/only_a.folded" && grep -q 'anon+0x7e5a' "$tmp/only_a.folded"
sp_ok $? "a's perf map only: b's JIT frames stay addresses" || sed 's/^/#   /' "$tmp/only_a.folded"

cp "$map_a" "$tmp/names.map"
sp_run symprof convert -q --sample-index samples --tagfocus "pid=$pid_b" --perf-map "$tmp/names.map" "$tmp/jit.data" \
	-o "$tmp/global.folded"
n=$(count "$tmp/global.folded" "main;map_a_outer;map_a_inner")
sp_check "a map without a pid in its name names every process's code ($n of b's samples)" \
	[ "$n" -gt 100 ]

dump_a=$tmp/jit/jit-$pid_a.dump
dump_b=$tmp/jit/jit-$pid_b.dump
sp_run symprof convert -q --sample-index samples --jitdump "$dump_a" --jitdump "$dump_b" \
	"$tmp/jit.data" -o "$tmp/jd.folded"
sp_ok "$rc" "two jitdumps: convert exits 0" || sp_show_err
for r in a b; do
	eval "p=\$pid_$r"
	sp_run symprof convert -q --sample-index samples --jitdump "$dump_a" --jitdump "$dump_b" \
		--tagfocus "pid=$p" "$tmp/jit.data" -o "$tmp/jd_$r.folded"
	n=$(count "$tmp/jd_$r.folded" "main;${r}_outer;${r}_inner")
	other=a
	[ $r = b ] || other=b
	[ "$rc" -eq 0 ] && [ "$n" -gt 100 ] && ! grep -q "${other}_inner\|${other}_outer" "$tmp/jd_$r.folded"
	sp_ok $? "two jitdumps: process $r's samples are main;${r}_outer;${r}_inner ($n), none $other's" ||
		sed 's/^/#   /' "$tmp/jd_$r.folded"
done
sp_run symprof convert -q --format top --lines --jitdump "$dump_a" --jitdump "$dump_b" \
	"$tmp/jit.data" -o "$tmp/jd.top"
for f in "a_inner a.jit:21" "a_outer a.jit:11" "b_inner b.jit:21" "b_outer b.jit:11"; do
	grep -q " $f\$" "$tmp/jd.top"
	sp_ok $? "two jitdumps: top --lines has $f (from the debug info records)" ||
		sed 's/^/#   /' "$tmp/jd.top"
done

sp_run symprof convert -q --addresses --tagfocus "pid=$pid_b" --jitdump "$dump_a" "$tmp/jit.data" \
	-o "$tmp/jd_only_a.folded"
! grep -q '[ab]_inner' "$tmp/jd_only_a.folded" && grep -q 'anon+0x7e5a' "$tmp/jd_only_a.folded"
sp_ok $? "a's jitdump only: b's JIT frames stay addresses" || sed 's/^/#   /' "$tmp/jd_only_a.folded"

vocab="main a_outer a_inner b_outer b_inner"
if perf inject --jit -i "$tmp/jit.data" -o "$tmp/injected.data" >"$tmp/inject.log" 2>&1; then
	sp_perf_stacks "$tmp/injected.data" >"$tmp/perf.stacks"
	sp_folded_stacks "$tmp/jd.folded" >"$tmp/ours.stacks"
	grep -q 'a_outer;a_inner' "$tmp/perf.stacks" && cmp -s "$tmp/perf.stacks" "$tmp/ours.stacks"
	sp_ok $? "perf inject --jit + perf script: the same JIT stacks with the same counts" ||
		sp_diag "perf:" "$(cat "$tmp/perf.stacks")" "symprof:" "$(cat "$tmp/ours.stacks")"
else
	sp_skip "perf inject --jit failed: $(head -n 1 "$tmp/inject.log")"
fi

mkdir "$tmp/reuse" "$tmp/reuse_nok"
perf record -q -k 1 -e cpu-clock -g -o "$tmp/reuse.data" -- "$tmp/jitperf" "$tmp/reuse" r s \
	>"$tmp/rec.log" 2>&1 || { sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record of jitperf r s failed"; }
sp_run symprof convert -q --sample-index samples --jitdump "$tmp/reuse" "$tmp/reuse.data" \
	-o "$tmp/reuse.folded"
n_r=$(count "$tmp/reuse.folded" "main;r_outer;r_inner")
n_s=$(count "$tmp/reuse.folded" "main;s_outer;s_inner")
[ "$rc" -eq 0 ] && [ "$n_r" -gt 100 ] && [ "$n_s" -gt 100 ] &&
	[ $((n_r * 10)) -ge $((3 * (n_r + n_s))) ] && [ $((n_s * 10)) -ge $((3 * (n_r + n_s))) ]
sp_ok $? "reused JIT addresses: each sample names the code of its time ($n_r r_*, $n_s s_*, each 30-70%)" ||
	{ sp_show_err; sed 's/^/#   /' "$tmp/reuse.folded"; }
! grep -q warning "$tmp/err"
sp_ok $? "reused JIT addresses recorded with -k 1: no warning" || sp_show_err
sp_run symprof convert -q --format top --lines --jitdump "$tmp/reuse" "$tmp/reuse.data" \
	-o "$tmp/reuse.top"
for f in "r_inner r.jit:21" "s_inner s.jit:21" "r_outer r.jit:11" "s_outer s.jit:11"; do
	grep -q " $f\$" "$tmp/reuse.top"
	sp_ok $? "reused JIT addresses: top --lines has $f" || sed 's/^/#   /' "$tmp/reuse.top"
done
sp_run symprof info --jitdump "$tmp/reuse" "$tmp/reuse.data"
! grep -q 'jitdump:' "$tmp/out"
sp_ok $? "reused JIT addresses recorded with -k 1: info has no jitdump note"
vocab="main r_outer r_inner s_outer s_inner"
if perf inject --jit -i "$tmp/reuse.data" -o "$tmp/reuse_inj.data" >"$tmp/inject.log" 2>&1; then
	sp_perf_stacks "$tmp/reuse_inj.data" >"$tmp/perf.stacks"
	sp_folded_stacks "$tmp/reuse.folded" >"$tmp/ours.stacks"
	grep -q 'r_outer;r_inner' "$tmp/perf.stacks" && grep -q 's_outer;s_inner' "$tmp/perf.stacks" &&
		cmp -s "$tmp/perf.stacks" "$tmp/ours.stacks"
	sp_ok $? "reused JIT addresses: perf inject --jit + perf script give the same stacks and counts" ||
		sp_diag "perf:" "$(cat "$tmp/perf.stacks")" "symprof:" "$(cat "$tmp/ours.stacks")"
else
	sp_skip "perf inject --jit failed: $(head -n 1 "$tmp/inject.log")"
fi

perf record -q -e cpu-clock -g -o "$tmp/reuse_nok.data" -- "$tmp/jitperf" "$tmp/reuse_nok" r s \
	>"$tmp/rec.log" 2>&1 || { sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record of jitperf r s failed"; }
sp_run symprof convert -q --sample-index samples --jitdump "$tmp/reuse_nok" "$tmp/reuse_nok.data" \
	-o "$tmp/reuse_nok.folded"
n_s=$(count "$tmp/reuse_nok.folded" "main;s_outer;s_inner")
[ "$rc" -eq 0 ] && [ "$n_s" -gt 200 ] && ! grep -q 'r_inner\|r_outer' "$tmp/reuse_nok.folded"
sp_ok $? "reused JIT addresses without -k 1: every JIT sample takes the last code ($n_s s_*)" ||
	sed 's/^/#   /' "$tmp/reuse_nok.folded"
grep -q "warning: .*reuse_nok.data: sample times cannot be compared with the jitdump records': .*not CLOCK_MONOTONIC (record with perf record -k mono)" "$tmp/err"
sp_ok $? "reused JIT addresses without -k 1: a warning says the times cannot be compared" || sp_show_err
sp_run symprof info --jitdump "$tmp/reuse_nok" "$tmp/reuse_nok.data"
grep -q "^  jitdump: sample times cannot be compared.*named after the last code loaded there (2 of 4 code ranges reuse addresses)" "$tmp/out"
sp_ok $? "reused JIT addresses without -k 1: info says so" || sed 's/^/#   /' "$tmp/out"
perf inject --jit -i "$tmp/reuse_nok.data" -o "$tmp/reuse_nok_inj.data" >"$tmp/inject.log" 2>&1
sp_check "perf inject --jit refuses the recording without -k 1 too" [ $? -ne 0 ]

mkdir "$tmp/dir"
cp "$map_a" "$map_b" "$dump_a" "$dump_b" "$tmp/dir/"
echo 'not a perf map' >"$tmp/dir/perf-x.map"
echo 'not a jitdump' >"$tmp/dir/jit-12a.dump"
echo 'not a jitdump' >"$tmp/dir/perf-1.dump"
sp_run symprof convert -q --sample-index samples --perf-map "$tmp/dir" "$tmp/jit.data" \
	-o "$tmp/dir_map.folded"
[ "$rc" -eq 0 ] && cmp -s "$tmp/both.folded" "$tmp/dir_map.folded"
sp_ok $? "--perf-map DIR: the same stacks as both maps named" || sp_show_err
sp_run symprof convert -q --sample-index samples --jitdump "$tmp/dir" "$tmp/jit.data" \
	-o "$tmp/dir_jd.folded"
[ "$rc" -eq 0 ] && cmp -s "$tmp/jd.folded" "$tmp/dir_jd.folded"
sp_ok $? "--jitdump DIR: the same stacks as both dumps named" || sp_show_err

sp_run symprof symbolize -f -i --jitdump "$dump_a" 0x7e5a0000004b 0x7e5a00000008 0x7e5a00000040 \
	0x7e5a00000100
sp_ok "$rc" "symbolize --jitdump exits 0" || sp_show_err
printf 'a_inner\na.jit:21\na_outer\na.jit:11\na_inner\na.jit:20\n??\n??:0\n' >"$tmp/want"
sp_check "symbolize --jitdump: names and lines of the loop, the call, inner's entry; ?? past the code" \
	cmp -s "$tmp/want" "$tmp/out"

head -c 100 "$dump_a" >"$tmp/jit-1.dump"
sp_run symprof convert -q --jitdump "$tmp/jit-1.dump" "$tmp/jit.data" -o "$tmp/bad.folded"
[ "$rc" -eq 1 ] && grep -q "jit-1.dump: offset [0-9]*: expected" "$tmp/err"
sp_ok $? "a truncated jitdump: exit 1 naming the file and offset" || sp_show_err

host=$SP_BUILDDIR/tests/helpers/mcjit_host
if [ -x "$host" ] && command -v clang >/dev/null 2>&1 &&
	clang -g -O1 -fno-omit-frame-pointer -emit-llvm -c -o "$tmp/busy.bc" \
		"$SP_SRCDIR/testdata/src/jit/mcjit_busy.c" 2>"$tmp/clang.log"; then
	mkdir "$tmp/llvm"
	JITDUMPDIR=$tmp/llvm perf record -q -k 1 -e cpu-clock -g -o "$tmp/llvm.data" -- \
		"$host" --perf-jit "$tmp/busy.bc" "$tmp/busy.raw" >"$tmp/llvm.log" 2>&1
	st=$?
	llvm_dump=$(find "$tmp/llvm" -name 'jit-*.dump' | head -n 1)
	if [ "$st" -eq 0 ] && [ -n "$llvm_dump" ]; then
		sp_run symprof convert -q --sample-index samples --jitdump "$llvm_dump" "$tmp/llvm.data" \
			-o "$tmp/llvm.folded"
		n=$(count "$tmp/llvm.folded" "main;host_run;mc_entry;busy_outer;busy_inner")
		[ "$rc" -eq 0 ] && [ "$n" -gt 50 ]
		sp_ok $? "LLVM PerfJITEventListener: main;host_run;mc_entry;busy_outer;busy_inner ($n)" ||
			sed 's/^/#   /' "$tmp/llvm.folded"
		vocab="main host_run mc_entry busy_outer busy_inner"
		if perf inject --jit -i "$tmp/llvm.data" -o "$tmp/llvm_inj.data" >"$tmp/inject.log" 2>&1; then
			# (stacks with a JIT function only: in one run perf script of the
			# injected file printed one sample fewer than the recording holds,
			# outside the JIT code)
			sp_perf_stacks "$tmp/llvm_inj.data" | grep -v '^- ' >"$tmp/perf.stacks"
			sp_folded_stacks "$tmp/llvm.folded" | grep -v '^- ' >"$tmp/ours.stacks"
			grep -q 'busy_outer;busy_inner' "$tmp/perf.stacks" &&
				cmp -s "$tmp/perf.stacks" "$tmp/ours.stacks"
			sp_ok $? "LLVM PerfJITEventListener: perf inject --jit gives the same stacks and counts" ||
				sp_diag "perf:" "$(cat "$tmp/perf.stacks")" "symprof:" "$(cat "$tmp/ours.stacks")"
		else
			sp_skip "perf inject --jit failed: $(head -n 1 "$tmp/inject.log")"
		fi
	elif [ "$st" -eq 3 ]; then
		sp_skip "this libLLVM has no PerfJITEventListener"
	else
		sp_ok 1 "mcjit_host --perf-jit under perf record (status $st) wrote a jitdump" ||
			sed 's/^/#   /' "$tmp/llvm.log"
	fi
else
	sp_skip "no tests/helpers/mcjit_host (LLVM) or no clang"
fi

release=$(perf report -i "$tmp/jit.data" --header-only 2>/dev/null |
	awk -F' : ' '/^# os release/ { print $2; exit }')
printf 'ffffffff81000000 T _stext\nffffffff81000100 T other_fn\n' >"$tmp/ksyms"
printf '0.0.0-not-this-one\n' >"$tmp/ksyms.osrelease"
sp_run symprof convert -q --format folded --kallsyms "$tmp/ksyms" "$tmp/jit.data" -o "$tmp/k.folded"
[ "$rc" -eq 0 ] && [ -n "$release" ] &&
	grep -q "warning: .*ksyms is of kernel 0.0.0-not-this-one (its .osrelease), the recording's is $release" "$tmp/err"
sp_ok $? "kallsyms of another release ($release recorded): a warning naming both" || sp_show_err
sp_run symprof info --kallsyms "$tmp/ksyms" "$tmp/jit.data"
grep -q "^  kallsyms: .*0.0.0-not-this-one.*$release" "$tmp/out"
sp_ok $? "kallsyms of another release: info says so"
printf '%s\r\n' "$release" >"$tmp/ksyms.osrelease"
sp_run symprof info --kallsyms "$tmp/ksyms" "$tmp/jit.data"
! grep -q 'kallsyms:' "$tmp/out" && ! grep -q warning "$tmp/err"
sp_ok $? "kallsyms whose .osrelease is the recording's: no warning, nothing in info" || sp_show_err
rm "$tmp/ksyms.osrelease"
sp_run symprof info --kallsyms "$tmp/ksyms" "$tmp/jit.data"
grep -q "^  kallsyms: .*cannot tell which kernel.*ksyms.osrelease.*$release" "$tmp/out" &&
	! grep -q warning "$tmp/err"
sp_ok $? "kallsyms without .osrelease: info says it is not checked, no warning"
if [ -r /proc/kallsyms ] && [ "$(uname -r)" = "$release" ]; then
	sp_run symprof convert -q --format folded --kallsyms /proc/kallsyms "$tmp/jit.data" \
		-o "$tmp/kp.folded"
	[ "$rc" -eq 0 ] && ! grep -q warning "$tmp/err"
	sp_ok $? "/proc/kallsyms of the recording machine: no warning" || sp_show_err
else
	sp_skip "no /proc/kallsyms of the recording's kernel"
fi

sp_done
