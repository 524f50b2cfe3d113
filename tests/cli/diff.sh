#!/bin/sh
# cli_diff.sh — end to end: differences between profiles (--base, --diff-base) on two
# real tcmalloc heap dumps of one run of the fixture (testdata/src/fixture), CPU profiles and
# pprof inputs, and their outputs.
#
# The fixture is run with FIXTURE_HEAP_DIFF=1 (fixture.h, "Second phase"): dump 1 holds
# every allocation site; between dump 1 and dump 2 the program frees 4 of alloc_in_main's
# 10 blocks of 4096 bytes and all 16 of big_alloc's 65536-byte blocks, and allocates 5 more
# fill<int> arrays of 4000 bytes from second_phase.  So dump 2 − dump 1 in inuse_space is
# exactly: alloc_in_main −16384, big_alloc −1048576, second_phase;fill<int> +20000, and
# every other stack cancels.  `go tool pprof` (-top, -raw, -diff_base) reads the results.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

fix=$tmp/fix
"$SP_SRCDIR/testdata/src/fixture/build.sh" "$fix" >"$tmp/build.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/build.log"; sp_bail "fixture does not build"; }
if ! (cd "$fix" && env HEAPPROFILE="$tmp/d" FIXTURE_HEAP_DIFF=1 ./fixture) >/dev/null 2>&1 ||
	[ ! -s "$tmp/d.0001.heap" ] || [ ! -s "$tmp/d.0002.heap" ]; then
	sp_bail "fixture did not write two heap dumps"
fi
d1=$tmp/d.0001.heap
d2=$tmp/d.0002.heap
main="_start;__libc_start_main;__libc_start_call_main;main"

# (a) --base: the signed difference, exactly, and nothing else.
sp_run symprof convert --demangle templates -q "$d2" --base "$d1"
sp_ok "$rc" "convert dump2 --base dump1 exits 0" || sp_show_err
cat >"$tmp/want" <<EOF2
$main;fixture::alloc_in_main -16384
$main;fixture::big_alloc -1048576
$main;second_phase;fixture::fill<int> 20000
EOF2
sp_check "--base: frees negative, new allocations positive, the rest cancels" \
	cmp -s "$tmp/out" "$tmp/want" || { sp_diag "got:"; sed 's/^/#   /' "$tmp/out"; }

# alloc_space counts allocations, not frees: only the second phase's arrays changed.
sp_run symprof convert --demangle templates -q "$d2" --base "$d1" --sample-index alloc_space
printf '%s\n' "$main;second_phase;fixture::fill<int> 20000" >"$tmp/want"
sp_check "--base --sample-index alloc_space: only the new allocations" \
	cmp -s "$tmp/out" "$tmp/want"

# The top report is signed too.
sp_run symprof convert --demangle templates -q "$d2" --base "$d1" --format top
sp_check "--base top: big_alloc flat -1024kB" \
	grep -Eq '^ *-1024kB .* fixture::big_alloc$' "$tmp/out"
grep -Eq '^ *19\.53kB .* fixture::fill<int>$' "$tmp/out" &&
	grep -Eq '^ *-16kB .* fixture::alloc_in_main$' "$tmp/out"
sp_ok $? "--base top: fill<int> 19.53kB, alloc_in_main -16kB" || sed 's/^/#   /' "$tmp/out"

# (b) pprof inputs: the same difference from the dumps converted to pprof first.
symprof_q() { sp_symprof convert --demangle templates -q "$@" >/dev/null 2>&1; }
symprof_q "$d1" -o "$tmp/old.pb.gz" && symprof_q "$d2" -o "$tmp/new.pb.gz"
sp_ok $? "both dumps convert to pprof"
sp_run symprof convert --demangle templates -q "$tmp/new.pb.gz" --base "$tmp/old.pb.gz"
sp_symprof convert --demangle templates -q "$d2" --base "$d1" >"$tmp/want" 2>/dev/null
sp_check "--base on pprof inputs gives the dumps' difference" cmp -s "$tmp/out" "$tmp/want"

# (c) --diff-base: base samples negative with pprof::base=true; two-sided folded.
sp_run symprof convert --demangle templates -q "$d2" --diff-base "$d1"
sp_symprof convert --demangle templates -q "$d2" --base "$d1" >"$tmp/want" 2>/dev/null
sp_check "--diff-base folded sums to the --base difference" cmp -s "$tmp/out" "$tmp/want"
sp_run symprof convert --demangle templates -q "$d2" --diff-base "$d1" --format folded-diff
sp_ok "$rc" "--format folded-diff exits 0" || sp_show_err
cp "$tmp/out" "$tmp/diff.folded"
sp_expect_suffix "$tmp/diff.folded" "$main;fixture::alloc_in_main 40960 24576" \
	"folded-diff: alloc_in_main 40960 before, 24576 after"
