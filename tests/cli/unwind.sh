#!/bin/sh
# cli_unwind.sh — end to end: a program built WITHOUT frame pointers (testdata/src/unwind,
# plan in unwbusy.c: main -> uw_a -> uw_b, then 75 % in uw_c -> uw_lib_spin of a linked
# .so and 25 % in uw_local_spin) recorded here with
# `perf record -e cpu-clock --call-graph dwarf`, unwound and converted by symprof.
#
# What must hold, from how the fixture was written and from perf itself:
#   - every sample is kept (total = perf report --stats' SAMPLE events);
#   - at least 95 % of the samples have main;uw_a;uw_b in their stack: the program
#     spends nearly all its time under uw_b; the few others are taken in ld.so and libc
#     before main and after it returns (a few ms of about a second);
#   - shares of the two leaves are 75 and 25 % +- 5 points;
#   - info says nearly every sample unwound to the end of the stack, most of them by
#     reusing the unwind of an earlier sample with the same registers and stack words;
#   - perf script unwinds the same file independently: every stack of the fixture's
#     functions it prints is one of symprof's, and the counts agree to within 2 % of
#     the samples (the two unwinders may give up on different samples);
#   - after the binaries are moved away, info says unwinding stopped in them because
#     they cannot be found; given through --binary-path, the stacks are the same.
# Skips when perf is missing or cannot record here.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

sp_need_perf_dwarf
fix=$tmp/fix
sp_unwind_fixture "$fix"
data=$tmp/dwarf.data
(cd "$fix" && perf record -q -e cpu-clock -F 1000 --call-graph dwarf -o "$data" -- ./unwbusy 20) \
	>"$tmp/rec.log" 2>&1 || { sed 's/^/# /' "$tmp/rec.log"; sp_bail "perf record failed"; }

# The fixture's own functions (sp_perf_stacks, sp_folded_stacks keep these).
vocab="main uw_a uw_b uw_c uw_lib_spin uw_local_spin"

# count FILE SUFFIX: samples whose folded stack contains SUFFIX (";"-bounded).
count()
{
	awk -v want=";$2" '{ v = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		if (index(";" s ";", want ";")) sum += v } END { print sum + 0 }' "$1"
}

sp_run symprof convert --sample-index samples "$data" -o "$tmp/dwarf.folded"
sp_ok "$rc" "convert exits 0" || sp_show_err
tot=$(awk '{ t += $NF } END { print t + 0 }' "$tmp/dwarf.folded")
want=$(perf report -i "$data" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
[ -n "$want" ] && [ "$tot" -eq "$want" ] && [ "$tot" -gt 100 ]
sp_ok $? "$tot samples, as perf report --stats counts ($want)"

n=$(count "$tmp/dwarf.folded" "main;uw_a;uw_b")
[ $((n * 100)) -ge $((tot * 95)) ]
sp_ok $? "$n of $tot samples unwound through main;uw_a;uw_b (95 % required)" ||
	sort -t' ' -k2 -nr "$tmp/dwarf.folded" | head -n 5 | sed 's/^/#   /'
while read -r stack pct; do
	n=$(count "$tmp/dwarf.folded" "$stack")
	got=$((n * 100 / tot))
	[ "$got" -ge $((pct - 5)) ] && [ "$got" -le $((pct + 5)) ]
	sp_ok $? "$stack has ${got}% of the samples, ${pct}% +- 5"
done <<EOF
main;uw_a;uw_b;uw_c;uw_lib_spin 75
main;uw_a;uw_b;uw_local_spin 25
EOF

sp_run symprof info "$data"
set -- $(awk '/^  unwound: / { print $2, $4; exit }' "$tmp/out")
[ "$#" -eq 2 ] && [ "$2" -eq "$tot" ] && [ $(($1 * 100)) -ge $(($2 * 95)) ]
sp_ok $? "info: ${1:-?} of ${2:-?} samples unwound to the end of the stack" ||
	grep -A3 unwound "$tmp/out" | sed 's/^/#   /'
# The samples fall in two loops of a few instructions each under the same
# callers, so most have the registers and stack words of an earlier sample
# and reuse its unwind (the stacks above are what that gives).
reused=$(awk '/^    reused: / { print $2; exit }' "$tmp/out")
[ "${reused:-0}" -ge $((tot / 2)) ] && [ "$reused" -lt "$tot" ]
sp_ok $? "info: ${reused:-no} of $tot unwinds reused from earlier samples (half at least)" ||
	grep -A3 unwound "$tmp/out" | sed 's/^/#   /'

sp_stacks_agree "$data" "$tmp/dwarf.folded"
sp_ok $? "perf script's stacks of the fixture's functions are symprof's, counts within 2 %" ||
	diff "$tmp/perf.stacks" "$tmp/sym.stacks" | head -n 20 | sed 's/^/#   /'

# moved away: the recorded paths no longer exist, --binary-path finds them by build id
mv "$fix" "$tmp/moved"
sp_run symprof info "$data"
grep -q "^  unwound: 0 of $tot samples" "$tmp/out" &&
	grep -q "^    stopped: [0-9]* in pid [0-9]* at $fix/libunwlib.so: binary not found$" "$tmp/out"
sp_ok $? "moved binaries, no --binary-path: info says unwinding stopped, where and why" ||
	grep -A3 unwound "$tmp/out" | sed 's/^/#   /'
sp_run symprof convert --sample-index samples --binary-path "$tmp/moved" "$data" \
	-o "$tmp/moved.folded"
sp_ok "$rc" "moved binaries: convert --binary-path exits 0" || sp_show_err
cmp -s "$tmp/dwarf.folded" "$tmp/moved.folded"
sp_ok $? "moved binaries: the same stacks through --binary-path" ||
	diff "$tmp/dwarf.folded" "$tmp/moved.folded" | head -n 10 | sed 's/^/#   /'

sp_done
