#!/bin/sh
# cli_heap.sh — end to end: real tcmalloc heap dumps of the fixture program
# (testdata/src/fixture) converted by symprof to folded stacks and pprof.
#
# The fixture is built here (-O2 -g; PIE and -no-pie; a linked and a dlopen()ed library;
# a thread), run under Debian's libtcmalloc to record an "@ heapprofile" dump (every
# allocation, exact bytes) and an "@ heap_v2/4096" sample.  Every expected stack and
# value below is restated from testdata/src/fixture/fixture.h and fixture.cc; `go tool pprof`
# is the independent reader of both the dump and symprof's pprof output.
. "${SP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/helpers/cli_lib.sh"

fix=$tmp/fix
"$SP_SRCDIR/testdata/src/fixture/build.sh" "$fix" >"$tmp/build.log" 2>&1 ||
	{ sed 's/^/# /' "$tmp/build.log"; sp_bail "fixture does not build"; }

# Record the dumps.  The exact profile is the one HeapProfilerDump wrote (.0001).
record()
{
	sp_record_heap "$fix" "$1"
}
record fixture || sp_bail "fixture did not write a heap profile"
record fixture-nopie || sp_bail "fixture-nopie did not write a heap profile"
(cd "$fix" && env TCMALLOC_SAMPLE_PARAMETER=4096 FIXTURE_HEAP_SAMPLE="$tmp/sample.heap" \
	./fixture) >/dev/null 2>&1 || sp_bail "fixture did not write a heap sample"
sp_check "heapprofile dump has the heapprofile header" \
	grep -q '^heap profile: .*@ heapprofile$' "$tmp/fixture.heap"
sp_check "heap sample has the heap_v2/4096 header" \
	grep -q '^heap profile: .*@ heap_v2/4096$' "$tmp/sample.heap"

# Allocation sites: "count size folded-suffix" (fixture.h; the suffix is root-first and
# starts at main, except for the thread whose root is in libc).
sites="10 4096 ;main;fixture::alloc_in_main
5 4000 ;main;fixture::fill<int>
6 8000 ;main;fixture::fill<double>
3 12288 ;main;static_alloc
7 1000 ;main;fixture::outer;fixture::middle;fixture::inner_leaf
2 5000 ;main;(anonymous namespace)::helper
6 2048 ;main;fixshared::shared_alloc
4 3000 ;main;run_plugin;plugin_entry;fixplugin::plugin_work
9 1100 ;fixture::thread_main
16 65536 ;main;fixture::big_alloc"

# (a) the dump itself, read by go tool pprof: one sample per site, with
# alloc_objects alloc_space inuse_objects inuse_space = n, n*size, n, n*size.
check_dump_values()
{
	sp_run sp_gopprof -raw -symbolize=none "$tmp/$1.heap"
	if [ "$rc" -ne 0 ]; then
		sp_ok 1 "go tool pprof reads the $1 dump"
		sp_show_err
		return
	fi
	sp_ok 0 "go tool pprof reads the $1 dump"
	while read -r n size suffix; do
		b=$((n * size))
		grep -Eq "^ +$n +$b +$n +$b: " "$tmp/out"
		sp_ok $? "$1 dump: $suffix allocated $n x $size = $b bytes (go tool pprof)"
	done <<EOF
$sites
EOF
}

# (b) folded stacks with the exact byte values of every site.
check_folded()
{
	what=$1
	folded=$2
	while read -r n size suffix; do
		sp_expect_suffix "$folded" "$suffix $((n * size))" "$what: $suffix $((n * size))"
	done <<EOF
$sites
EOF
}

convert_folded()
{
	name=$1
	sp_run symprof convert --demangle templates "$tmp/$name.heap" -o "$tmp/$name.folded"
	sp_ok "$rc" "convert $name dump -o $name.folded exits 0" || sp_show_err
}