sp_expect_suffix "$tmp/diff.folded" "$main;fixture::big_alloc 1048576 0" \
	"folded-diff: big_alloc 1048576 before, 0 after"
sp_expect_suffix "$tmp/diff.folded" "$main;second_phase;fixture::fill<int> 0 20000" \
	"folded-diff: second_phase's fill<int> 0 before, 20000 after"
sp_expect_suffix "$tmp/diff.folded" "$main;fixture::fill<double> 48000 48000" \
	"folded-diff: an unchanged stack keeps both columns"
sp_check "folded-diff: every line is 'stack before after'" \
	awk 'NF < 3 || $(NF-1) !~ /^[0-9]+$/ || $NF !~ /^[0-9]+$/ { exit 1 }' "$tmp/diff.folded"
# Both columns, each summed, are the two dumps' folded totals.
sp_symprof convert --demangle templates -q "$d1" >"$tmp/d1.folded" 2>/dev/null
sp_symprof convert --demangle templates -q "$d2" >"$tmp/d2.folded" 2>/dev/null
sums=$(awk '{ b += $(NF-1); a += $NF } END { print b, a }' "$tmp/diff.folded")
want=$(awk '{ s += $NF } END { printf "%d ", s }' "$tmp/d1.folded"; awk '{ s += $NF } END { print s }' "$tmp/d2.folded")
[ "$sums" = "$want" ]
sp_ok $? "folded-diff columns sum to the two dumps' totals ($sums vs $want)"
sp_run symprof convert --demangle templates -q "$d2" --format folded-diff
[ "$rc" -eq 2 ] && grep -q 'needs --base or --diff-base' "$tmp/err"
sp_ok $? "folded-diff without a base is a usage error"

if sp_have_go; then
	sp_run symprof convert --demangle templates -q "$d2" --diff-base "$d1" -o "$tmp/diff.pb.gz"
	sp_ok "$rc" "--diff-base -o diff.pb.gz exits 0" || sp_show_err
	sp_run sp_gopprof -raw "$tmp/diff.pb.gz"
	sp_ok "$rc" "go tool pprof -raw reads the --diff-base output" || sp_show_err
	grep -Eq '^ +-16 +-1048576 +-16 +-1048576: ' "$tmp/out" &&
		grep -q 'pprof::base:\[true\]' "$tmp/out"
	sp_ok $? "-raw: big_alloc's base sample is -16 -1048576 with pprof::base:[true]"
	sp_run sp_gopprof -top -sample_index=inuse_space "$tmp/diff.pb.gz"
	sed -n '/flat%/,$p' "$tmp/out" >"$tmp/top.diff"
	sp_run sp_gopprof -top -sample_index=inuse_space -diff_base="$tmp/old.pb.gz" \
		"$tmp/new.pb.gz"
	sed -n '/flat%/,$p' "$tmp/out" >"$tmp/top.gobase"
	sp_check "go tool pprof -top of --diff-base output equals its own -diff_base view" \
		cmp -s "$tmp/top.diff" "$tmp/top.gobase"
	grep -Eq '^ +-1024kB .* fixture::big_alloc$' "$tmp/top.diff"
	sp_ok $? "go tool pprof -top: big_alloc -1024kB" || sed 's/^/#   /' "$tmp/top.diff"
	sp_run symprof convert --demangle templates -q "$d2" --base "$d1" -o "$tmp/base.pb.gz"
	sp_run sp_gopprof -raw "$tmp/base.pb.gz"
	! grep -q 'pprof::base' "$tmp/out" && grep -Eq '^ +0 +0 +-4 +-16384: ' "$tmp/out"
	sp_ok $? "--base pprof: no pprof::base label; alloc_in_main 0 0 -4 -16384"
else
	sp_skip "go not installed"
fi

