#!/bin/sh
# unwind_procs.sh — a --call-graph dwarf recording of several processes, unwound on -j
# threads: the fixture testdata/src/unwind/unwfork.c forks 4 children, child I spinning
# under main -> uwf_child -> uwf_cI -> uwf_deep (0 to 7 times) -> uwf_spinI, one unit in
# four in uw_lib_spin of libunwlib.so instead; uwf_cI and uwf_spinI are child I's alone.
# Recorded here with `perf record -e cpu-clock --call-graph dwarf` (large enough for the
# unwinder to use threads: 4 MiB and more).
#
# What must hold:
#   - convert -j 1, -j 2 and -j 4 write the same folded bytes, the same pprof bytes and
#     the same stderr; symprof info -j 1 and -j 4 the same text (the unwinding report:
#     counts, reused unwinds, and where unwinding stopped, process by process, in the
#     order of their first samples);
#   - each child's stacks are whole, as the fixture is written: every sample in one of
#     child I's functions has the stack main;uwf_child;uwf_cI;uwf_deep...;LEAF with LEAF
#     uwf_spinI or uw_lib_spin (98 % at least, and at least 50 samples per child), and
#     no stack mixes two children's functions;
#   - perf script unwinds the same file independently: its stacks of the fixture's
#     functions are symprof's, the counts within 2 % of the samples;
#   - with libunwlib.so moved away, every child's unwinds of uw_lib_spin stop there
#     ("binary not found", one line per child in info), the same text at -j 1 and -j 4;
#   - where strace works: at -j 4 threads other than the command's open the fixture's
#     files (the children are unwound on them); a one-process recording (unwbusy, as
#     large) stays on the command's thread at -j 4, and its bytes are -j 1's.
# Skips when perf cannot record --call-graph dwarf here.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

sp_need_perf_dwarf
fix=$tmp/fix
sp_unwind_fixture "$fix"
data=$tmp/procs.data
(cd "$fix" && perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$data" -- \
	./unwfork 4 1500 8) >"$tmp/rec.log" 2>&1 || { sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record failed"; }
size=$(wc -c <"$data")
[ "$size" -ge 4194304 ] || sp_bail "the recording has $size bytes, fewer than the 4 MiB threads need"

# -- the same bytes whatever -j ------------------------------------------------------------
for j in 1 2 4; do
	sp_run symprof convert -j "$j" --sample-index samples "$data" -o "$tmp/j$j.folded"
	sp_ok "$rc" "convert -j $j exits 0" || sp_show_err
	cp "$tmp/err" "$tmp/j$j.err"
	sp_run symprof convert -j "$j" "$data" -o "$tmp/j$j.pb.gz"
	sp_ok "$rc" "convert -j $j to pprof exits 0" || sp_show_err
done
for j in 2 4; do
	cmp -s "$tmp/j1.folded" "$tmp/j$j.folded"
	sp_ok $? "-j $j: the folded bytes of -j 1 ($(wc -l <"$tmp/j1.folded") stacks)" ||
		diff "$tmp/j1.folded" "$tmp/j$j.folded" | head -n 10 | sed 's/^/#   /'
	cmp -s "$tmp/j1.pb.gz" "$tmp/j$j.pb.gz"
	sp_ok $? "-j $j: the pprof bytes of -j 1"
	cmp -s "$tmp/j1.err" "$tmp/j$j.err"
	sp_ok $? "-j $j: the stderr of -j 1" || diff "$tmp/j1.err" "$tmp/j$j.err" | sed 's/^/#   /'
done
sp_run symprof info -j 1 "$data"
cp "$tmp/out" "$tmp/info1"
sp_run symprof info -j 4 "$data"
cmp -s "$tmp/info1" "$tmp/out" && grep -q '^  unwound: ' "$tmp/out"
sp_ok $? "info -j 4: the text of -j 1" || diff "$tmp/info1" "$tmp/out" | head -n 10 | sed 's/^/#   /'

# -- each child's stacks whole ---------------------------------------------------------------
# child FOLDED I: "WHOLE ALL MIXED": samples in child I's functions whose stack is the one
# the fixture writes (kernel frames may follow the leaf), all of them, and stacks holding
# another child's functions too
child()
{
	awk -v i="$2" '{ v = $NF; s = $0; sub(/ [0-9]+$/, "", s); s = ";" s ";"
		mine = index(s, ";uwf_c" i ";") || index(s, ";uwf_spin" i ";")
		if (!mine) next
		all += v
		t = s; gsub(/;uwf_(c|spin)[0-7];/, ";", t)
		other = s; gsub(";uwf_(c|spin)" i ";", ";", other)
		if (other ~ /;uwf_(c|spin)[0-7];/) mixed += v
		if (s ~ ("(^|;)main;uwf_child;uwf_c" i ";(uwf_deep;)*(uwf_spin" i "|uw_lib_spin);[^u]*$") ||
		    s ~ ("(^|;)main;uwf_child;uwf_c" i ";(uwf_deep;)*(uwf_spin" i "|uw_lib_spin);$"))
			whole += v }
		END { print whole + 0, all + 0, mixed + 0 }' "$1"
}
for i in 0 1 2 3; do
	set -- $(child "$tmp/j4.folded" "$i")
	[ "$2" -ge 50 ] && [ $(($1 * 100)) -ge $(($2 * 98)) ] && [ "$3" -eq 0 ]
	sp_ok $? "child $i: $1 of $2 samples main;uwf_child;uwf_c$i;uwf_deep...;leaf, $3 mixed" ||
		grep "uwf_c$i;\|uwf_spin$i" "$tmp/j4.folded" | sort -t' ' -k2 -nr | head -n 5 | sed 's/^/#   /'