# (c) pprof output read back by go tool pprof.
check_pprof()
{
	name=$1
	sp_run symprof convert --demangle templates "$tmp/$name.heap" -o "$tmp/$name.pb.gz"
	sp_ok "$rc" "convert $name dump -o $name.pb.gz exits 0" || sp_show_err
	sp_check "$name.pb.gz is gzip" sh -c "gzip -t '$tmp/$name.pb.gz' 2>/dev/null"
	sp_run sp_gopprof -raw -symbolize=none "$tmp/$name.pb.gz"
	sp_ok "$rc" "go tool pprof -raw reads $name.pb.gz" || sp_show_err
	cp "$tmp/out" "$tmp/$name.raw"
	for f in fixture::alloc_in_main 'fixture::fill<int>' 'fixture::fill<double>' \
		static_alloc fixture::outer fixture::middle fixture::inner_leaf \
		'(anonymous namespace)::helper' fixshared::shared_alloc fixplugin::plugin_work \
		plugin_entry fixture::thread_main fixture::big_alloc; do
		grep -Fq -- " $f " "$tmp/$name.raw"
		sp_ok $? "$name.pb.gz: go tool pprof -raw shows $f"
	done
	grep -Eq '^ +10 +40960 +10 +40960: ' "$tmp/$name.raw"
	sp_ok $? "$name.pb.gz: go tool pprof -raw shows the alloc_in_main sample 10/40960"
	sp_run sp_gopprof -top -sample_index=inuse_space -symbolize=none "$tmp/$name.pb.gz"
	sp_ok "$rc" "go tool pprof -top reads $name.pb.gz" || sp_show_err
	grep -Fq 'fixture::big_alloc' "$tmp/out"
	sp_ok $? "$name.pb.gz: go tool pprof -top lists fixture::big_alloc"
}

if sp_have_go; then
	check_dump_values fixture
else
	sp_skip "go not installed: dump not checked with go tool pprof"
fi

convert_folded fixture
check_folded "PIE folded" "$tmp/fixture.folded"
sp_check "PIE folded: lines are 'stack value'" \
	awk 'NF < 2 || $NF !~ /^[0-9]+$/ { bad = 1 } END { exit bad || NR == 0 }' "$tmp/fixture.folded"
# pprof's allocator drop_frames (spec 1.4): nothing at or below malloc/new/tcmalloc.
alloc_rx='(^|;)(malloc|calloc|operator new|operator new\[\]|tc_[a-z_]+|tcmalloc::[^;]*)( [0-9]+$|;)'
no_alloc_frames()
{
	[ -s "$1" ] && ! grep -Eq "$alloc_rx" "$1"
}
sp_check "PIE folded: no allocator frame left (drop_frames)" no_alloc_frames "$tmp/fixture.folded"
sp_check "PIE folded: sorted" sh -c "LC_ALL=C sort -c '$tmp/fixture.folded' 2>/dev/null"

# Folded to stdout without -o, same bytes.
sp_run symprof convert --demangle templates "$tmp/fixture.heap"
sp_ok "$rc" "convert without -o exits 0"
cmp -s "$tmp/out" "$tmp/fixture.folded"
sp_ok $? "convert without -o writes the same folded stacks to stdout"

# Sample index (spec 1.3): by name, with the inuse_ prefix, and by number.
sp_run symprof convert --demangle templates --sample-index inuse_objects "$tmp/fixture.heap"
sp_expect_suffix "$tmp/out" ";main;fixture::alloc_in_main 10" "--sample-index inuse_objects counts objects"
# "objects" names no column of a four-column heap profile: only the inuse_
# prefix is optional (pprof's SampleIndexByName), so this is an error.
sp_run symprof convert --demangle templates --sample-index objects "$tmp/fixture.heap"
[ "$rc" -eq 1 ] && grep -q 'sample index objects not in the profile' "$tmp/err"
sp_ok $? "--sample-index objects is refused on alloc_/inuse_ columns"
sp_run symprof convert --demangle templates --sample-index 0 "$tmp/fixture.heap"
sp_expect_suffix "$tmp/out" ";main;fixture::big_alloc 16" "--sample-index 0 = alloc_objects"
sp_run symprof convert --demangle templates --sample-index 3 "$tmp/fixture.heap"
cmp -s "$tmp/out" "$tmp/fixture.folded"
sp_ok $? "--sample-index 3 = inuse_space = the default"

# Demangling and inlining options.
sp_run symprof convert --demangle templates --no-inline "$tmp/fixture.heap"
sp_expect_suffix "$tmp/out" ";main;fixture::outer 7000" "--no-inline: inline chain folded into outer"
sp_run symprof convert --demangle full "$tmp/fixture.heap"
grep -Fq 'fixture::fill<int>(int, int, int)' "$tmp/out"
sp_ok $? "--demangle full keeps parameter lists"
sp_run symprof convert --demangle none "$tmp/fixture.heap"
grep -Fq '_ZN7fixture4fillIiEEviii' "$tmp/out"
sp_ok $? "--demangle none keeps the mangled name"
# Frames are dropped by raw and demangled name alike: --demangle none keeps the
# same stacks (one line per site, the same values) and no allocator frame.
values() { awk '{ print $NF }' "$1" | sort -n; }
values "$tmp/out" >"$tmp/none.values"
values "$tmp/fixture.folded" >"$tmp/templates.values"
sp_check "--demangle none: the same stacks and values as the default" \
	cmp -s "$tmp/none.values" "$tmp/templates.values"