# (d) the differential flame graph: widths from dump 2, colours by change.
sp_run symprof convert --demangle templates -q "$d2" --base "$d1" -o "$tmp/diff.flame.svg"
sp_ok "$rc" "--base -o diff.flame.svg exits 0" || sp_show_err
sp_check "the differential flame graph is well-formed XML" xmllint --noout "$tmp/diff.flame.svg"
fg_attr()
{
	xmllint --xpath "string($1)" "$tmp/diff.flame.svg" 2>/dev/null
}
frame()
{
	echo "//*[local-name()='g'][@class='f'][@data-n='$1']"
}
# fill rgb(R,G,B) -> "R G B"
fg_rgb()
{
	fg_attr "$(frame "$1")/*[local-name()='rect']/@fill" | sed 's/rgb(\(.*\))/\1/; s/,/ /g'
}
# shellcheck disable=SC2046 # three words
set -- $(fg_rgb fixture::alloc_in_main)
[ "$#" -eq 3 ] && [ "$3" -eq 255 ] && [ "$1" -lt 255 ] && [ "$1" -eq "$2" ]
sp_ok $? "alloc_in_main (shrank) is blue: rgb($*)"
shrank_r=$1
# shellcheck disable=SC2046 # three words
set -- $(fg_rgb second_phase)
[ "$#" -eq 3 ] && [ "$1" -eq 255 ] && [ "$2" -lt 255 ] && [ "$2" -eq "$3" ]
sp_ok $? "second_phase (grew) is red: rgb($*)"
# shellcheck disable=SC2046 # three words
set -- $(fg_rgb "fixture::fill<double>")
[ "$#" -eq 3 ] && [ "$1" -eq "$2" ] && [ "$2" -eq "$3" ]
sp_ok $? "fill<double> (unchanged) is grey: rgb($*)"
# shellcheck disable=SC2046 # three words
set -- $(fg_rgb main)
[ "$#" -eq 3 ] && [ "$3" -eq 255 ] && [ "$1" -lt "$shrank_r" ]
sp_ok $? "main (shrank by 1020 KiB) is a deeper blue than alloc_in_main (16 KiB): rgb($*)"
[ "$(fg_attr "$(frame all)/@data-v")" = "$(awk '{ s += $NF } END { print s }' "$tmp/d2.folded")" ]
sp_ok $? "widths are dump 2's: the root is dump 2's total"
[ -z "$(fg_attr "$(frame fixture::big_alloc)/@data-v")" ]
sp_ok $? "big_alloc, all freed, has no width in the newer profile"
fg_attr "$(frame fixture::alloc_in_main)/*[local-name()='title']" |
	grep -q '^fixture::alloc_in_main (before 40960, after 24576 bytes, change -16384)$'
sp_ok $? "the tooltip gives before, after and the change"
fg_attr "//*[local-name()='g'][@id='legend']" | grep -q 'grew.*shrank'
sp_ok $? "the graph has a legend"
sp_run symprof convert --demangle templates -q "$d2" -o "$tmp/plain.flame.svg"
! grep -q 'id="legend"' "$tmp/plain.flame.svg" && ! grep -q 'before' "$tmp/plain.flame.svg"
sp_ok $? "a flame graph without a base is not differential"

# DOT colours growth and shrinkage as pprof does: red, green.
sp_run symprof convert --demangle templates -q "$d2" --base "$d1" --format dot
dot_color()
{
	# (the wanted label through the environment: awk -v would turn \n into a newline)
	want=$1 awk '/^\tN[0-9]+\t\[color="#/ { c = substr($0, index($0, "#") + 1, 6) }
		index($0, ENVIRON["want"]) { print c; exit }' "$tmp/out"
}
big=$(dot_color 'label="fixture\nbig_alloc')
grew=$(dot_color 'label="fixture\nfill<int>')
[ -n "$big" ] && [ $((0x${big%????})) -lt $((0x$(echo "$big" | cut -c3-4))) ]
sp_ok $? "DOT: big_alloc (shrank) is green (#$big)"
[ -n "$grew" ] && [ $((0x${grew%????})) -gt $((0x$(echo "$grew" | cut -c3-4))) ]
sp_ok $? "DOT: fill<int> (grew) is red-tinted (#$grew)"

# (e) CPU profiles: two copies minus one is one; kinds that differ are refused.
cpu=$SP_SRCDIR/testdata/profiles/cpu-example.prof
heap=$SP_SRCDIR/testdata/profiles/heapprofile-small.heap
sp_run symprof convert --demangle templates --no-symbolize "$cpu" "$cpu" --base "$cpu"
sp_symprof convert --demangle templates --no-symbolize "$cpu" >"$tmp/want" 2>/dev/null
sp_check "CPU: (p + p) --base p is p" cmp -s "$tmp/out" "$tmp/want"
sp_run symprof convert --demangle templates --no-symbolize "$cpu" --base "$cpu"
[ "$rc" -eq 0 ] && [ ! -s "$tmp/out" ]
sp_ok $? "CPU: p --base p is empty"
sp_run symprof convert --demangle templates --no-symbolize "$cpu" --base "$heap"
[ "$rc" -eq 1 ] && grep -q "base .*heapprofile-small.heap: cannot subtract the base: no sample type in common" \
	"$tmp/err" && grep -q 'cpu/nanoseconds' "$tmp/err"
sp_ok $? "a CPU profile minus a heap profile is refused, naming both kinds" || sp_show_err
sp_run symprof convert --demangle templates --no-symbolize "$cpu" --base "$tmp/missing.heap"
[ "$rc" -eq 1 ] && grep -q 'missing.heap' "$tmp/err"
sp_ok $? "a missing base names the file" || sp_show_err

sp_done