done

vocab="main uwf_child uwf_c0 uwf_c1 uwf_c2 uwf_c3 uwf_deep uwf_spin0 uwf_spin1 uwf_spin2 uwf_spin3 uw_lib_spin"
sp_stacks_agree "$data" "$tmp/j4.folded"
sp_ok $? "perf script's stacks of the fixture's functions are symprof's -j 4, counts within 2 %" ||
	diff "$tmp/perf.stacks" "$tmp/sym.stacks" | head -n 20 | sed 's/^/#   /'

# -- stops, process by process ----------------------------------------------------------------
mv "$fix/libunwlib.so" "$tmp/libunwlib.so"
sp_run symprof info -j 1 "$data"
cp "$tmp/out" "$tmp/stop1"
sp_run symprof info -j 4 "$data"
n=$(grep -c "^    stopped: [0-9]* in pid [0-9]* at $fix/libunwlib.so: binary not found$" "$tmp/out")
cmp -s "$tmp/stop1" "$tmp/out" && [ "$n" -eq 4 ]
sp_ok $? "libunwlib.so moved away: info -j 4 says where each child stopped ($n lines), as -j 1" ||
	{ grep -A8 unwound "$tmp/out" | sed 's/^/#   /'; diff "$tmp/stop1" "$tmp/out" | sed 's/^/#   /'; }
sp_run symprof convert -j 1 --sample-index samples "$data" -o "$tmp/s1.folded"
cp "$tmp/err" "$tmp/s1.err"
sp_run symprof convert -j 4 --sample-index samples "$data" -o "$tmp/s4.folded"
cmp -s "$tmp/s1.folded" "$tmp/s4.folded" && cmp -s "$tmp/s1.err" "$tmp/err"
sp_ok $? "libunwlib.so moved away: convert -j 4 writes the bytes and stderr of -j 1"
mv "$tmp/libunwlib.so" "$fix/libunwlib.so"

# -- which threads unwind ------------------------------------------------------------------------
# opens FILE ARGS...: how many times threads other than the command's open FILE during
# symprof ARGS (strace)
opens()
{
	f=$1
	shift
	strace -f -qq -e trace=openat -o "$tmp/strace" "$self" "$@" >/dev/null 2>&1
	main=$(head -n 1 "$tmp/strace" | cut -d ' ' -f 1)
	awk -v m="$main" -v f="\"$f\"" '$1 != m && index($0, f)' "$tmp/strace" | wc -l
}
self=$SYMPROF
if [ "$(head -c 2 "$self")" = "#!" ]; then
	self=$(dirname "$SYMPROF")/.libs/$(basename "$SYMPROF")
fi
if strace -f -qq -o /dev/null true 2>/dev/null; then
	n=$(opens "$fix/unwfork" convert -j 4 "$data" -o "$tmp/t.folded")
	[ "$n" -gt 0 ]
	sp_ok $? "-j 4, 5 processes: other threads open unwfork to unwind ($n opens)"
	one=$tmp/one.data
	(cd "$fix" && perf record -q -e cpu-clock -F 2000 --call-graph dwarf -o "$one" -- \
		./unwbusy 40) >"$tmp/rec1.log" 2>&1 || { sed 's/^/# /' "$tmp/rec1.log"; sp_bail "perf record of unwbusy failed"; }
	n=$(opens "$fix/unwbusy" convert -j 4 "$one" -o "$tmp/t.folded")
	[ "$n" -eq 0 ] && [ "$(wc -c <"$one")" -ge 4194304 ]
	sp_ok $? "-j 4, one process of $(($(wc -c <"$one") >> 20)) MiB: no other thread opens unwbusy ($n opens)"
	sp_symprof convert -j 1 "$one" -o "$tmp/one1.folded" 2>/dev/null
	sp_symprof convert -j 4 "$one" -o "$tmp/one4.folded" 2>/dev/null
	cmp -s "$tmp/one1.folded" "$tmp/one4.folded"
	sp_ok $? "-j 4, one process: the folded bytes of -j 1"
else
	sp_skip "strace cannot trace here: threads not counted"
	sp_skip "strace cannot trace here"
	sp_skip "strace cannot trace here"
fi

sp_done