sp_check "--demangle none: no allocator frame left (_Znwm, malloc, tc_*)" sh -c \
	"! grep -Eq '(^|;)(malloc|calloc|_Znwm|_Znam|_ZnwmRKSt9nothrow_t|tc_[a-z_]+|_ZN8tcmalloc[^;]*)( [0-9]+\$|;)' '$tmp/out'"
# The default names functions as pprof does, without template arguments: the
# two instantiations of fixture::fill are one function, their sites one line.
fill_sum=$(echo "$sites" | awk '$3 ~ /;main;fixture::fill</ { s += $1 * $2 } END { print s }')
sp_run symprof convert "$tmp/fixture.heap"
sp_expect_suffix "$tmp/out" ";main;fixture::fill $fill_sum" \
	"default demangling: fill<int> and fill<double> are ;main;fixture::fill $fill_sum"
sp_check "default demangling: no template argument left" sh -c "! grep -q '<' '$tmp/out'"
sp_run symprof convert --demangle simple "$tmp/fixture.heap"
sp_expect_suffix "$tmp/out" ";main;fixture::fill $fill_sum" "--demangle simple is the default"

# --no-symbolize: every frame is its file's base name and the offset in that file, which
# addr2line (an independent reader) resolves in the PIE fixture, whose text segment's
# file offsets are its addresses.
sp_run symprof convert --demangle templates --no-symbolize "$tmp/fixture.heap"
sp_ok "$rc" "--no-symbolize exits 0"
sp_check "--no-symbolize: frames are FILE+0xOFFSET" \
	awk '{ n = split($1, f, ";"); for (i = 1; i <= n; i++) if (f[i] !~ /^[^;+ ]+\+0x[0-9a-f]+$/) bad = 1 }
		END { exit bad || NR == 0 }' "$tmp/out"
tr ' ;' '\n\n' <"$tmp/out" | sed -n 's/^fixture+0x\([0-9a-f]*\)$/\1/p' | sort -u |
	while read -r off; do printf '0x%x\n' $((0x$off - 1)); done >"$tmp/offsets"
addr2line -f -e "$fix/fixture" <"$tmp/offsets" | awk 'NR % 2' >"$tmp/offset-names"
sp_check "--no-symbolize: addr2line finds main and fixture::fill at the fixture's offsets" \
	sh -c "grep -qx main '$tmp/offset-names' && grep -q '^_ZN7fixture4fill' '$tmp/offset-names'"

if sp_have_go; then
	check_pprof fixture
fi

# (d) the -no-pie build.
if sp_have_go; then
	check_dump_values fixture-nopie
fi
convert_folded fixture-nopie
check_folded "no-PIE folded" "$tmp/fixture-nopie.folded"
if sp_have_go; then
	check_pprof fixture-nopie
fi

# heap_v2 sample: values are statistical; the heaviest stack is big_alloc's 1 MiB
# (each 64 KiB block is sampled with probability 1 - e^-16 at R = 4096).
sp_run symprof convert --demangle templates "$tmp/sample.heap" -o "$tmp/sample.folded"
sp_ok "$rc" "convert heap_v2 sample exits 0" || sp_show_err
heaviest=$(awk '$NF + 0 > max { max = $NF + 0; line = $0 } END { print line }' \
	"$tmp/sample.folded" 2>/dev/null)
sp_check "heap_v2: no allocator frame left (tc_*, tcmalloc::*)" no_alloc_frames "$tmp/sample.folded"
case $heaviest in
*";main;fixture::big_alloc "*) sp_ok 0 "heap_v2: heaviest stack is fixture::big_alloc" ;;
*) sp_ok 1 "heap_v2: heaviest stack is fixture::big_alloc"; sp_diag "got: $heaviest" ;;
esac
v=${heaviest##* }
[ -n "$v" ] && [ "$v" -ge 1000000 ] 2>/dev/null && [ "$v" -le 1100000 ]
sp_ok $? "heap_v2: big_alloc unsampled to about 1048576 bytes (got ${v:-nothing})"

if sp_have_go; then
	sp_run symprof convert --demangle templates "$tmp/sample.heap" -o "$tmp/sample.pb.gz"
	sp_run sp_gopprof -raw -symbolize=none "$tmp/sample.pb.gz"
	grep -q '^objects/count space/bytes' "$tmp/out" && grep -Fq ' fixture::big_alloc ' "$tmp/out"
	sp_ok $? "heap_v2: go tool pprof reads our pprof (objects, space; big_alloc)" || sp_show_err
fi

# --annotate marks inlined frames with _[i] (flamegraph.pl colours them apart).
sp_run symprof convert --demangle templates --annotate "$tmp/fixture.heap"
sp_expect_suffix "$tmp/out" ";main;fixture::outer;fixture::middle_[i];fixture::inner_leaf_[i] 7000" \
	"--annotate: inlined frames end in _[i]"
sp_expect_suffix "$tmp/out" ";main;fixture::alloc_in_main 40960" \
	"--annotate: frames that are not inlined are unmarked"

# (e) info: the main binary and both libraries, with their build ids and resolved counts.
sp_run symprof info "$tmp/fixture.heap"
sp_ok "$rc" "info exits 0" || sp_show_err
# Totals per sample type: the dump's header line holds them ("heap profile: inuse_objects:
# inuse_space [alloc_objects: alloc_space] @ heapprofile").
set -- $(sed -n '1s/^heap profile: *\([0-9]*\): *\([0-9]*\) \[ *\([0-9]*\): *\([0-9]*\)\].*/\3 \4 \1 \2/p' "$tmp/fixture.heap")
grep -qx "  totals: alloc_objects/count $1, alloc_space/bytes $2, inuse_objects/count $3, inuse_space/bytes $4" "$tmp/out"
sp_ok $? "info: totals per sample type as the dump's header ($*)" || grep totals "$tmp/out" | sed 's/^/#   /'
# Per mapping, the samples with a frame in it: the shared library and the plugin carry
# one allocation site each (fixture.h).
total=$4
for lib in "libfixshared.so 2048 6" "libfixplugin.so 3000 4"; do
	set -- $lib
	want=$(awk -v v=$(($2 * $3)) -v t="$total" 'BEGIN { printf "    samples: 1 of [0-9]+, inuse_space %d \\(%.2f%%\\)", v, 100 * v / t }')
	awk -v f="$fix/$1" '/^  mapping/ { on = index($0, f) > 0; next } on' "$tmp/out" | grep -Eqx "$want"
	sp_ok $? "info: $1 carries one sample, $(($2 * $3)) bytes in use" ||
		awk -v f="$fix/$1" '/^  mapping/ { on = index($0, f) > 0; next } on' "$tmp/out" | sed 's/^/#   /'
done
for f in "$fix/fixture" "$fix/libfixshared.so" "$fix/libfixplugin.so"; do
	grep -Fq -- "$f" "$tmp/out"
	sp_ok $? "info names $(basename "$f")"
	bid=$(readelf -n "$f" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
	if [ -n "$bid" ]; then
		grep -Fq -- "$bid" "$tmp/out"
		sp_ok $? "info shows the build id of $(basename "$f")"
	else
		sp_skip "no build id in $(basename "$f")"
	fi
done
n_full=$(grep -Eo 'resolved [0-9]+ of [0-9]+' "$tmp/out" | awk '$2 == $4 && $2 > 0' | wc -l)
[ "$n_full" -ge 3 ]
sp_ok $? "info: at least 3 mappings fully resolved (got $n_full)"
grep -vF "$tmp" "$tmp/out" | grep -iq 'heap' && grep -Fq 'inuse_space' "$tmp/out"
sp_ok $? "info shows the format and sample types"

# (f) determinism: same input, same bytes.
for ext in folded pb.gz; do
	sp_run symprof convert --demangle templates "$tmp/fixture.heap" -o "$tmp/again.$ext"
	cmp -s "$tmp/again.$ext" "$tmp/fixture.$ext"
	sp_ok $? "two conversions to .$ext give identical bytes"
done

# Files moved away: frames print as addresses and stderr says which mapping; the
# --binary-path and PPROF_BINARY_PATH searches find them again by name and build id.
mv "$fix" "$tmp/moved"
sp_run symprof convert --demangle templates "$tmp/fixture.heap" -o "$tmp/moved.folded"
sp_ok "$rc" "binaries missing: still exits 0"
grep -Eq '(^|;)\[fixture\] [0-9]+$' "$tmp/moved.folded" 2>/dev/null &&
	! grep -q 'fixture+0x' "$tmp/moved.folded"
sp_ok $? "binaries missing: unresolved frames print as one [fixture] frame"
sp_run symprof convert --addresses "$tmp/fixture.heap" -o "$tmp/moved.addr.folded"
grep -Eq '(^|;)fixture\+0x[0-9a-f]+ [0-9]+$' "$tmp/moved.addr.folded" 2>/dev/null
sp_ok $? "binaries missing, --addresses: unresolved frames print as fixture+0xOFFSET"
grep -Fq "$fix/fixture" "$tmp/err"
sp_ok $? "binaries missing: stderr names the unresolved main binary"
grep -F "$fix/fixture: " "$tmp/err" | grep -Fq '(file not found); fix: --binary-path DIR where the file is now (or --sysroot)'
sp_ok $? "binaries missing: the summary says --binary-path" || sp_show_err
# Another run of the same program loads it elsewhere (address-space randomisation):
# its unresolved stacks are the same lines, so runs merge.
(cd "$tmp/moved" && env HEAPPROFILE="$tmp/rerun" ./fixture) >/dev/null 2>&1
addrs() { grep -m 1 -o '@ 0x.*' "$1"; }
if [ ! -f "$tmp/rerun.0001.heap" ]; then
	sp_ok 1 "the fixture runs again from its new place"
elif [ "$(addrs "$tmp/rerun.0001.heap")" = "$(addrs "$tmp/fixture.heap")" ]; then
	sp_skip "the second run was loaded at the same addresses (no randomisation)"
else
	mv "$tmp/moved" "$tmp/away"
	sp_run symprof convert --demangle templates "$tmp/rerun.0001.heap" -o "$tmp/rerun.folded"
	mv "$tmp/away" "$tmp/moved"
	# (values differ where the path of the dlopen()ed library is copied)
	stacks() { awk '{ $NF = ""; print }' "$1"; }
	[ "$(stacks "$tmp/rerun.folded")" = "$(stacks "$tmp/moved.folded")" ]
	sp_ok $? "binaries missing: two runs at different addresses give the same stacks" ||
		diff "$tmp/moved.folded" "$tmp/rerun.folded" | head -n 6 | sed 's/^/#   /'
fi
sp_run symprof convert --demangle templates --binary-path "$tmp/moved" "$tmp/fixture.heap" -o "$tmp/bp.folded"
sp_ok "$rc" "--binary-path exits 0"
cmp -s "$tmp/bp.folded" "$tmp/fixture.folded"
sp_ok $? "--binary-path DIR: same folded stacks as with the files in place"
PPROF_BINARY_PATH=$tmp/moved
export PPROF_BINARY_PATH
sp_run symprof convert --demangle templates "$tmp/fixture.heap" -o "$tmp/env.folded"
unset PPROF_BINARY_PATH
cmp -s "$tmp/env.folded" "$tmp/fixture.folded"
sp_ok $? "PPROF_BINARY_PATH: same folded stacks as with the files in place"
mv "$tmp/moved" "$fix"

# (g) errors: exit 1, nothing written, an existing output untouched, no temporary left.
mkdir "$tmp/errout"
printf 'heap profile: 1: 8 [ 1: 8] @ heapprofile\n     1:        8 [     1:        8] @ 0xzz\n' \
	>"$tmp/bad.heap"
sp_run symprof convert --demangle templates "$tmp/bad.heap" -o "$tmp/errout/x.pb.gz"
[ "$rc" -eq 1 ]
sp_ok $? "bad input: exit status 1 (got $rc)"
grep -Fq "bad.heap" "$tmp/err"
sp_ok $? "bad input: stderr names the file"
[ ! -e "$tmp/errout/x.pb.gz" ]
sp_ok $? "bad input: no output file created"
echo keep >"$tmp/errout/old.folded"
sp_run symprof convert --demangle templates "$tmp/bad.heap" -o "$tmp/errout/old.folded"
[ "$rc" -eq 1 ] && [ "$(cat "$tmp/errout/old.folded")" = keep ]
sp_ok $? "bad input: an existing output file is left as it was"
[ "$(ls -A "$tmp/errout")" = old.folded ]
sp_ok $? "bad input: no temporary file left behind"
sp_run symprof convert --demangle templates "$tmp/no-such-file.heap" -o "$tmp/errout/y.folded"
[ "$rc" -eq 1 ] && [ ! -e "$tmp/errout/y.folded" ]
sp_ok $? "missing input: exit 1 and no output"
sp_run symprof convert --demangle templates --no-such-option "$tmp/fixture.heap"
[ "$rc" -eq 2 ]
sp_ok $? "unknown option: exit status 2 (got $rc)"
sp_run symprof convert --demangle templates --format nonsense "$tmp/fixture.heap"
[ "$rc" -eq 2 ]
sp_ok $? "unknown --format: exit status 2 (got $rc)"

sp_done
